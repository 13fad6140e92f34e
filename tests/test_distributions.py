"""Level distributions, rater x level tables, position bias and contractor shift on small hand-built stores."""

from __future__ import annotations

import datetime as dt
import json

import numpy as np
import pandas as pd
import pytest

from analytics.agreement import intervals as iv
from analytics.agreement import signatures as sg
from analytics.core import stats
from analytics.core.filters import Filters
from analytics.describe import distributions as dist
from analytics.ingest.load import ingest_bytes

AC = "answer_comparison"
HEADER = "task_id,rater_id,role,rubric,dimension,target,value,submitted_at\n"


def _csv(rows: list[tuple]) -> bytes:
    """Canonical CSV of (task, rater, role, dimension, target, value, date) rows on answer_comparison."""
    lines = [f"{t},{r},{role},{AC},{dim},{tg},{v},{d}T10:00:00" for t, r, role, dim, tg, v, d in rows]
    return (HEADER + "\n".join(lines) + "\n").encode()


def _load(con, rows: list[tuple], name: str = "ratings.csv") -> None:
    result = ingest_bytes(con, _csv(rows), name)
    assert result.status == "loaded", result.errors
    assert result.rows_quarantined == 0, result.errors


UC = "usefulness_comparison"
# Comparison usefulness: contractor c1 always says A better/much better, c2 sits on the middle, r1 spreads.
ROWS = [
    ("t1", "c1", "contractor", UC, "comparison", "A much better", "2026-03-01"),
    ("t2", "c1", "contractor", UC, "comparison", "A better", "2026-03-02"),
    ("t3", "c1", "contractor", UC, "comparison", "A better", "2026-03-03"),
    ("t1", "c2", "contractor", UC, "comparison", "Equally good", "2026-03-01"),
    ("t2", "c2", "contractor", UC, "comparison", "Equally good", "2026-03-02"),
    ("t1", "r1", "researcher", UC, "comparison", "B better", "2026-03-01"),
    ("t2", "r1", "researcher", UC, "comparison", "A better", "2026-03-02"),
    ("t1", "c1", "contractor", "usefulness", "A", "Very good", "2026-03-01"),
    ("t1", "c1", "contractor", "usefulness", "B", "Good", "2026-03-01"),
    ("t1", "r1", "researcher", "usefulness", "A", "Bad", "2026-03-01"),
    ("t1", "r1", "researcher", "usefulness", "B", "Good", "2026-03-01"),
]


@pytest.fixture
def store(con):
    _load(con, ROWS)
    return con


def test_levels_in_scale_order_with_zero_levels_and_shares(store):
    df = dist.level_distribution(store, AC)
    uc = df[(df["dimension"] == UC) & (df["role"] == "contractor")]
    # Every level of the catalogue's comparison scale, in its order, even when nobody used it.
    assert uc["level"].tolist() == ["A much better", "A better", "Equally good", "B better", "B much better"]
    assert uc["n"].tolist() == [1, 2, 2, 0, 0]  # counted from ROWS
    assert uc["share"].tolist() == pytest.approx([0.2, 0.4, 0.4, 0.0, 0.0])
    assert uc["coarse"].tolist() == ["A better", "A better", "Equally good", "B better", "B better"]
    res = df[(df["dimension"] == UC) & (df["role"] == "researcher")]
    assert res["n"].tolist() == [0, 1, 0, 1, 0]
    # Dimensions in catalogue order (absolute usefulness before the comparison ones); unused dimensions left out.
    assert df["dimension"].drop_duplicates().tolist() == ["usefulness", UC]


def test_level_distribution_follows_filters(store):
    df = dist.level_distribution(store, AC, Filters(roles=("contractor",), raters=("c2",)))
    assert set(df["role"]) == {"contractor"}
    uc = df[df["dimension"] == UC]
    assert uc["n"].tolist() == [0, 0, 2, 0, 0]
    march2 = dist.level_distribution(store, AC, Filters(date_from=dt.date(2026, 3, 2)))
    assert march2.loc[march2["dimension"] == UC, "n"].sum() == 4  # t2 (c1, c2, r1) and t3 (c1)


