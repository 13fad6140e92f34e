"""Declared scales: read and check a scales file, and declare its scales in the store (DESIGN.md, canonical data).

A scales file is JSON: {"scales": [{"rubric"?, "dimension", "level", "levels", "missing"?}, ...]}. `level` is
nominal, ordinal, interval or ratio; `levels` are in order: labels, numbers, or {"label", "value"} objects.
An entry without `rubric` applies to that dimension in every rubric the catalogue does not know, also rubrics
loaded later. Every problem is one ScalesError naming the file and the key, and nothing is stored.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

from analytics import store
from analytics.core import rubrics
from analytics.core.queries import Query
from analytics.ingest import limits
from analytics.store import tx
from analytics.store.derived import refresh

ENTRY_KEYS = ("rubric", "dimension", "level", "levels", "missing")
# A scales file declares a few scales of a few levels; these bounds keep its reading and its declaration (queries
# per entry, under the write lock) to about a second whatever its shape (bench/bench_ingest.py, hostile shapes).
MAX_SCALES_BYTES = 2**20
MAX_SCALE_ENTRIES = 100
MAX_LEVELS = 1_000
ALL = store.ALL_RUBRICS


class ScalesError(ValueError):
    """A scales file that cannot be read or declared; the message names the file and the key."""


@dataclass(frozen=True)
class DeclaredScale:
    """One entry of a scales file: a dimension's level of measurement, levels in order, values, missing codes."""

    rubric: str | None  # None: every rubric the catalogue does not know
    dimension: str
    measure: str
    levels: tuple[str, ...]
    values: tuple[float | None, ...]
    missing: tuple[str, ...] = ()
    where: str = ""  # "scales.json: scales[2]", for messages

    @property
    def kind(self) -> str:
        """The stored scale kind: binary or nominal for nominal scales, ordinal otherwise."""
        if self.measure == "nominal":
            return rubrics.BINARY if len(self.levels) == 2 else rubrics.NOMINAL
        return rubrics.ORDINAL

    @property
    def text(self) -> str:
        """The scale in words, e.g. "ordinal: Low < Medium < High"."""
        return f"{self.measure}: {_levels_text(self.measure, self.levels, self.values)}"


@dataclass(frozen=True)
class Scales:
    """A parsed scales file."""

    file_name: str
    scales: tuple[DeclaredScale, ...]


@dataclass
class Declared:
    """What declaring a scales file changed."""

    file_name: str
    changed: list[str] = field(default_factory=list)  # rubric/dimension (or */dimension) newly declared
    unchanged: list[str] = field(default_factory=list)  # already declared exactly so
    ratings_reindexed: int = 0

    @property
    def message(self) -> str:
        """One sentence saying what happened."""
        if not self.changed:
            return f"{self.file_name}: every scale was already declared exactly so; nothing changed."
        n = self.ratings_reindexed
        again = f"; {n:,} stored rating(s) re-read on the declared scales" if n else ""
        return f"{self.file_name}: declared {', '.join(self.changed)}{again}."


# --- reading a scales file ---------------------------------------------------------------------------------


