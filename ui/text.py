"""Untrusted text stays text: escape anything from a submission before Streamlit renders markdown."""

from __future__ import annotations

import re

import pandas as pd
import streamlit as st

from analytics.core import formatting

# Characters that are invisible or reorder what follows them: C0 and C1 controls (and DEL), the bidirectional
# marks, embeddings, overrides and isolates (U+061C, U+200E/F, U+202A-U+202E, U+2066-U+2069), and the
# zero-width characters that make two ids look alike (U+200B-U+200D, U+2060, U+FEFF). A rater id "c1\u202e2c"
# shows as "c1c2" without this.
_HIDDEN = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]")


def visible(text: object, keep: str = "") -> str:
    """Text with every control, bidirectional and zero-width character shown as its code point, e.g. "⟨U+202E⟩"
    (characters in `keep` stay as they are): for ids and file names wherever they are shown."""
    return _HIDDEN.sub(lambda m: m[0] if m[0] in keep else f"⟨U+{ord(m[0]):04X}⟩", str(text))


def visible_cells(cells: pd.Series) -> pd.Series:
    """`cells` with each text cell passed through `visible` (other cells as they are), each distinct text once: a
    table repeats a few dozen ids over thousands of rows."""
    try:
        texts = [v for v in pd.unique(cells) if isinstance(v, str)]
    except TypeError:  # unhashable cells (lists): each cell on its own
        return cells.map(lambda v: visible(v) if isinstance(v, str) else v)
    shown = {t: visible(t) for t in texts}
    changed = {t: v for t, v in shown.items() if v != t}
    if not changed:
        return cells
    return cells.map(lambda v: changed.get(v, v) if isinstance(v, str) else v)


def md_escape(text: object) -> str:
    """Untrusted text safe inside st.markdown: control, bidirectional and zero-width characters shown visibly
    (`visible`; line breaks kept), then escaped by analytics.formatting.md_escape with every mark."""
    return formatting.md_escape(visible(text, keep="\n"), every_mark=True)


def show_text(text: object) -> None:
    """Untrusted free text (a prompt, an answer, a comment) as plain text, hidden characters made visible."""
    st.text(visible(text, keep="\n\t"))


def text_block(label: str, text: object) -> None:
    """A caption and a piece of untrusted text shown as plain text (skipped when empty)."""
    if text is None or text is pd.NA or (isinstance(text, float) and text != text) or str(text).strip() == "":
        return
    st.caption(md_escape(label))
    show_text(text)
