"""The rater effects in a contractor's report: each effect checked on every rubric where the contractor's ratings can
show it, with the evidence in the report's own terms and advice where it applies."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import duckdb
import numpy as np
import pandas as pd

from analytics import agreement as ag
from analytics.agreement import team as tm
from analytics.alarms.words import REST, dimension_words
from analytics.core.formatting import is_missing, levels
from analytics.describe import distributions as dist
from analytics.effects import EFFECT_TITLES
from analytics.effects.verdicts import (
    NOT_MEASURED,
    REPORT_EFFECTS,
    SHOWN,
    STATUS_ORDER,
    TABLE_EFFECTS,
    TOO_FEW,
    advice,
    tie_level,
    verdict_of_rows,
)
from analytics.feedback.scope import Catalogue, rubric_dimensions
from analytics.feedback.team import TeamFigures

EFFECT_HEADERS = {  # a report effect column -> a table's header: which value is shrunk, which is the contractor's own
    "value": "value shown",
    "ci_low": "value shown 95% low",
    "ci_high": "value shown 95% high",
    "raw": "own value (their ratings alone)",
    "shrunk": "value shown is shrunk toward the team",
    "reference": "team or reference value",
    "n": "n behind the own value",
}
JUDGED = "judged"  # a row measured well enough to judge: its status is the verdict (analytics.effects.verdicts)
EFFECT_COLUMNS = (
    "effect",
    "title",
    "rubric",
    "dimension",
    "dimension_label",
    "status",
    "value",
    "ci_low",
    "ci_high",
    "raw",
    "shrunk",
    "reference",
    "n",
    "n_of",
    "evidence",
    "advice",
)


EffectRows = Mapping[str, list[dict]]  # rubric -> one contractor's effects-table rows in it, in the table's order


def effect_rows(effects: pd.DataFrame, contractor: str) -> dict[str, list[dict]]:
    """The contractor's rows of the effects table (analytics.effects.estimate_effects), per rubric."""
    mine = effects[effects["rater_id"] == contractor] if len(effects) else effects  # not every rater's as records
    return every_effect_rows(mine, (contractor,))[contractor]


def every_effect_rows(effects: pd.DataFrame, contractors: tuple[str, ...]) -> dict[str, dict[str, list[dict]]]:
    """effect_rows of each of `contractors` from one pass over the effects table."""
    out: dict[str, dict[str, list[dict]]] = {c: {} for c in contractors}
    for row in effects.to_dict("records") if len(effects) else []:
        if (mine := out.get(row["rater_id"])) is not None:
            mine.setdefault(row["rubric"], []).append(row)
    return out


def rater_effects(
    con: duckdb.DuckDBPyConnection,
    contractor: str,
    team: TeamFigures,
    rubric_names: tuple[str, ...],
    card: pd.DataFrame,
    trend: pd.DataFrame,
    times: pd.DataFrame,
    known: Catalogue | None = None,
    mine: EffectRows | None = None,
    positions: Mapping[str, RubricPositions] | None = None,
) -> pd.DataFrame:
    """Each rater effect (REPORT_EFFECTS) checked on each rubric where it can be measured. Whether it applies
    (SHOWN) is the effects table's verdict (analytics.effects.verdicts), decided there once; the evidence speaks to
    the contractor in the report's own terms: position bias and ties (distributions.position_bias), leniency or
    severity, central tendency and halo (the effects table), haste (time per submission) and drift (the early/late
    trend). `mine`: effect_rows of the contractor, `positions`: rubric_positions of the team, when split
    beforehand for many (every_effect_rows)."""
    mine = effect_rows(team.effects, contractor) if mine is None else mine
    positions = rubric_positions(team.positions, (contractor,)) if positions is None else positions
    rows: list[dict] = []
    for rubric in rubric_names:
        dims = rubric_dimensions(con, rubric, known)
        at = positions[rubric] if rubric in positions else _split_positions(team.positions.iloc[:0])
        rows += _position_effects(contractor, at, rubric, dims)
        for effect in ("leniency_or_severity", "central_tendency", "halo"):
            rows += _table_effect(mine.get(rubric, []), rubric, effect, dims)
    rows += _haste_effects(times, card)
    rows += _drift_effects(trend)
    rows = [_decided(r, mine.get(r["rubric"], [])) for r in rows]
    return pd.DataFrame(sorted(rows, key=_report_order), columns=list(EFFECT_COLUMNS))