def read_scales_file(path: str | os.PathLike) -> Scales:
    """Parse and check a scales file on disk."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as e:
        raise ScalesError(f"{p.name}: cannot be read ({e.strerror or e})") from e
    return parse_scales(data, p.name)


def parse_scales(data: bytes | str, file_name: str) -> Scales:
    """Parse and check a scales file's content; ScalesError names the file and the key at fault."""
    name = Path(str(file_name).replace("\\", "/")).name or "scales file"
    if isinstance(data, bytes):
        if len(data) > MAX_SCALES_BYTES:
            raise ScalesError(
                f"{name}: {len(data) / 2**20:.1f} MB is too large for a scales file (the limit is 1 MB); "
                "split it into several files"
            )
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise ScalesError(f"{name}: not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start})") from e
    if limits.nesting(data.encode()) > limits.MAX_READ_DEPTH:  # never handed to the recursive JSON reader
        raise ScalesError(f"{name}: nested too deeply to be a scales file (a scales file needs 4 levels)")
    try:
        doc = json.loads(data)
    except ValueError as e:
        where = f" at line {e.lineno}, column {e.colno}" if isinstance(e, json.JSONDecodeError) else ""
        raise ScalesError(f"{name}: not valid JSON ({getattr(e, 'msg', e)}{where})") from e
    if not isinstance(doc, dict) or "scales" not in doc:
        raise ScalesError(f'{name}: expected a JSON object with a list "scales", e.g. {{"scales": [...]}}')
    if not isinstance(doc["scales"], list):
        raise ScalesError(f'{name}: "scales" must be a list of scale objects, not {_json_type(doc["scales"])}')
    if not doc["scales"]:
        raise ScalesError(f'{name}: "scales" is empty; declare at least one scale')
    if len(doc["scales"]) > MAX_SCALE_ENTRIES:
        raise ScalesError(
            f'{name}: "scales" declares {len(doc["scales"]):,} scales, over the limit of {MAX_SCALE_ENTRIES:,} a file '
            "; split it into several files"
        )
    scales = [_entry(item, f"{name}: scales[{i}]") for i, item in enumerate(doc["scales"])]
    seen: dict[tuple[str | None, str], str] = {}
    for s in scales:
        key = (s.rubric, s.dimension)
        if key in seen:
            raise ScalesError(f"{s.where}: declares {_target(s)} again (first in {seen[key].split(': ', 1)[1]})")
        seen[key] = s.where
    return Scales(name, tuple(scales))


def _entry(item: Any, where: str) -> DeclaredScale:
    """One checked entry of "scales"."""
    if not isinstance(item, dict):
        raise ScalesError(f"{where}: expected an object with dimension, level and levels, not {_json_type(item)}")
    for key in item:
        if key not in ENTRY_KEYS:
            raise ScalesError(f'{where}: unknown key "{key}" (expected {", ".join(ENTRY_KEYS)})')
    for key in ("dimension", "level", "levels"):
        if key not in item:
            raise ScalesError(f'{where}: missing required key "{key}"')
    dimension = _name(item["dimension"], f"{where}.dimension")
    rubric = _name(item["rubric"], f"{where}.rubric") if item.get("rubric") is not None else None
    if rubric == ALL:
        raise ScalesError(f'{where}.rubric: "{ALL}" is not a rubric; leave "rubric" out to mean every rubric')
    measure = item["level"].strip().lower() if isinstance(item["level"], str) else item["level"]
    if measure not in rubrics.MEASURES:
        raise ScalesError(f"{where}.level: {json.dumps(item['level'])} is not one of {', '.join(rubrics.MEASURES)}")
    levels, values = _levels(item["levels"], measure, f"{where}.levels")
    missing = _missing(item.get("missing"), levels, f"{where}.missing")
    return DeclaredScale(rubric, dimension, measure, levels, values, missing, where)


def _name(value: Any, where: str) -> str:
    """A rubric or dimension name: non-empty text."""
    if not isinstance(value, str) or not value.strip():
        raise ScalesError(f"{where}: must be a non-empty string, not {json.dumps(value)}")
    return value.strip()


def _levels(raw: Any, measure: str, where: str) -> tuple[tuple[str, ...], tuple[float | None, ...]]:
    """The levels' labels (numbers spelled as the loader spells them) and values, in declared order."""
    if not isinstance(raw, list) or not raw:
        raise ScalesError(f"{where}: must be a non-empty list of labels, numbers or {{label, value}} objects")
    if len(raw) > MAX_LEVELS:
        raise ScalesError(
            f"{where}: {len(raw):,} levels, over the limit of {MAX_LEVELS:,}; declare at most {MAX_LEVELS:,}"
        )
    labels: list[str] = []
    values: list[float | None] = []
    first: dict[str, int] = {}  # label -> its position (a dict: a list search made this quadratic)
    for i, item in enumerate(raw):
        label, value = _level(item, f"{where}[{i}]")
        if rubrics.is_missing(label):
            raise ScalesError(f'{where}[{i}]: "{label}" means missing (NA, N/A, null, empty) and cannot be a level')
        if label in first:
            raise ScalesError(f'{where}[{i}]: "{label}" is listed twice (first at {where}[{first[label]}])')
        first[label] = i
        if measure in ("interval", "ratio") and value is None:
            raise ScalesError(
                f'{where}[{i}]: "{label}" has no number; an {measure} scale needs a number for every level '
                f'(write {{"label": "{label}", "value": 1}})'
            )
        if measure == "ratio" and value is not None and value < 0:
            raise ScalesError(
                f"{where}[{i}]: value {_num(value)} is negative; a ratio scale has a true zero, so its values "
                'cannot be negative (declare it "interval")'
            )
        labels.append(label)
        values.append(value)
    _check_increasing(labels, values, measure, where)
    return tuple(labels), tuple(values)


