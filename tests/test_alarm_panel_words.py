"""The alarm panel's words from plain rows (issue 50 item 9): the headline, the evidence list and the pickers' labels
read the same as when they were built from a frame per contractor and kind and a Series per alarm (every page with
alarms drew them on every run: about 90 ms on the demo's 118 alarms)."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from analytics.alarms import review as rv
from analytics.alarms.words import alarm_line, dimension_words
from analytics.core.filters import Filters
from ui import alarm_panel
from ui.sidebar import rubric_title
from ui.text import md_escape


def label_as_it_was(a: pd.Series, names: Callable[[str], str]) -> str:
    rubric, dimension = str(a["rubric"]), str(a["dimension"] or "")
    where = f", {dimension_words(rubric, dimension)}" if dimension else ""
    return f"{alarm_panel.KIND_TITLES.get(a['kind'], a['kind'])}: {names(str(a['rater_id']))} ({rubric_title(rubric)}{where})"


def where_as_it_was(kind_rows: pd.DataFrame) -> str:
    parts = []
    for rubric, r in kind_rows.groupby("rubric", sort=False):
        dims = [dimension_words(str(rubric), str(d)) for d in r["dimension"] if d]
        title = rubric_title(str(rubric))
        parts.append(f"{title} ({', '.join(dims)})" if dims else title)
    return "; ".join(parts)


def headline_as_it_was(open_: pd.DataFrame, names: Callable[[str], str]) -> str:
    lines = []
    for rater, g in open_.groupby("rater_id", sort=False):
        kinds = [
            f"{alarm_panel.KIND_TITLES.get(str(k), str(k))} on {where_as_it_was(rows)}"
            for k, rows in g.groupby("kind", sort=False)
        ]
        lines.append(f"- **{md_escape(names(str(rater)))}**: {md_escape('; '.join(kinds))}")
    return f"{len(open_)} alarm(s) on {open_['rater_id'].nunique()} contractor(s):\n\n" + "\n".join(lines)


def test_headline_evidence_and_labels_read_as_before(demo) -> None:
    alerts = rv.team_review(demo, rv.scope(Filters())).alerts
    assert len(alerts) > 50 and alerts["kind"].nunique() > 2 and (alerts["kind"] == "rule").any()
    names = {r: f"Name {r}" for r in alerts["rater_id"]}.__getitem__
    assert alarm_panel._headline(alerts, names) == headline_as_it_was(alerts, names)
    assert alarm_panel.evidence_list(alerts, names) == "\n".join(
        f"- **{md_escape(names(str(a['rater_id'])))}**: {md_escape(alarm_line(a))}" for _, a in alerts.iterrows()
    )
    new = [alarm_panel._label(a, names) for a in alerts.itertuples(index=False)]
    assert new == [label_as_it_was(a, names) for _, a in alerts.iterrows()]
