"""What a follow-up measures, task by task: a contractor's agreement with researchers on a rubric's primary
dimension, and each rater effect a card can name that has a figure per task. Each measure is one named query giving
per contractor, rubric and day the number of tasks and the sum and sum of squares of the per-task figure (small
sufficient statistics, whatever the number of ratings), so any window's mean and variance come from sums of days."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import duckdb
import pandas as pd

from analytics.core.queries import Query
from analytics.effects import EFFECT_TITLES
from analytics.effects.verdicts import REPORT_EFFECTS
from analytics.store.derived.contractor_tasks import ORDERED

AGREEMENT = "agreement"
DAY_COLUMNS = ("rater_id", "rubric", "day", "n", "s1", "s2")


@dataclass(frozen=True)
class Measure:
    """One figure followed up: per-task SQL (rater_id, rubric, task_key, done_at, value over rows aliased `x` whose time
    column is `x.{time}`), its dimensions (a condition on the dimensions table; None: the whole rubric), which way
    is better (+1 up, -1 down, 0 toward the team) and how pages name it."""

    name: str
    title: str
    unit: str  # "share" or "seconds" or "levels"
    better: int
    task_sql: str
    dimensions: str | None


def _agreement_sql() -> str:
    """Per contractor and task: the share of their primary-dimension ratings' researcher pairs that agree exactly."""
    return """SELECT x.rater_id, x.rubric, x.task_key, min(x.submitted_at) AS done_at,
       avg(CASE WHEN x.value_index = x.reference_index THEN 1.0 ELSE 0.0 END) AS value
    FROM reference_pairs x JOIN dimensions d USING (rubric, dimension)
    WHERE d.is_primary AND x.role = 'contractor' AND {where}
    GROUP BY ALL"""


_SHIFT = f"""SELECT x.rater_id, x.rubric, x.task_key, min(x.submitted_at) AS done_at,
       sum(x.diff_sum) / sum(x.agree_n) AS value
    FROM contractor_tasks x JOIN dimensions d USING (rubric, dimension)
    WHERE {ORDERED} AND x.agree_n > 0 AND {{where}}
    GROUP BY ALL"""
_TIES = """SELECT x.rater_id, x.rubric, x.task_key, min(x.submitted_at) AS done_at,
       avg(CASE WHEN x.value_index * 2 = len(d.levels) - 1 THEN 1.0 ELSE 0.0 END) AS value
    FROM ratings x JOIN dimensions d USING (rubric, dimension)
    WHERE d.is_comparison AND len(d.levels) % 2 = 1 AND x.role = 'contractor' AND x.value_index IS NOT NULL
      AND {where}
    GROUP BY ALL"""
_HASTE = """SELECT x.rater_id, x.rubric, x.task_key, min(x.submitted_at) AS done_at, max(x.duration_s) AS value
    FROM rater_tasks x
    WHERE x.role = 'contractor' AND x.duration_s > 0 AND {where}
    GROUP BY ALL"""
_CONSENSUS = """SELECT x.rater_id, x.rubric, x.task_key, x.submitted_at AS done_at, x.agree_sum / x.agree_n AS value
    FROM contractor_rubric_tasks x
    WHERE x.agree_n > 0 AND {where}"""

_SHIFT_WORDS = "mean level minus the other contractors' mean on the same items"
MEASURES: dict[str, Measure] = {
    m.name: m
    for m in (
        Measure(AGREEMENT, "Agreement with researchers", "share", 1, _agreement_sql(), "is_primary"),
        Measure("leniency", EFFECT_TITLES["leniency"], "levels", -1, _SHIFT, ORDERED),
        Measure("severity", EFFECT_TITLES["severity"], "levels", 1, _SHIFT, ORDERED),
        Measure("leniency_or_severity", REPORT_EFFECTS["leniency_or_severity"], "levels", 0, _SHIFT, ORDERED),
        Measure("ties", EFFECT_TITLES["ties"], "share", -1, _TIES, "is_comparison AND len(levels) % 2 = 1"),
        Measure("haste", EFFECT_TITLES["haste"], "seconds", 1, _HASTE, None),
        Measure("drift", EFFECT_TITLES["drift"], "share", 1, _CONSENSUS, None),
    )
}
WHAT = {  # what each measure's per-task figure is, as docs and pages say it
    AGREEMENT: "share of the task's researcher labels on the primary dimension matched exactly",
    "leniency": _SHIFT_WORDS,
    "severity": _SHIFT_WORDS,
    "leniency_or_severity": _SHIFT_WORDS,
    "ties": "share of the task's comparisons rated at the scale's middle (equal)",
    "haste": "seconds spent on the task",
    "drift": "share of the other contractors' ratings of the same items matched exactly",
}
# A card names an effect by its title (feedback.export.display.effect_heading): the title back to the measure.
BY_TITLE = {m.title: m.name for m in MEASURES.values() if m.name != AGREEMENT}
NOT_FOLLOWED = ("position_bias", "central_tendency", "halo")  # no figure per task: their follow-up is agreement's


def day_sums_query(measure: Measure, start: dt.datetime, end: dt.datetime, rubric: str | None) -> Query:
    """Per contractor, rubric and day in [start, end): tasks, and the sum and sum of squares of the measure's
    per-task figure (DAY_COLUMNS)."""
    where = "x.submitted_at >= $start AND x.submitted_at < $end AND ($rubric IS NULL OR x.rubric = $rubric)"
    tasks = measure.task_sql.format(where=where + " AND NOT starts_with(x.rater_id, 'anon:')")
    return Query(
        f"followup_days_{measure.name}",
        f"""WITH tasks AS (
    {tasks})
SELECT rater_id, rubric, CAST(done_at AS DATE) AS day, count(*) AS n, sum(value) AS s1, sum(value * value) AS s2
FROM tasks WHERE value IS NOT NULL
GROUP BY ALL
ORDER BY ALL""",
        {"start": start, "end": end, "rubric": rubric},
    )


def day_sums(
    con: duckdb.DuckDBPyConnection, measure: Measure, start: dt.datetime, end: dt.datetime, rubric: str | None
) -> pd.DataFrame:
    """day_sums_query's rows."""
    return day_sums_query(measure, start, end, rubric).df(con)


def dimensions_of(con: duckdb.DuckDBPyConnection, measure: Measure) -> dict[str, str]:
    """Per rubric, the dimensions the measure reads, named and joined by ", " (none for a whole-rubric measure)."""
    if measure.dimensions is None:
        return {}
    rows = Query(
        f"followup_dimensions_{measure.name}",
        f"""SELECT rubric, string_agg(dimension, ', ' ORDER BY dimension) FROM dimensions
WHERE {measure.dimensions} GROUP BY rubric""",
    ).rows(con)
    return {str(r): str(d) for r, d in rows}