def _level(item: Any, where: str) -> tuple[str, float | None]:
    """One level: a label, a number, or a {"label", "value"} object."""
    if isinstance(item, dict):
        for key in item:
            if key not in ("label", "value"):
                raise ScalesError(f'{where}: unknown key "{key}" (a level object has "label" and "value")')
        if "label" not in item:
            raise ScalesError(f'{where}: missing required key "label"')
        label, _ = _level(item["label"], f"{where}.label")
        value = item.get("value")
        if value is None:
            return label, None
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise ScalesError(f'{where}: "value" must be a number, not {json.dumps(value)}')
        return label, float(value)
    if isinstance(item, bool) or item is None:
        raise ScalesError(f"{where}: must be a label, a number or a {{label, value}} object, not {json.dumps(item)}")
    if isinstance(item, int | float):
        if not math.isfinite(item):
            raise ScalesError(f"{where}: {item} is not a finite number")
        label = rubrics.canonical_number(str(item))
        return label, float(item)
    if isinstance(item, str):
        label = rubrics.canonical_number(item.strip())
        return label, rubrics.as_number(label)
    raise ScalesError(f"{where}: must be a label, a number or a {{label, value}} object, not {_json_type(item)}")


def _check_increasing(labels: list[str], values: list[float | None], measure: str, where: str) -> None:
    """On an ordered scale the levels' numbers rise in the declared order (lowest first)."""
    if measure == "nominal":
        return
    last: tuple[int, float] | None = None
    for i, v in enumerate(values):
        if v is None:
            continue
        if last is not None and v <= last[1]:
            raise ScalesError(
                f'{where}[{i}]: value {_num(v)} of "{labels[i]}" is not above {_num(last[1])} of '
                f'"{labels[last[0]]}"; list the levels of an {measure} scale from lowest to highest'
            )
        last = (i, v)


def _missing(raw: Any, levels: tuple[str, ...], where: str) -> tuple[str, ...]:
    """The entry's missing codes: text (or numbers), none of them a level."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise ScalesError(f'{where}: must be a list of values that mean missing, e.g. ["NA", "-99"]')
    if len(raw) > MAX_LEVELS:
        raise ScalesError(
            f"{where}: {len(raw):,} missing codes, over the limit of {MAX_LEVELS:,}; declare at most {MAX_LEVELS:,}"
        )
    out: list[str] = []
    for i, item in enumerate(raw):
        if isinstance(item, bool) or not isinstance(item, str | int | float):
            raise ScalesError(f"{where}[{i}]: must be a string or a number, not {json.dumps(item)}")
        token = rubrics.canonical_number(str(item).strip())
        if token in levels:
            raise ScalesError(f'{where}[{i}]: "{token}" is also a level; a missing code cannot be a level')
        out.append(token)
    return tuple(out)


def _json_type(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "true/false", type(None): "null"}
    return names.get(type(value), "a number")


def _num(x: float) -> str:
    return rubrics.canonical_number(repr(float(x)))


def _target(s: DeclaredScale) -> str:
    return f"{s.rubric}/{s.dimension}" if s.rubric else f"{s.dimension} (every rubric)"


def _levels_text(measure: str, levels: tuple[str, ...] | list[str], values: tuple | list) -> str:
    """Levels joined by '<' when ordered, '|' when not, each with its value when it is not its label."""
    parts = []
    for lvl, v in zip(levels, values, strict=False):
        parts.append(lvl if v is None or _num(v) == lvl else f"{lvl}={_num(v)}")
    return (" | " if measure == "nominal" else " < ").join(parts)


# --- declaring scales in the store -------------------------------------------------------------------------


def declare_scales(con: duckdb.DuckDBPyConnection, scales: Scales) -> Declared:
    """Declare a scales file's scales in the store as one transaction; ScalesError leaves the store unchanged."""
    with tx.write(con):
        return declare_in_transaction(con, scales)


