"""Untrusted text stays text: escape anything from a submission before Streamlit renders markdown."""

from __future__ import annotations

import re

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&])")


def md_escape(text: object) -> str:
    """Text with every markdown, HTML and LaTeX control character escaped, safe inside st.markdown."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", str(text))
