"""Rule results kept per submission: the table's schema. The rubric documents' rules that fill it live in
analytics/consistency/ (results.py checks and refreshes them at load, unload and when the rules change)."""

from __future__ import annotations

MIGRATION = [
    """CREATE TABLE rule_results (
        rule_id VARCHAR NOT NULL, rubric VARCHAR NOT NULL, submission_id VARCHAR NOT NULL,
        violated BOOLEAN NOT NULL, detail VARCHAR, PRIMARY KEY (rule_id, submission_id))"""
]