def declare_in_transaction(con: duckdb.DuckDBPyConnection, scales: Scales) -> Declared:
    """Declare the scales inside the caller's transaction, marking the data as changed when they change it."""
    result = apply_scales(con, scales)
    if result.changed:
        store.bump_version(con)
    return result


def apply_scales(con: duckdb.DuckDBPyConnection, scales: Scales) -> Declared:
    """Declare the scales inside the caller's transaction (rubric entries first, then every-rubric entries)."""
    result = Declared(scales.file_name)
    for s in sorted(scales.scales, key=lambda s: s.rubric is None):
        if s.rubric is not None:
            changed = _declare_for_rubric(con, s, s.rubric, scales.file_name, result)
        else:
            changed = _declare_for_all(con, s, scales.file_name, result)
        (result.changed if changed else result.unchanged).append(_target(s))
    return result


def _declare_for_rubric(
    con: duckdb.DuckDBPyConnection, s: DeclaredScale, rubric: str, file_name: str, result: Declared
) -> bool:
    """Declare one rubric's dimension (`rubric` is s.rubric); a different catalogue or declared scale refuses it.
    Whether it changed."""
    earlier = _stored_declaration(con, rubric, s.dimension)
    row = _dimension_row(con, rubric, s.dimension)
    if row is not None and row["source"] == "catalogue":
        _refuse_if_different(s, row, "the catalogue's scale")
        return False
    if earlier is not None:
        _refuse_if_different(s, earlier, f"the scale declared earlier (from {earlier['file_name']})")
        if row is not None and row["source"] == "declared":
            return False
    _record_declaration(con, s, rubric, file_name)
    result.ratings_reindexed += _replace_scale(con, s, rubric, row)
    return True


def _declare_for_all(con: duckdb.DuckDBPyConnection, s: DeclaredScale, file_name: str, result: Declared) -> bool:
    """Declare a dimension in every rubric the catalogue does not know (and that has no rubric declaration)."""
    earlier = _stored_declaration(con, ALL, s.dimension)
    if earlier is not None:
        _refuse_if_different(s, earlier, f"the scale declared earlier for every rubric (from {earlier['file_name']})")
    changed = earlier is None
    if changed:
        _record_declaration(con, s, ALL, file_name)
    for rubric in _undeclared_rubrics(con, s.dimension):
        row = _dimension_row(con, rubric, s.dimension)
        if row is not None and row["source"] == "declared" and not _differences(s, row):
            continue
        result.ratings_reindexed += _replace_scale(con, s, rubric, row)
        changed = True
    return changed


UNDECLARED_RUBRICS = Query(
    "undeclared_rubrics",
    """SELECT rubric FROM dimensions WHERE dimension = $dimension AND source <> 'catalogue'
         AND rubric NOT IN (SELECT DISTINCT rubric FROM dimensions WHERE source = 'catalogue')
         AND rubric NOT IN (SELECT rubric FROM scale_declarations WHERE dimension = $dimension AND rubric <> $all)
       ORDER BY rubric""",
)


def _undeclared_rubrics(con: duckdb.DuckDBPyConnection, dimension: str) -> list[str]:
    """Rubrics outside the catalogue with this dimension stored and no rubric declaration of it."""
    rows = UNDECLARED_RUBRICS.bind(dimension=dimension, all=ALL).rows(con)
    return [r[0] for r in rows]


