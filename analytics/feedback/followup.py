"""Did the feedback work: for each feedback event (a card marked as sent, a feedback log's row), the contractor's
change in the WINDOW_DAYS after the day it was sent against the WINDOW_DAYS before, beside the team's change over
the same days, and the difference of the two with a task-level 95% interval (docs/feedback.md, "Did the feedback
work").

The team is every other contractor with tasks in the windows, leaving out those given feedback within them (their
own change is what is being measured, not the team's). Subtracting the team's change keeps a guideline change or an
easier batch, which moves everyone, from being credited to the card. A verdict is given only when credible:
improved or worse when the difference's whole interval lies on one side of zero in the measure's better direction,
no_change otherwise, and too_early while the after-window holds fewer than MIN_TASKS tasks. A follow-up is a
finding about feedback, not an alarm: it does not enter the alarm budget (analytics/alarms)."""

from __future__ import annotations

import datetime as dt
import functools
import math
from dataclasses import dataclass

import duckdb
import numpy as np
import pandas as pd

from analytics.core import rubrics as catalogue
from analytics.core.queries import Query
from analytics.core.stats import Z95
from analytics.feedback import events as fb_events
from analytics.feedback import measures as ms
from analytics.feedback.scope import rubric_title

WINDOW_DAYS = 28  # each window: four weeks, so a weekly rhythm counts the same on both sides
MIN_TASKS = 15  # tasks in a window before a verdict (after: too early below it; before: no baseline below it)
VERDICTS = ("improved", "no_change", "worse", "too_early")
CONTRACT_KEYS = (
    "rater_id",
    "sent_at",
    "rubric",
    "dimension",
    "measure",
    "before",
    "after",
    "change",
    "team_change",
    "difference",
    "difference_ci_low",
    "difference_ci_high",
    "n_tasks_before",
    "n_tasks_after",
    "verdict",
)
COLUMNS = (
    *CONTRACT_KEYS,
    "team_before",
    "team_after",
    "team_contractors",
    "before_from",
    "after_to",
    "reason",
    "sent_by",
    "report",
)


METHOD = (
    f"Each feedback's follow-up compares the {WINDOW_DAYS} days after the day it was sent with the {WINDOW_DAYS} days "
    "before (the day itself left out), and subtracts the change of the rest of the team over the same days, leaving "
    "out contractors given feedback within them: a guideline change or an easier batch moves everyone and is not "
    "credited to the card. The interval is 95%, over tasks. A verdict needs the whole interval on one side of zero, "
    f"and at least {MIN_TASKS} tasks after the feedback (too early until then)."
)


@dataclass(frozen=True)
class Windows:
    """An event's two windows of days: before [before_from, sent day) and after [sent day + 1, after_to); the day
    itself is left out (when in the day the card was read is not known)."""

    before_from: dt.date
    sent_day: dt.date
    after_to: dt.date

    @classmethod
    def of(cls, sent_at: dt.datetime) -> Windows:
        """The windows around a feedback sent at `sent_at` (UTC)."""
        day = pd.Timestamp(sent_at).date()
        return cls(day - dt.timedelta(days=WINDOW_DAYS), day, day + dt.timedelta(days=WINDOW_DAYS + 1))

    def contains(self, when: dt.datetime) -> bool:
        """Whether another feedback sent at `when` falls within these windows (the sent day too)."""
        return self.before_from <= pd.Timestamp(when).date() < self.after_to


@dataclass(frozen=True)
class Event:
    """One feedback event as a follow-up reads it: whom, when, about which rubric (None: every rubric), which rater
    effects the card named (their measures and rubrics), who sent which report."""

    rater_id: str
    sent_at: dt.datetime
    rubric: str | None
    effects: tuple[tuple[str, str], ...]  # (measure, rubric) of each effect named that a measure follows
    sent_by: str
    report: str


def as_events(frame: pd.DataFrame) -> list[Event]:
    """events()'s rows as Events."""
    times = [t.to_pydatetime() for t in pd.to_datetime(frame["sent_at"])]
    cols = (frame[c].tolist() for c in ("rater_id", "rubric", "effects", "sent_by", "report"))
    return [
        Event(str(who), when, about if isinstance(about, str) else None, _named(named), str(by), str(report))
        for when, who, about, named, by, report in zip(times, *cols, strict=True)
    ]


@functools.cache
def _rubrics_by_title() -> dict[str, str]:
    """Each catalogued rubric's name by its title (the catalogue is fixed while the program runs)."""
    return {rubric_title(name): name for name in catalogue.RUBRICS}


