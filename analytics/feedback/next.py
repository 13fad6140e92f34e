"""Who needs feedback next: every contractor with enough tasks under the filters, ranked by one documented score
(docs/feedback.md, "Who needs feedback next") from their open alarms (analytics/alarms), their agreement's interval
against the other contractors' median, and the rubric rules they broke; each with a one-line reason (alarms apart
from the rest, which never read as alarms), their last feedback (analytics/feedback/events.py) and whether they
are waiting for a follow-up (FOLLOW_UP_DAYS after it)."""

from __future__ import annotations

import datetime as dt
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import duckdb
import pandas as pd

from analytics import agreement as ag
from analytics.agreement import team as tm
from analytics.alarms import budget
from analytics.alarms.review import KIND_TITLES, review
from analytics.core.filters import Filters
from analytics.core.queries import Query
from analytics.describe.overview import rated_rubrics
from analytics.feedback.scope import Catalogue, against_researchers, dimension_info, rubric_title, team_filter
from analytics.review import disagreements as dis

MIN_TASKS = ag.MIN_TASKS  # tasks under the filters a contractor needs to be ranked
FOLLOW_UP_DAYS = 14  # after feedback is sent, the contractor waits this long for a follow-up before ranking again
ALARM_WEIGHT = 100  # per open (not acknowledged) alarm
AGREEMENT_WEIGHT = 10  # per primary dimension whose whole agreement interval is below the other contractors' median
RULES_CAP = 9  # rules broken at least once without an alarm, one point each up to this
STATISTIC = "exact_agreement"
N_BOOT = 1000  # intervals on the ranked statistic (the delta method's; agreement.pair_rows)
SCORE_RULE = (
    f"Ranked by a score: {ALARM_WEIGHT} per open alarm, {AGREEMENT_WEIGHT} per primary dimension where the whole "
    "95% interval of their exact agreement with researchers lies below the other contractors' median, and 1 per "
    f"rubric rule broken at least once without an alarm (at most {RULES_CAP}); ties go to the lower agreement "
    f"bound. Only contractors with at least {MIN_TASKS} tasks under the filters are ranked. A contractor sent "
    f"feedback in the last {FOLLOW_UP_DAYS} days is waiting for follow-up and is listed after the others."
)
COLUMNS = (
    "rank",
    "rater_id",
    "score",
    "alarms",
    "alarm_reason",
    "other_reason",
    "reason",
    "n_tasks",
    "agreement_upper",
    "last_feedback",
    "last_feedback_by",
    "follow_up_until",
    "waiting",
)
# The sidebar's filters, in the order an empty list tries clearing them (keys of Filters' fields).
WIDENINGS: tuple[tuple[str, dict], ...] = (
    ("roles", {"roles": ()}),
    ("raters", {"raters": ()}),
    ("dates", {"date_from": None, "date_to": None}),
    ("rubric", {"rubric": None}),
)


@dataclass(frozen=True)
class Ranking:
    """The ranked contractors under one filter (COLUMNS without the events' columns) and those with too few tasks."""

    filters: Filters
    ranked: pd.DataFrame
    too_few: tuple[str, ...]  # contractors with ratings under the filters but fewer than MIN_TASKS tasks


def tasks_query(filters: Filters) -> Query:
    """Tasks each contractor rated under the filter's rubric, dates and raters (rater tasks kept at ingest)."""
    where, params = filters.but(roles=(), dimensions=()).where_named()
    # A rater's one row of a task counts once as it is; only tasks rated at several times are made distinct (a
    # DISTINCT over every row per contractor was 0.23 s of a Feedback date change at 1M tasks, this 0.015 s).
    sql = f"""SELECT rater_id, CAST(sum(n) AS BIGINT) AS n_tasks FROM (
    SELECT rater_id, count(*) AS n FROM rater_tasks WHERE one_row AND role = 'contractor' AND {where} GROUP BY rater_id
    UNION ALL
    SELECT rater_id, count(*) FROM (
        SELECT DISTINCT rater_id, task_key, rubric FROM rater_tasks
        WHERE NOT one_row AND role = 'contractor' AND {where})
    GROUP BY rater_id)
GROUP BY rater_id ORDER BY rater_id"""
    return Query("contractor_task_counts", sql, params)


def contractor_tasks(con: duckdb.DuckDBPyConnection, filters: Filters) -> pd.Series:
    """Tasks per contractor under the filter (rubric, dates, raters; a role filter without contractors: none)."""
    if filters.roles and "contractor" not in filters.roles:
        return pd.Series(dtype="int64", name="n_tasks")
    df = tasks_query(filters).df(con)
    return pd.Series(df["n_tasks"].to_numpy(dtype="int64"), index=df["rater_id"].astype(str), name="n_tasks")


