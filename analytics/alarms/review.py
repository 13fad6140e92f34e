"""The review: every alarm a lead sees, decided once under one false-alarm budget (budget.py) from the rater
effects (drift included) and the rubric rules of the whole team under the filters, with acknowledgements and the
power of each kind. Every page, report and the `alerts` command reads alarms from here."""

from __future__ import annotations

from dataclasses import dataclass, replace

import duckdb
import numpy as np
import pandas as pd

from analytics.agreement.sides import team_filters
from analytics.alarms import acks as ack
from analytics.alarms import budget, power
from analytics.alarms.words import KIND_TITLES as KIND_TITLES
from analytics.alarms.words import effect_detail, rule_detail
from analytics.consistency import catalogue
from analytics.consistency import rates as cons
from analytics.core.filters import NO_FILTERS, Filters
from analytics.core.queries import QueryLog
from analytics.effects import choices, drift, estimate_effects, markers

ALERT_COLUMNS = (
    "kind",
    "rater_id",
    "rubric",
    "dimension",
    "since",
    "estimate",
    "estimate_ci_low",
    "estimate_ci_high",
    "detail",
    "team_value",
    "n",
    "p_value",
    "acknowledged",
    "acknowledged_by",
    "acknowledged_at",
    "reason",
)


@dataclass(frozen=True)
class Review:
    """The alarms of one look at the data under a filter, and every test they were decided from."""

    filters: Filters
    effects: pd.DataFrame  # analytics.effects.estimate_effects of the whole team, `flagged` decided here
    rules: cons.Consistency  # the rules' figures of the whole team, raters' `flagged` decided here
    alerts: pd.DataFrame  # ALERT_COLUMNS: the alarms of the filter's contractors, acknowledged ones included
    threshold: float  # the p-value at or below which a test alarmed in this review
    n_tests: int  # every test of the review, all kinds and contractors
    power: pd.DataFrame  # power.POWER_COLUMNS: what each kind finds at the team's n
    positions: pd.DataFrame  # effects.choices.position_table: every role's position bias (a feedback report's too)

    @property
    def headline(self) -> pd.DataFrame:
        """The alarms not yet acknowledged."""
        return self.alerts[~self.alerts["acknowledged"].astype(bool)]


def scope(filters: Filters) -> Filters:
    """The team a review tests (rubric and dates kept; every rater, role and dimension): the rater filter chooses
    whose alarms are listed, never who is tested or the budget."""
    return team_filters(filters).but(roles=(), dimensions=())


def review(con: duckdb.DuckDBPyConnection, filters: Filters = NO_FILTERS) -> Review:
    """Every test of the team under the filter, the one step-up rule over all of their p-values, and the alarms."""
    return narrowed(team_review(con, scope(filters)), filters)


def narrowed(found: Review, filters: Filters) -> Review:
    """The review of the filter's team (`found`: team_review of scope(filters)) with the alarms of the filter's
    raters: the same as review(con, filters), so pages whose filters differ only in raters, roles or dimensions
    share one review."""
    if scope(found.filters) != scope(filters):
        raise ValueError("the review was of another team than the filter's")
    alerts = found.alerts
    if filters.raters:
        alerts = alerts[alerts["rater_id"].isin(filters.raters)].reset_index(drop=True)
    return replace(found, filters=filters, alerts=alerts)


def team_review(con: duckdb.DuckDBPyConnection, team: Filters) -> Review:
    """review() of the whole team a filter scopes (`team` is scope() of it), every contractor's alarms listed."""
    log = QueryLog()
    positions = choices.position_table(con, team)
    effects = estimate_effects(con, team, log, positions)
    rules = cons.consistency(con, team)
    p_values = np.concatenate([effects["p_value"].to_numpy(dtype=float), rules.raters["p_value"].to_numpy(dtype=float)])
    threshold = budget.discovery_threshold(p_values)
    n_tests = int(np.isfinite(p_values).sum())
    effects = effects.assign(flagged=effects["p_value"].le(threshold))
    raters = rules.raters.assign(flagged=rules.raters["p_value"].le(threshold))
    rules = replace(rules, raters=raters)
    weeks = drift.week_sums(con, team, log)
    alerts = _alerts(effects, rules, weeks, markers.markers(con, team.rubric), ack.acks(con))
    found = power.power(effects, rules, weeks, n_tests)
    return Review(team, effects, rules, alerts, threshold, n_tests, found, positions)


def _alerts(
    effects: pd.DataFrame, rules: cons.Consistency, weeks: pd.DataFrame, marks: pd.DataFrame, acked: pd.DataFrame
) -> pd.DataFrame:
    """The flagged tests as alarms, rules after effects, acknowledgements merged."""
    rows = pd.concat([_effect_alerts(effects, weeks, marks), _rule_alerts(rules)], ignore_index=True)
    if rows.empty:
        return pd.DataFrame(columns=list(ALERT_COLUMNS))
    merged = rows.merge(acked, on=list(ack.KEY), how="left")
    merged["acknowledged"] = merged["acknowledged_by"].notna()
    order = {k: i for i, k in enumerate(budget.KINDS)}
    merged = merged.sort_values(
        ["rater_id", "kind", "rubric", "dimension"], key=lambda s: s.map(order) if s.name == "kind" else s
    )
    return merged[list(ALERT_COLUMNS)].reset_index(drop=True)