def test_rater_level_table_shows_always_middle_and_lenient(store):
    table = dist.rater_level_table(store, AC, UC)
    c2 = table.set_index("rater_id").loc["c2"]
    assert c2["Equally good"] == pytest.approx(1.0)
    assert c2["n"] == 2
    assert c2["mean_level"] == pytest.approx(3.0)  # always the middle level (position 3 of 5)
    c1 = table.set_index("rater_id").loc["c1"]
    assert c1["mean_level"] == pytest.approx((1 + 2 + 2) / 3)
    assert list(table.columns[4:]) == ["A much better", "A better", "Equally good", "B better", "B much better"]
    long = dist.rater_levels(store, AC, UC)
    assert len(long) == 3 * 5  # three raters x five levels


def test_shift_from_researchers_on_same_units(store):
    shift = dist.shift_from_researchers(store, AC)
    row = shift[(shift["contractor_id"] == "c1") & (shift["dimension"] == UC)].iloc[0]
    # c1 vs r1 on t1 (A much better=1 vs B better=4) and t2 (A better=2 vs A better=2); t3 has no researcher.
    assert row["n_units"] == 2
    assert row["contractor_mean"] == pytest.approx(1.5)
    assert row["researcher_mean"] == pytest.approx(3.0)
    assert row["mean_difference"] == pytest.approx(-1.5)
    # Distributions {1: .5, 2: .5} vs {2: .5, 4: .5}: total variation = 0.5 * (.5 + 0 + .5) = 0.5.
    assert row["total_variation"] == pytest.approx(0.5)
    assert row["exact_agreement"] == pytest.approx(0.5)
    c2 = shift[(shift["contractor_id"] == "c2") & (shift["dimension"] == UC)].iloc[0]
    assert c2["mean_difference"] == pytest.approx(((3 - 4) + (3 - 2)) / 2)  # equal means, yet ...
    assert c2["total_variation"] == pytest.approx(1.0)  # ... disjoint distributions
    abs_row = shift[(shift["contractor_id"] == "c1") & (shift["dimension"] == "usefulness")].iloc[0]
    assert abs_row["n_units"] == 2  # targets A and B are separate units
    assert abs_row["mean_difference"] == pytest.approx(((5 - 2) + (4 - 4)) / 2)
    # n in tasks beside every row; two tasks are far below MIN_TASKS.
    assert row["n_tasks"] == 2 and abs_row["n_tasks"] == 1
    assert shift["small_n"].all()
    assert shift["rank"].tolist() == list(range(1, len(shift) + 1))


def test_shift_rater_filter_keeps_researcher_side(store):
    shift = dist.shift_from_researchers(store, AC, Filters(raters=("c2",), roles=("contractor",)))
    assert set(shift["contractor_id"]) == {"c2"}
    # The one pairing: the rater filter chooses whose rows are shown (contractors); naming a researcher does
    # not list every contractor paired with it.
    assert dist.shift_from_researchers(store, AC, Filters(raters=("r1",))).empty


def _shift_rows() -> list[tuple]:
    """c_many: 40 tasks, one level later than r1 on 16 of them; c_few: 2 tasks at the opposite end of r1."""
    levels = ["A much better", "A better", "Equally good", "B better", "B much better"]
    rows = []
    for i in range(40):
        day = f"2026-03-{1 + i % 28:02d}"
        rows.append((f"m{i}", "r1", "researcher", UC, "comparison", levels[1 + i % 3], day))
        rows.append((f"m{i}", "c_many", "contractor", UC, "comparison", levels[1 + i % 3 + (i % 5 < 2)], day))
    for i in range(2):
        rows.append((f"f{i}", "r1", "researcher", UC, "comparison", "A much better", "2026-03-01"))
        rows.append((f"f{i}", "c_few", "contractor", UC, "comparison", "B much better", "2026-03-01"))
    return rows


def test_shift_ranks_by_an_n_aware_bound_with_small_n_last(con):
    _load(con, _shift_rows())
    shift = dist.shift_from_researchers(con, AC).set_index("contractor_id")
    many, few = shift.loc["c_many"], shift.loc["c_few"]
    assert (many["n_tasks"], few["n_tasks"]) == (40, 2)
    assert few["total_variation"] == pytest.approx(1.0)  # larger than c_many's ...
    assert many["total_variation"] < few["total_variation"]
    assert many["rank"] == 1 and few["rank"] == 2  # ... yet two tasks never top the table
    assert bool(few["small_n"]) and not bool(many["small_n"])
    # The ranking figure is the lower end of a task-bootstrap interval around the estimate.
    assert 0 <= many["total_variation_ci_low"] < many["total_variation"] < many["total_variation_ci_high"]
    assert many["mean_difference_ci_low"] > 0  # 16 of 40 tasks one level later: the interval excludes 0
    assert many["mean_difference"] == pytest.approx(16 / 40)


