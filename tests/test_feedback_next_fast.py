"""Who needs feedback next computed in one pass (issue 50 item 9): the other contractors' median from
team_medians_each and each contractor's alarms, gaps and rules grouped once give the ranking the old definition
gave (team_medians once per contractor; the alarms, gaps and rules filtered once per contractor)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from analytics import agreement as ag
from analytics.agreement import team as tm
from analytics.alarms import budget
from analytics.core.filters import Filters
from analytics.describe.overview import rated_rubrics
from analytics.feedback import next as who_next
from analytics.feedback.scope import against_researchers, dimension_info, team_filter
from analytics.review import disagreements as dis

N_BOOT = 200
STAT = who_next.STATISTIC


def old_primary_agreement(con, filters: Filters) -> pd.DataFrame:
    """primary_agreement as it was: team_medians once per contractor."""
    f = team_filter(filters)
    primary = {(r, dis.primary_dimension(con, r)) for r in rated_rubrics(con, f)}
    dims = tuple(sorted({d for _, d in primary if d}))
    rows = ag.rater_agreement(con, against_researchers(f.but(dimensions=dims), N_BOOT, 0))
    keep = [(r, d) in primary for r, d in zip(rows["rubric"], rows["dimension"], strict=True)]
    rows = rows[pd.Series(keep, index=rows.index) & (rows["role"] == "contractor") & (rows["n_tasks"] > 0)]
    medians = [
        tm.team_medians(rows, (STAT,), (rater,), "others").assign(rater_id=rater) for rater in rows["rater_id"].unique()
    ]
    med = pd.concat(medians, ignore_index=True).rename(columns={STAT: "team_median"})
    out = rows[["rater_id", "rubric", "dimension", STAT, f"{STAT}_ci_high"]].rename(
        columns={f"{STAT}_ci_high": "upper"}
    )
    return out.merge(med[["rater_id", "rubric", "dimension", "team_median"]], how="left").reset_index(drop=True)


def old_row(rater: str, n_tasks: int, alerts: pd.DataFrame, gaps: pd.DataFrame, rules: pd.DataFrame, labels) -> dict:
    """_row as it was: the alarms, gaps and rules filtered for one contractor."""
    mine = alerts[alerts["rater_id"] == rater] if len(alerts) else alerts
    own = gaps[gaps["rater_id"] == rater]
    broken = int(rules.loc[rules["rater_id"] == rater, "rule_id"].nunique()) if len(rules) else 0
    below = int((own["upper"] < own["team_median"]).sum())
    alarms, other = old_alarm_reason(mine), old_other_reason(own, broken, labels)
    return {
        "rater_id": rater,
        "score": who_next.ALARM_WEIGHT * len(mine)
        + who_next.AGREEMENT_WEIGHT * below
        + min(broken, who_next.RULES_CAP),
        "alarms": len(mine),
        "alarm_reason": alarms,
        "other_reason": other,
        "reason": alarms or other,
        "n_tasks": n_tasks,
        "agreement_upper": float(own["upper"].min()) if own["upper"].notna().any() else math.nan,
    }


def old_alarm_reason(open_alarms: pd.DataFrame) -> str:
    """alarm_reason as it was: one comparison per kind."""
    if open_alarms.empty:
        return ""
    parts = []
    for kind in budget.KINDS:
        n = int((open_alarms["kind"] == kind).sum())
        if not n:
            continue
        if kind == "rule":
            parts.append(f"{who_next._plural(n, 'rubric rule')} broken more often than the team")
        elif kind == "drift":
            parts.append(f"drift in {who_next._plural(n, 'rubric')}")
        else:
            parts.append(f"{who_next.KIND_TITLES[kind].lower()} on {who_next._plural(n, 'dimension')}")
    return f"{who_next._plural(len(open_alarms), 'alarm')}: " + ", ".join(parts) + "."


def old_other_reason(gaps: pd.DataFrame, rules_broken: int, labels) -> str:
    """other_reason as it was: on the contractor's rows of primary_agreement."""
    parts = []
    below = gaps[gaps["upper"] < gaps["team_median"]]
    if len(below):
        worst = below.assign(gap=below["team_median"] - below["upper"]).sort_values("gap", ascending=False).iloc[0]
        label = labels.get((worst["rubric"], worst["dimension"]), worst["dimension"])
        more = f" (and on {who_next._plural(len(below) - 1, 'more dimension')})" if len(below) > 1 else ""
        parts.append(
            f"agreement with researchers on {label}, in {who_next.rubric_title(worst['rubric'])}, is at most "
            f"{worst['upper']:.0%} (95% bound), under the other contractors' median of {worst['team_median']:.0%}{more}"
        )
    if rules_broken:
        parts.append(
            f"broke {who_next._plural(rules_broken, 'rubric rule')} at least once, no more often than the team"
        )
    if not parts:
        return "Not an alarm: nothing stands out (agreement within the team's, no rubric rule broken)."
    return "Not an alarm: " + "; ".join(parts) + "."


