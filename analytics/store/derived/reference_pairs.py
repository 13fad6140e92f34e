"""Contractor-researcher pairs kept at ingest: the small table the contractor_vs_researcher figures read.

Researchers label a share of the tasks, so the pairs of a contractor rating and a researcher rating of the same
unit are a small fraction of all ratings (a tenth at 1M tasks in bench/). Every load adds the pairs its rows
make (its contractor ratings with every researcher rating of their unit, its researcher ratings with every
contractor rating), inside the load's transaction; an unload takes out the pairs either of whose ratings it
removes; a dimension whose stored ratings are re-read on a wider or declared scale has its pairs recomputed (the
positions moved). Each pair carries what the filters of analytics/agreement/sides.py read from the subject (contractor)
rating: rubric, dimension, rater, role and submission time. The reference label counts whatever its date.
"""

from __future__ import annotations

import duckdb

SUBJECT_ROLE, REFERENCE_ROLE = "contractor", "researcher"

CREATE = """CREATE TABLE reference_pairs (
    task_key INTEGER NOT NULL, dim_key INTEGER NOT NULL, target_key INTEGER NOT NULL,
    rater_key INTEGER NOT NULL, rater_id VARCHAR NOT NULL, role VARCHAR NOT NULL,
    rubric VARCHAR NOT NULL, dimension VARCHAR NOT NULL, submitted_at TIMESTAMP,
    value_index INTEGER NOT NULL, ingest_a INTEGER NOT NULL,
    reference_key INTEGER NOT NULL, reference_index INTEGER NOT NULL, reference_submitted_at TIMESTAMP,
    ingest_b INTEGER NOT NULL)"""


def _insert(subject: str, reference: str) -> str:
    """INSERT of the pairs of `subject` ratings with `reference` ratings (two conditions on the ratings table)."""
    return f"""INSERT INTO reference_pairs
SELECT s.task_key, s.dim_key, s.target_key, s.rater_key, s.rater_id, s.role, s.rubric, s.dimension,
       s.submitted_at, s.value_index, s.ingest_id, r.rater_key, r.value_index, r.submitted_at, r.ingest_id
FROM (SELECT * FROM ratings WHERE role = '{SUBJECT_ROLE}' AND value_index IS NOT NULL AND {subject}) s
JOIN (SELECT task_key, dim_key, target_key, rater_key, value_index, submitted_at, ingest_id FROM ratings
      WHERE role = '{REFERENCE_ROLE}' AND value_index IS NOT NULL AND {reference}) r
  USING (task_key, dim_key, target_key)"""


def task_agreement_sql(where: str, rater: str = "rater_key") -> str:
    """SQL of each contractor's (`rater`: rater_key or rater_id), rubric's and task's share of kept pairs (alias p)
    that agree exactly with the researcher label (`agreement`), over the pairs `where` selects."""
    return f"""SELECT p.{rater}, p.rubric, p.task_key,
           avg(CASE WHEN p.value_index = p.reference_index THEN 1.0 ELSE 0.0 END) AS agreement
    FROM reference_pairs p WHERE {where} GROUP BY ALL"""


def add_load(con: duckdb.DuckDBPyConnection, ingest_id: int) -> int:
    """Add the pairs the ratings of load `ingest_id` make (inside its transaction); return how many."""
    new_subjects = con.execute(_insert("ingest_id = $id", "TRUE"), {"id": ingest_id}).fetchall()[0][0]
    # its researcher labels with the contractor ratings of other loads (its own were paired just above)
    new_references = con.execute(_insert("ingest_id <> $id", "ingest_id = $id"), {"id": ingest_id}).fetchall()[0][0]
    return int(new_subjects) + int(new_references)


def remove_load(con: duckdb.DuckDBPyConnection, ingest_id: int) -> int:
    """Take out the pairs of which load `ingest_id` holds either rating (inside the unload's transaction)."""
    sql = "DELETE FROM reference_pairs WHERE ingest_a = $id OR ingest_b = $id"
    return int(con.execute(sql, {"id": ingest_id}).fetchall()[0][0])


def redo_loads(con: duckdb.DuckDBPyConnection, ingest_ids: list[int]) -> None:
    """Recompute the pairs of loads whose rows changed raters (a rater directory merged or split ids)."""
    if not ingest_ids:
        return
    p = {"ids": list(ingest_ids)}
    con.execute("DELETE FROM reference_pairs WHERE list_contains($ids, ingest_a) OR list_contains($ids, ingest_b)", p)
    con.execute(_insert("list_contains($ids, ingest_id)", "TRUE"), p)
    con.execute(_insert("NOT list_contains($ids, ingest_id)", "list_contains($ids, ingest_id)"), p)


def redo_dimension(con: duckdb.DuckDBPyConnection, rubric: str, dimension: str) -> None:
    """Recompute the pairs of one dimension whose stored ratings were re-read on a new scale (positions moved)."""
    p = {"rubric": rubric, "dimension": dimension}
    con.execute("DELETE FROM reference_pairs WHERE rubric = $rubric AND dimension = $dimension", p)
    con.execute(
        _insert("rubric = $rubric AND dimension = $dimension", "rubric = $rubric AND dimension = $dimension"), p
    )


def migration_statements() -> list[str]:
    """Migration 6: the table, filled from the ratings already stored."""
    return [CREATE, _insert("TRUE", "TRUE")]


def rebuild_statements() -> list[str]:
    """Migration 10: every pair again, for stores whose pairs kept old positions after a scale was widened or
    declared (before redo_dimension existed)."""
    return ["DELETE FROM reference_pairs", _insert("TRUE", "TRUE")]