def _named(headings: object) -> tuple[tuple[str, str], ...]:
    """The (measure, rubric) of each effect heading a card named that a measure follows ("Ties: Answer comparison
    (...)" -> ("ties", "answer_comparison")); effect_heading writes a title and a rubric's title."""
    rubrics = _rubrics_by_title()
    out = []
    for heading in headings if isinstance(headings, list | tuple | np.ndarray) else []:
        title, _, rubric = str(heading).partition(": ")
        if title in ms.BY_TITLE and rubric in rubrics:
            out.append((ms.BY_TITLE[title], rubrics[rubric]))
    return tuple(out)


@dataclass(frozen=True)
class Side:
    """One window's tasks: their number, mean and sample variance."""

    n: int
    mean: float
    var: float

    @classmethod
    def of(cls, days: pd.DataFrame) -> Side:
        """The window from day sums (n, s1, s2) of its tasks."""
        n, s1, s2 = int(days["n"].sum()), float(days["s1"].sum()), float(days["s2"].sum())
        if n == 0:
            return cls(0, math.nan, math.nan)
        var = max(s2 - s1 * s1 / n, 0.0) / (n - 1) if n > 1 else math.nan
        return cls(n, s1 / n, var)

    @property
    def se2(self) -> float:
        """The squared standard error of the mean."""
        return self.var / self.n if self.n > 1 else math.nan


def followups(con: duckdb.DuckDBPyConnection, rubric: str | None = None, rater: str | None = None) -> pd.DataFrame:
    """Every feedback event's follow-ups (COLUMNS), one row per event, rubric and measure, oldest first; `rubric`
    and `rater` keep the events about them (an event without a rubric is about every rubric)."""
    latest = _latest_day(con)  # the data's today: whether a short after-window is still open
    every = as_events(fb_events.events(con))
    chosen = [
        e for e in every if (rater is None or e.rater_id == rater) and (rubric is None or e.rubric in (None, rubric))
    ]
    if not chosen:
        return pd.DataFrame(columns=list(COLUMNS))
    start = dt.datetime.combine(min(Windows.of(e.sent_at).before_from for e in chosen), dt.time())
    end = dt.datetime.combine(max(Windows.of(e.sent_at).after_to for e in chosen), dt.time())
    rows = []
    for name in [m for m in ms.MEASURES if m == ms.AGREEMENT or any(m == n for e in chosen for n, _ in e.effects)]:
        measure = ms.MEASURES[name]
        days = ms.day_sums(con, measure, start, end, rubric)
        days["day"] = pd.to_datetime(days["day"])
        by_rubric = {str(r): part for r, part in days.groupby("rubric")}
        dims = ms.dimensions_of(con, measure)
        for event in chosen:
            rows += _event_rows(event, measure, by_rubric, dims, every, rubric, latest)
    if not rows:
        return pd.DataFrame(columns=list(COLUMNS))
    out = pd.DataFrame(rows, columns=list(COLUMNS))
    order = {m: i for i, m in enumerate(ms.MEASURES)}
    return out.sort_values(
        ["sent_at", "rater_id", "rubric", "measure"], key=lambda s: s.map(order) if s.name == "measure" else s
    ).reset_index(drop=True)


EMPTY_DAYS = pd.DataFrame({c: pd.Series(dtype="datetime64[ns]" if c == "day" else object) for c in ms.DAY_COLUMNS})
LATEST = Query("followup_latest_day", "SELECT CAST(max(submitted_at) AS DATE) FROM rater_tasks")


def _latest_day(con: duckdb.DuckDBPyConnection) -> dt.date | None:
    """The day of the latest rating in the store (the data's today)."""
    found = LATEST.rows(con)[0][0]
    return found if isinstance(found, dt.date) else None


def _event_rows(
    e: Event,
    measure: ms.Measure,
    by_rubric: dict[str, pd.DataFrame],
    dims: dict[str, str],
    every: list[Event],
    rubric: str | None,
    latest: dt.date | None,
) -> list[dict]:
    """One event's follow-up of one measure: a row per rubric the event is about and the contractor has tasks in
    (for an effect, per rubric whose card section named it)."""
    wins = Windows.of(e.sent_at)
    if measure.name == ms.AGREEMENT:
        rated = sorted(r for r, part in by_rubric.items() if (part["rater_id"] == e.rater_id).any())
        # an event about every rubric: each the contractor has tasks in, else one row saying none came yet
        rubrics: list[str | None] = [e.rubric] if e.rubric else [*rated] or [rubric]
    else:
        rubrics = [*sorted({r for n, r in e.effects if n == measure.name and rubric in (None, r)})]
    out = []
    for r in rubrics:
        team_out = _given_feedback(every, wins, r) | {e.rater_id}
        of_rubric = by_rubric.get(r, EMPTY_DAYS) if r else EMPTY_DAYS
        team = of_rubric[~of_rubric["rater_id"].isin(team_out)]
        mine = of_rubric[of_rubric["rater_id"] == e.rater_id]
        out.append(_row(e, measure, r, dims.get(r) if r else None, wins, mine, team, latest))
    return out


