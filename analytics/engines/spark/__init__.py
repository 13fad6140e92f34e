"""The optional Spark engine (`agreement --engine spark`): the named queries run where the ratings live.

dialect.py turns the DuckDB SQL of the named queries into Spark SQL (one definition per query), session.py starts
or reaches Spark with errors a person can act on, engine.py reads the ratings on Spark and routes each query to
the engine holding its tables. docs/scale-out.md says how to deploy it and what runs where.
"""
