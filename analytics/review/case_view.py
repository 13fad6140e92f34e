"""One disagreement laid out for reading side by side: the options in the order the contractor saw them, every
rater's ratings of each option with the contractor beside every researcher and their differences marked, and what
each rater wrote as labelled plain text (lists and labels, never a dump of stored JSON).

A and B always name the options (as stored: "A better" is option A better); where a rater saw them on screen is
said in words ("Option B was shown first"), also for a comparison as it was clicked.

Pure pandas over a `disagreements.UnitDetail` (no SQL, no Streamlit). The display order is the contractor's
`shown_first` (the option a comparison rater saw first, docs/formats.md), else the options' stored positions.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pandas as pd

from analytics.core import rubrics
from analytics.review.disagreements import MAX_SHOWN_CHARS, CaseKey, UnitDetail

NOTE_COLUMNS = ["rater_id", "role", "target", "label", "text"]
# Stored detail keys that are shown elsewhere: the display order is the shown_first line, explanations are
# listed one per dimension, and "extra" (fields an adapter did not know) is listed key by key.
SHOWN_ELSEWHERE = ("display_order", "explanations", "extra", "comparison_clicked")
CLICKED = "Comparisons as clicked"  # a comparison in the words of the screen: which option was shown first
SCREEN = ("shown first", "shown second")  # what a clicked "A" and "B" meant: screen positions
# Labels of stored detail keys whose name alone would not say what they hold.
KEY_LABELS = {
    "trustworthiness": "Trustworthiness of the sources",
    "not_annotated": "Not annotated yet",
}


@dataclass(frozen=True)
class CaseView:
    """One case ready to read: options in display order, ratings side by side, what the raters wrote."""

    key: CaseKey
    prompt: str | None  # the question, instruction or prompt
    context: str | None  # the conversation before it, or a reference text
    options: pd.DataFrame  # item_id, label, text, sources, in the order the contractor saw them
    shown_first: pd.DataFrame  # rater_id, role, item_id, label: the option each comparison rater saw first
    ratings: pd.DataFrame  # target, dimension_id, dimension, a column per rater (rater_columns), differs, is_case
    rater_columns: tuple[str, ...]  # the contractor's column, the researchers' (the case's first), then the others'
    researchers: tuple[str, ...]  # every researcher of the task, the case's researcher first
    raters: pd.DataFrame  # rater_id, role: every rater of the task (with a submission or ratings)
    notes: pd.DataFrame  # NOTE_COLUMNS: target is an option's item_id or "" (the whole task); rater_id ""
    # for what every rater's submission says alike (e.g. the task's kind)

    @property
    def case_columns(self) -> tuple[str, ...]:
        """The contractor's and every researcher's rating columns (the contractor's alone when no researcher rated
        the task: a submission looked at on its own)."""
        return self.rater_columns[: 1 + len(self.researchers)]

    def option_ratings(self, item_id: str) -> pd.DataFrame:
        """Ratings of one option (a row per dimension)."""
        return self.ratings[self.ratings["target"] == item_id].reset_index(drop=True)

    def task_ratings(self) -> pd.DataFrame:
        """Ratings that are not of one option (comparisons, the whole task), with their target."""
        return self.ratings[~self.ratings["target"].isin(self.options["item_id"])].reset_index(drop=True)

    def notes_of(self, rater_id: str, target: str = "") -> pd.DataFrame:
        """What one rater wrote about one option (or, with target "", about the whole task); rater_id "" is
        what every rater's submission says alike."""
        n = self.notes
        return n[(n["rater_id"] == rater_id) & (n["target"] == target)].reset_index(drop=True)


def rater_column(rater_id: str, role: str) -> str:
    """A rater's column name in a ratings table: "id (role)"."""
    return f"{rater_id} ({role})"


def case_view(detail: UnitDetail, key: CaseKey) -> CaseView:
    """The case `key` of the task in `detail`, laid out for reading side by side."""
    shown = shown_first(detail)
    first = shown.loc[shown["rater_id"] == key.contractor_id, "item_id"]
    options = display_order(detail.items, first.iloc[0] if len(first) else None)
    researchers = case_researchers(detail, key)
    ratings, columns = _side_by_side(detail, key, researchers)
    raters = detail.submissions[["rater_id", "role"]].drop_duplicates("rater_id").reset_index(drop=True)
    notes = rater_notes(detail)
    return CaseView(key, detail.prompt, detail.context, options, shown, ratings, columns, researchers, raters, notes)


def case_researchers(detail: UnitDetail, key: CaseKey) -> tuple[str, ...]:
    """Every researcher who rated the task, the case's own researcher first."""
    rated = detail.ratings.loc[detail.ratings["role"] == "researcher", "rater_id"]
    others = sorted(set(rated) - {key.researcher_id})
    return (key.researcher_id, *others) if key.researcher_id else tuple(others)


