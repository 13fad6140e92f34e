"""The rater model (Dawid-Skene with researcher labels as truth) and the Raters page's figures."""