def declare_for_new_dimensions(con: duckdb.DuckDBPyConnection, pairs: list[tuple[str, str]]) -> None:
    """Give (rubric, dimension) pairs that have no stored scale yet the every-rubric declaration of the dimension."""
    for rubric, dimension in pairs:
        earlier = _stored_declaration(con, ALL, dimension)
        if earlier is None or _dimension_row(con, rubric, dimension) is not None:
            continue
        s = DeclaredScale(
            rubric,
            dimension,
            earlier["measure"],
            tuple(earlier["levels"]),
            tuple(earlier["level_values"]),
            tuple(earlier["missing"]),
        )
        _write_dimension(con, s, rubric)


STORED_DECLARATION = Query(
    "stored_declaration",
    """SELECT measure, levels, level_values, missing, file_name FROM scale_declarations
       WHERE rubric = $rubric AND dimension = $dimension""",
)


def _stored_declaration(con: duckdb.DuckDBPyConnection, rubric: str, dimension: str) -> dict | None:
    rows = STORED_DECLARATION.bind(rubric=rubric, dimension=dimension).rows(con)
    if not rows:
        return None
    return dict(zip(("measure", "levels", "level_values", "missing", "file_name"), rows[0], strict=True))


DIMENSION_ROW = Query(
    "dimension_row",
    """SELECT source, measure, levels, level_values, missing, kind FROM dimensions
       WHERE rubric = $rubric AND dimension = $dimension""",
)


def _dimension_row(con: duckdb.DuckDBPyConnection, rubric: str, dimension: str) -> dict | None:
    rows = DIMENSION_ROW.bind(rubric=rubric, dimension=dimension).rows(con)
    if not rows:
        return None
    return dict(zip(("source", "measure", "levels", "level_values", "missing", "kind"), rows[0], strict=True))


def _differences(s: DeclaredScale, stored: dict) -> list[str]:
    """What differs between a declaration and a stored scale, in words (empty: the same scale)."""
    levels = list(stored["levels"])
    values = list(stored["level_values"] or [None] * len(levels))
    measure = stored["measure"] or rubrics.DEFAULT_LEVEL.get(stored.get("kind") or "", "nominal")
    out = []
    if measure != s.measure:
        out.append(f"level {s.measure} where it is {measure}")
    if levels != list(s.levels):
        if sorted(levels) == sorted(s.levels):
            out.append(f"the order {_levels_text('ordinal', s.levels, [None] * len(s.levels))} where it is "
                       f"{_levels_text('ordinal', levels, [None] * len(levels))}")  # fmt: skip
        else:
            out.append(f"levels {', '.join(s.levels)} where they are {', '.join(levels)}")
    elif [_num(v) if v is not None else None for v in values] != [_num(v) if v is not None else None for v in s.values]:
        shown = lambda vs: ", ".join("none" if v is None else _num(v) for v in vs)  # noqa: E731
        out.append(f"values {shown(s.values)} where they are {shown(values)}")
    stored_missing = {m.lower() for m in stored["missing"] or []}
    if s.missing and {m.lower() for m in s.missing} != stored_missing:
        out.append(
            f"missing codes {', '.join(s.missing)} where they are {', '.join(stored['missing'] or []) or 'none'}"
        )
    return out


def _refuse_if_different(s: DeclaredScale, stored: dict, what: str) -> None:
    diff = _differences(s, stored)
    if diff:
        raise ScalesError(
            f"{s.where} ({_target(s)}): contradicts {what}: it declares {'; '.join(diff)}. Nothing was changed; "
            "remove the entry or make it match"
        )


SCALE_DECLARATION_SAVE = Query(
    "scale_declaration_save",
    """INSERT OR REPLACE INTO scale_declarations (rubric, dimension, measure, levels, level_values, missing, file_name)
       VALUES ($rubric, $dimension, $measure, $levels, $level_values, $missing, $file_name)""",
)


def _record_declaration(con: duckdb.DuckDBPyConnection, s: DeclaredScale, rubric: str, file_name: str) -> None:
    SCALE_DECLARATION_SAVE.bind(
        rubric=rubric,
        dimension=s.dimension,
        measure=s.measure,
        levels=list(s.levels),
        level_values=list(s.values),
        missing=list(s.missing),
        file_name=file_name,
    ).run(con)


