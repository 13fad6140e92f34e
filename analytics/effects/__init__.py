"""Rater effects per contractor: estimates, empirical-Bayes shrinkage toward the team and the flag rule."""
