"""Where a contractor rated a unit of a rubric's dimension (the primary one unless another is chosen) on another
level than a researcher did, ranked by how much it matters, with everything a reviewer needs for one unit and the
reviewer's notes.

A case is one contractor rating: every researcher's rating of the same unit is inside it, whether it agrees or
not, and the case is listed when at least one of them is on another level. Its severity is that of its most severe
researcher (the case's `researcher_id`, shown beside the contractor first). The ratings are paired by the one
pairing (analytics.agreement.sides, contractor_vs_researcher); its filter rules apply (the rater filter chooses
whose cases are listed).

Severity follows the answer-comparison rubric's guidance on researcher-labeled tasks: disagreements about the
overall direction of a rating matter more than "good" vs "very good". Direction and steps come from the scale in
the store's `dimensions` table (the catalogue's levels and coarse mapping), never from rubric names.

Review notes are kept, never replaced: every save adds one, and a case's status is its latest note's (notes from
before migration 19, written against one researcher of a case, keep that researcher).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import duckdb
import pandas as pd
import pyarrow as pa  # type: ignore[import-untyped]  # no stubs (pyarrow-stubs is not a dependency)

from analytics import store
from analytics.agreement.pairing import case_pairs_query
from analytics.agreement.sides import Sides, comparison_sides
from analytics.core import rubrics
from analytics.core.filters import Filters
from analytics.core.queries import Query
from analytics.describe.distributions import NO_FILTERS, coarse_index_sql, dimension_order, side_sql
from analytics.store import tx

OPPOSITE, CATEGORY, TWO_STEPS, ONE_STEP, VERY = (
    "opposite direction",
    "different category",
    "two or more steps apart",
    "one step apart",
    "differs only in the very",
)
# Most severe first. "different category" is for unordered scales with more than two levels, where there is
# no direction; "one step apart" is an adjacent level across a coarse boundary (e.g. A better vs Equally good).
SEVERITIES = (OPPOSITE, CATEGORY, TWO_STEPS, ONE_STEP, VERY)
NOTE_STATUSES = ("open", "feedback given", "researcher was wrong", "guideline unclear")
NO_NOTE = "open"


@dataclass(frozen=True)
class CaseKey:
    """One case: a contractor's rating of one unit (task, target) of one dimension. `researcher_id` is the
    researcher shown beside the contractor first ("" for none); it is not part of the case's identity, which
    every researcher of the unit shares."""

    task_id: str
    rubric: str
    dimension: str
    target: str
    contractor_id: str
    researcher_id: str = field(default="", compare=False)

    def params(self) -> list[str]:
        """The case's identity as bound parameters in column order (the researcher is not part of it)."""
        return [self.task_id, self.rubric, self.dimension, self.target, self.contractor_id]

    def named(self) -> dict[str, str]:
        """The case's identity as named parameters."""
        return dict(zip(CASE_KEY, self.params(), strict=True))

    @classmethod
    def from_row(cls, row: pd.Series | dict) -> CaseKey:
        """The key of a row of `disagreements()`, with its most severe researcher."""
        return cls(*(str(row[k]) for k in (*CASE_KEY, "researcher_id")))


CASE_KEY = ("task_id", "rubric", "dimension", "target", "contractor_id")  # what identifies a case
PRIMARY_DIMENSION = Query(
    "primary_dimension",
    """SELECT dimension FROM dimensions WHERE rubric = $rubric
       ORDER BY is_primary DESC, kind IN ('ordinal', 'ranking') DESC, dimension LIMIT 1""",
)


def primary_dimension(con: duckdb.DuckDBPyConnection, rubric: str) -> str | None:
    """The rubric's primary dimension: the catalogue's, else the store's is_primary, else the first ordered one."""
    known = rubrics.get_rubric(rubric)
    if known is not None:
        return known.primary
    rows = PRIMARY_DIMENSION.bind(rubric=rubric).rows(con)
    return rows[0][0] if rows else None


def _severity_sql() -> str:
    """CASE expression naming the severity of a pair (contractor index ci, researcher index xi, scale d)."""
    return f"""CASE
        WHEN d.kind = 'nominal' AND len(d.levels) > 2 THEN '{CATEGORY}'
        WHEN {side_sql("ci")} * {side_sql("xi")} < 0 THEN '{OPPOSITE}'
        WHEN abs(ci - xi) >= 2 THEN '{TWO_STEPS}'
        WHEN {coarse_index_sql("ci")} = {coarse_index_sql("xi")} THEN '{VERY}'
        ELSE '{ONE_STEP}' END"""