def _write_dimension(con: duckdb.DuckDBPyConnection, s: DeclaredScale, rubric: str) -> None:
    store.save_dimensions(
        con,
        [[rubric, s.dimension, s.dimension, s.kind, list(s.levels), list(s.levels), [], "", False, False,
          "declared", s.measure, list(s.values), list(s.missing)]],
    )  # fmt: skip


def _ratings_off_scale(s: DeclaredScale, rubric: str) -> Query:
    """Count and an example of the rubric's ratings of the dimension on neither a declared level nor missing."""
    return Query(
        "ratings_off_scale",
        f"""SELECT count(*), min(value) FROM ratings WHERE rubric = $rubric AND dimension = $dimension
              AND NOT list_contains($levels, value) AND NOT ({missing_sql("value", "CAST($missing AS VARCHAR[])")})""",
        {"rubric": rubric, "dimension": s.dimension, "levels": list(s.levels), "missing": list(s.missing)},
    )


def _replace_scale(con: duckdb.DuckDBPyConnection, s: DeclaredScale, rubric: str, row: dict | None) -> int:
    """Store the declared scale for one rubric and re-read its stored ratings on it; return ratings re-read.

    Ratings whose value is neither a declared level nor missing refuse the declaration (never dropped)."""
    n_off, example = _ratings_off_scale(s, rubric).rows(con)[0]
    if n_off:
        raise ScalesError(
            f"{s.where} ({rubric}/{s.dimension}): {n_off:,} stored rating(s) are not on the declared scale, e.g. "
            f'"{example}"; add the level (or a missing code) to the declaration, or remove those ratings. '
            "Nothing was changed"
        )
    _write_dimension(con, s, rubric)
    if row is None:
        return 0
    reread = int(
        con.execute(
            f"""UPDATE ratings SET
                  value_index = CASE WHEN NOT ({missing_sql("value", "CAST($missing AS VARCHAR[])")})
                                     THEN list_position($levels, value) - 1 END,
                  value_num = CASE WHEN NOT ({missing_sql("value", "CAST($missing AS VARCHAR[])")})
                                   THEN coalesce(CAST($values AS DOUBLE[])[list_position($levels, value)], TRY_CAST(value AS DOUBLE),
                                                 CASE WHEN $ordered THEN list_position($levels, value) - 1 END) END
                WHERE rubric = $rubric AND dimension = $dimension""",
            {
                "missing": list(s.missing),
                "levels": list(s.levels),
                "values": list(s.values),
                "ordered": s.measure != "nominal",
                "rubric": rubric,
                "dimension": s.dimension,
            },
        ).fetchall()[0][0]
    )
    # the kept tables hold positions (and values) of the old scale
    refresh.after_rescale(con, rubric, s.dimension)
    return reread


def missing_sql(value: str, codes: str) -> str:
    """SQL: whether `value` means missing (MISSING_TOKENS, or one of the list `codes`, case-insensitively)."""
    tokens = ", ".join(f"'{t}'" for t in rubrics.MISSING_TOKENS)
    return (
        f"({value} IS NULL OR lower(trim({value})) IN ({tokens}) OR coalesce(list_contains("
        f"list_transform({codes}, lambda m: lower(m)), lower(trim({value}))), false))"
    )


def declare_scales_upload(con: duckdb.DuckDBPyConnection, data: bytes, file_name: str) -> Declared:
    """Parse, check and declare an uploaded scales file (ScalesError: one message, nothing stored)."""
    return declare_scales(con, parse_scales(data, file_name))


DECLARED_SCALES = Query(
    "declared_scales",
    """SELECT rubric, dimension, measure, levels, level_values, missing, file_name, declared_at
       FROM scale_declarations ORDER BY rubric = $all, rubric, dimension""",
)


def declared_scales(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Every declaration from scales files, its scale in words (rubric '*': every rubric outside the catalogue)."""
    rows = DECLARED_SCALES.bind(all=ALL).rows(con)
    return pd.DataFrame(
        [
            (rubric, dim, measure, _levels_text(measure, levels, values), ", ".join(missing), name, at)
            for rubric, dim, measure, levels, values, missing, name, at in rows
        ],
        columns=["rubric", "dimension", "measure", "scale", "missing", "file_name", "declared_at"],
    )
