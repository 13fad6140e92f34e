"""Rater effects (analytics/effects): each estimator on hand-made rows with hand-computed values, and on the demo
every planted behaviour found by its effect with no careful or typical contractor flagged."""

from __future__ import annotations

import datetime as dt
import math

import pandas as pd
import pytest

from analytics import effects
from analytics.agreement.rows import MIN_TASKS
from analytics.alarms import review
from analytics.core.filters import NO_FILTERS, Filters
from analytics.describe.overview import rated_rubrics
from analytics.effects import choices, drift, haste, levels
from analytics.effects.rows import share_means, share_se, task_means
from analytics.ingest.load import ingest_bytes

# truth.json behaviour -> the effect that must flag it (central tendency and halo are not planted).
PLANTED = {
    "lenient": "leniency",
    "severe": "severity",
    "always_equal": "ties",
    "first_position": "position_bias",
    "fast_careless": "haste",
    "drifting": "drift",
}


def test_task_means_cluster_by_task():
    """Two tasks with per-task values 1 and 3: mean 2, sd sqrt(2), se sqrt(2)/sqrt(2) = 1, n 2."""
    rows = task_means(pd.DataFrame({"rater_id": "c1", "rubric": "r", "dimension": "d", "x": [1.0, 3.0]}), "x")
    assert rows.iloc[0][["raw", "se", "n_tasks"]].tolist() == pytest.approx([2.0, 1.0, 2])


def test_a_constant_share_keeps_a_positive_standard_error():
    """30 tasks all with share 1: no task-level spread, so the add-half one, sqrt(p (1 - p) / 31) with
    p = 30.5 / 31; a share that varies keeps its task-clustered one (tasks 0 and 1: se 0.5, above the floor)."""
    rows = share_means(pd.DataFrame({"rater_id": "c1", "rubric": "r", "dimension": "d", "x": [1.0] * 30}), "x")
    p = 30.5 / 31
    assert rows.iloc[0]["se"] == pytest.approx(math.sqrt(p * (1 - p) / 31))
    varied = share_means(pd.DataFrame({"rater_id": "c1", "rubric": "r", "dimension": "d", "x": [0.0, 1.0]}), "x")
    assert varied.iloc[0]["se"] == pytest.approx(0.5)


def test_leniency_from_researchers_by_hand():
    """30 tasks: the contractor is one level above the researcher on 20 and level on 10: +2/3 per task; the
    researchers basis is used (30 shared tasks), and severity is the same estimate flagged on the low side."""
    diffs = pd.DataFrame(
        {
            "rater_id": "c1",
            "rubric": "r",
            "dimension": "d",
            "task_key": range(30),
            "difference": [1.0] * 20 + [0.0] * 10,
        }
    )
    no_team = pd.DataFrame(columns=["rater_id", "rubric", "dimension", "raw", "se", "n_tasks"])
    rows = levels.shift_rows(task_means(diffs, "difference"), no_team)
    assert set(rows["effect"]) == {"leniency", "severity"}
    lenient = rows[rows["effect"] == "leniency"].iloc[0]
    assert lenient["raw"] == pytest.approx(2 / 3)
    assert lenient["se"] == pytest.approx(pd.Series([1.0] * 20 + [0.0] * 10).std() / math.sqrt(30))
    assert lenient["basis"] == "researchers"
    assert rows.loc[rows["effect"] == "severity", "bad_side"].iloc[0] == "low"