def case_sides(filters: Filters, rubric: str, dimension: str | None) -> Sides:
    """The one pairing (analytics.agreement.sides) of contractors with researchers on one dimension: the rater
    filter chooses whose cases are listed (the contractor side), dates select the contractor's ratings
    (researcher labels count whatever their date) and the role filter is replaced by the comparison's roles."""
    return comparison_sides(filters.but(rubric=rubric, dimensions=(dimension,)), "contractor_vs_researcher")


def disagreements_query(
    sides: Sides,
    contractors: tuple[str, ...] = (),
    severities: tuple[str, ...] = (),
    statuses: tuple[str, ...] = (),
) -> Query:
    """The case list of `disagreements` as a named query over pairs.case_pairs_query: one row per contractor
    rating that some researcher rated on another level, with every researcher's rating of the unit."""
    pairs = case_pairs_query(sides, disagreeing=False)
    inner = pairs.sql.replace("\n", "\n        ")
    sev = ", ".join(f"('{s}', {i})" for i, s in enumerate(SEVERITIES, start=1))
    case = ", ".join(CASE_KEY)
    sql = f"""WITH d AS (SELECT * FROM dimensions WHERE rubric = $dis_rubric AND dimension = $dis_dimension),
     p AS (
        SELECT task_id, rubric, dimension, target, rater_a AS contractor_id, rater_b AS researcher_id,
               value_a AS contractor_value, value_b AS researcher_value, index_a AS ci, index_b AS xi,
               submitted_at_a AS submitted_at
        FROM (
        {inner}
        ) AS pairs
        WHERE len($dis_contractors) = 0 OR list_contains($dis_contractors, rater_a)),
     -- The severity of every pair of levels of the scale, once (the CASE reads the scale's lists: per pair of
     -- ratings it was most of the query at 1M tasks), then looked up per pair.
     lv AS (SELECT CAST(ci AS INTEGER) AS ci, CAST(xi AS INTEGER) AS xi, {_severity_sql()} AS level_severity
            FROM d, range(len(d.levels)) AS a(ci), range(len(d.levels)) AS b(xi)),
     s AS (SELECT p.*, abs(ci - xi) AS steps, CASE WHEN ci <> xi THEN lv.level_severity END AS severity
           FROM p LEFT JOIN lv USING (ci, xi)),
     r AS (SELECT s.*, sv.severity_rank,
                  row_number() OVER (PARTITION BY {case}
                                     ORDER BY sv.severity_rank NULLS LAST, s.steps DESC, s.researcher_id) AS place
           FROM s LEFT JOIN (VALUES {sev}) AS sv(severity, severity_rank) USING (severity)),
     c AS (SELECT {case},
                  string_agg(researcher_id || ': ' || researcher_value, '; ' ORDER BY researcher_id) AS researchers,
                  list(researcher_id ORDER BY researcher_id) AS researcher_ids,
                  list(researcher_value ORDER BY researcher_id) AS researcher_values,
                  count(*) AS n_researchers, count(severity) AS n_disagreeing
           FROM r GROUP BY {case} HAVING count(severity) > 0),
     latest AS (SELECT {case}, status, note, reviewer, updated_at FROM review_notes
                QUALIFY row_number() OVER (PARTITION BY {case} ORDER BY updated_at DESC, note_id DESC) = 1)
SELECT r.task_id, r.rubric, r.dimension, r.target, r.contractor_id, r.contractor_value,
       r.researcher_id, r.researcher_value, c.researchers, c.researcher_ids, c.researcher_values,
       c.n_researchers, c.n_disagreeing,
       r.severity, r.steps, r.submitted_at,
       coalesce(n.status, $dis_open) AS status, n.note, n.reviewer, n.updated_at AS note_updated_at
FROM r JOIN c USING ({case}) LEFT JOIN latest n USING ({case})
WHERE r.place = 1
  AND (len($dis_severities) = 0 OR list_contains($dis_severities, r.severity))
  AND (len($dis_statuses) = 0 OR list_contains($dis_statuses, coalesce(n.status, $dis_open)))
ORDER BY r.severity_rank, r.steps DESC, r.submitted_at DESC NULLS LAST, r.task_id, r.target, r.contractor_id"""
    params = {
        **pairs.params,
        "dis_rubric": sides.subject.rubric,
        "dis_dimension": sides.subject.dimensions[0],
        "dis_contractors": list(contractors),
        "dis_severities": list(severities),
        "dis_statuses": list(statuses),
        "dis_open": NO_NOTE,
    }
    return Query(f"disagreements_{sides.name}", sql, params)


