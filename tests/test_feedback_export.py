"""The feedback exports' rules section and provenance (issue 50): "Rubric rules you broke" lists only the rules
flagged as broken more often than the rest of the team, and what the figures were computed on closes the export in
plain words. The layout (fits a 1000 px window and an A4 page) is measured in a browser: tests/e2e/test_export_fits.py."""

from __future__ import annotations

import re

import pytest

from analytics.feedback.export import display
from analytics.feedback.export import html as html_export
from analytics.feedback.export import markdown as md_export
from tests.conftest import built_once
from tests.export_cases import FLAGGED, LONG_EXAMPLE, UNFLAGGED, stressed_report
from tests.test_feedback import _feedback_store


@pytest.fixture(scope="module")
def rep(tmp_path_factory):
    """c1's report with one flagged and one unflagged broken rule."""
    return stressed_report(built_once(tmp_path_factory, "feedback-store", _feedback_store) / "store.duckdb")


def _section(text: str, start: str, end: str) -> str:
    """The text between two headings."""
    return text[text.index(start) : text.index(end, text.index(start))]


def test_the_rules_section_lists_flagged_rules_only(rep):
    md = _section(md_export.to_markdown(rep), "## Rubric rules you broke", "## Agreement with researchers")
    html = _section(html_export.to_html(rep), "<h2>Rubric rules you broke</h2>", "<h2>Agreement with researchers")
    for text in (md, html):
        assert FLAGGED in text and UNFLAGGED not in text
        assert "Flagged" not in text  # a column saying yes on every row says nothing
        assert "1 other rule now and then, no more often than the rest of the team" in text
    assert LONG_EXAMPLE[:60] in html


def test_no_flagged_rule_says_so_and_counts_the_others(rep):
    only_unflagged = rep.rules[~rep.rules["flagged"]]
    quiet = type(rep)(**{**rep.__dict__, "rules": only_unflagged})
    md = _section(md_export.to_markdown(quiet), "## Rubric rules you broke", "## Agreement with researchers")
    assert display.NO_FLAGGED_RULE in md and UNFLAGGED not in md and "1 other rule" in md
    none = type(rep)(**{**rep.__dict__, "rules": rep.rules.iloc[0:0]})
    md = _section(md_export.to_markdown(none), "## Rubric rules you broke", "## Agreement with researchers")
    assert display.NO_FLAGGED_RULE in md and "other rule" not in md


def test_provenance_closes_the_export_in_plain_words(rep):
    """The line of what the figures were computed on is the last thing of both exports, says the data's version,
    the program and the seed in sentences, and none of the old key: value list ("Computed on: Dataset version")."""
    line = display.provenance_line(rep)
    s = rep.stamp
    assert line.startswith("How these figures were made: ")
    assert f"Concord {s['code_version']}" in line and f"version {s['dataset_version']} of the loaded data" in line
    assert f"{s['n_boot']:,} random resamples" in line and f"(seed {s['seed']})" in line
    assert not re.search(r"\b(filters|scales): ", line) and "Dataset version" not in line
    md, html = md_export.to_markdown(rep), html_export.to_html(rep)
    assert md.rstrip().splitlines()[-1] == line
    last_p = re.findall(r"<p[^>]*>(.*?)</p>", html)[-1]
    assert last_p == line and html.index(last_p) > html.index("<h2>Most severe disagreements</h2>")
    for text in (md, html):
        assert "Computed on" not in text and text.count("How these figures were made") == 1
    head = md.split("## Highlights")[0]
    assert "version" not in head and "seed" not in head