def planted(contractors: list[str], seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Open alarms of every kind and rule rows (some broken, some not) spread over some of the contractors."""
    rng = np.random.default_rng(seed)
    some = rng.choice(contractors, size=len(contractors) // 2, replace=False)
    alerts = pd.DataFrame(
        {
            "rater_id": rng.choice(some, size=60),
            "kind": rng.choice(budget.KINDS, size=60),
            "acknowledged": False,
        }
    )
    rules = pd.DataFrame(
        {
            "rater_id": rng.choice(some, size=80),
            "rule_id": rng.choice([f"rule{i}" for i in range(12)], size=80),
            "n_violations": rng.integers(1, 4, size=80),
            "flagged": False,
        }
    )
    return alerts, rules


@pytest.mark.parametrize("filters", [Filters(), Filters(rubric="answer_comparison")], ids=["all", "one rubric"])
def test_primary_agreement_medians_equal_one_call_per_contractor(demo, filters: Filters) -> None:
    fast = who_next.primary_agreement(demo, filters, N_BOOT, 0)
    old = old_primary_agreement(demo, filters)
    assert len(fast) > 20 and fast["team_median"].notna().all()
    pd.testing.assert_frame_equal(fast, old, check_dtype=False)


@pytest.mark.parametrize("seed", range(3))
def test_rows_grouped_once_equal_one_filter_per_contractor(demo, seed: int) -> None:
    gaps = who_next.primary_agreement(demo, Filters(), N_BOOT, 0)
    tasks = who_next.contractor_tasks(demo, Filters())
    enough = tasks[tasks >= who_next.MIN_TASKS]
    alerts, rules = planted(sorted(enough.index), seed)
    info = dimension_info(demo, tuple(gaps["rubric"].unique()))
    labels = {
        (r, d): str(x) for r, d, x in zip(info["rubric"], info["dimension"], info["dimension_label"], strict=True)
    }
    fast = pd.DataFrame(who_next._rows(enough, alerts, gaps, rules, labels))
    old = pd.DataFrame([old_row(str(r), int(n), alerts, gaps, rules, labels) for r, n in enough.items()])
    assert (fast["alarms"] > 0).any() and (fast["alarms"] == 0).any()
    assert fast["other_reason"].str.contains("rule").any()
    assert fast["other_reason"].str.contains("agreement with researchers on").any()
    pd.testing.assert_frame_equal(fast, old)


def _distinct_tasks(con, filters: Filters) -> pd.Series:
    """Tasks per contractor counted on the ratings: distinct (task, rubric) under the filter's rubric, dates and
    raters."""
    where, params = filters.but(roles=(), dimensions=()).where_named()
    df = con.execute(
        f"""SELECT rater_id, count(DISTINCT (task_id, rubric)) AS n FROM ratings
            WHERE role = 'contractor' AND {where} GROUP BY rater_id ORDER BY rater_id""",
        params,
    ).df()
    return pd.Series(df["n"].to_numpy(dtype="int64"), index=df["rater_id"].astype(str), name="n_tasks")


def test_task_counts_count_a_task_rated_at_two_times_once(con) -> None:
    """contractor_tasks counts one row per task as it is and makes only tasks rated at several times distinct:
    the counts of distinct tasks on the ratings, under dates that keep one or both of a task's two times."""
    import datetime as dt

    from analytics.ingest.load import ingest_bytes
    from tests.test_reference_pairs import csv

    rows = [("t1", t, "c1", "contractor", "quality", "2", f"2026-03-{d:02d}") for t, d in (("A", 3), ("B", 12))]
    rows += [(f"t{i}", "A", c, "contractor", "quality", "3", "2026-03-05") for i in range(2, 6) for c in ("c1", "c2")]
    assert ingest_bytes(con, csv(rows), "two_times.csv").status == "loaded"
    for filters in (Filters(), Filters(date_from=dt.date(2026, 3, 10)), Filters(date_to=dt.date(2026, 3, 6))):
        got = who_next.contractor_tasks(con, filters)
        pd.testing.assert_series_equal(got, _distinct_tasks(con, filters), check_names=False)
    assert who_next.contractor_tasks(con, Filters()).to_dict() == {"c1": 5, "c2": 4}


def test_task_counts_on_the_demo_are_the_ratings_counts(demo) -> None:
    first = demo.execute("SELECT min(submitted_at) FROM ratings").fetchall()[0][0].date()
    import datetime as dt

    for filters in (Filters(), Filters(rubric="answer_comparison"), Filters(date_from=first + dt.timedelta(days=20))):
        got = who_next.contractor_tasks(demo, filters)
        pd.testing.assert_series_equal(got, _distinct_tasks(demo, filters), check_names=False)
