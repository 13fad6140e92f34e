"""Follow-ups (docs/feedback.md, "Did the feedback work"): on a project built so that every figure is known, the
contractor who improved beyond the team is credited, the one who moved only as the whole team did is not, a
follow-up without enough tasks after the feedback is too early, the team leaves out contractors given feedback
within the windows, an effect the card named is followed up in its own terms, and the interval is the separate-
variance interval of statsmodels' CompareMeans (an independent implementation)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.weightstats import CompareMeans, DescrStatsW

from analytics.core.filters import Filters
from analytics.core.stats import Z95
from analytics.feedback import events as fb_events
from analytics.feedback import followup as fu
from analytics.feedback.scope import rubric_title
from analytics.ingest.load import ingest_file
from tests.cli_helpers import run_cli
from tests.conftest import connect_copy

START = dt.date(2026, 3, 2)
SENT = dt.datetime(2026, 3, 30, 10)  # 28 days after START: the before-window is the project's first four weeks
DAYS, PER_DAY = 56, 6
RUBRIC, DIM = "answer_comparison", "usefulness_comparison"
# Share of tasks agreeing with the researcher before and after the feedback day.
RATES = {
    "c_imp": (0.4, 0.9),  # improves 50 points while the team rises 20: 30 beyond it
    "c_non": (0.4, 0.6),  # rises with the team only
    "c_late": (0.6, 0.8),  # given feedback near the end: too early
    **{f"t{i}": (0.6, 0.8) for i in range(1, 5)},  # the team: a guideline change lifts everyone 20 points
}
TIES = {"c_tie": (0.5, 0.1)}  # calls half of the comparisons equal before, a tenth after; nobody else ties


def _value(rater: str, day: int, k: int) -> str:
    """The contractor's rating of task (day, k): agreeing with the researcher's "A better" at their window's rate."""
    after = START + dt.timedelta(days=day) > SENT.date()
    if rater in TIES:
        tie = TIES[rater][after]
        return "Equally good" if (day * PER_DAY + k) % 10 < tie * 10 else "A better"
    rate = RATES[rater][after]
    return "A better" if (day * PER_DAY + k) % 10 < rate * 10 else "B better"


def _project(folder: Path) -> Path:
    """A canonical CSV: every contractor and researcher r1 rate six tasks a day for eight weeks."""
    rows = ["task_id,rater_id,role,rubric,dimension,target,value,submitted_at"]
    for day in range(DAYS):
        when = (START + dt.timedelta(days=day)).isoformat()
        for k in range(PER_DAY):
            task = f"t{day:02d}_{k}"
            rows.append(f"{task},r1,researcher,{RUBRIC},{DIM},comparison,A better,{when}T09:00:00Z")
            for rater in [*RATES, *TIES]:
                rows.append(
                    f"{task},{rater},contractor,{RUBRIC},{DIM},comparison,{_value(rater, day, k)},{when}T12:00:00Z"
                )
    path = folder / "project.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def project(tmp_path_factory, empty_store) -> Path:
    """A store holding the project, a feedback log for c_imp, c_non and c_late, and a card naming ties sent to
    c_tie from the Feedback page."""
    folder = tmp_path_factory.mktemp("followup")
    con = connect_copy(empty_store, folder / "store.duckdb")
    assert ingest_file(con, _project(folder)).rows_quarantined == 0
    log = folder / "log.csv"
    log.write_text(
        "rater_id,sent_at,rubric,note\n"
        f"c_imp,{SENT.isoformat()}Z,{RUBRIC},card by email\n"
        f"c_non,{SENT.isoformat()}Z,{RUBRIC},card by email\n"
        "c_late,2026-04-24T10:00:00Z,,call\n",
        encoding="utf-8",
    )
    assert ingest_file(con, log).rows_loaded == 3
    heading = f"Ties: {rubric_title(RUBRIC)}"
    fb_events.record(con, "c_tie", "lead@example.org", "feedback_c_tie", [heading], Filters(rubric=RUBRIC), at=SENT)
    con.close()
    return folder / "store.duckdb"


@pytest.fixture
def followups(project) -> pd.DataFrame:
    con = connect_copy(project, project.parent / "read.duckdb")
    try:
        return fu.followups(con)
    finally:
        con.close()


def _row(fus: pd.DataFrame, rater: str, measure: str = "agreement") -> pd.Series:
    (i,) = fus.index[(fus["rater_id"] == rater) & (fus["measure"] == measure)]
    return fus.loc[i]


def test_the_improver_is_credited_and_the_one_who_moved_with_the_team_is_not(followups):
    imp, non = _row(followups, "c_imp"), _row(followups, "c_non")
    assert (imp["before"], imp["after"]) == pytest.approx((0.4, 0.9), abs=0.01)
    assert imp["team_change"] == pytest.approx(0.2, abs=0.01)
    assert imp["difference"] == pytest.approx(0.3, abs=0.02) and imp["verdict"] == "improved"
    # A naive before/after would credit c_non with 20 points; the team moved as much.
    assert non["change"] == pytest.approx(0.2, abs=0.01) and non["verdict"] == "no_change"
    assert non["difference_ci_low"] < 0 < non["difference_ci_high"]
    assert imp["dimension"] == DIM and imp["rubric"] == RUBRIC
    assert (imp["n_tasks_before"], imp["n_tasks_after"]) == (28 * PER_DAY, 27 * PER_DAY)


def test_too_early_until_the_after_window_holds_enough_tasks(followups):
    late = _row(followups, "c_late")
    assert late["n_tasks_after"] == 2 * PER_DAY < fu.MIN_TASKS
    assert late["verdict"] == "too_early" and "12 of the 15 tasks" in late["reason"]
    assert late["rubric"] == RUBRIC  # an event without a rubric: each rubric the contractor rated


