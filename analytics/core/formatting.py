"""Numbers as people read them: one rule for a figure and for a figure with its interval, everywhere.

"0.642 [0.58, 0.70]" on pages and the command line (value to 3 decimals, interval to 2), "0.64 [0.58, 0.70]" in
exports a contractor reads (2 and 2). Downloads and JSON carry the numbers themselves, never these strings.
"""

from __future__ import annotations

from typing import Any

import pandas as pd


def is_missing(x: Any) -> bool:
    """Whether a cell is empty (None, NaN, NaT or blank text)."""
    if x is None or x is pd.NaT:
        return True
    if isinstance(x, float) and x != x:
        return True
    return isinstance(x, str) and not x.strip()


def fmt(x: Any, digits: int = 2, missing: str = "–") -> str:
    """A number with `digits` decimals (`missing` when undefined); anything else as text."""
    if is_missing(x):
        return missing
    if isinstance(x, float):
        return f"{x:.{digits}f}"
    return str(x)


def fmt_ci(value: Any, lo: Any, hi: Any, digits: int = 2, ci_digits: int | None = None, missing: str = "–") -> str:
    """A value with its interval, "0.62 [0.41, 0.80]"; the value alone when the interval is undefined."""
    if is_missing(value):
        return missing
    if is_missing(lo) or is_missing(hi):
        return fmt(value, digits, missing)
    d = digits if ci_digits is None else ci_digits
    return f"{fmt(value, digits, missing)} [{fmt(lo, d, missing)}, {fmt(hi, d, missing)}]"