def test_the_researcher_shift_aggregated_in_sql_equals_task_means_of_the_pairs_in_pandas(demo):
    """researcher_shift_query's rows (per contractor and ordered dimension, over tasks) equal task_means of each
    task's mean value difference from the researchers, computed in pandas from the ratings and the scales."""
    r = demo.execute(
        """SELECT r.task_id, r.rubric, r.dimension, r.target, r.rater_id, r.role, r.value_index,
                  coalesce(d.level_values[r.value_index + 1], r.value_index) AS v
           FROM ratings r JOIN dimensions d USING (rubric, dimension)
           WHERE r.value_index IS NOT NULL AND NOT d.is_comparison AND d.measure <> 'nominal'
             AND d.kind <> 'ranking' AND len(d.levels) >= 3"""
    ).df()
    unit = ["task_id", "rubric", "dimension", "target"]
    c = r[(r["role"] == "contractor") & ~r["rater_id"].str.startswith("anon:")]
    pairs = c.merge(r[r["role"] == "researcher"][[*unit, "v"]], on=unit, suffixes=("", "_ref"))
    pairs["difference"] = pairs["v"] - pairs["v_ref"]
    per_task = pairs.groupby(["rater_id", "rubric", "dimension", "task_id"])["difference"].mean().reset_index()
    want = task_means(per_task, "difference")
    got = levels.researcher_shift_query(NO_FILTERS).df(demo)
    assert len(want) > 20
    pd.testing.assert_frame_equal(got[list(want.columns)], want, check_dtype=False, rtol=1e-9)


LEVELS = ["Very bad", "Bad", "Neutral", "Good", "Very good"]


@pytest.fixture
def rated(con):
    """Answer comparison, answer A, three ordered dimensions: c1 rates task t0 [2, 2, 0] and t1 [1, 3, 4] (level
    positions on core, coherence, usefulness); c2 rates core of t0 and t1 at 4 and 1; c3 core of t0 at 3."""
    rows = [("t0", "c1", d, v) for d, v in zip(("core", "coherence", "usefulness"), (2, 2, 0), strict=True)]
    rows += [("t1", "c1", d, v) for d, v in zip(("core", "coherence", "usefulness"), (1, 3, 4), strict=True)]
    rows += [("t0", "c2", "core", 4), ("t1", "c2", "core", 1), ("t0", "c3", "core", 3)]
    lines = ["task_id,rater_id,role,rubric,dimension,target,value,submitted_at"]
    lines += [f"{t},{r},contractor,answer_comparison,{d},A,{LEVELS[v]},2026-03-02" for t, r, d, v in rows]
    result = ingest_bytes(con, ("\n".join(lines) + "\n").encode(), "levels.csv")
    assert result.status == "loaded", result.errors
    return con


def test_leniency_falls_back_on_the_other_contractors(rated):
    """Without researchers, c1's core is compared with the other contractors' mean on each unit (leave-self-out):
    t0 2 - (4 + 3) / 2 = -1.5, t1 1 - 1 = 0 -> mean -0.75 over 2 tasks, se = sd(-1.5, 0) / sqrt(2) = 0.75. The
    scale's values are 1..5, so positions and values differ by one and the differences are the same."""
    no_researchers = pd.DataFrame(columns=["rater_id", "rubric", "dimension", "raw", "se", "n_tasks"])
    rows = levels.shift_rows(no_researchers, levels.consensus_stats(levels.kept_levels_query(NO_FILTERS).df(rated)))
    lenient = rows[(rows["effect"] == "leniency") & (rows["rater_id"] == "c1")].set_index("dimension")
    assert list(lenient.index) == ["core"]  # coherence and usefulness: nobody else rated them
    assert lenient.loc["core", "basis"] == "consensus"
    assert lenient.loc["core", "raw"] == pytest.approx(-0.75)
    assert lenient.loc["core", "se"] == pytest.approx(0.75)
    assert lenient.loc["core", "n_tasks"] == 2


def test_central_tendency_by_hand(rated):
    """Levels 0..4: the inner ones are 1, 2, 3. c1's core is 2 and 1 (inner both: share 1.0), usefulness 0 and 4
    (share 0.0); the variance ratio compares c1's values with all contractors' on the dimension."""
    rows = levels.central_rows(levels.central_stats(levels.kept_levels_query(NO_FILTERS).df(rated)))
    c1 = rows[rows["rater_id"] == "c1"].set_index("dimension")
    assert c1["raw"].to_dict() == pytest.approx({"core": 1.0, "coherence": 1.0, "usefulness": 0.0})
    core_ratio = pd.Series([3, 2]).var() / pd.Series([3, 2, 5, 2, 4]).var()  # values 1..5
    assert f"vary {core_ratio:.2f} times as much" in c1.loc["core", "evidence"]
    assert c1.loc["usefulness", "se"] == pytest.approx(share_se(0.0, 2))  # a constant share keeps a floor


