"""Contractor-researcher disagreements and the side-by-side view of one case."""