def display_order(items: pd.DataFrame, first: str | None) -> pd.DataFrame:
    """The options in stored position order, the one a rater saw first (when it names one) moved to the front."""
    if first is None or first not in set(items["item_id"]):
        return items.reset_index(drop=True)
    return pd.concat([items[items["item_id"] == first], items[items["item_id"] != first]], ignore_index=True)


def shown_first(detail: UnitDetail) -> pd.DataFrame:
    """The option each rater saw first, for raters whose submission says so and names one of the task's options."""
    subs = detail.submissions
    labels = dict(zip(detail.items["item_id"], detail.items["label"], strict=True))
    known = subs[subs["shown_first"].isin(list(labels))] if "shown_first" in subs else subs.iloc[:0]
    return pd.DataFrame(
        {
            "rater_id": known["rater_id"].tolist(),
            "role": known["role"].tolist(),
            "item_id": known["shown_first"].tolist(),
            "label": [labels[i] for i in known["shown_first"]],
        }
    )


def _side_by_side(
    detail: UnitDetail, key: CaseKey, researchers: tuple[str, ...]
) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """Every rating as a row per target and dimension and a column per rater, the contractor and the researchers
    first; `differs` where the contractor and a researcher rated the row on different levels, `is_case` on the row
    of the disagreement itself."""
    r = detail.ratings
    pair = (rater_column(key.contractor_id, "contractor"), *(rater_column(x, "researcher") for x in researchers))
    rated = r.assign(rater=[rater_column(i, role) for i, role in zip(r["rater_id"], r["role"], strict=True)])
    others = rated.sort_values(["role", "rater_id"])["rater"].drop_duplicates()
    columns = (*pair, *(c for c in others if c not in pair))
    index = ["target", "dimension_id", "dimension"]
    long = rated.rename(columns={"dimension": "dimension_id", "dimension_label": "dimension"})
    rows = long[index].drop_duplicates()
    if long.empty:
        wide = pd.DataFrame(columns=[*index, *columns])
    else:
        wide = long.pivot_table(index=index, columns="rater", values="value", aggfunc="first")
        wide = wide.reindex(pd.MultiIndex.from_frame(rows)).reindex(columns=list(columns)).reset_index()
        wide.columns.name = None
    wide = wide.astype({c: object for c in columns}).where(wide.notna(), "")
    c = wide[pair[0]]
    differs = pd.Series(False, index=wide.index)
    for x in (wide[col] for col in pair[1:]):  # none without a researcher: then nothing differs
        differs |= (c != "") & (x != "") & (c != x)
    wide["differs"] = differs
    wide["is_case"] = (wide["dimension_id"] == key.dimension) & (wide["target"] == key.target)
    return wide.reset_index(drop=True), columns


def rater_notes(detail: UnitDetail) -> pd.DataFrame:
    """What each rater wrote, as labelled plain text: a row per rater, target (an option, or "" for the whole
    task) and label, in the order a reviewer reads them."""
    labels = _dimension_labels(detail)
    items = dict(zip(detail.items["item_id"], detail.items["label"], strict=True))
    rows: list[tuple[str, str, str, str, str]] = []
    for _, sub in detail.submissions.iterrows():

        def add(label: str, text: object, target: str = "", who: pd.Series = sub) -> None:
            if (shown := readable(text)).strip():
                rows.append((who["rater_id"], who["role"], target, label, shown))

        if _present(sub.get("status")) and sub["status"] != "rated":
            add("Submission", f"{sub['status']}" + (f": {sub['reason']}" if _present(sub.get("reason")) else ""))
        if _present(first := sub.get("shown_first")):
            add("Order shown", f"{items.get(first, first)} was shown first")
        add("Comment", sub.get("comment"))
        details = _json(sub.get("details_json"))
        details = details if isinstance(details, dict) else {}
        explanations = details.get("explanations")
        if isinstance(explanations, dict):
            for dim, text in explanations.items():
                add(f"Explanation: {labels.get(dim, humanise(dim))}", text)
        else:
            add("Explanation", sub.get("explanation"))
        add("Justification", sub.get("justification"))
        add("Flags", _json(sub.get("flags_json")))
        if isinstance(clicked := details.get("comparison_clicked"), dict):
            order = details.get("display_order")
            lines = [f"{labels.get(d, humanise(d))}: {as_clicked(v, order, items)}" for d, v in clicked.items()]
            add(CLICKED, "\n".join(line for line, v in zip(lines, clicked.values(), strict=True) if _present(v)))
        for k, v in details.items():
            if k in SHOWN_ELSEWHERE:
                continue
            if isinstance(v, dict) and v and set(v) <= set(items):  # about each option, keyed by option id
                for item, about in v.items():
                    for kk, vv in about.items() if isinstance(about, dict) else [("notes", about)]:
                        add(_key_label(kk, labels), readable(vv, labels), item)
            else:
                add(_key_label(k, labels), readable(v, labels))
        if isinstance(extra := details.get("extra"), dict):
            for k, v in extra.items():
                add(_key_label(k, labels), readable(v, labels))
    for _, r in detail.ratings.iterrows():
        if _present(r.get("comment")):
            target = r["target"] if r["target"] in items else ""
            on = r["dimension_label"] + (f" ({r['target']})" if r["target"] and not target else "")
            rows.append((r["rater_id"], r["role"], target, f"Comment on {on}", str(r["comment"])))
    return _shared(pd.DataFrame(rows, columns=NOTE_COLUMNS), detail.submissions["rater_id"].nunique())