def listed(con: duckdb.DuckDBPyConnection, filters: Filters) -> list[str]:
    """The contractors the list and the picker show under the filter: those with any task, in id order."""
    return contractor_tasks(con, filters).index.tolist()


def _shows(con: duckdb.DuckDBPyConnection, filters: Filters, rater: str | None) -> bool:
    """Whether the list under the filter shows anybody (`rater`, when given)."""
    shown = listed(con, filters)
    return rater in shown if rater else bool(shown)


def emptied_by(con: duckdb.DuckDBPyConnection, filters: Filters, rater: str | None = None) -> tuple[str, ...]:
    """The sidebar filters (WIDENINGS' names) whose clearing puts a contractor (`rater`, when given) in the list
    again: the first one that does alone, else the fewest in WIDENINGS' order; () when the list already shows
    them or no clearing helps."""
    if _shows(con, filters, rater):
        return ()
    active = [(name, change) for name, change in WIDENINGS if filters.but(**change) != filters]
    for name, change in active:
        if _shows(con, filters.but(**change), rater):
            return (name,)
    wider, cleared = filters, []
    for name, change in active:
        wider = wider.but(**change)
        cleared.append(name)
        if _shows(con, wider, rater):
            return tuple(cleared)
    return ()


def primary_pairs(con: duckdb.DuckDBPyConnection, filters: Filters) -> frozenset[tuple[str, str]]:
    """(rubric, primary dimension) of every rubric rated under the filter's rubric and dates."""
    return frozenset((r, d) for r in rated_rubrics(con, team_filter(filters)) if (d := dis.primary_dimension(con, r)))


def primary_agreement(con: duckdb.DuckDBPyConnection, filters: Filters, n_boot: int, seed: int) -> pd.DataFrame:
    """Every contractor's exact agreement with researchers on each rubric's primary dimension, with its 95% interval
    and the other contractors' median there (`team_median`), under the filter's rubric and dates."""
    f = team_filter(filters)
    primary = primary_pairs(con, f)
    if not primary:
        return primary_rows(pd.DataFrame(), primary)
    spec = against_researchers(f.but(dimensions=tuple(sorted({d for _, d in primary}))), n_boot, seed)
    return primary_rows(ag.rater_agreement(con, spec, stats=(STATISTIC,)), primary)  # the one coefficient ranked


def primary_rows(rows: pd.DataFrame, primary: frozenset[tuple[str, str]]) -> pd.DataFrame:
    """primary_agreement from rater_agreement rows (`rows`, with intervals on `primary`: primary_pairs) of every
    rater under the filter's rubric and dates."""
    if not primary or rows.empty:
        return pd.DataFrame(columns=["rater_id", "rubric", "dimension", STATISTIC, "upper", "team_median"])
    keep = [(r, d) in primary for r, d in zip(rows["rubric"], rows["dimension"], strict=True)]
    rows = rows[pd.Series(keep, index=rows.index) & (rows["role"] == "contractor") & (rows["n_tasks"] > 0)]
    raters = tuple(str(r) for r in rows["rater_id"].unique())
    med = tm.team_medians_each(rows, (STATISTIC,), raters, "others").rename(columns={STATISTIC: "team_median"})
    out = rows[["rater_id", "rubric", "dimension", STATISTIC, f"{STATISTIC}_ci_high"]].rename(
        columns={f"{STATISTIC}_ci_high": "upper"}
    )
    return out.merge(med[["rater_id", "rubric", "dimension", "team_median"]], how="left").reset_index(drop=True)


def _plural(n: int, word: str, plural: str | None = None) -> str:
    """'1 rule', '3 rules'."""
    return f"{n} {word if n == 1 else (plural or word + 's')}"


def alarm_reason(kinds: Sequence[str]) -> str:
    """One line naming a contractor's open alarms by kind (each alarm's kind; '' when none)."""
    if not kinds:
        return ""
    parts, counts = [], Counter(kinds)
    for kind in budget.KINDS:
        n = counts[kind]
        if not n:
            continue
        if kind == "rule":
            parts.append(f"{_plural(n, 'rubric rule')} broken more often than the team")
        elif kind == "drift":
            parts.append(f"drift in {_plural(n, 'rubric')}")
        else:
            parts.append(f"{KIND_TITLES[kind].lower()} on {_plural(n, 'dimension')}")
    return f"{_plural(len(kinds), 'alarm')}: " + ", ".join(parts) + "."


@dataclass(frozen=True)
class Gap:
    """One contractor's exact agreement on a primary dimension: its 95% upper bound against the others' median."""

    rubric: str
    dimension: str
    upper: float
    team_median: float

    @property
    def below(self) -> bool:
        """Whether the whole interval lies below the other contractors' median (False when either is missing)."""
        return self.upper < self.team_median