def _given_feedback(every: list[Event], wins: Windows, rubric: str | None) -> set[str]:
    """Contractors given feedback about `rubric` (or every rubric) within the windows."""
    return {e.rater_id for e in every if e.rubric in (None, rubric) and wins.contains(e.sent_at)}


def _window(days: pd.DataFrame, start: dt.date, end: dt.date) -> pd.DataFrame:
    """The day sums (their `day` a datetime64 column) in [start, end)."""
    d = days["day"]
    return days[(d >= pd.Timestamp(start)) & (d < pd.Timestamp(end))]


def _row(
    e: Event,
    measure: ms.Measure,
    rubric: str | None,
    dimension: str | None,
    wins: Windows,
    mine: pd.DataFrame,
    team: pd.DataFrame,
    latest: dt.date | None,
) -> dict:
    """The follow-up row of one event, rubric and measure."""
    after_from = wins.sent_day + dt.timedelta(days=1)
    b, a = Side.of(_window(mine, wins.before_from, wins.sent_day)), Side.of(_window(mine, after_from, wins.after_to))
    team_b_days, team_a_days = _window(team, wins.before_from, wins.sent_day), _window(team, after_from, wins.after_to)
    tb, ta = Side.of(team_b_days), Side.of(team_a_days)
    change, team_change = a.mean - b.mean, ta.mean - tb.mean
    difference = change - team_change
    half = Z95 * math.sqrt(b.se2 + a.se2 + tb.se2 + ta.se2)
    low, high = difference - half, difference + half
    verdict, reason = _verdict(measure, b, a, tb, low, high, wins, latest)
    return {
        "rater_id": e.rater_id,
        "sent_at": e.sent_at,
        "rubric": rubric,
        "dimension": dimension,
        "measure": measure.name,
        "before": b.mean,
        "after": a.mean,
        "change": change,
        "team_change": team_change,
        "difference": difference,
        "difference_ci_low": low,
        "difference_ci_high": high,
        "n_tasks_before": b.n,
        "n_tasks_after": a.n,
        "verdict": verdict,
        "team_before": tb.mean,
        "team_after": ta.mean,
        "team_contractors": int(pd.concat([team_b_days, team_a_days])["rater_id"].nunique()),
        "before_from": wins.before_from,
        "after_to": wins.after_to - dt.timedelta(days=1),
        "reason": reason,
        "sent_by": e.sent_by,
        "report": e.report,
    }


def _verdict(
    measure: ms.Measure,
    before: Side,
    after: Side,
    team_before: Side,
    low: float,
    high: float,
    wins: Windows,
    latest: dt.date | None,
) -> tuple[str, str]:
    """The verdict and its reason in one plain sentence."""
    if after.n < MIN_TASKS:
        open_until = wins.after_to - dt.timedelta(days=1)
        still = latest is None or latest < open_until
        return "too_early", (
            f"{after.n} of the {MIN_TASKS} tasks needed after the feedback"
            + (f"; the window runs to {open_until}" if still else "; the window has closed with too few")
        )
    if before.n < MIN_TASKS:
        return "no_change", f"only {before.n} tasks in the {WINDOW_DAYS} days before: no baseline to judge a change"
    if not (np.isfinite(low) and np.isfinite(high)):
        return "no_change", "no team to compare with in the same days"
    better = measure.better or (1 if team_before.mean >= before.mean else -1)
    if low > 0 or high < 0:
        up = low > 0
        verdict = "improved" if up == (better > 0) else "worse"
        return verdict, f"the change beyond the team's is credibly {'up' if up else 'down'} (95% interval)"
    return "no_change", "the change beyond the team's is within what chance gives (95% interval)"


def latest_per_contractor(fu: pd.DataFrame) -> pd.DataFrame:
    """Each contractor's latest agreement follow-up (one row per contractor and rubric of their last event)."""
    agreement = fu[fu["measure"] == ms.AGREEMENT]
    if agreement.empty:
        return agreement
    last = agreement.groupby("rater_id")["sent_at"].transform("max")
    return agreement[agreement["sent_at"] == last].reset_index(drop=True)


