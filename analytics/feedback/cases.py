"""A contractor's most severe disagreements with researchers (each with every researcher's rating of the unit), with
the task's question, the contractor's comment, the researcher's explanation and the review notes."""

from __future__ import annotations

import duckdb
import pandas as pd

from analytics.core.filters import Filters
from analytics.core.queries import Query
from analytics.feedback.scope import NO_FILTERS, contractor_rubrics, every_contractors_rubrics, team_filter
from analytics.review import disagreements as dis

MAX_CASES = 10  # most severe disagreements listed (every case with a review note is listed as well)
CASE_COLUMNS = (
    "rank",
    "rubric",
    "task_id",
    "dimension",
    "target",
    "severity",
    "steps",
    "contractor_id",
    "contractor_value",
    "researcher_id",
    "researcher_value",
    "researchers",  # every researcher's rating of the unit: "r1: Good; r2: Bad" (analytics.review.disagreements)
    "n_researchers",
    "submitted_at",
    "prompt",
    "contractor_comment",
    "researcher_explanation",
    "status",
    "note",
    "reviewer",
    "note_updated_at",
)


def severe_cases(
    con: duckdb.DuckDBPyConnection,
    contractor: str,
    filters: Filters = NO_FILTERS,
    rubric_names: tuple[str, ...] = (),
    limit: int = MAX_CASES,
) -> pd.DataFrame:
    """The contractor's most severe disagreements on each rubric's primary dimension (every rubric together,
    most severe first), plus every case a reviewer has noted, with the task question, the contractor's comment
    and the researcher's explanation (CASE_COLUMNS)."""
    rows = case_rows(con, (contractor,), filters, rubric_names or contractor_rubrics(con, contractor, filters))
    return cases_of(con, contractor, rows, limit)


def case_rows(
    con: duckdb.DuckDBPyConnection, contractors: tuple[str, ...], filters: Filters, rubric_names: tuple[str, ...]
) -> pd.DataFrame:
    """The disagreements of `contractors` on each rubric's primary dimension, one query per rubric for all of
    them (a case belongs to one contractor, so each one's rows are those they get alone), with `rubric`."""
    frames = [
        dis.disagreements(con, r, team_filter(filters), contractors=contractors).assign(rubric=r) for r in rubric_names
    ]
    frames = [f for f in frames if not f.empty]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["contractor_id", "rubric"])


def every_severe_cases(
    con: duckdb.DuckDBPyConnection, contractors: tuple[str, ...], filters: Filters, limit: int = MAX_CASES
) -> dict[str, pd.DataFrame]:
    """severe_cases of each of `contractors`: their disagreements from one query (case_rows)
    per rubric, ranked in one sort (by contractor first), the texts of every case read in one query."""
    every = case_rows(con, contractors, filters, every_contractors_rubrics(con, contractors, filters))
    if every.empty:
        return {c: pd.DataFrame(columns=list(CASE_COLUMNS)) for c in contractors}
    cases = _ranked(every, limit, ("contractor_id",))
    cases = cases.merge(_case_texts(con, cases), on=TEXT_KEYS, how="left")[list(CASE_COLUMNS)]
    ids = cases["contractor_id"].to_numpy(dtype=object)
    cuts = [0, *(i for i in range(1, len(ids)) if ids[i] != ids[i - 1]), len(ids)]  # rows are sorted by contractor
    by_rater = {str(ids[a]): cases.iloc[a:b].reset_index(drop=True) for a, b in zip(cuts, cuts[1:], strict=False)}
    return {c: by_rater[c] if c in by_rater else pd.DataFrame(columns=list(CASE_COLUMNS)) for c in contractors}


def cases_of(con: duckdb.DuckDBPyConnection, contractor: str, rows: pd.DataFrame, limit: int) -> pd.DataFrame:
    """severe_cases from the contractor's case_rows: most severe first, the first `limit` and every noted one,
    with the texts (CASE_COLUMNS)."""
    if rows.empty:
        return pd.DataFrame(columns=list(CASE_COLUMNS))
    cases = _ranked(rows.assign(contractor_id=contractor), limit)
    cases = cases.merge(_case_texts(con, cases), on=TEXT_KEYS, how="left")
    return cases[list(CASE_COLUMNS)]


