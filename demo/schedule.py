"""When things happen in the demo: an eight-week labelling project, submission times and durations."""

from __future__ import annotations

import math
import random
from datetime import datetime, timedelta

from demo.behaviours import Rater

START = datetime(2026, 3, 2)  # a Monday
WEEKS = 8
PILOT_WEEK = -1  # the pilot week before the project (demo/canonical.py); everyone there from the start works in it


def first_week(joined_week: int) -> int:
    """The first week a rater works in: the pilot week for those there from the start, else the week they join."""
    return PILOT_WEEK if joined_week <= 0 else joined_week


def submitted_at(week: int, rng: random.Random, lag_days: float = 0.0) -> tuple[str, int]:
    """An ISO timestamp (UTC, 'Z') on a working day of `week`, plus the week it actually falls in."""
    day = min(rng.randrange(0, 5) + int(lag_days), WEEKS * 7 - 1 - week * 7)
    when = START + timedelta(days=week * 7 + day, hours=rng.uniform(8, 20.5), seconds=rng.randrange(60))
    return when.strftime("%Y-%m-%dT%H:%M:%SZ"), (when - START).days // 7


def duration(rater: Rater, median_s: float, rng: random.Random) -> float:
    """Seconds spent on a submission: log-normal around the task's median, scaled by the rater's speed."""
    return round(max(8.0, median_s * rater.speed * math.exp(rng.gauss(0, 0.4))), 1)