LIKERT = 5
SHARES = np.array([0.1, 0.2, 0.3, 0.25, 0.15])  # the researchers' level shares
LIFT = 0.3  # on average, the chance a contractor rates one level above the researcher (capped at the top)


def _shift_signatures(n_tasks: int, rng: np.random.Generator):
    """Simulated tasks of two targets each: a contractor one level above the researcher with a chance that
    depends on the task (0.1 on easy tasks, 0.5 on hard ones), so pairs within a task are correlated."""
    lift = np.where(rng.random(n_tasks) < 0.5, 0.1, 0.5)[:, None]
    truth = rng.choice(LIKERT, size=(n_tasks, 2), p=SHARES)
    contractor = np.minimum(truth + (rng.random((n_tasks, 2)) < lift), LIKERT - 1)
    cells = np.zeros((n_tasks, LIKERT * LIKERT))
    for t in range(2):
        np.add.at(cells, (np.arange(n_tasks), contractor[:, t] * LIKERT + truth[:, t]), 1)
    distinct, counts = np.unique(cells, axis=0, return_counts=True)
    return sg.Signatures(distinct, counts.astype(float), 2 * n_tasks)


def test_large_groups_take_the_multiplier_bootstrap_with_the_multinomial_intervals():
    """From DELTA_MIN_TASKS tasks the shift's intervals come from the Gaussian multiplier bootstrap: its ends
    are those of 4,000 multinomial task resamples (to Monte Carlo error), and over 300 simulated groups the mean
    difference's interval covers the model's true value as often as the multinomial's does (93-97%)."""
    lifted = SHARES * (1 - LIFT) + np.r_[0, SHARES[:-1] * LIFT] + np.r_[np.zeros(LIKERT - 1), SHARES[-1] * LIFT]
    true_difference = float((lifted - SHARES) @ np.arange(1, LIKERT + 1))  # 0.255 scale steps
    rng = np.random.default_rng(2026)
    hits = {iv.MULTIPLIER: 0, iv.BOOTSTRAP: 0}
    runs = 300
    for i in range(runs):
        sig = _shift_signatures(iv.DELTA_MIN_TASKS, rng)
        fast = dist._shift_row(sig, LIKERT, True, 1000, np.random.default_rng(i))
        slow = dist._shift_row(sig, LIKERT, True, 4000 if i < 5 else 1000, np.random.default_rng(i), True)
        assert (fast["interval_method"], slow["interval_method"]) == (iv.MULTIPLIER, iv.BOOTSTRAP)
        for row in (fast, slow):
            hits[row["interval_method"]] += (
                row["mean_difference_ci_low"] <= true_difference <= row["mean_difference_ci_high"]
            )
        if i < 5:
            for end in ("mean_difference_ci_low", "mean_difference_ci_high"):
                assert fast[end] == pytest.approx(slow[end], abs=0.01), end
            for end in ("total_variation_ci_low", "total_variation_ci_high"):
                assert fast[end] == pytest.approx(slow[end], abs=0.01), end
    for method, h in hits.items():
        assert 0.93 <= h / runs <= 0.97, (method, h / runs)


def test_shared_multiplier_draws_give_each_group_its_own_law():
    """Several groups' multiplier sums from one draw of normals: each group's sums are those of
    iv.multiplier_sums on that group alone with the same generator (the same law, resample for resample)."""
    rng = np.random.default_rng(11)
    groups = [_shift_signatures(n, rng) for n in (600, 750, 520)]
    cells = np.concatenate([dist._margins(g.cells, LIKERT) for g in groups])
    n_tasks = np.concatenate([g.n_tasks for g in groups])
    starts = np.r_[0, np.cumsum([len(g.n_tasks) for g in groups])[:-1]]
    shared = iv.shared_multiplier_sums(cells, n_tasks, starts, 400, np.random.default_rng(5))
    assert shared.shape == (3, 400, 2 * LIKERT)
    for g, group in enumerate(groups):
        alone = iv.multiplier_sums(dist._margins(group.cells, LIKERT), group.n_tasks, 400, np.random.default_rng(5))
        np.testing.assert_allclose(shared[g], alone, rtol=1e-9, atol=1e-9)
        # Centred on the group's own sums (the mean of resamples is the estimate, to Monte Carlo error).
        totals = group.n_tasks @ dist._margins(group.cells, LIKERT)
        assert np.abs(shared[g].mean(axis=0) - totals).max() < 0.25 * np.sqrt(group.tasks)


