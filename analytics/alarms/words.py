"""How an alarm reads, one wording for every place that shows it (the Overview and Feedback pages, report cards,
the `alerts` command): what was measured, in plain units (percentage points, levels of the scale, a share of the
team's median time), against the rest of the team, and since when."""

from __future__ import annotations

from typing import Any

import pandas as pd

from analytics.consistency import catalogue
from analytics.core.formatting import levels, points, week_label
from analytics.core.rubrics import RUBRICS
from analytics.effects import EFFECT_TITLES, drift

KIND_TITLES = {"drift": "Drift", "rule": "Rule", **{k: v for k, v in EFFECT_TITLES.items() if k != "drift"}}
REST = "the rest of the team"
RULE_WORDS = 60  # characters of a rule's words in an alarm's label (the evidence quotes it whole)


def rubric_words(rubric: str) -> str:
    """A rubric's title from the catalogue (its name when uncatalogued)."""
    return RUBRICS[rubric].title if rubric in RUBRICS else rubric


def dimension_words(rubric: str, dimension: str) -> str:
    """How a dimension or rule an alarm is on reads: the catalogue's label of the dimension, the rule's words
    (shortened), else its name."""
    if rubric in RUBRICS and RUBRICS[rubric].has_dimension(dimension):
        return RUBRICS[rubric].dimension(dimension).label
    try:
        words = catalogue.rule(dimension).description
    except KeyError:
        return dimension
    return words if len(words) <= RULE_WORDS else words[: RULE_WORDS - 1].rstrip() + "…"


def alarm_line(a: Any) -> str:
    """One alarm (an ALERT_COLUMNS row: a Series or a named tuple) as the sentence every page and report shows:
    kind, rubric, dimension or rule, since when, then the evidence ("Drift on Answer comparison since 09 Mar
    2026: ...")."""
    get = a.get if isinstance(a, pd.Series) else lambda k: getattr(a, k)
    kind, rubric, dimension, since = str(get("kind")), str(get("rubric")), get("dimension"), get("since")
    named = kind != "rule" and dimension and not pd.isna(dimension)  # a rule's evidence quotes its words whole
    where = f", {dimension_words(rubric, str(dimension))}" if named else ""
    when = f" since {week_label(since)}" if pd.notna(since) else ""
    return f"{KIND_TITLES.get(kind, kind)} on {rubric_words(rubric)}{where}{when}: {get('detail')}"


def effect_detail(effect: str, own: float, team: float, n: int, basis: str, evidence: str) -> str:
    """A flagged rater effect's evidence: the contractor's own figure in its unit against the rest of the team's,
    over how many tasks, then what the effect's measure adds (drift's two windows, haste's seconds)."""
    said = EFFECT_WORDS[effect](own, team, basis)
    extra = f" {evidence}" if effect in KEEP_EVIDENCE and evidence else ""
    return f"{said}, over {n} tasks.{extra}"


def rule_detail(words: str, broken: int, checked: int, team: float) -> str:
    """A flagged rule's evidence: how often the contractor broke it against the rest of the team."""
    share = broken / checked
    return (
        f'Broke the rule "{words}" on {broken} of {checked} submissions ({share:.0%}), {points(share - team, REST)} '
        f"({team:.0%})."
    )


def _shift(own: float, team: float, basis: str) -> str:
    """Leniency or severity: the mean difference from researchers (or the other contractors) in levels."""
    other = "the researchers" if basis == "researchers" else "the other contractors"
    return f"Rated {levels(own, other)} on the same items on average (the rest of the team: {levels(team, 'them')})"


def _share(what: str) -> Any:
    """A share's wording: the contractor's, in percentage points from the rest of the team's."""
    return lambda own, team, basis: f"{what.format(share=f'{own:.0%}')}, {points(own - team, REST)} ({team:.0%})"


def _haste(own: float, team: float, basis: str) -> str:
    """Haste: time per submission as a share of the rubric's median time, the rest of the team's beside it."""
    return f"Took {own:.0%} of the rubric's median time per submission (the rest of the team: {team:.0%})"


def _drift(own: float, team: float, basis: str) -> str:
    """Drift: the fall in agreement with the other contractors, each week held to the team's that same week."""
    before = f"the {drift.BASELINE_WEEKS} weeks before"
    return (
        f"Agreement with the other contractors in the last {drift.RECENT_WEEKS} weeks: {points(-own, before)}, each "
        f"week measured against the team's that same week (the rest of the team: {points(-team, before)})"
    )


EFFECT_WORDS = {
    "leniency": _shift,
    "severity": _shift,
    "central_tendency": _share("{share} of their ratings at the scale's inner levels (neither end)"),
    "ties": _share("Called {share} of their comparisons a tie"),
    "position_bias": _share("The option shown first won {share} of their decided comparisons"),
    "halo": _share("One item's ratings spread over {share} of the scale across its dimensions on average"),
    "haste": _haste,
    "drift": _drift,
}
KEEP_EVIDENCE = {"haste", "drift"}  # their measure's evidence says more than the line