def test_halo_by_hand(rated):
    """Halo is the spread of one item's positions (value / 4) across dimensions, items with three or more: c1's
    t0 [2, 2, 0] -> sd of [0.5, 0.5, 0] = 0.2887; t1 [1, 3, 4] -> sd of [0.25, 0.75, 1] = 0.3819; mean 0.3353.
    c2 and c3 rate one dimension: no halo row."""
    rows = levels.halo_rows(levels.halo_query(NO_FILTERS).df(rated))
    assert rows["rater_id"].tolist() == ["c1"]
    want = (pd.Series([0.5, 0.5, 0.0]).std() + pd.Series([0.25, 0.75, 1.0]).std()) / 2
    assert rows.iloc[0]["raw"] == pytest.approx(want)
    assert rows.iloc[0]["dimension"] == ""
    assert rows.iloc[0]["bad_side"] == "low"


def test_ties_and_position_bias_by_hand():
    """40 comparisons, 10 ties, 30 decided of which 24 went to the option shown first: ties 0.25, position 0.8."""
    counts = pd.DataFrame(
        {
            "rater_id": ["c1"],
            "rubric": "r",
            "dimension": "cmp",
            "levels": [["A much better", "A better", "Equally good", "B better", "B much better"]],
            "n_rated": [40],
            "equal": [10],
            "first_better": [24],
            "second_better": [6],
            "n": [30],
            "share_first_better": [0.8],
        }
    )
    ties = choices.tie_rows(counts).iloc[0]
    position = choices.position_rows(counts).iloc[0]
    assert (ties["raw"], ties["n_tasks"]) == (0.25, 40)
    assert (position["raw"], position["n_tasks"]) == (0.8, 30)
    assert '"Equally good"' in ties["evidence"]


def test_ranking_ties_by_hand(demo):
    """Ranks [1, 1, 2] tie one of three pairs, [1, 1, 1] all three: per task 1/3 and 1, mean 2/3; the sd of the two is
    (2/3) / sqrt(2), over sqrt(2) tasks: se 1/3. On the demo the query counts pairs the same way."""
    rows = choices.ranking_tie_rows(
        pd.DataFrame({"rater_id": "c1", "rubric": "r", "dimension": "rank", "task_key": [0, 1], "tied": [1 / 3, 1.0]})
    ).iloc[0]
    assert (rows["raw"], rows["se"], rows["n_tasks"], rows["effect"]) == pytest.approx((2 / 3, 1 / 3, 2, "ties"))
    per_task = choices.ranking_ties_query(NO_FILTERS).df(demo)
    assert set(per_task["dimension"]) == {"rank"} and per_task["tied"].between(0, 1).all()
    # the same shares counted in pandas from the demo's contractor ratings on ranking dimensions
    ratings = demo.execute(
        """SELECT rater_id, rubric, dimension, task_key, value_index FROM ratings JOIN dimensions USING (rubric, dimension)
        WHERE kind = 'ranking' AND role = 'contractor' AND value_index IS NOT NULL"""
    ).df()
    keys = ["rater_id", "rubric", "dimension", "task_key"]
    c = ratings.groupby([*keys, "value_index"]).size().rename("c").reset_index()
    c["pairs"] = c["c"] * (c["c"] - 1)
    want = c.groupby(keys).agg(pairs=("pairs", "sum"), n=("c", "sum")).reset_index()
    want = want[want["n"] >= 2].assign(tied=lambda d: d["pairs"] / (d["n"] * (d["n"] - 1)))[[*keys, "tied"]]
    got = per_task.sort_values(keys).reset_index(drop=True)
    pd.testing.assert_frame_equal(got, want.sort_values(keys).reset_index(drop=True), check_dtype=False)