def disagreements(
    con: duckdb.DuckDBPyConnection,
    rubric: str,
    filters: Filters = NO_FILTERS,
    contractors: tuple[str, ...] = (),
    severities: tuple[str, ...] = (),
    statuses: tuple[str, ...] = (),
    dimension: str | None = None,
) -> pd.DataFrame:
    """Contractor ratings of the primary dimension's units that a researcher rated on another level, one row per
    contractor rating (its most severe researcher in researcher_id and researcher_value, every researcher's
    rating in `researchers`: "r1: Good; r2: Bad", and as lists in researcher_ids and researcher_values), most
    severe first; n_researchers rated the unit, n_disagreeing of them on another level than the contractor.

    The pairs are the one pairing's (`case_sides`, analytics.agreement.sides): the sidebar's rater filter
    chooses whose disagreements are listed (contractors; a researcher in it does not widen or narrow the
    researcher side), dates apply to the contractor's rating, the role filter does not apply. `contractors`,
    `severities` and `statuses` (of the review note; "open" when there is none) narrow further."""
    dim = dimension or primary_dimension(con, rubric)
    for s in severities:
        if s not in SEVERITIES:
            raise ValueError(f"unknown severity {s!r}; choose from {', '.join(SEVERITIES)}")
    q = disagreements_query(case_sides(filters, rubric, dim), contractors, severities, statuses)
    df = q.df(con)
    df.insert(0, "rank", range(1, len(df) + 1))
    for column in ("researcher_ids", "researcher_values"):
        df[column] = arrow_text_lists(df[column])
    return df


def arrow_text_lists(column: pd.Series) -> pd.Series:
    """A column of text lists held as one Arrow list array (an element reads as a Python list): the page's cache
    pickles it as one buffer, where numpy arrays per row took 1.5 s to pickle and 0.8 s to read back for the 99,420
    cases of a 1M-task store (bench/RESULTS.md)."""
    lists = pa.array(column.tolist(), type=pa.list_(pa.string()))  # numpy arrays of text or lists, as given
    return pd.Series(pd.arrays.ArrowExtensionArray(lists), index=column.index, name=column.name)


def severity_counts(cases: pd.DataFrame) -> pd.DataFrame:
    """Cases per severity (every severity listed, most severe first)."""
    counts = cases["severity"].value_counts() if not cases.empty else pd.Series(dtype=int)
    return pd.DataFrame({"severity": SEVERITIES, "cases": [int(counts.get(s, 0)) for s in SEVERITIES]})


@dataclass(frozen=True)
class UnitDetail:
    """Everything a reviewer reads for one task: question, options, every rating, what each rater wrote."""

    task_id: str
    rubric: str
    prompt: str | None
    context: str | None
    task_metadata: str | None
    items: pd.DataFrame  # item_id, position, label, text, sources (plain text)
    ratings: pd.DataFrame  # long: rater_id, role, dimension, dimension_label, target, value, comment
    ratings_table: pd.DataFrame  # one row per dimension and target, one column per rater
    submissions: pd.DataFrame  # rater_id, role, status, reason, shown_first, comment, explanation, ...
    # (flags and details as "key: value" lines, flags_json and details_json as stored)
    notes: pd.DataFrame  # review notes on this task


TASK_TEXT = Query(
    "task_text",
    "SELECT prompt, context, CAST(metadata AS VARCHAR) FROM tasks WHERE task_id = $task_id AND rubric = $rubric",
)


def unit_detail(con: duckdb.DuckDBPyConnection, task_id: str, rubric: str) -> UnitDetail:
    """The task's text, options with sources, every rater's ratings on every dimension, and their comments."""
    task = TASK_TEXT.bind(task_id=task_id, rubric=rubric).rows(con)
    prompt, context, metadata = task[0] if task else (None, None, None)
    ratings = _unit_ratings(con, task_id, rubric)
    return UnitDetail(
        task_id=task_id,
        rubric=rubric,
        prompt=prompt,
        context=context,
        task_metadata=_plain(metadata),
        items=_unit_items(con, task_id, rubric),
        ratings=ratings,
        ratings_table=_ratings_table(ratings),
        submissions=_unit_submissions(con, task_id, rubric),
        notes=notes_for(con, task_id, rubric),
    )


TASK_ITEMS = Query(
    "task_items",
    """SELECT item_id, position, coalesce(label, item_id) AS label, text, CAST(sources AS VARCHAR) AS sources
       FROM task_items WHERE task_id = $task_id AND rubric = $rubric ORDER BY position NULLS LAST, item_id""",
)


