"""An agreement report shaped for the Agreement page: readable tables, chart frames and notes in words.

Nothing here computes a coefficient: every number comes from analytics.agreement; these functions pick rows,
rename, format and reshape them.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import streamlit as st

from analytics.agreement import (
    COMPARISON_ROLES,
    DIMENSION_STATS,
    LABELS,
    MIN_TASKS,
    RATER_STATS,
    AgreementReport,
    ParadoxDiagnostic,
    headline,
    not_headline_note,
    team,
)
from analytics.core.formatting import fmt_ci
from ui.tables import column_label
from ui.text import md_escape

# The comparisons the page offers, as it names them (their roles: analytics.agreement.COMPARISON_ROLES).
COMPARISON_LABELS = {
    "contractor_vs_researcher": "Contractors vs researchers",
    "among_contractors": "Among contractors",
    "researcher_vs_researcher": "Researchers vs researchers",
}
# (the rated side, its plural, who it is compared with, the reference side as an axis title) per comparison
SIDES = {
    "contractor_vs_researcher": ("Contractor", "contractors", "researchers", "Researcher"),
    "among_contractors": ("Contractor", "contractors", "the other contractors", "Other contractor"),
    "researcher_vs_researcher": ("Researcher", "researchers", "the other researchers", "Other researcher"),
}
PAIRS_PANEL = "agr_pairs_panel"  # the rater x rater section's open state (session state): computed only while open
PAIRWISE_STATS = ("percent_agreement", "coarse_agreement", "cohen_kappa", "weighted_kappa")
CHART_DEFAULTS = ("weighted_kappa", "cohen_kappa", "exact_agreement")  # first one defined is the chart default
RANKING_STATS = ("preference_agreement", "kendall_tau_b")
SMALL, ENOUGH = f"fewer than {MIN_TASKS} tasks", f"{MIN_TASKS} tasks or more"
NOT_SHOWN = "—"  # undefined here (0/0, no pairs): the notes say why
NOT_APPLICABLE = "n/a"  # the coefficient does not exist for this scale (e.g. weighted kappa at nominal level)
NOT_HEADLINE = "not shown"  # unweighted on a fine interval or ratio scale (analytics.agreement.headline); notes say


# The coefficient a dimension's row leads with, per kind of scale: Krippendorff's alpha takes the dimension's level
# of measurement (its metric: nominal, ordinal, interval, ratio), any number of raters and missing ratings, so one
# figure reads the same way on every dimension; a ranking is read by its rank correlation. Where the first is
# undefined the next that is defined leads, and the row says so.
HEADLINE_STATS = {
    "ranking": ("kendall_tau_b", "preference_agreement"),
    "other": ("krippendorff_alpha", "weighted_kappa", "cohen_kappa", "gwet_ac2", "gwet_ac1", "percent_agreement"),
}
HEADLINE_COLUMN = "coefficient for the scale"
HEADLINE_VALUE = "value [95% interval]"
HEADLINE_NOTE = (
    "Each dimension leads with the coefficient for its scale: Krippendorff's alpha at the dimension's level of "
    "measurement (nominal, ordinal, interval or ratio: near levels count as near on an ordinal scale), which takes "
    "any number of raters and missing ratings and so reads the same way on every dimension; Kendall's tau-b on "
    "rankings. Percent agreement beside it is the plain share of pairs that agree exactly."
)


def headline_statistic(row: dict, absent: set[tuple[str, str]]) -> str | None:
    """The statistic a dimension's row leads with (HEADLINE_STATS): the first of its kind's list that applies to
    its scale and is defined; None when none is."""
    order = HEADLINE_STATS["ranking" if row.get("kind") == "ranking" else "other"]
    for s in order:
        if (row["dimension"], s) not in absent and s in row and not pd.isna(row[s]) and shown(row, s):
            return s
    return None


def headline_table(report: AgreementReport, dims: pd.DataFrame) -> pd.DataFrame:
    """One row per dimension in catalogue order that fits the page: its level and n, the coefficient for its
    scale (HEADLINE_STATS) with its interval, percent agreement and the notes; every other coefficient is in
    dimension_table, shown on request."""
    if report.dimensions.empty:
        return pd.DataFrame()
    d, out, _ = _dimension_rows(report, dims)
    absent = not_applicable(report.coefficients, "dimension")
    rows = d.to_dict("records")
    picks = [headline_statistic(r, absent) for r in rows]
    out = out.drop(columns=[c for c in ("units", "pairs", "raters") if c in out.columns])
    out[HEADLINE_COLUMN] = [
        NOT_SHOWN if s is None else f"{label(s)} ({r['level']})" if s == "krippendorff_alpha" else label(s)
        for s, r in zip(picks, rows, strict=True)
    ]
    out[HEADLINE_VALUE] = [
        NOT_SHOWN if s is None else with_interval(r[s], r[f"{s}_ci_low"], r[f"{s}_ci_high"])
        for s, r in zip(picks, rows, strict=True)
    ]
    out[label("percent_agreement")] = [
        with_interval(r["percent_agreement"], r["percent_agreement_ci_low"], r["percent_agreement_ci_high"])
        if shown(r, "percent_agreement")
        else NOT_HEADLINE
        for r in rows
    ]
    out["notes"] = [notes_in_words(r) for r in rows]
    return out.reset_index(drop=True)


def default_comparison(contractor_tasks: int, paired_tasks: int, researchers: int) -> tuple[str, str]:
    """The comparison the page opens on and why, in words ("" when it is the usual one): contractors against
    researchers where a researcher rated a unit the contractors rated; else agreement among the raters there are."""
    if paired_tasks:
        return "contractor_vs_researcher", ""
    if contractor_tasks:
        return "among_contractors", (
            "No researcher rated a unit the contractors rated under these filters (these data carry no researcher "
            "labels), so the page shows agreement among the contractors: how often raters of the same unit agree "
            "with each other. Contractors vs researchers needs researcher labels (a researcher column or file)."
        )
    if researchers:
        return "researcher_vs_researcher", (
            "No contractor rating is under these filters, so the page shows agreement among the researchers."
        )
    return "contractor_vs_researcher", ""


def empty_note(comparison: str, contractor_tasks: int, paired_tasks: int) -> str:
    """Why a comparison found no unit rated by two raters, and which choice would (Markdown-safe)."""
    if comparison == "contractor_vs_researcher" and contractor_tasks and not paired_tasks:
        return (
            "No researcher rated a unit the contractors rated under these filters, so there is nothing to compare "
            f"contractors with. Choose Comparison: {COMPARISON_LABELS['among_contractors']} to see how the "
            "contractors agree with each other."
        )
    return (
        f"No unit was rated by two raters for {COMPARISON_LABELS[comparison].lower()} under these filters. "
        "Choose another Comparison, or widen the sidebar's filters (raters, dates)."
    )


def with_names(df: pd.DataFrame, names: Callable[[str], str], columns: tuple[str, ...]) -> pd.DataFrame:
    """`df` with the rater id `columns` it has shown as people's names ("Hal K. (c35)": the sidebar's
    rater_name)."""
    present = [c for c in columns if c in df.columns]
    return df.assign(**{c: df[c].map(lambda r: names(str(r))) for c in present}) if present else df


NO_IDS_HERE = "None to show: this dimension's raters have no ids (see the note at the top of the page)."


def anonymous_dimensions(entries: list[dict]) -> set[str]:
    """The dimensions some of whose labels came without rater ids."""
    return {e["dimension"] for e in entries}


def needs_ids_note(entries: list[dict], labels: dict[str, str]) -> str:
    """What the page cannot show for dimensions whose labels came without rater ids, in words (Markdown-safe)."""
    dims = ", ".join(md_escape(labels.get(e["dimension"], e["dimension"])) for e in entries)
    positions = max(e["n_positions"] for e in entries)
    return (
        f"The labels of {dims} came without rater ids: each is named by its position in the file's list "
        f"(anon:crowd_1, anon:crowd_2, ..., up to {positions}), not by a person. Agreement per dimension "
        "(percent agreement, Krippendorff's alpha, Fleiss' kappa, Gwet's AC1/AC2, all contractors against "
        "researchers) and the confusion matrix of all raters use only each unit's labels and are shown. Each rater "
        "against the reference, rater pairs, the rater x rater grid and researcher-researcher agreement need real rater ids "
        "and are left out for these raters."
    )


def likely_dimension(chosen: str | None, dims: pd.DataFrame) -> str | None:
    """The dimension the page most likely shows: the one chosen before, else the rubric's first primary one (the
    default when it has pairs), else its first."""
    names = list(dims["dimension"])
    primary = list(dims.loc[dims["is_primary"], "dimension"])
    return chosen if chosen in names else next(iter(primary or names), None)


def label(statistic: str) -> str:
    """A statistic's readable name."""
    return LABELS.get(statistic, statistic.replace("_", " "))


