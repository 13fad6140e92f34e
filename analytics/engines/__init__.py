"""Engines other than DuckDB that compute the same figures (Spark)."""