def _effect_alerts(effects: pd.DataFrame, weeks: pd.DataFrame, marks: pd.DataFrame) -> pd.DataFrame:
    """Flagged effect rows as alarms: the contractor's own (raw) estimate and its interval, `since` the drift
    window's start or the contractor's first week in the rubric."""
    e = effects[effects["flagged"]]
    if e.empty:
        return pd.DataFrame()
    first = weeks.groupby(["rater_id", "rubric"])["week"].min() if len(weeks) else pd.Series(dtype="datetime64[ns]")
    since = [
        s if pd.notna(s) else first.get((r, b), pd.NaT)
        for s, r, b in zip(e["since"], e["rater_id"], e["rubric"], strict=True)
    ]
    detail = [_effect_detail(row, marks) for row in e.itertuples(index=False)]
    return pd.DataFrame(
        {
            "kind": e["effect"].to_numpy(),
            "rater_id": e["rater_id"].to_numpy(),
            "rubric": e["rubric"].to_numpy(),
            "dimension": e["dimension"].to_numpy(),
            "since": pd.to_datetime(pd.Series(since, dtype="object")),
            "estimate": e["raw"].to_numpy(),
            "estimate_ci_low": e["raw_ci_low"].to_numpy(),
            "estimate_ci_high": e["raw_ci_high"].to_numpy(),
            "detail": detail,
            "team_value": e["team_pooled"].to_numpy(),
            "n": e["n_tasks"].to_numpy(),
            "p_value": e["p_value"].to_numpy(),
        }
    )


def _effect_detail(row: object, marks: pd.DataFrame) -> str:
    """The effect's evidence, its figure against the team's, and for drift the guideline changes of its window."""
    r = row._asdict()  # type: ignore[attr-defined]
    text = effect_detail(
        str(r["effect"]), r["raw"], r["team_pooled"], int(r["n_tasks"]), str(r["basis"]), str(r["evidence"])
    )
    if r["effect"] == "drift" and len(marks) and pd.notna(r["since"]):
        since = pd.Timestamp(r["since"])  # the changes over both windows the fall compares
        start = since - pd.Timedelta(weeks=drift.BASELINE_WEEKS)
        text += drift.marked_changes(marks, r["rubric"], start, since + pd.Timedelta(weeks=drift.RECENT_WEEKS - 1))
    return text


def _rule_alerts(rules: cons.Consistency) -> pd.DataFrame:
    """Flagged contractor x rule rows as alarms (dimension: the rule id), `since` their first break under the
    filter."""
    r = rules.raters[rules.raters["flagged"]]
    if r.empty:
        return pd.DataFrame()
    described = {x.rule_id: (x.rubric, x.description) for x in catalogue.rules()}
    v = rules.violations
    first = v.groupby(["rater_id", "rule_id"])["submitted_at"].min() if len(v) else pd.Series(dtype="datetime64[ns]")
    return pd.DataFrame(
        {
            "kind": "rule",
            "rater_id": r["rater_id"].to_numpy(),
            "rubric": [described[x][0] for x in r["rule_id"]],
            "dimension": r["rule_id"].to_numpy(),
            "since": pd.to_datetime(
                pd.Series(
                    [first.get((a, b), pd.NaT) for a, b in zip(r["rater_id"], r["rule_id"], strict=True)],
                    dtype="object",
                )
            ),
            "estimate": r["rate"].to_numpy(),
            "estimate_ci_low": r["rate_ci_low"].to_numpy(),
            "estimate_ci_high": r["rate_ci_high"].to_numpy(),
            "detail": [
                rule_detail(described[rule][1], int(v_), int(n), float(t))
                for rule, v_, n, t in zip(r["rule_id"], r["n_violations"], r["n_checked"], r["team_rate"], strict=True)
            ],
            "team_value": r["team_rate"].to_numpy(),
            "n": r["n_checked"].to_numpy(),
            "p_value": r["p_value"].to_numpy(),
        }
    )


def reviewed_rules(
    con: duckdb.DuckDBPyConnection, filters: Filters = NO_FILTERS, found: Review | None = None
) -> cons.Consistency:
    """The rules' figures under the filter, with each contractor's rates, tests and flags from the review (the
    whole team under the filter's rubric and dates; the rater filter chooses the rows). `found`: that review,
    when the caller has it (team_review of scope(filters)); its rules are the figures when the filter narrows
    nothing."""
    found = narrowed(found, filters) if found is not None else review(con, filters)
    own = found.rules if filters == scope(filters) else cons.consistency(con, filters)
    tested = found.rules.raters
    if filters.raters:
        tested = tested[tested["rater_id"].isin(filters.raters)].reset_index(drop=True)
    return replace(own, raters=tested)
