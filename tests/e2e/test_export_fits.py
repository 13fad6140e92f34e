"""The Feedback HTML export fits a 1000 px window and an A4 page (issue 50: it was 7,939 px wide, an example cell
that did not wrap), measured in Chromium on a report with a long example cell and a 3,000-character unbroken token."""

from __future__ import annotations

import re

import pytest

from analytics.feedback.export import html as html_export
from tests.conftest import built_once
from tests.e2e.conftest import screenshot
from tests.export_cases import UNBROKEN, stressed_report
from tests.test_feedback import _feedback_store

WINDOW = 1000
# A4 is 210 mm wide; the export's @page leaves 1.5 cm each side: 180 mm at 96 CSS px per inch.
A4_PRINTABLE = round(180 / 25.4 * 96)
A4_POINTS = (210 / 25.4 * 72, 297 / 25.4 * 72)  # 210 x 297 mm in PDF points
WIDEST = "Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)"


@pytest.fixture(scope="module")
def export_html(tmp_path_factory) -> str:
    """The stressed report as the HTML export."""
    return html_export.to_html(
        stressed_report(built_once(tmp_path_factory, "feedback-store", _feedback_store) / "store.duckdb")
    )


def test_the_html_export_fits_a_1000_px_window(page, export_html):
    page.set_viewport_size({"width": WINDOW, "height": 900})
    page.set_content(export_html)
    assert page.evaluate("document.documentElement.clientWidth") == WINDOW
    assert page.evaluate(WIDEST) <= WINDOW
    assert page.get_by_text(UNBROKEN[:200], exact=False).first.is_visible()  # wrapped, not cut away
    screenshot(page, "export_1000px")


def test_the_html_export_fits_an_a4_page_when_printed(page, export_html):
    page.emulate_media(media="print")
    page.set_viewport_size({"width": A4_PRINTABLE, "height": 1000})
    page.set_content(export_html)
    assert page.evaluate(WIDEST) <= A4_PRINTABLE
    pdf = page.pdf(prefer_css_page_size=True)  # the page size the export's @page asks for
    boxes = re.findall(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", pdf)
    assert boxes and all(abs(float(w) - A4_POINTS[0]) < 1 and abs(float(h) - A4_POINTS[1]) < 1 for w, h in boxes), boxes