def _ranked(rows: pd.DataFrame, limit: int, first: tuple[str, ...] = ()) -> pd.DataFrame:
    """Case rows most severe first, the first `limit` and every noted one, with their `rank` (`first`: columns to
    sort by before severity, each group of them ranked on its own)."""
    cases = rows.copy()
    cases["severity_rank"] = cases["severity"].map({s: i for i, s in enumerate(dis.SEVERITIES)})
    cases = cases.sort_values(
        [*first, "severity_rank", "steps", "submitted_at", "rubric", "task_id", "target", "researcher_id"],
        ascending=[*(True for _ in first), True, False, False, True, True, True, True],
        na_position="last",
    ).reset_index(drop=True)
    place = cases.groupby(list(first), sort=False).cumcount() if first else pd.Series(cases.index)
    noted = cases["note"].notna() | (cases["status"] != dis.NO_NOTE)
    cases = cases[(place < limit) | noted].reset_index(drop=True)
    cases["rank"] = cases.groupby(list(first), sort=False).cumcount() + 1 if first else range(1, len(cases) + 1)
    return cases


TEXT_KEYS = ["contractor_id", "rubric", "task_id", "dimension", "researcher_id"]  # a case's texts belong to these
CASE_TEXTS = Query(
    "case_texts",
    """WITH k AS (SELECT unnest($contractor_id) AS contractor_id, unnest($rubric) AS rubric,
                         unnest($task_id) AS task_id, unnest($dimension) AS dimension,
                         unnest($researcher_id) AS researcher_id),
            sub AS (SELECT s.task_id, s.rubric, s.rater_id,
                           concat_ws(chr(10), s.explanation, s.justification, s.comment) AS text
                    FROM submissions s JOIN (SELECT DISTINCT task_id, rubric FROM k) USING (task_id, rubric)),
            rc AS (SELECT r.task_id, r.rubric, r.dimension, r.rater_id,
                          string_agg(r.comment, chr(10) ORDER BY r.target) AS text
                   FROM ratings r JOIN (SELECT DISTINCT task_id, rubric, dimension FROM k)
                        USING (task_id, rubric, dimension)
                   WHERE r.comment IS NOT NULL GROUP BY ALL)
       SELECT k.contractor_id, k.rubric, k.task_id, k.dimension, k.researcher_id, t.prompt,
              nullif(concat_ws(chr(10), cs.text, cr.text), '') AS contractor_comment,
              nullif(concat_ws(chr(10), xs.text, xr.text), '') AS researcher_explanation
       FROM k
       LEFT JOIN tasks t USING (task_id, rubric)
       LEFT JOIN sub xs ON xs.task_id = k.task_id AND xs.rubric = k.rubric AND xs.rater_id = k.researcher_id
       LEFT JOIN rc xr ON xr.task_id = k.task_id AND xr.rubric = k.rubric AND xr.dimension = k.dimension
                      AND xr.rater_id = k.researcher_id
       LEFT JOIN sub cs ON cs.task_id = k.task_id AND cs.rubric = k.rubric AND cs.rater_id = k.contractor_id
       LEFT JOIN rc cr ON cr.task_id = k.task_id AND cr.rubric = k.rubric AND cr.dimension = k.dimension
                      AND cr.rater_id = k.contractor_id""",
)


def _case_texts(con: duckdb.DuckDBPyConnection, cases: pd.DataFrame) -> pd.DataFrame:
    """For each case (TEXT_KEYS): the task's question, the contractor's comments and the researcher's explanation
    (submission explanation, justification and comment, and their comment on the rated dimension)."""
    keys = cases[TEXT_KEYS].drop_duplicates()
    return CASE_TEXTS.bind(**{c: keys[c].astype(str).tolist() for c in keys.columns}).df(con)