def other_reason(gaps: Sequence[Gap], rules_broken: int, labels: dict[tuple[str, str], str]) -> str:
    """One line of what is not an alarm: agreement below the other contractors' median, rules broken as often
    as the team; said as such."""
    parts = []
    below = [g for g in gaps if g.below]
    if below:
        worst = max(below, key=lambda g: g.team_median - g.upper)  # the first of the largest gaps
        label = labels.get((worst.rubric, worst.dimension), worst.dimension)
        more = f" (and on {_plural(len(below) - 1, 'more dimension')})" if len(below) > 1 else ""
        parts.append(
            f"agreement with researchers on {label}, in {rubric_title(worst.rubric)}, is at most "
            f"{worst.upper:.0%} (95% bound), under the other contractors' median of {worst.team_median:.0%}{more}"
        )
    if rules_broken:
        parts.append(f"broke {_plural(rules_broken, 'rubric rule')} at least once, no more often than the team")
    if not parts:
        return "Not an alarm: nothing stands out (agreement within the team's, no rubric rule broken)."
    return "Not an alarm: " + "; ".join(parts) + "."


def ranking(
    con: duckdb.DuckDBPyConnection,
    filters: Filters,
    alerts: pd.DataFrame | None = None,
    rules: pd.DataFrame | None = None,
    n_boot: int = N_BOOT,
    seed: int = 0,
    gaps: pd.DataFrame | None = None,
    known: Catalogue | None = None,
) -> Ranking:
    """The contractors the list shows under the filter, scored (SCORE_RULE) and in order without the events.

    `alerts` and `rules` are the review's alarms and contractor x rule rows of the team under the filter's rubric
    and dates (analytics.alarms.review; computed here when not given, e.g. from a page's TeamFigures); `gaps` is
    primary_agreement of the same filter with `n_boot` and `seed` when the caller has it (team.team_parts), `known`
    scope.catalogue of the rubrics when read beforehand."""
    if alerts is None or rules is None:
        found = review(con, team_filter(filters))
        alerts, rules = found.alerts, found.rules.raters
    tasks = contractor_tasks(con, filters)
    enough = tasks[tasks >= MIN_TASKS]
    too_few = tuple(tasks[tasks < MIN_TASKS].index)
    if enough.empty:
        return Ranking(filters, pd.DataFrame(columns=list(COLUMNS[1:9])), too_few)
    gaps = primary_agreement(con, filters, n_boot, seed) if gaps is None else gaps
    info = dimension_info(con, tuple(gaps["rubric"].unique()), known)
    labels = {
        (r, d): str(x) for r, d, x in zip(info["rubric"], info["dimension"], info["dimension_label"], strict=True)
    }
    open_ = alerts[~alerts["acknowledged"].astype(bool)] if len(alerts) else alerts
    quiet = rules[(rules["n_violations"] > 0) & ~rules["flagged"].astype(bool)] if len(rules) else rules
    rows = _rows(enough, open_, gaps, quiet, labels)
    ranked = pd.DataFrame(rows, columns=list(COLUMNS[1:9]))
    return Ranking(filters, _ordered(ranked.assign(waiting=False)).drop(columns="waiting"), too_few)


def likely_first(alerts: pd.DataFrame, filters: Filters, last: pd.DataFrame, now: dt.datetime) -> str | None:
    """The contractor the list will likely open on, known before it is ranked: the one with strictly the most open
    alarms (`alerts`: the review's) among the filter's raters not waiting for follow-up (`last`: last_events as of
    `now`), since an alarm outweighs every other part of the score; None when several share the most or nobody has
    one. A guess to compute their figures early (a contractor with too few tasks is not ranked), never shown."""
    if alerts.empty or (filters.roles and "contractor" not in filters.roles):
        return None
    open_ = alerts[~alerts["acknowledged"].astype(bool)]
    if filters.raters:
        open_ = open_[open_["rater_id"].isin(filters.raters)]
    if len(last):
        until = pd.to_datetime(last["sent_at"]) + pd.Timedelta(days=FOLLOW_UP_DAYS)
        open_ = open_[~open_["rater_id"].isin(last.loc[until > pd.Timestamp(now), "rater_id"])]
    counts = open_["rater_id"].astype(str).value_counts()
    if counts.empty or (len(counts) > 1 and counts.iloc[0] == counts.iloc[1]):
        return None
    return str(counts.index[0])


def narrowed(ranking: Ranking, filters: Filters) -> Ranking:
    """The ranking of the whole team under the filter's rubric and dates narrowed to the filter's raters and roles
    (the same rows as ranking() under the whole filter, without computing it again)."""
    if filters.roles and "contractor" not in filters.roles:
        return Ranking(filters, ranking.ranked.iloc[0:0], ())
    if not filters.raters:
        return Ranking(filters, ranking.ranked, ranking.too_few)
    keep = ranking.ranked[ranking.ranked["rater_id"].isin(filters.raters)].reset_index(drop=True)
    return Ranking(filters, keep, tuple(r for r in ranking.too_few if r in filters.raters))