STATUS_RANK = {s: i for i, s in enumerate(STATUS_ORDER)}
EFFECT_RANK = {e: i for i, e in enumerate(REPORT_EFFECTS)}


def _report_order(row: Any) -> tuple:
    """Where an effect row goes in a report: by status (shown first), effect, then rubric (a stable sort)."""
    return (
        STATUS_RANK.get(row["status"], len(STATUS_RANK)),
        EFFECT_RANK.get(row["effect"], len(EFFECT_RANK)),
        row["rubric"],
    )


@dataclass(frozen=True)
class RubricPositions:
    """The team's distributions.position_bias rows of one rubric, split for every contractor's report."""

    rows: pd.DataFrame  # every rater's and role's rows
    own: dict[str, pd.DataFrame]  # rater -> their own rows (not pooled), in the table's order
    researchers: pd.DataFrame  # the researchers' pooled rows


def rubric_positions(positions: pd.DataFrame, raters: tuple[str, ...] | None = None) -> dict[str, RubricPositions]:
    """The team's position_bias rows (TeamFigures.positions) per rubric, split once for many reports (`raters`:
    the only raters whose own rows are split out, None: everyone)."""
    if not len(positions):
        return {}
    return {str(r): _split_positions(g, raters) for r, g in positions.groupby("rubric", sort=False)}


def _split_positions(g: pd.DataFrame, raters: tuple[str, ...] | None = None) -> RubricPositions:
    """One rubric's position_bias rows split per rater (`raters` alone when given), and the researchers' pooled
    rows."""
    if not len(g):
        return RubricPositions(g, {}, g)
    pooled = g["pooled"].astype(bool)
    own_rows = g[~pooled] if raters is None else g[~pooled & g["rater_id"].isin(raters)]
    own = {str(r): rows for r, rows in own_rows.groupby("rater_id", sort=False)}
    return RubricPositions(g, own, g[pooled & (g["role"] == "researcher")])


def _of_effect(rows: list[dict], effect: str) -> list[dict]:
    """The rows of the effects table's effects that decide a report effect (TABLE_EFFECTS), in table order."""
    table = TABLE_EFFECTS[effect]
    return [r for r in rows if r["effect"] in table]


def _decided(row: dict, mine: list[dict]) -> dict:
    """An effect row with its status set to the verdict on the contractor's effects table rows of its rubric
    (`mine`), its advice kept only where the effect is shown. A row the report's own evidence finds too thin (too
    few, not measured) stays so unless the alarm layer flags the effect: then it is shown with the alarm's own
    figures, so a card never says "too few to judge" beside an alarm."""
    status = verdict_of_rows(mine, row["effect"])
    if row["status"] == JUDGED:
        return row | {"status": status, "advice": row["advice"] if status == SHOWN else ""}
    if status != SHOWN:
        return row
    alarm = _strongest_alarm(mine, row["effect"])
    where = dimension_words(str(alarm["rubric"]), str(alarm["dimension"])) if alarm["dimension"] else "The whole rubric"
    values = dict(value=alarm["estimate"], ci_low=alarm["estimate_ci_low"], ci_high=alarm["estimate_ci_high"])
    values |= dict(raw=alarm["raw"], shrunk=True, reference=alarm["team_value"], n=int(alarm["n_tasks"]), n_of="tasks")
    return (
        row
        | values
        | {"status": SHOWN, "advice": row["advice"] or advice(str(alarm["effect"])), "evidence": plain(alarm, where)}
    )


def _strongest_alarm(mine: list[dict], effect: str) -> dict:
    """The contractor's flagged effects-table row of a report effect in a rubric with the largest z (the first of
    equals; a z that is not a number counts last)."""
    flagged = [r for r in _of_effect(mine, effect) if r["flagged"]]
    return max([r for r in flagged if not math.isnan(r["z"])] or flagged, key=lambda r: r["z"])


