"""report --all's batched path (analytics.feedback.feedback_reports: every contractor's agreement with researchers
in one rater_agreement call, the stamp and names once, the team medians that leave each one out in one pass, the
card, times, levels and cases of all of them at once, the effects table split once) gives each contractor the
report feedback_report gives them alone, and the Markdown export's faster tables equal the pandas definitions they
replace (issue 50 item 9: the speed is measured in bench/bench_demo.py)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest

from analytics import feedback
from analytics.agreement import MIN_TASKS, headline
from analytics.agreement import intervals as iv
from analytics.core.filters import Filters
from analytics.core.formatting import fmt, fmt_ci
from analytics.effects.verdicts import NOT_SHOWN, REPORT_EFFECTS, SHOWN, TABLE_EFFECTS, verdict, verdict_of_rows
from analytics.feedback import card, cases, durations, levels, rater_effects, report, rules, scope, weekly
from analytics.feedback.export import display, markdown

# c13 and c23 have an interval whose delta-method probes (numerical derivatives) differ by about 1e-11 between the
# two paths (a block of raters shares its levels); c01 is an ordinary one.
CONTRACTORS = ["c01", "c13", "c23"]


def same_frame(a: pd.DataFrame, b: pd.DataFrame) -> None:
    """Equal columns and values, floats to 1e-8 (far below the three decimals any figure is shown with)."""
    pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True), check_exact=False, atol=1e-8)


@pytest.fixture(scope="module")
def team(demo) -> feedback.TeamFigures:
    return feedback.team_figures(demo, Filters())


def test_every_own_agreement_is_each_contractors_own(demo):
    f = Filters(date_from=pd.Timestamp("2026-03-09").date())
    every = card.every_own_agreement(demo, (*CONTRACTORS, "nobody"), f, 1000, 0)
    assert set(every) == {*CONTRACTORS, "nobody"} and every["nobody"].empty
    for c in CONTRACTORS:
        own = card.own_agreement(demo, c, f, 1000, 0)
        assert len(own) > 0
        same_frame(every[c], own)


def test_batched_reports_equal_the_reports_made_one_by_one(demo, team):
    batched = list(feedback.feedback_reports(demo, CONTRACTORS, Filters(), team))
    assert [r.contractor_id for r in batched] == CONTRACTORS
    for rep in batched:
        alone = feedback.feedback_report(demo, rep.contractor_id, Filters(), team)
        for field in dataclasses.fields(rep):
            mine, theirs = getattr(rep, field.name), getattr(alone, field.name)
            if isinstance(mine, pd.DataFrame):
                same_frame(mine, theirs)
            else:
                assert mine == theirs, field.name


def test_every_weekly_by_task_is_each_contractors_own(demo):
    f = Filters(date_from=pd.Timestamp("2026-03-09").date())
    every = weekly.every_weekly_by_task(demo, (*CONTRACTORS, "nobody"), f)
    assert every["nobody"].empty
    for c in CONTRACTORS:
        own = weekly.weekly_by_task(demo, c, f)
        assert len(own) > 0
        same_frame(every[c], own)


def test_every_own_durations_is_each_contractors_own(demo):
    every = durations.every_own_durations(demo, (*CONTRACTORS, "nobody"), Filters())
    assert every["nobody"].empty
    for c in CONTRACTORS:
        own = durations.own_durations(demo, c, Filters())
        assert len(own) > 0
        same_frame(every[c], own)


def test_the_catalogue_read_once_gives_what_the_store_gives(demo):
    rubrics = scope.every_contractors_rubrics(demo, tuple(CONTRACTORS), Filters())
    assert len(rubrics) > 1
    known = scope.catalogue(demo, rubrics)
    same_frame(scope.dimension_info(demo, rubrics, known), scope.dimension_info(demo, rubrics))
    for c in CONTRACTORS:
        same_frame(levels.levels_vs_researchers(demo, c, Filters(), known), levels.levels_vs_researchers(demo, c))


def test_every_levels_vs_researchers_is_each_contractors_own(demo):
    f = Filters(date_from=pd.Timestamp("2026-03-09").date())
    every = levels.every_levels_vs_researchers(demo, (*CONTRACTORS, "nobody"), f)
    assert every["nobody"].empty
    for c in CONTRACTORS:
        own = levels.levels_vs_researchers(demo, c, f)
        assert len(own) > 0
        same_frame(every[c], own)


def test_every_card_vs_team_is_each_contractors_card(demo, team):
    f = Filters()
    agreement = card.every_own_agreement(demo, (*CONTRACTORS, "nobody"), f, 0, 0)
    every = card.every_card_vs_team(demo, agreement, team)
    assert every["nobody"].empty and list(every["nobody"].columns) == list(card.CARD_COLUMNS)
    for c in CONTRACTORS:
        own = card.card_vs_team(demo, agreement[c], c, team)
        assert len(own) > 0 and own["team_exact_agreement"].notna().any()
        same_frame(every[c], own)


def test_every_durations_vs_team_is_each_contractors_times(demo, team):
    own = durations.every_own_durations(demo, (*CONTRACTORS, "nobody"), Filters())
    every = durations.every_durations_vs_team(own, team.durations)
    assert every["nobody"].empty
    for c in CONTRACTORS:
        alone = durations.durations_vs_team(own[c], c, team.durations)
        assert len(alone) > 0 and alone["team_median_s"].notna().all()
        same_frame(every[c], alone)


def test_every_team_week_medians_leave_each_contractor_out(demo, team):
    every = weekly.every_team_week_medians(team.weekly, (*CONTRACTORS, "nobody"))
    for c in [*CONTRACTORS, "nobody"]:
        alone = weekly.team_week_medians(team.weekly, c)
        assert len(alone) > 0
        same_frame(every[c], alone)
    assert not every["c01"].equals(every["nobody"])  # leaving c01 out changes some week's median


def test_every_severe_cases_are_each_contractors_own(demo):
    every = cases.every_severe_cases(demo, (*CONTRACTORS, "nobody"), Filters(), 3)
    assert every["nobody"].empty
    for c in CONTRACTORS:
        own = cases.severe_cases(demo, c, Filters(), limit=3)
        assert len(own) > 0 and list(own["rank"]) == list(range(1, len(own) + 1))
        same_frame(every[c], own)


def test_effects_split_once_give_the_verdict_of_the_effects_table(team):
    raters = tuple(team.effects["rater_id"].unique())
    every = rater_effects.every_effect_rows(team.effects, (*raters, "nobody"))
    assert every["nobody"] == {}
    seen = set()
    for r in raters:
        mine = team.effects[team.effects["rater_id"] == r]
        assert sum(len(rows) for rows in every[r].values()) == len(mine)
        for rubric in team.effects["rubric"].unique():
            for effect in REPORT_EFFECTS:
                said = verdict_of_rows(every[r].get(rubric, []), effect)
                decide = mine[mine["effect"].isin(TABLE_EFFECTS[effect]) & (mine["rubric"] == rubric)]
                assert said == (SHOWN if decide["flagged"].any() else NOT_SHOWN), (r, rubric, effect)
                assert said == verdict(mine, effect, rubric), (r, rubric, effect)
                seen.add(said)
    assert SHOWN in seen and len(seen) == 2


def old_level_summary(levels: pd.DataFrame) -> pd.DataFrame:
    """display.level_summary as it was, grouping with pandas: the definition the faster one keeps."""
    rows = []
    for (rubric, _, label), g in levels.groupby(["rubric", "dimension", "dimension_label"], sort=False):
        cells = [
            f"{lvl} {float(s.get('contractor', 0.0)):.0%} / {float(s.get('researcher', 0.0)):.0%}"
            for (_, lvl), s in display.level_shares(g).items()
        ]
        n = int(g.loc[g["role"] == "contractor", "n"].sum())
        rows.append(
            {"rubric": rubric, "Dimension": label, "Pairs": str(n), "Levels (you / researchers)": " · ".join(cells)}
        )
    return pd.DataFrame(rows, columns=["rubric", "Dimension", "Pairs", "Levels (you / researchers)"])


def test_level_summary_equals_the_pandas_grouping(demo):
    every = levels.every_levels_vs_researchers(demo, tuple(CONTRACTORS), Filters())
    for c in CONTRACTORS:
        same_frame(display.level_summary(every[c]), old_level_summary(every[c]))
    holes = every["c01"].copy()
    holes.loc[0, "share"] = float("nan")  # a level without a share is left out
    holes.loc[1, "role"] = None
    holes.loc[len(holes) - 1, "dimension_label"] = None  # a row without a label is left out of every summary
    assert display.level_summary(holes).equals(old_level_summary(holes))


def test_markdown_tables_per_rubric_equal_the_pandas_grouping(demo, team):
    rep = next(feedback.feedback_reports(demo, ["c01"], Filters(), team, n_boot=0))
    for rows in (display.card_rows(rep), display.weekly_rows(rep), display.level_summary(rep.levels)):
        grouped = rows.groupby("rubric", sort=False)
        assert markdown._per_rubric(rows) == [(r, markdown._md_table(g.drop(columns="rubric"))) for r, g in grouped]
        assert len(grouped) > 1


def old_card_rows(c: pd.DataFrame) -> pd.DataFrame:
    """display.card_rows as it was, on pandas columns: the definition the list-built one keeps."""
    out = pd.DataFrame(
        {
            "rubric": c["rubric"],
            "Dimension": c["dimension_label"] + c["is_primary"].map({True: " (primary)", False: ""}),
            "n": c["n_tasks"].astype(int).astype(str)
            + " tasks, "
            + c["n"].astype(int).astype(str)
            + " pairs"
            + c["small_n"].map({True: " (small)", False: ""}),
        }
    )
    for s, name in (("exact_agreement", "Exact"), ("coarse_agreement", "Coarse"), ("kappa", "Kappa")):
        out[name] = [
            fmt_ci(v, lo, hi) if headline(s, str(lvl), int(k)) else display.NOT_HEADLINE
            for v, lo, hi, lvl, k in zip(
                c[s], c[f"{s}_ci_low"], c[f"{s}_ci_high"], c["level"], c["n_levels"], strict=True
            )
        ]
    out["Mean difference"] = [
        fmt_ci(v, lo, hi) if headline("mean_difference", str(lvl), int(k)) else display.NOT_HEADLINE
        for v, lo, hi, lvl, k in zip(
            c["mean_difference"],
            c["mean_difference_ci_low"],
            c["mean_difference_ci_high"],
            c["level"],
            c["n_levels"],
            strict=True,
        )
    ]
    out["Kappa weights"] = c["kappa_statistic"].map(display.KAPPA_WEIGHTS).fillna(c["kappa_statistic"])
    out["Team exact / coarse / kappa"] = [
        " / ".join(fmt(v) for v in vals)
        for vals in zip(c["team_exact_agreement"], c["team_coarse_agreement"], c["team_kappa"], strict=True)
    ]
    out["Researchers with each other (pooled) exact / coarse / kappa"] = [
        " / ".join(fmt(v) for v in vals)
        for vals in zip(c["ceiling_exact_agreement"], c["ceiling_coarse_agreement"], c["ceiling_kappa"], strict=True)
    ]
    return out


def test_card_rows_equal_the_pandas_columns(demo, team):
    for rep in feedback.feedback_reports(demo, CONTRACTORS, Filters(), team, n_boot=0):
        assert len(rep.card) > 1
        pd.testing.assert_frame_equal(display.card_rows(rep), old_card_rows(rep.card))


def old_own_weeks(by_task: pd.DataFrame, n_boot: int, seed: int) -> pd.DataFrame:
    """weekly.own_weeks as it was, grouping with pandas: the definition the faster one keeps."""
    rows = []
    for i, ((rubric, week), g) in enumerate(by_task.groupby(["rubric", "week"], sort=True)):
        agree, pairs = g["agree"].to_numpy(float), g["n_pairs"].to_numpy(float)
        value = agree.sum() / pairs.sum()
        samples = iv.ratio_samples(agree, pairs, n_boot, np.random.default_rng([seed, i]))
        ci = iv.interval("exact_agreement", value, samples, len(g), n_boot, n_pairs=float(pairs.sum()))
        rows.append(
            {
                "rubric": rubric,
                "week": pd.Timestamp(week),
                "n_pairs": int(pairs.sum()),
                "n_tasks": len(g),
                "exact_agreement": value,
                "ci_low": ci.low,
                "ci_high": ci.high,
                "coarse_agreement": g["coarse_agree"].sum() / pairs.sum(),
                "small_n": len(g) < MIN_TASKS,
            }
        )
    return pd.DataFrame(rows)


def old_early_late_trend(by_task: pd.DataFrame, n_boot: int, seed: int) -> pd.DataFrame:
    """weekly.early_late_trend as it was, filtering with pandas: the definition the faster one keeps."""
    rows = []
    for i, (rubric, g) in enumerate(by_task.groupby("rubric", sort=True)):
        weeks = sorted(g["week"].unique())
        if len(weeks) < 2:
            continue
        half = len(weeks) // 2
        early, late = g[g["week"].isin(weeks[:half])], g[g["week"].isin(weeks[len(weeks) - half :])]
        e = early["agree"].sum() / early["n_pairs"].sum()
        lt = late["agree"].sum() / late["n_pairs"].sum()
        rng = np.random.default_rng([seed, 1_000 + i])
        be = iv.ratio_samples(early["agree"].to_numpy(float), early["n_pairs"].to_numpy(float), n_boot, rng)
        bl = iv.ratio_samples(late["agree"].to_numpy(float), late["n_pairs"].to_numpy(float), n_boot, rng)
        n_early, n_late = early["task_id"].nunique(), late["task_id"].nunique()
        change = bl - be if be.size and bl.size else np.empty(0)
        lo, hi, _ = iv.difference_interval(e, n_early, lt, n_late, change, MIN_TASKS) if n_boot else (math.nan,) * 3
        rows.append(
            {
                "rubric": rubric,
                "weeks": len(weeks),
                "early_weeks": f"{pd.Timestamp(weeks[0]):%Y-%m-%d} to {pd.Timestamp(weeks[half - 1]):%Y-%m-%d}",
                "late_weeks": f"{pd.Timestamp(weeks[len(weeks) - half]):%Y-%m-%d} to {pd.Timestamp(weeks[-1]):%Y-%m-%d}",
                "early_tasks": int(n_early),
                "late_tasks": int(n_late),
                "early": float(e),
                "late": float(lt),
                "change": float(lt - e),
                "change_ci_low": lo,
                "change_ci_high": hi,
            }
        )
    return pd.DataFrame(rows, columns=list(weekly.TREND_COLUMNS))


def test_weeks_and_trend_equal_the_pandas_grouping(demo):
    every = weekly.every_weekly_by_task(demo, tuple(CONTRACTORS), Filters())
    for c in CONTRACTORS:
        by_task = every[c].sample(frac=1.0, random_state=3).reset_index(drop=True)  # groups need not be contiguous
        for n_boot in (0, 200):
            weeks = weekly.own_weeks(by_task, n_boot, 5)
            assert len(weeks) > 2 and weeks["ci_low"].notna().any() == bool(n_boot)
            pd.testing.assert_frame_equal(weeks, old_own_weeks(by_task, n_boot, 5))
            trend = weekly.early_late_trend(by_task, n_boot, 5)
            assert len(trend) > 0
            pd.testing.assert_frame_equal(trend, old_early_late_trend(by_task, n_boot, 5))


def old_with_team_weeks(weeks: pd.DataFrame, contractor: str, team_weekly: pd.DataFrame) -> pd.DataFrame:
    """weekly.with_team_weeks as it was, a pandas merge: the definition the lookup keeps."""
    med = weekly.team_week_medians(team_weekly, contractor)
    med["week"] = pd.to_datetime(med["week"])
    out = weeks.merge(med, on=["rubric", "week"], how="left")
    out["team_contractors"] = out["team_contractors"].fillna(0).astype(int)
    return out[list(weekly.WEEK_COLUMNS)]


def test_team_weeks_equal_the_pandas_merge(demo, team):
    every = weekly.every_weekly_by_task(demo, tuple(CONTRACTORS), Filters(date_from=pd.Timestamp("2026-03-09").date()))
    medians = weekly.every_team_week_medians(team.weekly, tuple(CONTRACTORS))
    for c in CONTRACTORS:
        weeks = weekly.own_weeks(every[c], 0, 0)
        old = old_with_team_weeks(weeks, c, team.weekly)
        assert old["team_exact_agreement"].notna().any()
        pd.testing.assert_frame_equal(weekly.with_team_weeks(weeks, c, team.weekly), old)
        pd.testing.assert_frame_equal(weekly.with_team_weeks(weeks, c, team.weekly, medians[c]), old)
    unmatched = weekly.own_weeks(every["c01"], 0, 0).assign(week=pd.Timestamp("2030-01-07"))  # no team week then
    got = weekly.with_team_weeks(unmatched, "c01", team.weekly)
    assert got["team_exact_agreement"].isna().all() and (got["team_contractors"] == 0).all()
    pd.testing.assert_frame_equal(got, old_with_team_weeks(unmatched, "c01", team.weekly))


def test_every_span_and_rubrics_are_each_contractors_own(demo):
    for f in (Filters(), Filters(date_from=pd.Timestamp("2026-03-09").date()), Filters(rubric="answer_comparison")):
        spans = scope.every_span(demo, (*CONTRACTORS, "nobody"), f)
        rubrics = scope.each_contractors_rubrics(demo, (*CONTRACTORS, "nobody"), f)
        assert spans["nobody"] == (0, None, None) and rubrics["nobody"] == ()
        for c in CONTRACTORS:
            assert spans[c] == scope.span_query(c, f).rows(demo)[0] and spans[c][0] > 0
            assert rubrics[c] == scope.contractor_rubrics(demo, c, f) and len(rubrics[c]) > 0
    assert len(scope.each_contractors_rubrics(demo, ("c01",), Filters())["c01"]) > 1


def test_every_broken_rules_are_each_contractors_own(team):
    raters = tuple(team.rules.raters["rater_id"].unique())
    every = rules.every_broken_rules((*raters, "nobody"), team)
    assert every["nobody"].empty and list(every["nobody"].columns) == rules.RULE_COLUMNS
    broke = 0
    for r in raters:
        alone = rules.broken_rules(r, team)
        broke += len(alone) > 0
        pd.testing.assert_frame_equal(every[r], alone)
    assert broke > 1


def test_own_alerts_are_each_contractors_rows_of_the_review(team):
    raters = tuple(team.alerts["rater_id"].unique())
    assert len(raters) > 1
    every = report.own_alerts(team.alerts, (*raters, "nobody"))
    assert every["nobody"].empty and list(every["nobody"].columns) == list(team.alerts.columns)
    for r in raters:
        alone = team.alerts[team.alerts["rater_id"] == r].reset_index(drop=True)
        pd.testing.assert_frame_equal(every[r], alone)