def test_haste_by_hand():
    """Durations 10 and 40 s against a rubric median of 20 s: mean log ratio (log 0.5 + log 2) / 2 = 0, shown as
    a ratio of 1."""
    d = pd.DataFrame(
        {"rater_id": "c1", "rubric": "r", "task_key": [0, 1], "duration_s": [10.0, 40.0], "agreement": None}
    )
    d = pd.concat([d, pd.DataFrame({"rater_id": "c2", "rubric": "r", "task_key": [0], "duration_s": [20.0]})])
    rows = haste.haste_rows(d)
    mine = rows[rows["rater_id"] == "c1"].iloc[0]
    assert mine["raw"] == pytest.approx(0.0)
    ratio = haste.as_ratio(rows.assign(estimate=rows["raw"], estimate_ci_low=0.0, estimate_ci_high=0.0, team_value=0.0))
    assert ratio[ratio["rater_id"] == "c1"]["raw"].iloc[0] == pytest.approx(1.0)


def test_drift_window_by_hand():
    """Two contractors, ten weeks of two tasks, consensus 0.5 on every task but c1's last three weeks (0.0): the
    team's mean that week is 0.25 there, so relative to it c1 is 0 before and -0.25 in the recent weeks, a fall
    of 0.25 over 12 baseline tasks (the six weeks before the last three) and 6 recent ones; c2 rises by 0.25."""
    start = pd.Timestamp("2026-01-05")
    rows = [
        (c, "r", start + pd.Timedelta(weeks=w), 2, 2, s, s * s / 2, 0, 0.0)
        for c in ("c1", "c2")
        for w in range(10)
        for s in [0.0 if (c == "c1" and w >= 7) else 1.0]
    ]
    cols = ["rater_id", "rubric", "week", "n_rows", "n", "s1", "s2", "n_researchers", "s_researchers"]
    out = drift.window_rows(drift.with_team(pd.DataFrame(rows, columns=cols))).set_index("rater_id")
    assert out.loc["c1", "raw"] == pytest.approx(0.25) and out.loc["c2", "raw"] == pytest.approx(-0.25)
    assert out.loc["c1", "n_tasks"] == 12 + 6
    assert out.loc["c1", "since"] == start + pd.Timedelta(weeks=7)
    # the rubric's task-level sd relative to the team's week: weeks 0-6 all 0.5 (sd 0 there), weeks 7-9 +-0.25
    sd = math.sqrt((12 * 0.25**2) / (40 - 1))
    assert out.loc["c1", "se"] == pytest.approx(sd * math.sqrt(1 / 12 + 1 / 6))


def _behaviour(truth: dict) -> dict[str, str]:
    """rater id -> planted behaviour (typical when none)."""
    out = {r: "typical" for r, v in truth["raters"].items() if v["role"] == "contractor"}
    out |= {r: b for b, v in truth["behaviours"].items() for r in v["raters"]}
    return out


@pytest.fixture(scope="module")
def demo_review(demo) -> review.Review:
    """The demo's review: the effects table with the alarm layer's flags."""
    return review.review(demo)


@pytest.fixture(scope="module")
def demo_effects(demo_review) -> pd.DataFrame:
    """The demo's effects table, flagged by the review."""
    return demo_review.effects


@pytest.mark.parametrize("behaviour", list(PLANTED))
def test_demo_planted_behaviour_is_flagged_by_its_effect(demo_effects, truth, behaviour):
    """Every contractor truth.json plants with a behaviour is flagged by its effect on at least one rubric."""
    flagged = set(
        demo_effects.loc[demo_effects["flagged"] & (demo_effects["effect"] == PLANTED[behaviour]), "rater_id"]
    )
    planted = set(truth["behaviours"][behaviour]["raters"])
    assert planted <= flagged, f"{PLANTED[behaviour]} misses {sorted(planted - flagged)}"


# Where a planted habit shows (truth "shows_in") but its effect cannot be measured from the data: the simulator
# favours the first-listed output in instruction following and preference ranking, but those exports record no
# display order (submissions.shown_first is NULL there), so position bias is measured on answer comparison only.
UNMEASURABLE = {("position_bias", "instruction_following"), ("position_bias", "preference_ranking")}