def _table_effect(mine: list[dict], rubric: str, effect: str, dims: pd.DataFrame) -> list[dict]:
    """One report row of an effect read straight from the effects table (`mine`: the contractor's rows of the
    rubric): the flagged dimension furthest from the team (or, none flagged, the furthest of those with enough
    tasks), with its evidence."""
    rows = _of_effect(mine, effect)
    if not rows:
        return []
    labels = dict(zip(dims["dimension"], dims["label"], strict=True))
    enough = [r for r in rows if r["n_tasks"] >= ag.MIN_TASKS or bool(r["flagged"])]  # an alarm needs no floor
    if not enough:
        most = int(max(r["n_tasks"] for r in rows))
        return [
            _effect(
                effect,
                rubric,
                TOO_FEW,
                f"At most {_count(most, 'task')} on a dimension, fewer than {ag.MIN_TASKS}.",
                n=most,
                n_of="tasks",
            )
        ]
    flagged = [r for r in enough if r["flagged"]]
    pool = flagged or enough
    top = pool[int(np.nanargmax([abs(r["estimate"] - r["team_value"]) for r in pool]))]  # as pandas idxmax
    name = EFFECT_TITLES.get(str(top["effect"]), REPORT_EFFECTS[effect])
    where = labels.get(top["dimension"], top["dimension"]) if top["dimension"] else "the whole rubric"
    listed = " ".join(plain(r, labels.get(r["dimension"], r["dimension"]) or "The whole rubric") for r in flagged)
    judged = f"{len(flagged)} of the {len(enough)} dimensions" if len(enough) > 1 else "the one dimension"
    evidence = (
        f"{name} shows on {judged} with an alarm or at least {ag.MIN_TASKS} tasks. {listed}"
        if len(flagged)
        else f"In line with the rest of the team on every dimension with at least {ag.MIN_TASKS} tasks; the "
        f"furthest from it: {plain(top, where)}"
    )
    return [
        _effect(
            effect,
            rubric,
            JUDGED,
            evidence,
            title=name,
            advice=advice(str(top["effect"])),
            dimension=top["dimension"] or None,
            dimension_label=where,
            value=top["estimate"],
            ci_low=top["estimate_ci_low"],
            ci_high=top["estimate_ci_high"],
            raw=top["raw"],
            shrunk=True,
            reference=top["team_value"],
            n=int(top["n_tasks"]),
            n_of="tasks",
        )
    ]


def plain(row: Mapping[str, Any], where: str) -> str:
    """An effects-table row in plain words, the figures as the table has them: the contractor's own value on their
    tasks, the value once chance on that many tasks is allowed for (what the alarm judges), and the rest of the
    team's, in levels of the scale or as a share."""
    raw, shown, team, n = float(row["raw"]), float(row["estimate"]), float(row["team_value"]), int(row["n_tasks"])
    if row["unit"] == "levels":
        other = "the researchers" if row["basis"] == "researchers" else "the other contractors"
        said = (
            f"{where}: on your {n} tasks you rated {levels(raw, other)} on average ({levels(shown, other)} once "
            f"chance on that many tasks is allowed for); {REST}: {levels(team, 'them')}."
        )
    elif (what := SHARE_WORDS.get(str(row["effect"]))) is None:  # haste and drift: their measure says it best
        return str(row["evidence"])
    else:
        said = (
            f"{where}: {what.format(share=f'{raw:.0%}')} over your {n} tasks ({shown:.0%} once chance on that many "
            f"tasks is allowed for); {REST}: {team:.0%}."
        )
    if row["effect"] not in KEEP_EVIDENCE or "; " not in str(row["evidence"]):
        return said
    extra = str(row["evidence"]).split("; ", 1)[1]  # what the table's sentence adds after the share it repeats
    return f"{said} {extra[0].upper()}{extra[1:]}"


SHARE_WORDS = {  # an effects-table effect measured as a share -> how the contractor's share reads
    "central_tendency": "{share} of your ratings at the scale's inner levels (neither end)",
    "halo": "one answer's ratings spread over {share} of the scale across its dimensions on average",
    "ties": "you called {share} of your comparisons a tie",
    "position_bias": "the option shown first won {share} of your decided comparisons",
}
KEEP_EVIDENCE = {"central_tendency"}  # its evidence adds, after a "; ", how widely the ratings vary (levels.py)


def _effect(effect: str, rubric: str, status: str, evidence: str, **values: Any) -> dict:
    """One EFFECT_COLUMNS row; `advice` is what to do should the verdict show the effect (judged rows only)."""
    return {
        "effect": effect,
        "title": values.pop("title", REPORT_EFFECTS[effect]),
        "advice": "",
        "rubric": rubric,
        "dimension": None,
        "dimension_label": None,
        "value": math.nan,
        "ci_low": math.nan,
        "ci_high": math.nan,
        "raw": values.get("value", math.nan),  # a value nothing shrinks is the contractor's own
        "shrunk": False,
        "reference": math.nan,
        "n": 0,
        "n_of": "",
        **values,
        "status": status,
        "evidence": evidence,
    }


