"""Rater effects in the feedback report (analytics.feedback.rater_effects): on a hand-built store whose every
figure below is counted from the rows `effects_csv` writes, and on the demo, where each planted behaviour
(truth.json of the `demo_store` fixture, demo/behaviours.py) must be reported for its contractors
wherever they have enough ratings, and no effect at all for the careful ones.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re

import pandas as pd
import pytest

from analytics import store
from analytics.agreement import MIN_TASKS
from analytics.core.formatting import levels
from analytics.effects import estimate_effects
from analytics.effects import verdicts as vd
from analytics.effects.shrink import MARGIN
from analytics.feedback import report as fr
from analytics.feedback import scope
from analytics.feedback import team as fteam
from analytics.feedback.export import csv as csv_export
from analytics.feedback.export import html as html_export
from analytics.feedback.export import markdown as md_export
from analytics.ingest.load import ingest_bytes

AC, UC = "answer_comparison", "usefulness_comparison"
N = 40  # tasks t00..t39, ten a week from Monday 2026-03-02
START = dt.date(2026, 3, 2)


def _shown_first(i: int) -> str:
    """Which option contractors saw first on task i: A, A, B, B, A, A, ... (independent of the truth)."""
    return "A" if (i // 2) % 2 == 0 else "B"


def _truth(i: int) -> str:
    """r1's label of task i: A better on even tasks, B better on odd ones."""
    return "A better" if i % 2 == 0 else "B better"


# Each contractor: (tasks rated, value of task i, seconds per task).
CONTRACTORS = {
    "cx_first": (N, lambda i: f"{_shown_first(i)} better", 300),  # always the option shown first: won 40 of 40
    "cx_careful": (N, _truth, 300),  # agrees with r1; the first shown wins on tasks 0, 3, 4, 7, ...: 20 of 40
    "cx_few": (12, lambda i: f"{_shown_first(i)} better", 300),  # like cx_first on 12 tasks only: too few to tell
    "cx_ties": (N, lambda i: _truth(i) if i % 10 == 0 else "Equally good", 300),  # ties on 36 of 40
    "cx_fast": (N, _truth, 10),  # 10 s per task where everyone else takes 300 s
}


