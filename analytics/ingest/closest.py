"""What to tell the user when no format recognises a file: the closest formats and which choice to make.

A table of short values under rater-like columns is most likely the wide layout, which is never detected
(wide.detect); a JSON list of tasks with annotations but no `data` is a Label Studio export missing its texts;
otherwise the formats sharing most of their required fields (samples.GUIDES) with the file are named with what
the file lacks. Messages point to the Data page's Formats section, never to a path in the repository.
"""

from __future__ import annotations

import csv
import json
import re
from typing import Any

from analytics.ingest import limits, wide
from analytics.ingest.samples import GUIDES, Guide

HELP = "the Data page's Formats section describes each format, with a sample file"
SAMPLE_ROWS = 20  # data rows of the head looked at
NUMBER = re.compile(r"^[+-]?(\d+([.,]\d*)?|[.,]\d+)([eE][+-]?\d+)?$")
MISSING = {"", "na", "n/a", "null", "nan", "-", "."}
SHORT = 20  # characters: a rating is a short value; a column of longer text is not a rater's
KEY = re.compile(r'"([^"\\\n]{1,60})"\s*:')
FORMAT_VALUE = re.compile(r'"format"\s*:\s*"([^"\\\n]{1,100})"')


def unknown_format(head: bytes, name: str) -> str:
    """The message for a file no format recognises under auto: what it looks like and which Format to choose."""
    text = head.decode("utf-8-sig", errors="replace").lstrip()
    if text[:1] in ("[", "{"):
        return _json_message(text, name)
    return _table_message(text, name)


def _table_message(text: str, name: str) -> str:
    """A text table: the wide layout when its cells look like ratings, else the closest formats by column."""
    rows = _table(text)
    header = [h.strip() for h in rows[0]] if rows else []
    looks_wide = _wide_id(header, rows[1:])
    if looks_wide is not None:
        id_at, raters = looks_wide
        shown = _listed(raters, 5)
        if id_at is None:
            id_said = "items are then numbered by row (give the column holding the item id, if any, as Item id column)"
        elif wide.id_column(header, None, name) == id_at:
            id_said = f"it takes the column {header[id_at]} as the item id"
        else:
            id_said = (
                f"give {header[id_at]} as its Item id column (--id-column {header[id_at]}) to use it as the item id"
            )
        return (
            f"{name} is not a format Concord detects on its own, but it looks like a wide table (one row per item, "
            f"one column per rater: {shown}): choose Format: wide (command line: --format wide); {id_said}"
        )
    if len([h for h in header if h]) < 2 or not any(len(r) == len(header) for r in rows[1:]):
        return _closest_message(name, set(), "it reads as neither JSON nor a table with a header row")
    return _closest_message(name, set(header), f"its columns are {_listed(header)}")


def _listed(names: list[str], at_most: int = 10) -> str:
    """Names in the file's order, the first `at_most` of them (each cut to 60 characters) and how many more."""
    shown = ", ".join(n[:60] for n in names[:at_most])
    return shown + (f" and {len(names) - at_most:,} more" if len(names) > at_most else "")


def _table(text: str) -> list[list[str]]:
    """The header and first rows of a text table, split by the header's delimiter; no rows when it is not one."""
    lines = text.splitlines()[: SAMPLE_ROWS + 1]
    if not lines or len(lines[0].encode()) > limits.MAX_LINE_BYTES:
        return []
    delimiter, _ = limits.csv_header(lines[0].encode())
    try:
        return [row for row in csv.reader(lines, delimiter=delimiter) if any(c.strip() for c in row)]
    except csv.Error:
        return []


def _wide_id(header: list[str], rows: list[list[str]]) -> tuple[int | None, list[str]] | None:
    """(the item id column or None, the rater columns) when the table reads as items x raters, else None.

    Items x raters: two or more rater columns whose cells are short values (numbers, codes, blanks), at least one
    a number, and no column named as in the canonical format (rater_id, value, ...), which would be a long table."""
    if len(header) < 2 or not rows or {f.name for f in GUIDES["canonical"].fields} & set(header):
        return None
    rows = [r for r in rows if len(r) == len(header)]
    if not rows:
        return None
    named = wide.id_column(header, None, "")
    first = [r[0].strip() for r in rows]
    first_is_id = named == 0 or (all(first) and len(set(first)) == len(first) and not all(map(NUMBER.match, first)))
    id_at = 0 if first_is_id else None
    raters = [i for i in range(len(header)) if i != id_at]
    cells = [r[i].strip() for r in rows for i in raters]
    if len(raters) < 2 or not all(_is_rating(c) for c in cells):
        return None
    if not any(NUMBER.match(c) for c in cells):
        return None
    return id_at, [header[i] for i in raters]


def _is_rating(cell: str) -> bool:
    """Whether a cell reads as one rating (a number, a short code, or missing)."""
    return cell.lower() in MISSING or NUMBER.match(cell) is not None or (len(cell) <= SHORT and "  " not in cell)


def _json_message(text: str, name: str) -> str:
    """A JSON file: a Label Studio export without `data`, a format value Concord does not read, or the closest."""
    first = _first_record(text)
    named = list(first) if isinstance(first, dict) else list(dict.fromkeys(KEY.findall(text[:4096])))
    keys = set(named)
    if text.startswith("[") and keys & {"annotations", "predictions"} and "data" not in keys:
        return (
            f"{name} looks like a Label Studio JSON export, but its first task has no data field (the texts shown "
            "to annotators, which Label Studio exports beside id and annotations); export the project again with "
            "Export > JSON, or choose Format: label_studio (command line: --format label_studio) to load the "
            "annotations without their texts"
        )
    said = FORMAT_VALUE.search(text[:4096])
    known = [g.fields[0].holds for g in GUIDES.values() if g.fields[0].name == "format"]
    if said and said.group(1) not in known:
        return (
            f"{name}: its records name the format {said.group(1)}, which Concord does not read; records may name "
            f"{', '.join(known)} ({HELP})"
        )
    if named:
        found = f"its first record's keys are {_listed(named)}"
    else:
        found = "its first record is empty" if first == {} else "no record could be read"
    return _closest_message(name, keys, found)


def _first_record(text: str) -> Any:
    """The first record of a JSON document, array or JSON lines (None when it cannot be read from the head)."""
    at = 1 if text.startswith("[") else 0
    while at < len(text) and text[at] in " \r\n\t":
        at += 1
    if limits.nesting(text[at : at + 65536].encode()) > limits.MAX_JSON_DEPTH:
        return None
    try:
        record, _ = json.JSONDecoder().raw_decode(text, at)
    except ValueError:
        return None
    return record


def _closest_message(name: str, found: set[str], what: str) -> str:
    """The formats sharing most required fields with the file, each with what the file lacks."""
    ranked = sorted(
        ((len(set(g.required) & found) / len(g.required), g) for g in GUIDES.values() if g.name != "wide"),
        key=lambda sg: -sg[0],
    )
    near = [g for score, g in ranked if score > 0][:2]
    lead = f"{name} is not in a format Concord recognises ({what})"
    if not near:
        return f"{lead}; choose its format under Format, or save it as ratings with one row per rating ({HELP})"
    return f"{lead}; closest: {'; '.join(_lacks(g, found) for g in near)} ({HELP})"


def _lacks(guide: Guide, found: set[str]) -> str:
    """A format and the required fields the file does not have."""
    missing = [f for f in guide.required if f not in found]
    if not missing:
        return f"Format: {guide.name} ({guide.title}), whose fields it has: choose it under Format"
    return f"Format: {guide.name} ({guide.title}), which also needs {', '.join(missing)}"
