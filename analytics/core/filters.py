"""The app-wide filter (rubric, roles, raters, dates) and the SQL condition it stands for."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Filters:
    """What the shared sidebar selects; empty tuples and None mean "no restriction"."""

    rubric: str | None = None
    roles: tuple[str, ...] = ()
    raters: tuple[str, ...] = ()
    date_from: dt.date | None = None
    date_to: dt.date | None = None
    dimensions: tuple[str, ...] = ()

    def where_named(self, alias: str = "", prefix: str = "") -> tuple[str, dict]:
        """A SQL condition on the ratings table (columns prefixed with `alias.`) and its parameters, bound by name
        (`$<prefix>rubric`, `$<prefix>roles`, ...; a prefix keeps two filters apart in one query)."""
        p = f"{alias}." if alias else ""
        parts: list[str] = ["TRUE"]
        params: dict = {}

        def bind(name: str, value: object) -> str:
            params[f"{prefix}{name}"] = value
            return f"${prefix}{name}"

        if self.rubric:
            parts.append(f"{p}rubric = {bind('rubric', self.rubric)}")
        if self.roles:
            parts.append(f"list_contains({bind('roles', list(self.roles))}, {p}role)")
        if self.raters:
            parts.append(f"list_contains({bind('raters', list(self.raters))}, {p}rater_id)")
        if self.dimensions:
            parts.append(f"list_contains({bind('dimensions', list(self.dimensions))}, {p}dimension)")
        if self.date_from:
            start = bind("date_from", dt.datetime.combine(self.date_from, dt.time.min))
            parts.append(f"({p}submitted_at IS NULL OR {p}submitted_at >= {start})")
        if self.date_to:
            end = bind("date_to", dt.datetime.combine(self.date_to + dt.timedelta(days=1), dt.time.min))
            parts.append(f"({p}submitted_at IS NULL OR {p}submitted_at < {end})")
        return " AND ".join(parts), params

    def selects(self, rubric: str, dimension: str) -> bool:
        """Whether the rubric and dimension restrictions keep this dimension (`where_named`'s rule, in Python)."""
        return (not self.rubric or self.rubric == rubric) and (not self.dimensions or dimension in self.dimensions)

    def but(self, **changes: Any) -> Filters:
        """A copy with some fields changed (e.g. `filters.but(roles=())`)."""
        return Filters(**{**self.__dict__, **changes})


NO_FILTERS = Filters()  # every rating