def with_interval(value: float, low: float, high: float) -> str:
    """'0.642 [0.58, 0.70]', the value alone without an interval, or a dash when undefined."""
    return fmt_ci(value, low, high, 3, 2, missing=NOT_SHOWN)


def _applies(coefficients: pd.DataFrame) -> pd.Series:
    """Whether each long-form coefficient exists for its scale (all do when the report does not say)."""
    if "applies" in coefficients.columns:
        return coefficients["applies"].fillna(True).astype(bool)
    return pd.Series(True, index=coefficients.index)


def applicable(coefficients: pd.DataFrame, scope: str, stats: tuple[str, ...], rubric: str) -> list[str]:
    """The statistics the report computed for this scope and rubric and that apply somewhere, in the API's
    order."""
    rows = coefficients[(coefficients["scope"] == scope) & (coefficients["rubric"] == rubric)]
    present = set(rows.loc[_applies(rows), "statistic"])
    return [s for s in stats if s in present]


def not_applicable(coefficients: pd.DataFrame, scope: str) -> set[tuple[str, str]]:
    """(dimension, statistic) pairs of one scope that do not apply to their scale."""
    rows = coefficients[(coefficients["scope"] == scope) & ~_applies(coefficients)]
    return set(zip(rows["dimension"], rows["statistic"], strict=True))


