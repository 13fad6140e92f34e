"""Exports of a contractor's feedback report: Markdown, a self-contained HTML file and CSV, from display text they
share (display.py)."""

from analytics.feedback.export.csv import disagreements_csv, to_csv
from analytics.feedback.export.display import file_stem
from analytics.feedback.export.html import to_html
from analytics.feedback.export.markdown import to_markdown

__all__ = ["disagreements_csv", "file_stem", "to_csv", "to_html", "to_markdown"]