@dataclass(frozen=True)
class Tally:
    """The Overview's line: of the contractors given feedback since a date, how many improved credibly."""

    since: dt.date | None
    given: tuple[str, ...]
    improved: tuple[str, ...]
    too_early: tuple[str, ...]

    @property
    def sentence(self) -> str:
        """ "Of the 6 contractors given feedback since 2026-03-30, 3 improved credibly (...)"."""
        if not self.given:
            return "No feedback recorded yet."
        n, k = len(self.given), len(self.improved)
        text = f"Of the {n} contractor{'s' if n != 1 else ''} given feedback since {self.since}, {k} improved credibly"
        text += " beyond the team's own change in the same weeks"
        if self.too_early:
            text += f"; {len(self.too_early)} too early to tell"
        return text + "."


def tally(fu: pd.DataFrame) -> Tally:
    """Of the contractors with a follow-up, since the first feedback: who improved credibly on agreement (any rubric
    of their latest feedback) and whose latest follow-ups are all too early."""
    last = latest_per_contractor(fu)
    if last.empty:
        return Tally(None, (), (), ())
    by = last.groupby("rater_id")["verdict"]
    improved = tuple(sorted(str(r) for r, v in by if (v == "improved").any()))
    early = tuple(sorted(str(r) for r, v in by if (v == "too_early").all()))
    since = pd.Timestamp(fu["sent_at"].min()).date()
    return Tally(since, tuple(sorted(str(r) for r in last["rater_id"].unique())), improved, early)


def describe(row: pd.Series) -> str:
    """One follow-up as a sentence for a card or a page ("After the feedback of 2026-03-30, agreement with
    researchers on Answer comparison rose from 42% to 81% while the team's rose 9 points: improved (...)")."""
    m = ms.MEASURES[str(row["measure"])]
    what = m.title if m.name == ms.AGREEMENT else f"{m.title.lower()} ({ms.WHAT[m.name]})"
    when = pd.Timestamp(row["sent_at"]).date()
    about = rubric_title(str(row["rubric"])) if isinstance(row["rubric"], str) else "every rubric"
    if row["verdict"] == "too_early":
        return f"Feedback of {when} ({about}): too early to tell, {row['reason']}."
    return (
        f"Feedback of {when} ({about}): {what} went from {_fmt(m, row['before'])} to "
        f"{_fmt(m, row['after'])} over {row['n_tasks_before']} and {row['n_tasks_after']} tasks, the team's by "
        f"{_fmt(m, row['team_change'], signed=True)}; beyond the team: {_fmt(m, row['difference'], signed=True)} "
        f"(95% {_fmt(m, row['difference_ci_low'], signed=True)} to {_fmt(m, row['difference_ci_high'], signed=True)})"
        f": {VERDICT_WORDS[str(row['verdict'])]}."
    )


VERDICT_WORDS = {
    "improved": "improved credibly",
    "no_change": "no credible change",
    "worse": "credibly worse",
    "too_early": "too early to tell",
}


def _fmt(m: ms.Measure, value: object, signed: bool = False) -> str:
    """A figure in the measure's unit: shares in percent (points when signed), seconds, levels."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "n/a"
    v = float(value)  # type: ignore[arg-type]
    sign = "+" if signed and v > 0 else ""
    if m.unit == "share":
        return f"{sign}{v * 100:.0f} points" if signed else f"{v:.0%}"
    if m.unit == "seconds":
        return f"{sign}{v:.0f} s"
    return f"{sign}{v:.2f} levels"


def of_contractor(fu: pd.DataFrame, contractor: str) -> pd.DataFrame:
    """One contractor's follow-ups (COLUMNS), oldest first (none: the empty frame every path gives)."""
    mine = fu[fu["rater_id"] == contractor].reset_index(drop=True)
    return mine if len(mine) else pd.DataFrame(columns=list(COLUMNS))


def last_lines(fu: pd.DataFrame) -> tuple[str, ...]:
    """The contractor's last feedback's follow-ups as sentences, agreement first (a report card's mention)."""
    if fu.empty:
        return ()
    last = fu[fu["sent_at"] == fu["sent_at"].max()]
    return tuple(f"Last feedback follow-up: {describe(row)}" for _, row in last.iterrows())


def panel_title(measure: str, rubric: str | None) -> str:
    """A chart's title: the measure and the rubric ("Agreement with researchers, Answer comparison (...)")."""
    return f"{ms.MEASURES[measure].title}, {rubric_title(rubric) if rubric else 'every rubric'}"