def notes_in_words(row: dict) -> str:
    """The report's notes on one row, with small samples and the kappa paradox spelt out."""
    notes = []
    if row.get("small_n"):
        pairs = f", {int(row['n'])} pairs" if "n" in row else ""
        notes.append(
            f"small sample ({int(row['n_tasks'])} tasks, {int(row['n_units'])} units{pairs}; under {MIN_TASKS} "
            "tasks): indicative, read the interval"
        )
    if row.get("kappa_paradox"):
        notes.append("high agreement but low kappa: see the kappa paradox below")
    if isinstance(row.get("notes"), str) and row["notes"]:
        notes.append(row["notes"])
    if (scale := _scale_of(row)) and (why := not_headline_note(*scale)):
        notes.append(why)
    return "; ".join(notes)


def _scale_of(row: pd.Series | dict) -> tuple[str, int] | None:
    """A report row's level and number of levels (None where the row does not say)."""
    level, n_levels = row.get("level"), row.get("n_levels")
    return None if level is None or n_levels is None or pd.isna(n_levels) else (str(level), int(n_levels))


def shown(row: pd.Series | dict, statistic: str) -> bool:
    """Whether a statistic is a headline figure of a report row's scale (every one where the row does not say)."""
    scale = _scale_of(row)
    return scale is None or headline(statistic, *scale)


