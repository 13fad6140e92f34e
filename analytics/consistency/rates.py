"""Violation rates of the rubric rules: per rule, per contractor and rule (with intervals and the flag), per week.

The alarm test (for every rule that flags): the one-sided p-value of Fisher's exact test that a contractor breaks
the rule more often than the rest of the team (every other contractor under the same filters, pooled), exact at any
number of submissions, so 23 breaks in 23 is credible and 2 in 2 is not. `flagged` is decided by the alarm layer
from every test of the review under one false-alarm budget (analytics/alarms/budget.py); it is False until then.
Shown beside it: the rate's Wilson interval and the 95% interval of the difference from the team's (Newcombe's hybrid
score interval, Newcombe 1998 method 10). Label positions of files without rater ids are nobody and left out.
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb
import numpy as np
import pandas as pd

from analytics.agreement import intervals as iv
from analytics.agreement.contract import records
from analytics.agreement.rows import MIN_TASKS
from analytics.consistency import catalogue, results
from analytics.core import rater_ids as an
from analytics.core import significance, stats
from analytics.core.filters import NO_FILTERS, Filters
from analytics.core.queries import Query, run
from analytics.review.disagreements import CaseKey

RULE_COLUMNS = ("rule_id", "rubric", "description", "n_checked", "n_violations")
RULE_TABLE = (*RULE_COLUMNS, "rate", "rate_ci_low", "rate_ci_high", "flags")
RATER_COLUMNS = (
    "rater_id",
    "rule_id",
    "n_checked",
    "n_violations",
    "rate",
    "rate_ci_low",
    "rate_ci_high",
    "team_rate",
    "team_checked",
    "difference_ci_low",
    "difference_ci_high",
    "small_n",
    "p_value",
    "flagged",
)
VIOLATION_COLUMNS = ("rule_id", "rater_id", "task_id", "detail")


@dataclass(frozen=True)
class Consistency:
    """Every figure of the rules under one filter, and the queries that made them."""

    rules: pd.DataFrame  # RULE_TABLE: counts, the rate with its Wilson interval, whether the rule flags
    raters: pd.DataFrame  # RATER_COLUMNS
    violations: pd.DataFrame  # VIOLATION_COLUMNS + rubric, role, submission_id, submitted_at
    weekly: pd.DataFrame  # week, rubric, n_checked, n_violating, share, share_ci_low, share_ci_high
    queries: tuple[Query, ...]


def _where(filters: Filters) -> tuple[str, dict]:
    """The filter on submissions (alias s): rubric, role, rater and dates; dimensions do not apply."""
    return filters.but(dimensions=()).where_named("s")


def counts_query(filters: Filters, source: str = "rule_results") -> Query:
    """Checked and violating submissions per rule, rater and role under the filters."""
    where, params = _where(filters)
    return Query(
        "rule_counts",
        f"""SELECT r.rule_id, s.rater_id, s.role, count(*) AS n_checked,
       count(*) FILTER (WHERE r.violated) AS n_violations
FROM {source} r JOIN submissions s USING (submission_id)
WHERE {where}
GROUP BY ALL""",
        params,
    )


def violations_query(filters: Filters, source: str = "rule_results") -> Query:
    """Every violation under the filters, newest first."""
    where, params = _where(filters)
    return Query(
        "rule_violations",
        f"""SELECT r.rule_id, s.rater_id, s.task_id, r.detail, r.rubric, s.role, r.submission_id, s.submitted_at
FROM {source} r JOIN submissions s USING (submission_id)
WHERE r.violated AND {where}
ORDER BY s.submitted_at DESC NULLS LAST, r.rule_id, s.rater_id, s.task_id""",
        params,
    )


def weekly_query(filters: Filters, flagging: list[str], source: str = "rule_results") -> Query:
    """Per week and rubric, submissions some flagging rule checked and those breaking at least one."""
    where, params = _where(filters)
    return Query(
        "rule_weekly",
        f"""SELECT date_trunc('week', s.submitted_at) AS week, r.rubric, count(DISTINCT r.submission_id) AS n_checked,
       count(DISTINCT r.submission_id) FILTER (WHERE r.violated) AS n_violating