def _unit_items(con: duckdb.DuckDBPyConnection, task_id: str, rubric: str) -> pd.DataFrame:
    """The task's options/responses/outputs in position order, sources as plain text."""
    df = TASK_ITEMS.bind(task_id=task_id, rubric=rubric).df(con)
    df["sources"] = df["sources"].map(sources_text)
    return df


TASK_RATINGS = Query(
    "task_ratings",
    """SELECT r.rater_id, r.role, r.dimension, coalesce(d.label, r.dimension) AS dimension_label, r.target,
              r.value, r.comment, r.submitted_at
       FROM ratings r LEFT JOIN dimensions d USING (rubric, dimension)
       WHERE r.task_id = $task_id AND r.rubric = $rubric
       ORDER BY list_position($dimension_order, r.dimension), r.dimension, r.target, r.role, r.rater_id""",
)


def _unit_ratings(con: duckdb.DuckDBPyConnection, task_id: str, rubric: str) -> pd.DataFrame:
    """Every rating of the task, dimensions in catalogue order, researchers after contractors."""
    return TASK_RATINGS.bind(task_id=task_id, rubric=rubric, dimension_order=dimension_order(con, rubric)).df(con)


def _ratings_table(ratings: pd.DataFrame) -> pd.DataFrame:
    """Ratings reshaped for reading: a row per dimension and target, a column per rater ("id (role)")."""
    if ratings.empty:
        return pd.DataFrame(columns=["dimension", "target"])
    df = ratings.assign(rater=ratings["rater_id"] + " (" + ratings["role"] + ")")
    raters = df.sort_values(["role", "rater_id"])["rater"].drop_duplicates().tolist()
    order = df[["dimension_label", "target"]].drop_duplicates()
    wide = df.pivot_table(index=["dimension_label", "target"], columns="rater", values="value", aggfunc="first")
    wide = wide.reindex(pd.MultiIndex.from_frame(order)).reindex(columns=raters).reset_index()
    wide.columns.name = None
    return wide.rename(columns={"dimension_label": "dimension"}).fillna("")


TASK_SUBMISSIONS = Query(
    "task_submissions",
    """WITH rc AS (SELECT rater_id, any_value(role) AS role,
                          string_agg(DISTINCT dimension || CASE WHEN target <> '' THEN ' (' || target || ')'
                                     ELSE '' END || ': ' || comment, '\n') AS rating_comments
                   FROM ratings WHERE task_id = $task_id AND rubric = $rubric GROUP BY rater_id)
       SELECT coalesce(s.rater_id, rc.rater_id) AS rater_id, coalesce(s.role, rc.role) AS role, s.status,
              s.reason, s.shown_first, s.submitted_at, s.duration_s, s.comment, rc.rating_comments,
              s.explanation, s.justification, CAST(s.flags AS VARCHAR) AS flags_json,
              CAST(s.details AS VARCHAR) AS details_json
       FROM (SELECT * FROM submissions WHERE task_id = $task_id AND rubric = $rubric) s
       FULL JOIN rc USING (rater_id)
       ORDER BY role, rater_id""",
)


def _unit_submissions(con: duckdb.DuckDBPyConnection, task_id: str, rubric: str) -> pd.DataFrame:
    """Each rater's submission text: comments (submission and rating level), explanation, justification."""
    df = TASK_SUBMISSIONS.bind(task_id=task_id, rubric=rubric).df(con)
    for col in ("flags", "details"):
        df[col] = df[f"{col}_json"].map(_plain)
    return df


def sources_text(sources_json: str | None) -> str:
    """Sources as plain text lines ("[n] title, domain: quote"); never a link to follow."""
    if not sources_json:
        return ""
    try:
        sources = json.loads(sources_json)
    except (ValueError, RecursionError):
        return str(sources_json)[:MAX_SHOWN_CHARS]
    if not isinstance(sources, list):
        return _plain(sources_json) or ""
    lines = []
    for i, s in enumerate(sources, start=1):
        if isinstance(s, dict):
            head = ", ".join(str(s[k]) for k in ("title", "domain", "url") if s.get(k))
            quote = f': "{s["quote"]}"' if s.get("quote") else ""
            rest = {k: v for k, v in s.items() if k not in ("n", "title", "domain", "url", "quote") and v is not None}
            tail = "".join(f" ({k}: {v})" for k, v in rest.items())
            lines.append(f"[{s.get('n', i)}] {head}{quote}{tail}")
        else:
            lines.append(f"[{i}] {s}")
    return "\n".join(lines)