def test_a_contractors_shift_interval_does_not_depend_on_the_others(con):
    """Large groups share their normals per dimension, yet a contractor's row (intervals included) is the same
    whether the other contractors are in the table or filtered out."""
    levels = ["A much better", "A better", "Equally good", "B better", "B much better"]
    rows = []
    for i in range(iv.DELTA_MIN_TASKS + 40):
        day = f"2026-03-{1 + i % 28:02d}"
        rows.append((f"m{i}", "r1", "researcher", UC, "comparison", levels[1 + i % 3], day))
        rows.append((f"m{i}", "c_one", "contractor", UC, "comparison", levels[1 + i % 3 + (i % 5 < 2)], day))
        rows.append((f"m{i}", "c_two", "contractor", UC, "comparison", levels[i % 4], day))
    _load(con, rows)
    both = dist.shift_from_researchers(con, AC).set_index("contractor_id")
    assert set(both.index) == {"c_one", "c_two"}
    assert set(both["interval_method"]) == {iv.MULTIPLIER}
    for contractor in ("c_one", "c_two"):
        alone = dist.shift_from_researchers(con, AC, Filters(raters=(contractor,))).set_index("contractor_id")
        pd.testing.assert_series_equal(
            alone.loc[contractor].drop("rank"), both.loc[contractor].drop("rank"), check_exact=False, rtol=1e-12
        )
        assert alone.loc[contractor, "mean_difference_ci_low"] < alone.loc[contractor, "mean_difference_ci_high"]


def test_small_groups_keep_the_multinomial_task_bootstrap():
    """Below DELTA_MIN_TASKS tasks the intervals are the multinomial task bootstrap's, resample for resample."""
    sig = _shift_signatures(120, np.random.default_rng(3))
    row = dist._shift_row(sig, LIKERT, True, 500, np.random.default_rng(9))
    assert row["interval_method"] == iv.BOOTSTRAP
    sums = iv.resample(sig.cells, sig.n_tasks, 500, np.random.default_rng(9)).reshape(-1, LIKERT, LIKERT)
    pos = np.arange(1, LIKERT + 1)
    n = sums.sum(axis=(1, 2))
    difference = (sums.sum(axis=2) @ pos - sums.sum(axis=1) @ pos) / n
    assert row["mean_difference_ci_low"] == pytest.approx(np.percentile(difference, 2.5))
    assert row["mean_difference_ci_high"] == pytest.approx(np.percentile(difference, 97.5))


def test_wilson_interval_reference_values():
    # Wilson (1927) score interval; 5/10 -> (0.2366, 0.7634) and 10/10 -> (n / (n + z^2), 1), as in
    # Newcombe (1998), Statistics in Medicine 17:857, table I method 3.
    lo, hi = stats.wilson_interval(np.array([5, 10, 0]), np.array([10, 10, 0]))
    assert lo[0] == pytest.approx(0.2366, abs=1e-4)
    assert hi[0] == pytest.approx(0.7634, abs=1e-4)
    assert lo[1] == pytest.approx(10 / (10 + stats.Z95**2))
    assert hi[1] == pytest.approx(1.0)
    assert np.isnan(lo[2]) and np.isnan(hi[2])


def _ac_record(task: str, rater: str, order: list[str], clicked: str, role: str = "contractor") -> dict:
    """One answer-comparison submission (docs/formats.md section 2) with only the usefulness comparison."""
    return {
        "format": "concord.answer_comparison/v1",
        "submission_id": f"{task}-{rater}",
        "task_id": task,
        "rater_id": rater,
        "role": role,
        "submitted_at": "2026-03-02T14:05:11Z",
        "question": f"Question of {task}?",
        "display_order": order,
        "options": {"A": {"answer": "first answer", "sources": []}, "B": {"answer": "second answer", "sources": []}},
        "comparison": {"usefulness": clicked},
    }