def _position_effects(contractor: str, at: RubricPositions, rubric: str, dims: pd.DataFrame) -> list[dict]:
    """Position bias and ties on the rubric's primary comparison dimension (else the comparison dimension the
    contractor rated most), from distributions.position_bias rows of every rater in the rubric (`at`)."""
    comparison = dims[dims["is_comparison"].astype(bool)]
    if comparison.empty:
        return []
    g, mine = at.rows, at.own.get(contractor)
    if mine is None or mine.empty:
        return [_effect("position_bias", rubric, NOT_MEASURED, dist.NO_SHOWN_FIRST)]
    primary = comparison.loc[comparison["is_primary"].astype(bool), "dimension"]
    at_primary = mine[mine["dimension"].isin(primary)]
    r = (at_primary if not at_primary.empty else mine.sort_values("n_rated", ascending=False, kind="stable")).iloc[0]
    dim = comparison[comparison["dimension"] == r["dimension"]].iloc[0]
    label, where = str(dim["label"]), {"dimension": r["dimension"], "dimension_label": str(dim["label"])}
    researchers = at.researchers[at.researchers["dimension"] == r["dimension"]]
    return [_position_bias(r, researchers, rubric, label, where), _ties(r, g, researchers, dim, rubric, where)]


def _position_bias(r: pd.Series, researchers: pd.DataFrame, rubric: str, label: str, where: dict) -> dict:
    """Position bias: the share of decided comparisons won by the option shown first, against one half."""
    n, share, lo, hi = int(r["n"]), r["share_first_better"], r["ci_low"], r["ci_high"]
    values = dict(where, value=share, ci_low=lo, ci_high=hi, reference=0.5, n=n, n_of="decided comparisons")
    if n < ag.MIN_TASKS:
        return _effect(
            "position_bias",
            rubric,
            TOO_FEW,
            f"{label}: {n} decided comparisons, fewer than "
            f"{ag.MIN_TASKS}; too few to tell a preference for a position from chance.",
            **values,
        )
    first = share >= 0.5
    won, w_lo, w_hi = (share, lo, hi) if first else (1 - share, 1 - hi, 1 - lo)
    res = ""
    if not researchers.empty and researchers["n"].iloc[0] > 0:
        rs = float(researchers["share_first_better"].iloc[0])
        res = f" Researchers' first-shown option won {rs:.0%} of theirs."
    evidence = (
        f"{label}: the option shown {'first' if first else 'second'} won {won:.0%} of your {n} decided comparisons "
        f"(95% interval {w_lo:.0%} to {w_hi:.0%}); without a preference for a position it would be about 50%.{res}"
    )
    return _effect("position_bias", rubric, JUDGED, evidence, advice=advice("position_bias"), **values)


def _ties(r: pd.Series, g: pd.DataFrame, researchers: pd.DataFrame, dim: pd.Series, rubric: str, where: dict) -> dict:
    """Ties: the share of comparisons rated at the scale's middle ("Equally good"), against the researchers'
    share (the team median of other contractors' when no researcher has one)."""
    levels = list(dim["levels"])
    tie = tie_level(levels)
    n, equal = int(r["n_rated"]), int(r["equal"])
    share = equal / n if n else math.nan
    lo, hi = (float(x[0]) for x in dist.wilson_interval(np.array([equal]), np.array([n])))
    if not researchers.empty and researchers["n_rated"].iloc[0] > 0:
        ref = float(researchers["equal"].iloc[0] / researchers["n_rated"].iloc[0])
        who = "researchers"
    else:
        team = g[(g["role"] == "contractor") & ~g["pooled"].astype(bool) & (g["dimension"] == r["dimension"])]
        team = team.assign(tie_share=team["equal"] / team["n_rated"].where(team["n_rated"] > 0))
        med = tm.team_medians(team, ("tie_share",), (str(r["rater_id"]),), by=("dimension",), size="n_rated")
        ref = float(med["tie_share"].iloc[0]) if len(med) else math.nan
        who = "the team median"
    values = dict(where, value=share, ci_low=lo, ci_high=hi, reference=ref, n=n, n_of="comparisons")
    label = where["dimension_label"]
    if n < ag.MIN_TASKS:
        return _effect("ties", rubric, TOO_FEW, f"{label}: {n} comparisons, fewer than {ag.MIN_TASKS}.", **values)
    evidence = f"{label}: you chose {tie} on {share:.0%} of your {n} comparisons (95% interval {lo:.0%} to {hi:.0%})"
    evidence += f"; {who}: {ref:.0%}." if not math.isnan(ref) else "."
    return _effect("ties", rubric, JUDGED, evidence, advice=advice("ties", tie), **values)


