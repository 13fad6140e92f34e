"""The app-wide filter (rubric, roles, raters, dates) and the SQL condition it stands for."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass


@dataclass(frozen=True)
class Filters:
    """What the shared sidebar selects; empty tuples and None mean "no restriction"."""

    rubric: str | None = None
    roles: tuple[str, ...] = ()
    raters: tuple[str, ...] = ()
    date_from: dt.date | None = None
    date_to: dt.date | None = None
    dimensions: tuple[str, ...] = ()

    def where(self, alias: str = "") -> tuple[str, list]:
        """A SQL condition on the ratings table (columns prefixed with `alias.`) and its bound parameters."""
        p = f"{alias}." if alias else ""
        parts: list[str] = ["TRUE"]
        params: list = []
        if self.rubric:
            parts.append(f"{p}rubric = ?")
            params.append(self.rubric)
        if self.roles:
            parts.append(f"list_contains(?, {p}role)")
            params.append(list(self.roles))
        if self.raters:
            parts.append(f"list_contains(?, {p}rater_id)")
            params.append(list(self.raters))
        if self.dimensions:
            parts.append(f"list_contains(?, {p}dimension)")
            params.append(list(self.dimensions))
        if self.date_from:
            parts.append(f"({p}submitted_at IS NULL OR {p}submitted_at >= ?)")
            params.append(dt.datetime.combine(self.date_from, dt.time.min))
        if self.date_to:
            parts.append(f"({p}submitted_at IS NULL OR {p}submitted_at < ?)")
            params.append(dt.datetime.combine(self.date_to + dt.timedelta(days=1), dt.time.min))
        return " AND ".join(parts), params

    def where_named(self, alias: str = "", prefix: str = "") -> tuple[str, dict]:
        """`where` with named parameters (`$<prefix>rubric`, ...) for a named query."""
        sql, params = self.where(alias)
        names = [n for n, on in self._conditions() if on]
        named = {}
        for name, value in zip(names, params, strict=True):
            sql = sql.replace("?", f"${prefix}{name}", 1)
            named[f"{prefix}{name}"] = value
        return sql, named

    def _conditions(self) -> list[tuple[str, bool]]:
        """The parameter names of `where`, in its order, and whether each is used."""
        return [
            ("rubric", bool(self.rubric)),
            ("roles", bool(self.roles)),
            ("raters", bool(self.raters)),
            ("dimensions", bool(self.dimensions)),
            ("date_from", bool(self.date_from)),
            ("date_to", bool(self.date_to)),
        ]

    def selects(self, rubric: str, dimension: str) -> bool:
        """Whether the rubric and dimension restrictions keep this dimension (`where`'s rule, in Python)."""
        return (not self.rubric or self.rubric == rubric) and (not self.dimensions or dimension in self.dimensions)

    def but(self, **changes) -> Filters:
        """A copy with some fields changed (e.g. `filters.but(roles=())`)."""
        return Filters(**{**self.__dict__, **changes})


NO_FILTERS = Filters()  # every rating