def _ac_jsonl(records: list[dict]) -> bytes:
    return ("\n".join(json.dumps(r) for r in records) + "\n").encode()


@pytest.fixture
def bias_store(con):
    """c1 always clicks the option shown first; c2 always prefers stored option A, whichever came first."""
    records = []
    for i in range(10):
        order = ["A", "B"] if i % 2 == 0 else ["B", "A"]
        records.append(_ac_record(f"p{i}", "c1", order, "A better"))
        records.append(_ac_record(f"p{i}", "c2", order, "A better" if order[0] == "A" else "B better"))
        records.append(_ac_record(f"p{i}", "c3", order, "Equally good"))
    result = ingest_bytes(con, _ac_jsonl(records), "bias.jsonl", fmt="answer_comparison")
    assert result.status == "loaded", result.errors
    return con


def test_position_bias_in_terms_of_option_shown_first(bias_store):
    pb = dist.position_bias(bias_store, AC)
    rows = pb[pb["dimension"] == UC].set_index("rater_id")
    c1 = rows.loc["c1"]
    assert (c1["first_better"], c1["second_better"], c1["n"]) == (10, 0, 10)
    assert c1["share_first_better"] == pytest.approx(1.0)
    assert c1["ci_low"] == pytest.approx(10 / (10 + stats.Z95**2))
    assert bool(c1["interval_excludes_half"])
    c2 = rows.loc["c2"]  # stored ratings all favour A, but half of the time A was shown second
    assert (c2["first_better"], c2["second_better"]) == (5, 5)
    assert c2["share_first_better"] == pytest.approx(0.5)
    assert (c2["ci_low"], c2["ci_high"]) == (pytest.approx(0.2366, abs=1e-4), pytest.approx(0.7634, abs=1e-4))
    assert not bool(c2["interval_excludes_half"])
    c3 = rows.loc["c3"]  # only ties: nothing decided, no share
    assert (c3["equal"], c3["n"]) == (10, 0)
    assert np.isnan(c3["share_first_better"])
    pooled = rows.loc["All contractors"]
    assert bool(pooled["pooled"])
    assert (pooled["first_better"], pooled["second_better"], pooled["equal"]) == (15, 5, 10)


def test_stored_ratings_alone_hide_the_bias(bias_store):
    # c1's stored values are balanced between A and B, so only the shown-first view reveals the bias.
    long = dist.rater_levels(bias_store, AC, UC)
    c1 = long[long["rater_id"] == "c1"].set_index("level")["n"]
    assert (c1["A better"], c1["B better"]) == (5, 5)


def test_position_bias_empty_without_display_order(store):
    pb = dist.position_bias(store, AC)  # canonical CSV carries no display order
    assert pb.empty
    assert "share_first_better" in pb.columns


def test_uncatalogued_rubric_uses_inferred_scale(con):
    csv = (
        "task_id,rater_id,role,rubric,dimension,value\n"
        "u1,c1,contractor,mine,score,10\nu1,r1,researcher,mine,score,2\nu2,c1,contractor,mine,score,2\n"
    )
    assert ingest_bytes(con, csv.encode(), "mine.csv").status == "loaded"
    df = dist.level_distribution(con, "mine")
    assert df.loc[df["role"] == "contractor", "level"].tolist() == ["2", "10"]  # numeric order, not text order
    shift = dist.shift_from_researchers(con, "mine")
    assert shift.iloc[0]["mean_difference"] == pytest.approx(1.0)


def test_rater_levels_leave_missing_ratings_out(con):
    """A missing rating ("NA": kept, never a level) counts in no level, no total and no mean level."""
    data = "task_id,rater_id,rubric,dimension,value\nt1,c1,study,score,1\nt2,c1,study,score,3\nt3,c1,study,score,NA\n"
    result = ingest_bytes(con, data.encode(), "na.csv")
    assert result.status == "loaded" and result.rows_missing == 1, result.errors
    levels = dist.rater_levels(con, "study", "score")
    assert set(levels["rater_total"]) == {2} and set(levels["mean_level"]) == {1.5}
    assert levels["n"].sum() == 2