def _shared(notes: pd.DataFrame, raters: int) -> pd.DataFrame:
    """Notes that every one of several raters wrote alike (same target, label and text) once, with rater_id ""."""
    if raters < 2 or notes.empty:
        return notes
    key = ["target", "label", "text"]
    alike = notes.groupby(key, sort=False)["rater_id"].transform("nunique") == raters
    once = notes[alike].drop_duplicates(key).assign(rater_id="", role="")
    return pd.concat([once, notes[~alike]], ignore_index=True)


def as_clicked(value: object, order: object, options: dict[str, str]) -> str:
    """A comparison as clicked on screen, in option terms with the screen position in words: with option B shown
    first, a click on "A much better" reads "Option B much better (the option shown first)"."""
    text = _flat(value)
    side, _, rest = text.partition(" ")
    if side not in ("A", "B"):
        return text  # "Equally good": no option named
    position = SCREEN[side == "B"]
    if isinstance(order, list) and len(order) == 2 and all(isinstance(o, str) for o in order):
        option = order[side == "B"]
        return f"{options.get(option, option)} {rest} (the option {position})"
    return f"The option {position} {rest}"


def readable(value: object, labels: dict[str, str] | None = None) -> str:
    """A stored value as plain readable text: yes/no for booleans, a list of words on one line, a list of
    objects one per line ("• [n] a · b"), an object's true/false entries as "Yes:"/"No:" lists and its other
    entries as "Label: value" lines (`labels` names keys, e.g. dimensions by their catalogue label). Nesting
    below that is written on one line."""
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return ""
    if isinstance(value, list):
        if all(_scalar(v) for v in value):
            return ", ".join(s for v in value if (s := _flat(v)))
        return "\n".join(f"• {_entry(v)}" for v in value)
    if isinstance(value, dict):
        lines = []
        for answer, word in ((True, "Yes"), (False, "No")):
            keys = [humanise(k, capital=False) for k, v in value.items() if v is answer]
            if keys:
                lines.append(f"{word}: {', '.join(keys)}")
        for k, v in value.items():
            if not isinstance(v, bool) and (text := _entry(v)):
                lines.append(f"{(labels or {}).get(k) or humanise(k)}: {text}")
        return "\n".join(lines)
    return _flat(value)


def humanise(name: object, capital: bool = True) -> str:
    """A stored key as words: "does_not_make_sense" -> "Does not make sense"."""
    words = str(name).replace("_", " ").strip()
    return words[:1].upper() + words[1:] if capital else words


def _key_label(key: str, dimension_labels: dict[str, str]) -> str:
    """The label of a stored detail key: a dimension's catalogue label, a known key's label, else its words."""
    return KEY_LABELS.get(key) or dimension_labels.get(key) or humanise(key)


def _entry(value: object) -> str:
    """One list entry or object value on one line: an object as "[n] a · b", a list joined with commas."""
    if isinstance(value, dict):
        n = value.get("n")
        parts = [s for k, v in value.items() if k != "n" and (s := _flat(v))]
        return (f"[{n}] " if n is not None else "") + " · ".join(parts)
    if isinstance(value, list):
        return ", ".join(s for v in value if (s := _flat(v)))
    return _flat(value)


def _flat(value: object) -> str:
    """A scalar as text (yes/no for booleans); anything nested as compact JSON text, cut at MAX_SHOWN_CHARS."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if _scalar(value):
        return str(value).strip()
    try:
        return json.dumps(value, ensure_ascii=False)[:MAX_SHOWN_CHARS]
    except (RecursionError, ValueError):
        return "(nested too deeply to show)"


def _scalar(value: object) -> bool:
    """Whether a JSON value is a string, number, boolean or null."""
    return value is None or isinstance(value, str | int | float | bool)


def _json(text: object) -> object:
    """Stored JSON text parsed (None when empty; the text itself when it is not JSON or nested too deeply)."""
    if not _present(text):
        return None
    try:
        return json.loads(str(text))
    except (ValueError, RecursionError):
        return str(text)[:MAX_SHOWN_CHARS]


def _present(value: object) -> bool:
    """Whether a cell holds something (not None, NaN or blank)."""
    if value is None or value is pd.NA or (isinstance(value, float) and pd.isna(value)):
        return False
    return str(value).strip() != ""


def _dimension_labels(detail: UnitDetail) -> dict[str, str]:
    """Dimension name -> label: the catalogue's, then the stored ratings' (for rubrics it does not know)."""
    known = rubrics.get_rubric(detail.rubric)
    labels = dict(zip(detail.ratings["dimension"], detail.ratings["dimension_label"], strict=True))
    if known is not None:
        labels.update({d.name: d.label for d in known.dimensions})
    return labels