def test_the_team_leaves_out_contractors_given_feedback_within_the_windows(followups):
    imp, late = _row(followups, "c_imp"), _row(followups, "c_late")
    # c_non, c_late and c_tie were given feedback within c_imp's windows: t1..t4 remain
    assert imp["team_contractors"] == 4
    assert imp["team_before"] == pytest.approx(0.6, abs=0.01) and imp["team_after"] == pytest.approx(0.8, abs=0.01)
    # c_late's windows (from 2026-03-27) hold everyone's feedback of 2026-03-30 too
    assert late["team_contractors"] == 4


def test_the_interval_is_statsmodels_separate_variance_interval(project):
    """Independent: the per-task agreement of c_imp and of the team, read from the ratings, through statsmodels."""
    con = connect_copy(project, project.parent / "check.duckdb")
    tasks = con.execute(
        """SELECT c.rater_id, CAST(c.submitted_at AS DATE) AS day, CAST(c.value = r.value AS DOUBLE) AS agree
           FROM ratings c JOIN ratings r USING (task_id, rubric, dimension, target)
           WHERE c.role = 'contractor' AND r.role = 'researcher'"""
    ).df()
    got = fu.followups(con)
    con.close()
    day = pd.to_datetime(tasks["day"]).dt.date
    before = (day >= SENT.date() - dt.timedelta(days=28)) & (day < SENT.date())
    after = (day > SENT.date()) & (day <= SENT.date() + dt.timedelta(days=28))
    mine, team = tasks["rater_id"] == "c_imp", tasks["rater_id"].str.match(r"t\d")
    own = CompareMeans(DescrStatsW(tasks.loc[mine & after, "agree"]), DescrStatsW(tasks.loc[mine & before, "agree"]))
    others = CompareMeans(DescrStatsW(tasks.loc[team & after, "agree"]), DescrStatsW(tasks.loc[team & before, "agree"]))
    diff = (own.d1.mean - own.d2.mean) - (others.d1.mean - others.d2.mean)
    half = Z95 * np.hypot(own.std_meandiff_separatevar, others.std_meandiff_separatevar)
    row = _row(got, "c_imp")
    assert row["difference"] == pytest.approx(diff, abs=1e-12)
    assert (row["difference_ci_low"], row["difference_ci_high"]) == pytest.approx((diff - half, diff + half), abs=1e-12)


def test_an_effect_the_card_named_is_followed_up_in_its_own_terms(followups):
    ties = _row(followups, "c_tie", "ties")
    assert (ties["before"], ties["after"]) == pytest.approx((0.5, 0.1), abs=0.01)
    assert ties["team_change"] == pytest.approx(0.0, abs=1e-12)
    assert ties["verdict"] == "improved"  # fewer ties is better
    assert _row(followups, "c_tie")["measure"] == "agreement"  # and agreement, as for every event
    assert set(followups.loc[followups["rater_id"] != "c_tie", "measure"]) == {"agreement"}


def test_the_rubric_and_the_contractor_choose_the_events(project):
    con = connect_copy(project, project.parent / "pick.duckdb")
    try:
        assert set(fu.followups(con, rater="c_imp")["rater_id"]) == {"c_imp"}
        # c_late's feedback was about every rubric: followed up on the rubric asked for, where no task came yet
        (late,) = fu.followups(con, rubric="instruction_following").itertuples(index=False)
        assert (late.rater_id, late.rubric, late.n_tasks_after, late.verdict) == (
            "c_late",
            "instruction_following",
            0,
            "too_early",
        )
    finally:
        con.close()


def test_the_tally_and_the_sentences(followups):
    t = fu.tally(followups)
    assert t.improved == ("c_imp", "c_tie") and t.too_early == ("c_late",)
    assert t.given == ("c_imp", "c_late", "c_non", "c_tie")
    assert t.sentence == (
        "Of the 4 contractors given feedback since 2026-03-30, 2 improved credibly beyond the team's own change in "
        "the same weeks; 1 too early to tell."
    )
    line = fu.describe(_row(followups, "c_non"))
    assert line.startswith("Feedback of 2026-03-30 (") and "went from 40% to 60%" in line
    assert line.endswith("no credible change.")
    assert fu.last_lines(fu.of_contractor(followups, "c_imp"))[0].startswith("Last feedback follow-up: Feedback of")


def test_the_command_line_prints_the_contract(project, tmp_path):
    db = tmp_path / "cli.duckdb"
    connect_copy(project, db).close()
    out = json.loads(run_cli("followup", "--db", str(db), "--json", check=True).stdout)
    rows = out["followups"]
    assert all(list(r)[: len(fu.CONTRACT_KEYS)] == list(fu.CONTRACT_KEYS) for r in rows)
    imp = next(r for r in rows if r["rater_id"] == "c_imp")
    assert imp["sent_at"] == "2026-03-30T10:00:00" and imp["measure"] == "agreement" and imp["verdict"] == "improved"
    assert {r["verdict"] for r in rows} <= set(fu.VERDICTS)
    text = run_cli("followup", "--db", str(db), "--rubric", RUBRIC, check=True).stdout
    assert text.startswith("Follow-ups: each contractor's change in the 28 days after feedback")
    assert "c_imp: Feedback of 2026-03-30" in text


def test_without_events_nothing_to_follow(empty_store, tmp_path):
    db = tmp_path / "empty.duckdb"
    connect_copy(empty_store, db).close()
    assert json.loads(run_cli("followup", "--db", str(db), "--json", check=True).stdout) == {"followups": []}
    assert run_cli("followup", "--db", str(db), check=True).stdout.startswith("No feedback recorded")
    assert run_cli("followup", "--db", str(tmp_path / "missing.duckdb")).returncode == 2