def effects_csv() -> bytes:
    """Canonical CSV: researcher r1 labels every task (no shown_first: researchers see stored order), and each
    contractor of CONTRACTORS rates its tasks with shown_first, a date and a duration."""
    lines = ["task_id,rater_id,role,rubric,dimension,target,value,submitted_at,duration_s,shown_first"]
    day = {i: START + dt.timedelta(days=7 * (i // 10) + i % 5) for i in range(N)}
    lines += [f"t{i:02d},r1,researcher,{AC},{UC},comparison,{_truth(i)},{day[i]}T09:00:00,600," for i in range(N)]
    for rater, (tasks, value, seconds) in CONTRACTORS.items():
        lines += [
            f"t{i:02d},{rater},contractor,{AC},{UC},comparison,{value(i)},{day[i]}T10:00:00,{seconds},{_shown_first(i)}"
            for i in range(tasks)
        ]
    return ("\n".join(lines) + "\n").encode()


def load_effects_store(con) -> None:
    """The rows of effects_csv in `con`'s store."""
    result = ingest_bytes(con, effects_csv(), "effects.csv")
    assert result.status == "loaded" and result.rows_quarantined == 0, result.errors


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    con = store.open_store(tmp_path_factory.mktemp("effects") / "effects.duckdb")
    load_effects_store(con)
    yield con
    con.close()


@pytest.fixture(scope="module")
def small_team(small):
    return fteam.team_figures(small)


def _effects(con, rater: str, team) -> pd.DataFrame:
    return fr.feedback_report(con, rater, team=team, n_boot=200).effects.set_index("effect")


def test_position_bias_is_shown_for_first_pickers_with_enough_tasks(small, small_team):
    e = _effects(small, "cx_first", small_team)
    pb = e.loc["position_bias"]
    assert pb["status"] == vd.SHOWN
    assert (pb["n"], pb["value"]) == (40, 1.0)  # 40 decided comparisons, the first shown won all
    assert pb["ci_low"] == pytest.approx(40 / (40 + 1.959963984540054**2))  # Wilson lower bound at 40 of 40
    assert "won 100% of your 40 decided comparisons (95% interval 91% to 100%)" in pb["evidence"]
    assert pb["advice"].startswith("Read both answers in full")
    assert (e.drop(index="position_bias")["status"] != vd.SHOWN).all(), e
    # the same habit on 12 tasks is below the small-n rule: too few to tell from chance, and no advice
    few = _effects(small, "cx_few", small_team).loc["position_bias"]
    assert (few["status"], few["n"], few["advice"]) == (vd.TOO_FEW, 12, "")


def test_a_careful_contractor_is_told_nothing(small, small_team):
    e = _effects(small, "cx_careful", small_team)
    assert (e["status"] == vd.NOT_SHOWN).all(), e
    assert e.loc["position_bias", "value"] == 0.5  # 20 of 40
    assert set(e.index) == {"position_bias", "ties", "haste", "drift"}  # no absolute dimension: no leniency row
    assert (e["advice"] == "").all()


def test_ties_and_haste(small, small_team):
    ties = _effects(small, "cx_ties", small_team).loc["ties"]
    assert ties["status"] == vd.SHOWN
    assert (ties["value"], ties["n"], ties["reference"]) == (0.9, 40, 0.0)  # 36 of 40; other contractors: none
    assert 'you chose "Equally good" on 90% of your 40 comparisons' in ties["evidence"]
    haste = _effects(small, "cx_fast", small_team).loc["haste"]
    assert haste["status"] == vd.SHOWN
    assert haste["value"] == pytest.approx(10 / 300)  # median 10 s against the others' median of 300 s
    assert "Your median time per submission is 10 s" in haste["evidence"]


def test_effects_come_first_when_shown_and_exports_carry_them(small, small_team):
    rep = fr.feedback_report(small, "cx_first", team=small_team, n_boot=200)
    assert rep.effects.iloc[0]["effect"] == "position_bias"
    md = md_export.to_markdown(rep)
    assert "## What to change" in md and "### Position bias: Answer comparison" in md
    assert "Checked and not seen: Ties" in md
    assert "<h2>What to change</h2>" in html_export.to_html(rep)
    csv_text = csv_export.to_csv(rep)
    assert "\r\neffect,cx_first,answer_comparison," in csv_text


TIES_ADVICE = (
    'Choose "Equally good" only when neither option is better on anything the rubric names; when one is even '
    "slightly better, say which."
)


def test_the_effects_table_alone_decides_and_the_advice_is_filled(small, small_team):
    """Whether an effect is shown is the effects table's verdict, decided once (analytics/effects/verdicts.py):
    where it flags ties on a contractor whose own share of ties is not far above the reference (cx_careful rates
    no tie at all), the report shows ties with the advice naming the scale's tie level. Before the merge the
    report kept a margin of its own, and in this case its advice fell back to the raw template ("{tie}")."""
    effects = small_team.effects.copy()
    careful = (effects["rater_id"] == "cx_careful") & (effects["effect"] == "ties")
    assert careful.any() and not effects.loc[careful, "flagged"].any()
    effects.loc[careful, "flagged"] = True
    rep = fr.feedback_report(small, "cx_careful", team=dataclasses.replace(small_team, effects=effects), n_boot=200)
    ties = rep.effects.set_index("effect").loc["ties"]
    assert (ties["status"], ties["value"], ties["advice"]) == (vd.SHOWN, 0.0, TIES_ADVICE)
    for text in (md_export.to_markdown(rep), html_export.to_html(rep), csv_export.to_csv(rep)):
        assert "{tie}" not in text and "Equally good" in text and "only when neither option is better" in text
    # and the other way round: a high share of ties the table does not flag is not shown, and gets no advice
    effects = small_team.effects.assign(flagged=False)
    rep = fr.feedback_report(small, "cx_ties", team=dataclasses.replace(small_team, effects=effects), n_boot=200)
    ties = rep.effects.set_index("effect").loc["ties"]
    assert (ties["status"], ties["value"], ties["advice"]) == (vd.NOT_SHOWN, 0.9, "")


# --- the demo's planted behaviours ----------------------------------------------------------------------------

EFFECT_OF = {  # truth.json behaviour -> the effect that must report it, and the sign of its value
    "first_position": ("position_bias", +1),
    "lenient": ("leniency_or_severity", +1),
    "severe": ("leniency_or_severity", -1),
    "always_equal": ("ties", +1),
    "fast_careless": ("haste", -1),  # value: time per submission / the team's, below 1
    "drifting": ("drift", -1),
}


@pytest.fixture(scope="module")
def demo_reports(demo) -> dict[str, fr.FeedbackReport]:
    """Every demo contractor's report (200 resamples)."""
    team = fteam.team_figures(demo)
    sql = "SELECT DISTINCT rater_id FROM ratings WHERE role = 'contractor' ORDER BY 1"
    return {r: fr.feedback_report(demo, r, team=team, n_boot=200) for (r,) in demo.execute(sql).fetchall()}


@pytest.fixture(scope="module")
def demo_effects(demo_reports, truth) -> dict[str, pd.DataFrame]:
    """The effects of every planted contractor's report."""
    raters = {r for b in truth["behaviours"].values() for r in b["raters"]}
    return {r: demo_reports[r].effects for r in sorted(raters)}


@pytest.mark.parametrize("behaviour", sorted(EFFECT_OF))
def test_planted_behaviours_are_reported_where_there_are_enough_ratings(behaviour, truth, demo_effects):
    effect, sign = EFFECT_OF[behaviour]
    for rater in truth["behaviours"][behaviour]["raters"]:
        e = demo_effects[rater]
        rows = e[e["effect"] == effect]
        judged = rows[rows["status"].isin([vd.SHOWN, vd.NOT_SHOWN])]
        if judged.empty:  # every rubric below the small-n rule: said so, not guessed
            assert (rows["status"].isin([vd.TOO_FEW, vd.NOT_MEASURED])).all(), (rater, rows)
            continue
        shown = judged[judged["status"] == vd.SHOWN]
        assert not shown.empty, (rater, judged[["rubric", "status", "value", "ci_low", "ci_high", "n"]])
        reference = shown["reference"].fillna(0.0)
        assert ((shown["value"] - (reference if effect != "haste" else 1.0)) * sign > 0).all(), (rater, shown)


def test_position_bias_is_told_to_the_planted_contractors_on_the_demo(truth, demo_effects):
    """The signal is there today (tens of decided comparisons each): every planted position-bias contractor
    with MIN_TASKS decided comparisons is told, and at least one has them."""
    told = 0
    for rater in truth["behaviours"]["first_position"]["raters"]:
        pb = demo_effects[rater]
        pb = pb[(pb["effect"] == "position_bias") & (pb["rubric"] == AC)].iloc[0]
        if pb["n"] >= MIN_TASKS:
            assert pb["status"] == vd.SHOWN and pb["ci_low"] > 0.5 + MARGIN["position_bias"], (rater, pb)
            told += 1
        else:
            assert pb["status"] == vd.TOO_FEW
    assert told >= 1


def test_careful_contractors_are_told_of_no_effect(truth, demo_effects):
    careful = truth["behaviours"]["careful"]["raters"]
    for rater in careful:
        e = demo_effects[rater]
        assert (e["status"] != vd.SHOWN).all(), (rater, e[e["status"] == vd.SHOWN])
        pb = e[(e["effect"] == "position_bias") & (e["rubric"] == AC)]
        assert len(pb) == 1 and pb["status"].iloc[0] in (vd.NOT_SHOWN, vd.TOO_FEW)
    # measured, not skipped: at least one careful contractor has enough comparisons to be judged
    assert any(
        ((demo_effects[r]["effect"] == "position_bias") & (demo_effects[r]["status"] == vd.NOT_SHOWN)).any()
        for r in careful
    )


PLACEHOLDER = re.compile(r"\{[A-Za-z_]\w*\}")  # a str.format field left unfilled, such as "{tie}"


def test_no_export_of_any_demo_contractor_holds_an_unfilled_placeholder(demo_reports):
    told_of_ties = 0
    for rater, rep in demo_reports.items():
        exports = {
            "md": md_export.to_markdown(rep),
            "html": html_export.to_html(rep),
            "csv": csv_export.to_csv(rep),
            "disagreements csv": csv_export.disagreements_csv(rep),
        }
        for name, text in exports.items():
            assert not PLACEHOLDER.findall(text), (rater, name, PLACEHOLDER.findall(text))
        ties = rep.effects[(rep.effects["effect"] == "ties") & (rep.effects["status"] == vd.SHOWN)]
        assert (ties["advice"] == TIES_ADVICE).all(), (rater, ties)
        told_of_ties += len(ties)
    assert told_of_ties  # the demo's tie-prone contractors are told, with the advice filled


def test_a_shrunk_value_is_told_beside_the_contractors_own_and_its_n(truth, demo_reports, demo):
    """Issue 48: a report never gives the team's pull as the contractor's own figure. A lenient contractor's
    leniency row carries the shrunk value, their own raw value and its tasks as the effects table has them, and
    the evidence the exports print says which is which; rows nothing shrinks carry their own value as raw."""
    effects_table = estimate_effects(demo, scope.team_filter(scope.NO_FILTERS))  # the table the reports read
    told = 0
    for rater in truth["behaviours"]["lenient"]["raters"]:
        rep = demo_reports[rater]
        rows = rep.effects[(rep.effects["effect"] == "leniency_or_severity") & (rep.effects["status"] == vd.SHOWN)]
        for r in rows.itertuples():
            mine = effects_table[
                (effects_table["rater_id"] == rater)
                & (effects_table["rubric"] == r.rubric)
                & (effects_table["dimension"] == r.dimension)
                & (effects_table["effect"].isin(["leniency", "severity"]))
                & (effects_table["estimate"] == r.value)
            ].iloc[0]
            assert r.shrunk and (r.raw, r.n) == (mine["raw"], mine["n_tasks"])
            other = "the researchers" if mine["basis"] == "researchers" else "the other contractors"
            own, shown = levels(r.raw, other), levels(r.value, other)
            assert f"on your {r.n} tasks you rated {own} on average ({shown} once chance" in r.evidence, r.evidence
            assert f"the rest of the team: {levels(r.reference, 'them')}" in r.evidence, r.evidence
            assert r.evidence in csv_export.to_csv(rep)
            told += 1
        unshrunk = rep.effects[~rep.effects["shrunk"].astype(bool)]
        assert unshrunk["raw"].equals(unshrunk["value"])
    assert told


JARGON = re.compile(r"once pulled|times the contractors' overall|scale points|[+-]\d\.\d\d|judged \(an alarm")


def test_effect_evidence_reads_in_levels_and_shares_against_the_rest_of_the_team(demo_reports):
    """Issue 50: the card's evidence for the effects read from the effects table (leniency or severity, central
    tendency, halo) says the contractor's figures in levels of the scale or as shares, against the rest of the
    team, with no signed decimals or shrinkage jargon; the figures are the row's own."""
    table_effects = {"leniency_or_severity", "central_tendency", "halo"}
    told = 0
    for rep in demo_reports.values():
        rows = rep.effects[rep.effects["effect"].isin(table_effects) & (rep.effects["status"] == vd.SHOWN)]
        for r in rows.itertuples():
            assert not JARGON.search(r.evidence), r.evidence
            assert "the rest of the team: " in r.evidence and f"your {r.n} tasks" in r.evidence, r.evidence
            figures = (
                [f"{abs(v):.2f} level" for v in (r.raw, r.value)]
                if r.effect == "leniency_or_severity"
                else [f"{v:.0%}" for v in (r.raw, r.value, r.reference)]
            )
            assert all(f in r.evidence for f in figures), (figures, r.evidence)
            told += 1
    assert told