FROM {source} r JOIN submissions s USING (submission_id)
WHERE list_contains($flagging, r.rule_id) AND s.submitted_at IS NOT NULL AND {where}
GROUP BY ALL
ORDER BY week, r.rubric""",
        {**params, "flagging": flagging},
    )


def consistency(con: duckdb.DuckDBPyConnection, filters: Filters = NO_FILTERS) -> Consistency:
    """Rules, contractors' rates with flags, violations and the weekly share of submissions breaking a rule."""
    source = results.source(con)
    rules = catalogue.rules()
    queries: list[Query] = []
    counts = run(con, counts_query(filters, source), queries)
    violations = run(con, violations_query(filters, source), queries)
    weekly = run(con, weekly_query(filters, [r.rule_id for r in rules if r.flags], source), queries)
    return Consistency(
        rules=rule_table(counts, rules),
        raters=rater_table(counts, rules),
        violations=violations,
        weekly=_with_share(weekly),
        queries=tuple(queries),
    )


def weekly_share(con: duckdb.DuckDBPyConnection, filters: Filters = NO_FILTERS) -> pd.DataFrame:
    """Per week and rubric, the share of checked submissions breaking at least one flagging rule (Overview)."""
    source = results.source(con)
    flagging = [r.rule_id for r in catalogue.rules() if r.flags]
    return _with_share(weekly_query(filters, flagging, source).df(con))


def rule_table(counts: pd.DataFrame, rules: tuple[catalogue.Rule, ...]) -> pd.DataFrame:
    """Per rule (every role): submissions checked and breaking it; rules nothing was checked against stay."""
    sums = counts.groupby("rule_id")[["n_checked", "n_violations"]].sum() if len(counts) else pd.DataFrame()
    by_rule = {
        str(k): (int(n), int(v))
        for k, n, v in zip(sums.index, sums.get("n_checked", []), sums.get("n_violations", []), strict=True)
    }
    rows = []
    for r in rules:
        n, v = by_rule.get(r.rule_id, (0, 0))
        rows.append(
            {
                "rule_id": r.rule_id,
                "rubric": r.rubric,
                "description": r.description,
                "n_checked": int(n),
                "n_violations": int(v),
            }
        )
    out = pd.DataFrame(rows, columns=list(RULE_COLUMNS))
    out["rate"] = out["n_violations"] / out["n_checked"].where(out["n_checked"] > 0)
    bounds = [stats.wilson(p, n) for p, n in zip(out["rate"], out["n_checked"], strict=True)]
    out["rate_ci_low"], out["rate_ci_high"] = [b[0] for b in bounds], [b[1] for b in bounds]
    out["flags"] = [r.flags for r in rules]
    return out


