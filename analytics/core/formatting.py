"""Numbers as people read them: one rule for a figure and for a figure with its interval, everywhere.

"0.642 [0.58, 0.70]" on pages and the command line (value to 3 decimals, interval to 2), "0.64 [0.58, 0.70]" in
exports a contractor reads (2 and 2). Downloads and JSON carry the numbers themselves, never these strings.
Untrusted text as Markdown that shows it literally: md_escape.
"""

from __future__ import annotations

import re
from typing import Any

import pandas as pd

# Markdown escaping (CommonMark and GitHub-flavoured): a backslash only where a character would start markup, so
# ordinary prose ("0.41 [0.21, 0.63]", "usefulness_comparison", "n = 30.") reads as written in plain text.
# Anywhere in a line: code spans, emphasis, strikethrough, table cells and math (` * ~ | $), "_" unless inside a
# word, a backslash before punctuation, an HTML tag or autolink start ("<b", "</", "<!", "<?", "<h"), an entity
# ("&amp;"), and on a line holding a link, image or reference definition ("](", "][", "]:") its brackets and the
# "!" before them. At the start of a line: headings (#), quotes (>), list markers ("- ", "+ ", "1. ", "1) ") and
# thematic breaks or heading underlines ("---", "===").
_MD_ANYWHERE = re.compile(r"[`*~|$]|\\(?=[!-/:-@\[-`{-~])|(?<![^\W_])_|_(?![^\W_])|<(?=[A-Za-z/!?])|&(?=#?\w+;)")
_MD_LINK = re.compile(r"\](?=[(\[:])")
_MD_BRACKETS = re.compile(r"!(?=\[)|[\[\]]")
_MD_LINE_START = re.compile(r"^(\s*)(?:([#>])|([-+])(?=\s|$)|(\d{1,9})([.)])(?=\s|$)|([-=])(?=[-=\s]*$))")
# GitHub-flavoured Markdown links bare URLs and e-mail addresses after backslash escapes are resolved, so
# escaping stops nothing there; an invisible word joiner breaks the pattern ("http:\u2060//", "www\u2060.",
# "a@\u2060b").
_AUTOLINK = re.compile(r"(?i)(?<=https:)|(?<=http:)|(?<=www)(?=\.)|(?<=@)")
WORD_JOINER = "\u2060"
# Streamlit's markdown adds syntax of its own to CommonMark (":red[text]", ":material/icon:", emoji shortcodes, LaTeX),
# so text shown on a page gets a backslash before every character that can take part in markup (`every_mark`).
_EVERY_MARK = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&])")


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


def plus_minus(half_width: Any, digits: int = 2, missing: str = "–") -> str:
    """An interval's half width, "±0.12" (`missing` when there is no interval)."""
    return missing if is_missing(half_width) else f"±{fmt(float(half_width), digits)}"


def fmt_ci(value: Any, lo: Any, hi: Any, digits: int = 2, ci_digits: int | None = None, missing: str = "–") -> str:
    """A value with its interval, "0.62 [0.41, 0.80]"; the value alone when the interval is undefined."""
    if is_missing(value):
        return missing
    if is_missing(lo) or is_missing(hi):
        return fmt(value, digits, missing)
    d = digits if ci_digits is None else ci_digits
    return f"{fmt(value, digits, missing)} [{fmt(lo, d, missing)}, {fmt(hi, d, missing)}]"


def above_below(difference: float, unit: str, than: str, digits: int = 0) -> str:
    """A signed difference said in words with its unit and what it is against ("13 percentage points below the
    team's", "0.56 levels above the researchers"); "level with ..." when it rounds to nothing."""
    size = round(abs(difference), digits)
    if size == 0:
        return f"level with {than}"
    number = f"{size:.{digits}f}"
    return f"{number} {unit}{'' if number == '1' else 's'} {'above' if difference > 0 else 'below'} {than}"


def points(difference: float, than: str) -> str:
    """A difference of two shares in percentage points, never read as a percent of the other ("13 percentage
    points below the team's", "level with the team's")."""
    return above_below(difference * 100, "percentage point", than)


def levels(difference: float, than: str) -> str:
    """A difference on a rating scale in its levels ("0.56 levels above the researchers")."""
    return above_below(difference, "level", than, digits=2)


# One way to print a week (its Monday) everywhere: text and tables (strftime), charts (Vega's d3-time-format, read in
# UTC: the stored weeks are dates at midnight, which a browser west of Greenwich would otherwise show a day early) and
# Streamlit's table columns (moment.js). "30 Mar 2026", never "2026-03-30 00:00:00".
WEEK_FORMAT = "%d %b %Y"
WEEK_D3 = WEEK_FORMAT  # the same directives in d3-time-format
WEEK_MOMENT = "D MMM YYYY"


def week_label(value: Any, missing: str = "–") -> str:
    """A week (its first day: a date, datetime or ISO text) as "30 Mar 2026"; `missing` when empty."""
    if is_missing(value):
        return missing
    return pd.Timestamp(value).strftime(WEEK_FORMAT)


def is_dates(values: pd.Series) -> bool:
    """Whether a column holds dates without a time of day (weeks, days): datetimes all at midnight."""
    if not pd.api.types.is_datetime64_any_dtype(values):
        return False
    present = values.dropna()
    return bool(len(present)) and bool((present == present.dt.normalize()).all())


def md_escape(text: object, lines: bool = False, every_mark: bool = False) -> str:
    """Untrusted text as Markdown that shows it literally, bare URLs kept from becoming links (exports and pages).

    By default it reads cleanly as plain text (exports): only what would become CommonMark or GitHub markup is
    backslash-escaped, on one line (table cells, headings, sentences) unless `lines`, which keeps the line breaks
    (each line escaped as the start of a line). With `every_mark` (pages: Streamlit's markdown has more syntax)
    every markup character is escaped and the text's line breaks are kept as they are."""
    if every_mark:
        return _EVERY_MARK.sub(r"\\\1", _AUTOLINK.sub(WORD_JOINER, str(text)))
    parts = str(text).splitlines() if lines else [" ".join(str(text).split())]
    return "\n".join(_md_line(_AUTOLINK.sub(WORD_JOINER, p)) for p in parts)


def _md_line(line: str) -> str:
    """One line of md_escape."""
    out = _MD_ANYWHERE.sub(lambda m: "\\" + m[0], line)
    if _MD_LINK.search(line):
        out = _MD_BRACKETS.sub(lambda m: "\\" + m[0], out)
    return _MD_LINE_START.sub(_escape_line_start, out, count=1)


def _escape_line_start(m: re.Match) -> str:
    """A backslash before the character that would make a line a heading, quote, list item or rule."""
    indent, mark, bullet, number, delimiter, rule = m.groups()
    if number:
        return f"{indent}{number}\\{delimiter}"
    return f"{indent}\\{mark or bullet or rule}"
