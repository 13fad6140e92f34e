"""The dashboard's analytics single out each contractor behaviour the demo simulator planted (truth.json of the
demo store built by the `demo_store` fixture: seed 7, demo/behaviours.py).

Researchers label a share of the tasks (calibration tasks, each given to many contractors), so each contractor
has some tens of tasks with a researcher; a typical contractor whose own small shift or noise happens to run
the same way can land among the planted ones. Where a test ranks contractors it says how much room it allows
and why.
"""

from __future__ import annotations

import pandas as pd
import pytest

from analytics.agreement import MIN_TASKS
from analytics.core.rubrics import RUBRICS
from analytics.describe import distributions as dist
from analytics.feedback import report as fr
from analytics.feedback import team as fteam

AC = "answer_comparison"
PRIMARY = "usefulness_comparison"
MIN_PAIRS = 30  # analytics.agreement.MIN_UNITS: below this a contractor's shift is too uncertain to rank


@pytest.fixture(scope="module")
def planted(truth) -> dict[str, list[str]]:
    """Planted behaviour -> its contractors, from the demo's truth.json."""
    return {name: b["raters"] for name, b in truth["behaviours"].items()}


@pytest.fixture(scope="module")
def team(demo):
    return fteam.team_figures(demo)


def _pooled_shift(con) -> pd.Series:
    """Per contractor: mean signed difference from researchers over every absolute ordinal dimension of the
    rubrics where leniency shows (Distributions' shift table, pooled by pairs), contractors with enough pairs."""
    frames = []
    for rubric in (AC, "instruction_following", "preference_ranking"):
        dims = dist.dimensions(con, rubric)
        absolute = dims.loc[~dims["is_comparison"] & (dims["kind"] == "ordinal"), "dimension"]
        shift = dist.shift_from_researchers(con, rubric)
        frames.append(shift[shift["dimension"].isin(absolute)])
    s = pd.concat(frames)
    pooled = s.assign(w=s["mean_difference"] * s["n_pairs"]).groupby("contractor_id")[["w", "n_pairs"]].sum()
    pooled = pooled[pooled["n_pairs"] >= MIN_PAIRS]
    return (pooled["w"] / pooled["n_pairs"]).sort_values(ascending=False)


def test_lenient_contractors_have_the_highest_shift_from_researchers(demo, planted):
    lenient = planted["lenient"]
    shift = _pooled_shift(demo)
    top = shift.index[: len(lenient) + 1].tolist()  # room for one typical contractor with a lucky run
    assert shift.index[0] in lenient, shift.head()
    assert set(lenient) <= set(top), shift.head(6)
    assert (shift[lenient] > 0.5).all()  # planted at about +1 level; clipping at the scale's top eats some


def test_severe_contractors_have_the_lowest_shift_from_researchers(demo, planted):
    severe = planted["severe"]
    shift = _pooled_shift(demo).sort_values()
    # Room for one: a fast and careless contractor's random clicks also pull its mean down.
    bottom = shift.index[: len(severe) + 1].tolist()
    assert shift.index[0] in severe, shift.head()
    assert set(severe) <= set(bottom), shift.head(6)
    assert (shift[severe] < -0.5).all()


def test_always_equal_contractors_use_equally_good_most(demo, planted):
    always = planted["always_equal"]
    table = dist.rater_level_table(demo, AC, PRIMARY)
    table = table[table["role"] == "contractor"].sort_values("Equally good", ascending=False)
    assert set(table["rater_id"].head(len(always))) == set(always)
    assert (table.set_index("rater_id").loc[always, "Equally good"] > 0.8).all()  # planted at 85% of comparisons


def test_first_position_contractors_top_the_position_bias_ranking(demo, planted):
    first = planted["first_position"]
    bias = dist.position_bias(demo, AC)
    bias = bias[(bias["dimension"] == PRIMARY) & ~bias["pooled"] & (bias["role"] == "contractor")]
    bias = bias.sort_values("share_first_better", ascending=False)
    assert set(bias["rater_id"].head(len(first))) == set(first)
    assert (bias.set_index("rater_id").loc[first, "ci_low"] > 0.5).all()  # the whole interval favours first


def test_fast_careless_contractors_are_fastest_and_agree_least(demo, planted, team):
    careless = planted["fast_careless"]
    medians = team.durations.groupby("rater_id")["median_s"].median().sort_values()
    assert set(medians.index[: len(careless)]) == set(careless)
    for rater in careless:
        rep = fr.feedback_report(demo, rater, team=team, n_boot=200)
        times = rep.durations.set_index("rubric")
        assert (times["ratio"] < 0.3).all(), times  # planted at 0.12 of normal durations
        primary = rep.card[(rep.card["rubric"] == AC) & rep.card["is_primary"]].iloc[0]
        assert primary["exact_agreement"] < primary["team_exact_agreement"], (rater, primary)


def test_drifting_contractors_agree_less_in_late_weeks(demo, planted, team, truth):
    start = pd.Timestamp(truth["start"])

    def pooled(weeks: pd.DataFrame) -> float:
        """Exact agreement over several weeks, each week weighted by its tasks (a week's figure is small n)."""
        return float((weeks["exact_agreement"] * weeks["n_tasks"]).sum() / weeks["n_tasks"].sum())

    for rater in planted["drifting"]:
        rep = fr.feedback_report(demo, rater, team=team, n_boot=200)
        trend = rep.trend.set_index("rubric").loc[AC]
        assert trend["late"] < trend["early"], (rater, trend)
        weekly = rep.weekly[rep.weekly["rubric"] == AC]
        week = (pd.to_datetime(weekly["week"]) - start).dt.days // 7
        # Drift starts in week 4 of 8 (behaviours.py, drift_from_week=3): the last three weeks sit below the
        # three before it starts. Pooled over weeks: one week holds a handful of a contractor's tasks with
        # researchers (the last one fewer still: researchers label two days after contractors).
        early, late = pooled(weekly[week.between(0, 2)]), pooled(weekly[week.between(5, 7)])
        assert late < early - 0.15, (rater, early, late, weekly)


def test_every_contractor_but_the_newcomers_is_ranked_on_each_projects_primary_dimension(truth, team):
    """Issue #12 part 6: enough tasks shared with researchers on the primary dimension to be ranked (MIN_TASKS,
    the Agreement page's small-n rule) for every contractor of a project but the newcomers (truth.json volume)."""
    newcomers = set(truth["volume"]["newcomers"]["raters"])
    rows = team.contractors
    for rubric, project in truth["volume"]["projects"].items():
        primary = rows[(rows["rubric"] == rubric) & (rows["dimension"] == RUBRICS[rubric].primary)]
        n_tasks = primary.set_index("rater_id")["n_tasks"]
        assert set(n_tasks[n_tasks >= MIN_TASKS].index) == set(project["contractors"]) - newcomers, rubric
        assert set(project["ranked"]) == set(project["contractors"]) - newcomers, rubric
    ac = rows[(rows["rubric"] == AC) & (rows["dimension"] == PRIMARY)].set_index("rater_id")["n_tasks"]
    assert newcomers and (ac[sorted(newcomers)] < MIN_TASKS).all(), ac[sorted(newcomers)]
    assert len(ac) == 40 and (ac >= MIN_TASKS).sum() == 40 - len(newcomers)