def _plain(value: str | None) -> str | None:
    """JSON text as indented "key: value" lines (other text unchanged); None for empty."""
    if value is None or (isinstance(value, float) and pd.isna(value)) or value == "":
        return None
    try:
        parsed = json.loads(value)
    except (TypeError, ValueError):
        return str(value)
    except RecursionError:  # stored before ingest limited nesting (docs/limits.md): shown as the text it is
        return str(value)[:MAX_SHOWN_CHARS]
    lines = _lines(parsed, 0)
    return "\n".join(lines) or None


# Rendering stored JSON: levels shown before the rest is summarised, and the characters of unparsable text shown.
MAX_SHOWN_DEPTH = 12
MAX_SHOWN_CHARS = 20_000


def _lines(obj: object, depth: int) -> list[str]:
    """Nested JSON as indented "key: value" and "- item" lines, empty values left out.

    Iterative (an explicit stack, not recursion) and cut at MAX_SHOWN_DEPTH levels, so no stored value, however
    deep, can exhaust the stack of the page that shows it."""
    out: list[str] = []
    # Work items: ("line", text) to emit, or ("node", value, depth, list item?) to expand; last pushed runs first.
    stack: list[tuple] = [("node", obj, depth)]
    while stack:
        item = stack.pop()
        if item[0] == "line":
            out.append(item[1])
            continue
        _, node, d = item
        pad = "  " * d
        if isinstance(node, dict | list) and d > depth + MAX_SHOWN_DEPTH:
            out.append(f"{pad}(nested deeper than {MAX_SHOWN_DEPTH} levels, not shown)")
            continue
        todo: list[tuple] = []
        if isinstance(node, dict):
            for k, v in node.items():
                if v is None or v == [] or v == {}:
                    continue
                if isinstance(v, dict | list):
                    todo += [("line", f"{pad}{k}:"), ("node", v, d + 1)]
                else:
                    todo.append(("line", f"{pad}{k}: {v}"))
        elif isinstance(node, list):
            for v in node:
                todo.append(("node", v, d) if isinstance(v, dict | list) else ("line", f"{pad}- {v}"))
        else:
            todo.append(("line", f"{pad}{node}"))
        stack.extend(reversed(todo))
    return out


REVIEW_NOTE_SAVE = Query(
    "review_note_save",
    """INSERT INTO review_notes
       (note_id, task_id, rubric, dimension, target, contractor_id, researcher_id, status, note, reviewer, updated_at)
       SELECT coalesce(max(note_id), 0) + 1, $task_id, $rubric, $dimension, $target, $contractor_id, NULL, $status,
              $note, $reviewer, current_timestamp
       FROM review_notes""",
)


def save_note(con: duckdb.DuckDBPyConnection, key: CaseKey, status: str, note: str = "", reviewer: str = "") -> None:
    """Add a review note to one case (its status becomes the case's; earlier notes are kept), and mark the data
    as changed."""
    if status not in NOTE_STATUSES:
        raise ValueError(f"review note status {status!r} is not one of {', '.join(NOTE_STATUSES)}")
    with tx.write(con):  # writes queue (one writer at a time), so simultaneous saves never fail each other
        REVIEW_NOTE_SAVE.bind(
            **key.named(), status=status, note=note.strip() or None, reviewer=reviewer.strip() or None
        ).run(con)
        store.bump_version(con)


REVIEW_NOTES = Query(
    "review_notes",
    """SELECT task_id, rubric, dimension, target, contractor_id, researcher_id, status, note, reviewer,
              updated_at
       FROM review_notes
       WHERE ($task_id IS NULL OR task_id = $task_id) AND ($rubric IS NULL OR rubric = $rubric)
         AND ($dimension IS NULL OR (dimension = $dimension AND target = $target AND contractor_id = $contractor_id))
       ORDER BY updated_at DESC, note_id DESC""",
)


def notes_for(
    con: duckdb.DuckDBPyConnection, task_id: str | None = None, rubric: str | None = None, key: CaseKey | None = None
) -> pd.DataFrame:
    """Review notes, newest first: of one case (`key`), of one task, of a rubric, or all. researcher_id is the
    researcher a note from before migration 19 was written against (None for a note on the whole case)."""
    named: dict[str, str | None] = dict(key.named()) if key else dict.fromkeys(CASE_KEY)
    if key is None:
        named.update(task_id=task_id, rubric=rubric)
    return REVIEW_NOTES.bind(**named).df(con)
