"""Consistency: the rubric documents rules checked on every submission (issue #14)."""