def rater_table(counts: pd.DataFrame, rules: tuple[catalogue.Rule, ...]) -> pd.DataFrame:
    """Per contractor and rule: rate with its Wilson interval, the team's rate and the flag (module docstring)."""
    people = (
        counts[(counts["role"] == "contractor") & ~counts["rater_id"].map(an.is_anonymous)] if len(counts) else counts
    )
    order = {r.rule_id: i for i, r in enumerate(rules)}
    if not len(people):
        return pd.DataFrame(columns=list(RATER_COLUMNS))
    # Arrays, not a row at a time: the same IEEE operations in the same order as stats.wilson and
    # intervals.newcombe on floats (so the same figures to the last bit), 0.06 s less of every review on the demo.
    rule = people["rule_id"].astype(str).to_numpy(dtype=object)
    n = people["n_checked"].to_numpy().astype(np.int64)
    v = people["n_violations"].to_numpy().astype(np.int64)
    by_rule = people.groupby("rule_id", sort=False)
    team_n = by_rule["n_checked"].transform("sum").to_numpy().astype(np.int64) - n
    team_v = by_rule["n_violations"].transform("sum").to_numpy().astype(np.int64) - v
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = np.where(n > 0, v / np.where(n > 0, n, 1), np.nan)
        team = np.where(team_n > 0, team_v / np.where(team_n > 0, team_n, 1), np.nan)
        low, high = stats.wilson_bounds(rate, n)
    d_low, d_high = iv.newcombe_bounds(team, team_n, rate, n)
    tested = np.array([bool(flags) for flags in map({r.rule_id: r.flags for r in rules}.get, rule)], dtype=bool)
    out = pd.DataFrame(
        {
            "rater_id": people["rater_id"].astype(str).to_numpy(dtype=object),
            "rule_id": rule,
            "n_checked": n,
            "n_violations": v,
            "rate": rate,
            "rate_ci_low": low,
            "rate_ci_high": high,
            "team_rate": team,
            "team_checked": team_n,
            "difference_ci_low": d_low,
            "difference_ci_high": d_high,
            "small_n": n < MIN_TASKS,  # shown as a caution; the test needs no floor
            "p_value": fisher_p_values(v, n, team_v, team_n, tested),
            "flagged": False,
        },
        columns=list(RATER_COLUMNS),
    )
    return out.sort_values(
        ["rule_id", "rater_id"], key=lambda c: c.map(order) if c.name == "rule_id" else c, ignore_index=True
    )


def fisher_p_values(
    v: np.ndarray, n: np.ndarray, team_v: np.ndarray, team_n: np.ndarray, tested: np.ndarray
) -> np.ndarray:
    """significance.fisher_p_value(v, n, team_v, team_n) of every element in one vectorised call (one call per row
    was about 0.1 s of every review on the demo), the same hypergeometric tail to the last bit; NaN where not
    `tested` (a rule that never flags) or where either side has no submission."""
    out = np.full(len(v), np.nan)
    at = tested & (n > 0) & (team_n > 0)
    if at.any():
        out[at] = significance.hypergeom_sf(v[at] - 1, n[at] + team_n[at], v[at] + team_v[at], n[at])
    return out


def _with_share(weekly: pd.DataFrame) -> pd.DataFrame:
    """The weekly counts with the share breaking a rule and its Wilson interval."""
    out = weekly.copy()
    share = out["n_violating"] / out["n_checked"].where(out["n_checked"] > 0)
    bounds = [stats.wilson(p, n) for p, n in zip(share, out["n_checked"], strict=True)]
    out["share"] = share
    out["share_ci_low"] = [b[0] for b in bounds]
    out["share_ci_high"] = [b[1] for b in bounds]
    return out


def case_query(rubric: str, task_id: str) -> Query:
    """The researchers who rated a task, first by id: the one shown beside a submission that broke a rule."""
    return Query(
        "rule_case_researcher",
        """SELECT DISTINCT rater_id FROM submissions
WHERE rubric = $rubric AND task_id = $task_id AND role = 'researcher' AND status = 'rated'
ORDER BY rater_id""",
        {"rubric": rubric, "task_id": task_id},
    )


def case_key(con: duckdb.DuckDBPyConnection, rubric: str, task_id: str, rater_id: str) -> CaseKey:
    """A submission opened side by side: its rater as the contractor beside the task's first researcher (""
    when no researcher rated the task)."""
    researchers = case_query(rubric, task_id).rows(con)
    return CaseKey(task_id, rubric, "", "", rater_id, str(researchers[0][0]) if researchers else "")


def contract_payload(c: Consistency) -> dict:
    """The `consistency --json` document: rules, raters and violations (issue #14's contract)."""
    raters = ["rater_id", "rule_id", "n_checked", "n_violations", "rate", "rate_ci_low", "rate_ci_high", "flagged"]
    return {
        "rules": records(c.rules[list(RULE_COLUMNS)]),
        "raters": records(c.raters[raters]),
        "violations": records(c.violations[list(VIOLATION_COLUMNS)]),
    }
