"""The demo's rater directory (docs/formats.md, rater directory): one row per person with a display name, a
team and the day they started (the pilot week's Monday for everyone there from the start), and the article-Likert annotator ids as aliases of the same people, so the
demo shows one person where the exports use two ids (annotator_13 is c13)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from demo import schedule, writers
from demo.behaviours import Rater

FILE = "raters.csv"
HEADER = ("rater_id", "display_name", "aliases", "team", "active_from", "active_to")
FIRST = (
    "Ada Ama Ben Cleo Dana Eli Femi Gus Hana Ivo Jun Kai Lea Mo Nia Oli Pia Quin Rae Sol Tao Uma Val Wen Xia "
    "Yan Zoe Abe Bea Cai Dov Eva Fin Gia Hal Ida Jo Kit Lou Max Ned Ora Pat Rio Sam"
).split()
SURNAME_INITIALS = "KMOPRSTVWBCDFGHLN"


def rows(raters: list[Rater], aliases: dict[str, str], start: dt.date) -> list[dict]:
    """One directory row per rater (aliases: annotator id -> rater id)."""
    by_person: dict[str, list[str]] = {}
    for alias, person in sorted(aliases.items()):
        by_person.setdefault(person, []).append(alias)
    out = []
    for n, r in enumerate(sorted(raters, key=lambda r: r.rater_id)):
        out.append(
            {
                "rater_id": r.rater_id,
                "display_name": f"{FIRST[n % len(FIRST)]} {SURNAME_INITIALS[n % len(SURNAME_INITIALS)]}.",
                "aliases": "; ".join(by_person.get(r.rater_id, [])),
                "team": "research" if r.role == "researcher" else ("north" if n % 2 else "south"),
                "active_from": (start + dt.timedelta(weeks=schedule.first_week(r.joined_week))).isoformat(),
                "active_to": "",
            }
        )
    return out


def write(out: Path, raters: list[Rater], aliases: dict[str, str], start: dt.date) -> tuple[Path, int]:
    """Write the directory CSV; return its path and the number of people."""
    people = rows(raters, aliases, start)
    return writers.write_csv(out / FILE, HEADER, people), len(people)