def _count(n: int, word: str) -> str:
    """ "1 task", "2 tasks"."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _haste_effects(times: pd.DataFrame, card: pd.DataFrame) -> list[dict]:
    """Haste per rubric: the contractor's time per submission against the team's median, with their agreement
    on the rubric's primary dimension beside the team's."""
    rows = []
    primaries = _records(card[card["is_primary"] & (card["n"] > 0)], HASTE_CARD) if len(times) else []
    for d in _records(times, list(times.columns)):
        if is_missing(d["team_median_s"]):
            continue
        n = int(d["submissions"])
        values = dict(value=d["ratio"], reference=1.0, n=n, n_of="submissions")
        if n < ag.MIN_TASKS:
            rows.append(
                _effect(
                    "haste",
                    d["rubric"],
                    TOO_FEW,
                    f"{n} submissions with a duration, fewer than {ag.MIN_TASKS}.",
                    **values,
                )
            )
            continue
        evidence = (
            f"Your median time per submission is {d['median_s']:.0f} s (middle half {d['q1_s']:.0f} to "
            f"{d['q3_s']:.0f} s) over {n} submissions; the team median is {d['team_median_s']:.0f} s."
        )
        p = next((p for p in primaries if p["rubric"] == d["rubric"]), None)
        if p is not None and not is_missing(p["team_exact_agreement"]):
            evidence += (
                f" Your exact agreement with researchers on {p['dimension_label']} is {p['exact_agreement']:.2f} "
                f"({int(p['n_tasks'])} tasks) against a team median of {p['team_exact_agreement']:.2f}."
            )
        rows.append(_effect("haste", d["rubric"], JUDGED, evidence, advice=advice("haste"), **values))
    return rows


HASTE_CARD = ["rubric", "dimension_label", "is_primary", "n", "n_tasks", "exact_agreement", "team_exact_agreement"]


def _records(frame: pd.DataFrame, columns: list[str]) -> list[dict]:
    """The frame's rows as dicts of the given columns (Python values, as pandas' to_dict gives them); none of a
    frame without rows, whatever its columns."""
    if not len(frame):
        return []
    return [dict(zip(columns, row, strict=True)) for row in zip(*(frame[c].tolist() for c in columns), strict=True)]


def _drift_effects(trend: pd.DataFrame) -> list[dict]:
    """Drift per rubric: exact agreement in the second half of the contractor's weeks against the first half's,
    with the 95% interval of the change, over at least MIN_TASKS tasks."""
    rows = []
    for _, t in trend.iterrows():
        n = int(t["early_tasks"] + t["late_tasks"])
        values = dict(value=t["change"], ci_low=t["change_ci_low"], ci_high=t["change_ci_high"], reference=0.0)
        values |= dict(n=n, n_of="tasks")
        evidence = (
            f"Exact agreement with researchers went from {t['early']:.2f} ({t['early_weeks']}, "
            f"{_count(int(t['early_tasks']), 'task')}) to {t['late']:.2f} ({t['late_weeks']}, "
            f"{_count(int(t['late_tasks']), 'task')})"
        )
        if n < ag.MIN_TASKS:
            rows.append(
                _effect("drift", t["rubric"], TOO_FEW, f"{evidence}: {n} tasks, fewer than {ag.MIN_TASKS}.", **values)
            )
        elif is_missing(t["change_ci_high"]):
            rows.append(_effect("drift", t["rubric"], NOT_MEASURED, f"{evidence}; no interval was computed.", **values))
        else:
            evidence += f"; the 95% interval of the change is {t['change_ci_low']:+.2f} to {t['change_ci_high']:+.2f}."
            rows.append(_effect("drift", t["rubric"], JUDGED, evidence, advice=advice("drift"), **values))
    return rows