@pytest.mark.parametrize("behaviour", list(PLANTED))
def test_demo_planted_behaviour_is_flagged_on_each_rubric_it_shows_in(demo_effects, truth, behaviour):
    """On every rubric truth.json says the habit shows in, each planted contractor with at least MIN_TASKS tasks
    behind the effect there is flagged by it on that rubric (on some dimension of it)."""
    effect = PLANTED[behaviour]
    missed, checked = [], 0
    for rater in truth["behaviours"][behaviour]["raters"]:
        for rubric in truth["behaviours"][behaviour]["shows_in"]:
            mine = demo_effects[
                (demo_effects["rater_id"] == rater)
                & (demo_effects["rubric"] == rubric)
                & (demo_effects["effect"] == effect)
            ]
            if (effect, rubric) in UNMEASURABLE:
                assert mine.empty, (rater, rubric)
                continue
            if not (mine["n_tasks"] >= MIN_TASKS).any():
                continue  # the contractor did not rate enough of this rubric: the small-n rule
            checked += 1
            if not mine["flagged"].any():
                missed.append((rater, rubric))
    assert checked >= len(truth["behaviours"][behaviour]["raters"])
    assert not missed, f"{effect} misses {missed}"


@pytest.mark.parametrize("effect", effects.EFFECTS)
def test_demo_no_careful_and_at_most_one_typical_false_alarm(demo_effects, truth, effect):
    """No careful contractor is flagged on any effect; at most one typical one per effect (measured: none)."""
    who = _behaviour(truth)
    flagged = set(demo_effects.loc[demo_effects["flagged"] & (demo_effects["effect"] == effect), "rater_id"])
    assert not {r for r in flagged if who.get(r) == "careful"}
    assert len({r for r in flagged if who.get(r) == "typical"}) <= 1


def test_demo_effects_table_shape(demo_effects):
    """Every row has the contract's columns, an interval around its estimate and no anonymous position."""
    assert list(demo_effects.columns) == list(effects.EFFECT_COLUMNS)
    ok = demo_effects.dropna(subset=["estimate_ci_low"])
    assert (
        (ok["estimate_ci_low"] <= ok["estimate"] + 1e-12) & (ok["estimate"] <= ok["estimate_ci_high"] + 1e-12)
    ).all()
    assert not demo_effects["rater_id"].str.startswith("anon:").any()


def test_demo_drift_alarms_name_the_drifting_in_the_recent_weeks(demo_review, truth):
    """Drift alarms name every drifting contractor, dated from the start of the project's last RECENT_WEEKS weeks
    (their drift began before it: the fall is there); no careful or typical contractor has one."""
    alarms = demo_review.alerts[demo_review.alerts["kind"] == "drift"]
    who = _behaviour(truth)
    assert set(truth["behaviours"]["drifting"]["raters"]) <= set(alarms["rater_id"])
    assert {who[r] for r in alarms["rater_id"]} == {"drifting"}
    last = pd.Timestamp(demo_review.effects.loc[demo_review.effects["effect"] == "drift", "since"].max())
    assert (alarms["since"] == last).all()


@pytest.mark.parametrize(
    "filters",
    [Filters(), Filters(rubric="answer_comparison"), Filters(date_from=dt.date(2026, 4, 6), roles=("researcher",))],
    ids=["all", "one rubric", "late dates, a role"],
)
def test_comparison_counts_from_the_shared_position_table_equal_their_own(demo, filters):
    """The alarm review reads every role's position bias once (choices.position_table, also a feedback report's):
    the contractors' comparison counts taken from it equal those read for contractors alone."""
    rubrics = rated_rubrics(demo, Filters(rubric=filters.rubric))
    shared = choices.comparison_counts(demo, filters, rubrics, choices.position_table(demo, filters))
    own = choices.comparison_counts(demo, filters, rubrics)
    assert len(own) > 0
    pd.testing.assert_frame_equal(shared, own)