def _gaps(gaps: pd.DataFrame) -> dict[str, list[Gap]]:
    """primary_agreement's rows per contractor, in their order (plain floats: a missing one is nan)."""
    out: dict[str, list[Gap]] = {}
    names = (gaps[c].tolist() for c in ("rater_id", "rubric", "dimension"))
    figures = (gaps[c].to_numpy(dtype=float, na_value=math.nan).tolist() for c in ("upper", "team_median"))
    for rater, rubric, dim, upper, median in zip(*names, *figures, strict=True):
        out.setdefault(str(rater), []).append(Gap(str(rubric), str(dim), upper, median))
    return out


def _rows(enough: pd.Series, alerts: pd.DataFrame, gaps: pd.DataFrame, rules: pd.DataFrame, labels: dict) -> list[dict]:
    """Each contractor's row (_row) of those with enough tasks, the alarms, gaps and rules gone through once."""
    kinds: dict[str, list[str]] = {}
    for rater, kind in zip(alerts["rater_id"], alerts["kind"], strict=True) if len(alerts) else ():
        kinds.setdefault(str(rater), []).append(str(kind))
    rules_of: dict[str, set[str]] = {}
    for rater, rule in zip(rules["rater_id"], rules["rule_id"], strict=True) if len(rules) else ():
        if not pd.isna(rule):  # nunique() leaves a missing rule out
            rules_of.setdefault(str(rater), set()).add(rule)
    own = _gaps(gaps)
    return [
        _row(str(r), int(n), kinds.get(str(r), []), own.get(str(r), []), len(rules_of.get(str(r), ())), labels)
        for r, n in enough.items()
    ]


def _row(rater: str, n_tasks: int, kinds: list[str], own: list[Gap], broken: int, labels: dict) -> dict:
    """One contractor's score, reasons and lowest agreement bound from their open alarms' kinds, their primary
    dimensions' agreement (`own`) and how many rules they broke without an alarm (`broken`)."""
    below = sum(g.below for g in own)
    alarms, other = alarm_reason(kinds), other_reason(own, broken, labels)
    uppers = [g.upper for g in own if not math.isnan(g.upper)]
    return {
        "rater_id": rater,
        "score": ALARM_WEIGHT * len(kinds) + AGREEMENT_WEIGHT * below + min(broken, RULES_CAP),
        "alarms": len(kinds),
        "alarm_reason": alarms,
        "other_reason": other,
        "reason": alarms or other,
        "n_tasks": n_tasks,
        "agreement_upper": min(uppers) if uppers else math.nan,
    }


def _ordered(rows: pd.DataFrame) -> pd.DataFrame:
    """Not waiting first, then the highest score, the lowest agreement bound (none last), the id."""
    key = rows.assign(_upper=rows["agreement_upper"].astype(float).fillna(math.inf), _score=-rows["score"])
    key = key.sort_values(["waiting", "_score", "_upper", "rater_id"], kind="stable")
    return key.drop(columns=["_upper", "_score"]).reset_index(drop=True)


def with_events(ranking: Ranking, last: pd.DataFrame, now: dt.datetime) -> pd.DataFrame:
    """The ranked list (COLUMNS) with each contractor's last feedback (analytics.feedback.events.last_events) and
    "waiting for follow-up" until FOLLOW_UP_DAYS after it (as of `now`), the waiting ones listed last."""
    rows = ranking.ranked
    if rows.empty:
        return pd.DataFrame(columns=list(COLUMNS))
    sent = last.set_index("rater_id") if len(last) else pd.DataFrame(columns=["sent_at", "sent_by"])
    when = pd.to_datetime(rows["rater_id"].map(sent["sent_at"]))
    until = when + pd.Timedelta(days=FOLLOW_UP_DAYS)
    out = rows.assign(
        last_feedback=when,
        last_feedback_by=rows["rater_id"].map(sent["sent_by"]),
        follow_up_until=until,
        waiting=(until > pd.Timestamp(now)).fillna(False).astype(bool),
    )
    out = _ordered(out)
    out.insert(0, "rank", range(1, len(out) + 1))
    return out[list(COLUMNS)]


def status(row: pd.Series) -> str:
    """What the list says of a contractor's feedback: never given, when, and whether they wait for follow-up."""
    if pd.isna(row["last_feedback"]):
        return "No feedback recorded"
    day = pd.Timestamp(row["last_feedback"]).date()
    if row["waiting"]:
        return f"Waiting for follow-up until {pd.Timestamp(row['follow_up_until']).date()} (sent {day})"
    return f"Last sent {day}"
