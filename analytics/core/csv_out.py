"""The one CSV writer: every download in the app and every CSV the command line writes goes through `to_csv`.

A spreadsheet opening a CSV runs a cell that starts with '=', '+', '-' or '@' as a formula (and some also after
a leading tab, carriage return or line feed), so `=HYPERLINK("http://x","y")` in a rater id or a comment would
become a live link or worse. Such text cells get an apostrophe in front (OWASP, CSV injection), which a
spreadsheet shows as text and hides. Numbers stay numbers: -0.205 is written as -0.205, and text that is a plain
number ("-3", "+1.5e3") is left alone, since a spreadsheet reads it as that number and runs nothing. Column
names are treated like text cells. Missing values are written as empty cells. A list, struct or map cell (an
Explore result's) is written in full as JSON: its text would be numpy's summary, `[0 1 2 ... 1999]`. Rows end in CRLF: with pandas'
default LF a carriage return inside a cell is written unquoted, and a spreadsheet starts a new row there.
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import numbers
import re

import numpy as np
import pandas as pd

FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n")
PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def inert(value: object) -> object:
    """`value` as a CSV cell a spreadsheet will not run: numbers, booleans, dates and missing values unchanged;
    text (and anything else, as its text) with an apostrophe in front when it starts like a formula and is not
    a plain number."""
    if value is None or value is pd.NA or value is pd.NaT:
        return value
    if isinstance(value, bool | numbers.Number | dt.date | dt.datetime | pd.Timestamp):
        return value
    text = value if isinstance(value, str) else cell_text(value)
    return "'" + text if text.startswith(FORMULA_START) and not PLAIN_NUMBER.fullmatch(text) else text


NESTED = (list, tuple, dict, np.ndarray)


def cell_text(value: object) -> str:
    """A cell's text: a list, struct or map (at any depth) in full as JSON, anything else as str()."""
    if isinstance(value, NESTED):
        return json.dumps(value, default=_json_value, ensure_ascii=False)
    return str(value)


def _json_value(value: object) -> object:
    """What json.dumps cannot write itself, as it can: arrays as lists, numpy scalars, dates, decimals."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dt.date | dt.datetime | dt.time):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return float(value)
    return str(value)


def nested_as_text(df: pd.DataFrame) -> pd.DataFrame:
    """`df` with its list, struct and map columns as JSON text (the same frame when it has none)."""
    out = df
    for i in range(df.shape[1]):
        s = df.iloc[:, i]
        if s.dtype == object and s.map(lambda v: isinstance(v, NESTED)).any():
            if out is df:
                out = df.copy()
            out.isetitem(i, s.map(lambda v: cell_text(v) if isinstance(v, NESTED) else v).to_numpy())
    return out


def _is_text_column(s: pd.Series) -> bool:
    return not (
        pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s) or pd.api.types.is_datetime64_any_dtype(s)
    )


def neutralised(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of `df` whose text cells and column names a spreadsheet would not run as formulas."""
    out = df.copy()
    for i in range(df.shape[1]):
        s = df.iloc[:, i]
        if _is_text_column(s):
            out.isetitem(i, s.astype(object).map(inert).to_numpy())
    out.columns = [inert(c) if isinstance(c, str) else c for c in df.columns]
    return out


def to_csv(df: pd.DataFrame, raw: bool = False) -> str:
    """`df` as CSV text (no index; rows end in CRLF as RFC 4180 has it, so a cell holding a line break or a
    carriage return is quoted and stays one cell), text cells neutralised for spreadsheets unless `raw`."""
    return (nested_as_text(df) if raw else neutralised(df)).to_csv(index=False, lineterminator="\r\n")


def to_csv_bytes(df: pd.DataFrame, raw: bool = False) -> bytes:
    """`to_csv` encoded as UTF-8, for a download button or a file."""
    return to_csv(df, raw).encode("utf-8")