def _dimension_rows(report: AgreementReport, dims: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """The report's dimension rows in catalogue order, their n columns, and the applicable statistics."""
    d = report.dimensions
    rubric = d["rubric"].iloc[0]
    stats = applicable(report.coefficients, "dimension", DIMENSION_STATS, rubric)
    meta = dims.set_index("dimension")
    order = {name: i for i, name in enumerate(dims["dimension"])}
    d = d.assign(_order=d["dimension"].map(order).fillna(len(order))).sort_values(["_order", "dimension"])
    out = pd.DataFrame(
        {
            "dimension": d["dimension"],
            "label": [_label(meta, x) for x in d["dimension"]],
            "level": d["level"],
            "tasks": d["n_tasks"],
            "units": d["n_units"],
        }
    )
    if d["n_pairs"].notna().any():
        out["pairs"] = d["n_pairs"].astype("Int64")
    out["raters"] = d["n_raters"]
    return d, out, stats


def dimension_table(report: AgreementReport, dims: pd.DataFrame) -> pd.DataFrame:
    """One row per dimension in catalogue order: n, each applicable coefficient with its interval, notes."""
    if report.dimensions.empty:
        return pd.DataFrame()
    d, out, stats = _dimension_rows(report, dims)
    absent = not_applicable(report.coefficients, "dimension")
    rows = d.to_dict("records")
    for s in stats:
        name = label(s)
        if s == "fleiss_kappa" and (d["fleiss_kappa_name"] == "Scott's pi").all():
            name = "Scott's pi (Fleiss' kappa of two raters)"
        out[name] = [
            NOT_APPLICABLE
            if (r["dimension"], s) in absent
            else NOT_HEADLINE
            if not shown(r, s)
            else with_interval(r[s], r[f"{s}_ci_low"], r[f"{s}_ci_high"])
            for r in rows
        ]
    out["notes"] = [notes_in_words(r) for r in d.to_dict("records")]
    return out.reset_index(drop=True)


def dimension_data(report: AgreementReport, dims: pd.DataFrame) -> pd.DataFrame:
    """The rows of `dimension_table` as data, for its download: each coefficient and its interval ends as three
    numeric columns under the API's names (e.g. krippendorff_alpha, krippendorff_alpha_ci_low, _ci_high; empty
    where undefined or not applicable to the scale, which `applies` and the notes tell apart)."""
    if report.dimensions.empty:
        return pd.DataFrame()
    d, out, stats = _dimension_rows(report, dims)
    absent = not_applicable(report.coefficients, "dimension")
    for s in stats:
        applies = [(dim, s) not in absent for dim in d["dimension"]]
        for col in (s, f"{s}_ci_low", f"{s}_ci_high"):
            out[col] = pd.to_numeric(d[col], errors="coerce").where(pd.Series(applies, index=d.index)).astype(float)
        if not all(applies):
            out[f"{s}_applies"] = applies
    if "fleiss_kappa" in stats:
        out["fleiss_kappa_name"] = d["fleiss_kappa_name"]
    out["small_n"] = d["small_n"].astype(bool)
    out["notes"] = [notes_in_words(r) for r in d.to_dict("records")]
    return out.reset_index(drop=True)


def _label(meta: pd.DataFrame, dimension: str) -> str:
    if dimension not in meta.index:
        return dimension
    text = str(meta.loc[dimension, "label"])
    return f"{text} (primary)" if bool(meta.loc[dimension, "is_primary"]) else text


def coefficient_table(report: AgreementReport) -> pd.DataFrame:
    """Every coefficient of the report in long form with readable statistic names (for download)."""
    c = report.coefficients
    return c.assign(statistic=c["statistic"].map(label)).rename(columns={"reason": "why undefined"})


def rater_table(raters: pd.DataFrame, rubric: str, dimension: str, statistic: str) -> pd.DataFrame:
    """Each rater on one dimension: n, every statistic defined for someone, the chosen one's interval, notes;
    in review order on the chosen statistic (analytics.agreement.team.review_order)."""
    r = raters[(raters["rubric"] == rubric) & (raters["dimension"] == dimension)]
    stats = [s for s in RATER_STATS if r[s].notna().any() and (r.empty or shown(r.iloc[0], s))]
    cols = [c for c in ("rater_id", "n_tasks", "n_units", "n") if c in r.columns]
    if "n_item_pairs" in r.columns and r["n_item_pairs"].fillna(0).gt(0).any():
        cols.append("n_item_pairs")
    out = r[cols + stats].copy()
    if statistic in r.columns:
        out[f"{statistic}_ci_low"] = r[f"{statistic}_ci_low"]
        out[f"{statistic}_ci_high"] = r[f"{statistic}_ci_high"]
    out["small_n"] = r["small_n"]
    out["notes"] = [notes_in_words(row) for row in r.to_dict("records")]
    if statistic in out.columns:
        out = out.loc[team.review_order(r, statistic).index]
    return out.reset_index(drop=True)


def column_config(df: pd.DataFrame, n_label: str = "pairs") -> dict:
    """Readable headers and three decimals for a table with the API's statistic columns."""
    config = {}
    for c in df.columns:
        base = c.removesuffix("_ci_low").removesuffix("_ci_high")
        if base in LABELS:
            config[c] = st.column_config.NumberColumn(column_label(c), format="%.3f", help=label(base))
    for c in ("percent_agreement", "coarse_agreement", "cohen_kappa", "weighted_kappa", "share"):
        if c in df.columns and c not in config:
            config[c] = st.column_config.NumberColumn(label(c), format="%.3f")
    names = {"n": n_label} | {c: column_label(c) for c in ("n_units", "n_tasks", "n_item_pairs")}
    config |= {c: st.column_config.NumberColumn(t) for c, t in names.items() if c in df.columns}
    if "small_n" in df.columns:
        config["small_n"] = st.column_config.CheckboxColumn(column_label("small_n"))
    return config


def rater_statistics(raters: pd.DataFrame, rubric: str, dimension: str) -> list[str]:
    """The per-rater statistics with a value for at least one rater on this dimension."""
    r = raters[(raters["rubric"] == rubric) & (raters["dimension"] == dimension)]
    return [s for s in RATER_STATS if s in r.columns and r[s].notna().any() and shown(r.iloc[0], s)]


def default_statistic(choices: list[str]) -> int:
    """Index of the chart's default statistic among the choices."""
    for s in CHART_DEFAULTS:
        if s in choices:
            return choices.index(s)
    return 0


def interval_frame(raters: pd.DataFrame, rubric: str, dimension: str, statistic: str) -> pd.DataFrame:
    """The chart's rows: each rater with a defined value of the statistic on the dimension, its interval and n,
    in review order."""
    r = raters[(raters["rubric"] == rubric) & (raters["dimension"] == dimension) & raters[statistic].notna()]
    r = team.review_order(r, statistic)
    return pd.DataFrame(
        {
            "rater_id": r["rater_id"],
            "value": r[statistic],
            "ci_low": r[f"{statistic}_ci_low"].fillna(r[statistic]),
            "ci_high": r[f"{statistic}_ci_high"].fillna(r[statistic]),
            "n": r["n"],
            "n_units": r["n_units"],
            "n_tasks": r["n_tasks"],
            "small_n": r["small_n"].astype(bool),
            "sample": [SMALL if s else ENOUGH for s in r["small_n"]],
        }
    ).reset_index(drop=True)


def confusion_frame(cm: pd.DataFrame) -> pd.DataFrame:
    """The confusion matrix for the heatmap: levels as text, each cell's share of its row, the level order."""
    levels = tuple(str(x) for x in cm["subject_level"].cat.categories)
    totals = cm.groupby("subject_level", observed=False)["n"].transform("sum")
    return cm.assign(row_share=(cm["n"] / totals.where(totals > 0)).fillna(0.0), levels=[levels] * len(cm))  # type: ignore[list-item]  # pandas-stubs: assign takes a list of any values


def confusion_wide(cm: pd.DataFrame, subject: str, reference: str) -> pd.DataFrame:
    """The confusion matrix as a table: one row per subject level, one column per reference level."""
    wide = cm.pivot_table(index="subject_level", columns="reference_level", values="n", observed=False, aggfunc="sum")
    wide.columns = [f"{reference}: {c}" for c in wide.columns]
    return wide.reset_index().rename(columns={"subject_level": f"{subject} level"})


def pairs_for(pm: pd.DataFrame, comparison: str) -> pd.DataFrame:
    """The rater pairs that belong to a comparison (rows of its subject role, columns of its reference role; every
    pair when the comparison has no roles)."""
    roles = COMPARISON_ROLES[comparison]
    if roles is None:
        return pm
    rows, cols = roles
    return pm[(pm["role_a"] == rows) & (pm["role_b"] == cols)].reset_index(drop=True)


def marginals_frame(diagnostic: ParadoxDiagnostic, subject: str, reference: str) -> pd.DataFrame:
    """The diagnostic's two marginal distributions in long form (level, side, share)."""
    levels = [str(x) for x in diagnostic.levels]
    return pd.DataFrame(
        {
            "level": levels * 2,
            "side": [subject] * len(levels) + [reference] * len(levels),
            "share": list(diagnostic.subject_marginals) + list(diagnostic.reference_marginals),
        }
    )


def _ranking_rows(report: AgreementReport) -> pd.DataFrame:
    """The report's dimension-level ranking coefficients (empty when it has none)."""
    c = report.coefficients
    c = c[(c["scope"] == "dimension") & c["statistic"].isin(RANKING_STATS)]
    return pd.DataFrame() if c.empty or c["value"].isna().all() else c


def ranking_table(report: AgreementReport, dims: pd.DataFrame) -> pd.DataFrame:
    """Pairwise preference agreement and Kendall's tau-b per ranking dimension, with item-pair n (empty when the
    report has none at dimension level)."""
    c = _ranking_rows(report)
    if c.empty:
        return c
    meta = dims.set_index("dimension")
    rows = []
    for dimension, g in c.groupby("dimension", sort=False):
        row = {"dimension": dimension, "label": _label(meta, str(dimension)), "item pairs": int(g["n"].max())}
        for r in g.to_dict("records"):
            row[label(r["statistic"])] = with_interval(r["value"], r["ci_low"], r["ci_high"])
        row["notes"] = "; ".join(x for x in g["reason"].dropna() if x)
        rows.append(row)
    return pd.DataFrame(rows)


def ranking_data(report: AgreementReport, dims: pd.DataFrame) -> pd.DataFrame:
    """The rows of `ranking_table` as data, for its download: each statistic and its interval ends as three
    numeric columns (preference_agreement, preference_agreement_ci_low, preference_agreement_ci_high, ...)."""
    c = _ranking_rows(report)
    if c.empty:
        return c
    meta = dims.set_index("dimension")
    rows = []
    for dimension, g in c.groupby("dimension", sort=False):
        row: dict[str, object] = {
            "dimension": dimension,
            "label": _label(meta, str(dimension)),
            "n_item_pairs": int(g["n"].max()),
        }
        for r in g.to_dict("records"):
            for suffix, column in (("", "value"), ("_ci_low", "ci_low"), ("_ci_high", "ci_high")):
                row[f"{r['statistic']}{suffix}"] = float("nan") if r[column] is None else float(r[column])
        row["notes"] = "; ".join(x for x in g["reason"].dropna() if x)
        rows.append(row)
    return pd.DataFrame(rows)


def ranking_raters(raters: pd.DataFrame, rubric: str) -> pd.DataFrame:
    """Per-rater preference agreement and tau-b on the rubric's ranking dimensions (empty when none)."""
    r = raters[(raters["rubric"] == rubric) & raters["preference_agreement"].notna()]
    if r.empty:
        return pd.DataFrame()
    cols = ["rater_id", "dimension", "n_item_pairs"]
    for s in RANKING_STATS:
        cols += [s, f"{s}_ci_low", f"{s}_ci_high"]
    return r[cols + ["notes"]].sort_values(["dimension", "preference_agreement"], ascending=[True, False])


HOW_COMPUTED = r"""
**Units and pairs.** A unit is one (task, rubric, dimension, target). Two-sided comparisons (contractors vs
researchers) pair every contractor rating with every researcher rating of the same unit; the pairs of a
dimension form a confusion table $n_{ij}$ (contractor level $i$, researcher level $j$), $N = \sum n_{ij}$,
$p_{ij} = n_{ij}/N$, marginals $p_{i+}$, $p_{+j}$. Among one role, the dimension table uses each unit's
value counts $n_{uk}$ (raters of unit $u$ who chose level $k$, $m_u = \sum_k n_{uk}$); only units with
$m_u \ge 2$ are pairable. Each rater's own row pools the rater's pairs with the other side.

**Percent (exact) agreement** $p_a = \sum_{ij} w_{ij}\,p_{ij}$ with $w = I$; among raters
$p_a = \frac{1}{U}\sum_u \frac{\sum_k n_{uk}(n_{uk}-1)}{m_u(m_u-1)}$. **Coarse agreement** is the same on the
catalogue's coarse scale (drop the "very": 5 levels to 3).

**Cohen's kappa** (Cohen 1960) $\kappa = \frac{p_a - p_e}{1 - p_e}$, $p_e = \sum_{ij} w_{ij}\,p_{i+}p_{+j}$.
**Weighted kappa** (Cohen 1968) uses agreement weights on scale positions: linear
$w_{ij} = 1 - \frac{|i-j|}{q-1}$ (ordinal level), quadratic $w_{ij} = 1 - \frac{(i-j)^2}{(q-1)^2}$
(interval, ratio; Fleiss & Cohen 1973), none for nominal. Weights always span the full scale, also when a
level is unused (as `sklearn`'s `labels=`).

**Fleiss' kappa** (Fleiss 1971, in Gwet's form for unequal numbers of ratings):
$p_e = \sum_k \pi_k^2$, $\pi_k$ the mean share of level $k$ per unit. In a two-sided table it is Scott's pi
with $\pi_k = (p_{k+} + p_{+k})/2$.

**Gwet's AC1 / AC2** (Gwet 2008; Gwet 2014, *Handbook of Inter-Rater Reliability*, 4th ed.):
$p_e = \frac{T_w}{q(q-1)}\sum_k \pi_k(1-\pi_k)$, $T_w$ the sum of the weights ($T_w = q$ unweighted: AC1).
Not pulled down by skewed prevalence, hence the kappa-paradox diagnostic. **Brennan-Prediger**
(1981): $p_e = T_w / q^2$.

**Krippendorff's alpha** (Krippendorff 2011, *Computing Krippendorff's alpha-reliability*; 2019, *Content
Analysis*, 4th ed.): $\alpha = 1 - (n-1)\frac{\sum_{ck} o_{ck}\,\delta^2_{ck}}{\sum_{ck} n_c n_k\,\delta^2_{ck}}$
from the coincidence matrix $o_{ck} = \sum_u \frac{n_{uc}(n_{uk} - [c=k])}{m_u - 1}$, with the nominal,
ordinal (mid-ranks of the pairable values), interval (squared value difference) or ratio metric
$\delta^2$ of the chosen level of measurement.

**Rankings.** Over every pair of items that both sides ranked on the same task: Kendall's tau-b
$\tau_b = \frac{C - D}{\sqrt{(C + D + T_r)(C + D + T_s)}}$ (Kendall 1945; ties $T_s$, $T_r$ by one side only),
and pairwise preference agreement $(C + T_{both})/\text{pairs}$, the share of item pairs ordered the same way.

**Mean difference**: the mean of (subject level − reference level), levels as their numbers (scale positions
for text levels): positive means later on the scale (more lenient on a bad-to-good scale).

**Intervals** are 95% percentile intervals of a seeded bootstrap over units (1,000 resamples): a multinomial
draw over the confusion cells for pair coefficients, over the distinct per-unit value-count patterns for
multi-rater ones; both are exactly resampling units with replacement. A coefficient is undefined (shown —)
when it is 0/0, e.g. everyone used one level; the notes say which. Fewer than 30 units: indicative only.
"""
