"""A lead's whole review in a real browser on a fresh demo store (issue #50, item 10; issue #12 before it): the
Overview says what needs attention; Feedback opens on the list of who needs feedback next; the lead takes the first
contractor of the list (a planted behaviour on the demo), reads their card, opens one of their disagreements from
it, saves a note, goes to the next case, comes back to the card, exports it as HTML and Markdown (the note is in
both) and marks it as sent (the list then says the contractor waits for follow-up). A planted position-bias
contractor is told about position bias and a careful one is not. While the dashboard still runs, the command line
writes every report card (read commands work beside the dashboard, issue #50 item 3).

The README's screenshots are taken here: `scripts/screenshots.sh` runs this test with CONCORD_README_SCREENSHOTS=1
and the pages of the walk are saved to docs/ once each has finished loading; on other runs they go to
tests/artifacts/ only."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import ARTIFACTS, ROOT, open_tab, run_streamlit, wait_for_app
from tests.e2e.test_disagreement_note_flow import choose, go_to

README_SHOTS = os.environ.get("CONCORD_README_SCREENSHOTS") == "1"
DOCS = ROOT / "docs"
WIDTH = 1400
NOTE = "You chose the answer shown first again; compare both answers against the rubric before choosing."


def shot(page, name: str) -> None:
    """Screenshot the whole page (Streamlit scrolls inside its main block: the viewport grows to fit it) into
    tests/artifacts/, and into docs/ when refreshing the README's screenshots."""
    wait_for_app(page)
    page.wait_for_timeout(1500)  # charts finish drawing after the script stops
    height = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    size = page.viewport_size
    page.set_viewport_size({"width": WIDTH, "height": min(int(height) + 50, 6_000)})
    page.wait_for_timeout(1000)  # charts re-lay out to the new size
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"lead_{name}.png"))
    if README_SHOTS:  # the top of the page, as a reader first sees it
        page.screenshot(path=str(DOCS / f"{name}.png"), clip={"x": 0, "y": 0, "width": WIDTH, "height": 1800})
    page.set_viewport_size(size)


def contractor_id(label: str) -> str:
    """The id in a picker label: "Dana K. (c13)" names c13 (a rater directory), a bare id names itself."""
    m = re.search(r"\(([^()]+)\)$", label)
    return m.group(1) if m else label


def named(rater: str) -> re.Pattern:
    """A picker label naming `rater`: "Dana K. (c13)" or the bare id."""
    return re.compile(rf"(^|\(){re.escape(rater)}\)?$")


def position_bias_shown(page):
    """The "Position bias: <rubric>" headings of the Feedback page's "What to change" section."""
    return page.get_by_test_id("stMain").locator("strong").filter(has_text=re.compile(r"^Position bias:"))


def click_first_row(page) -> None:
    """Click the first row of the "Who needs feedback next" table (a canvas grid: by position, in its row-selection
    column)."""
    grid = page.get_by_test_id("stMain").get_by_test_id("stDataFrame").first
    grid.scroll_into_view_if_needed()
    box = grid.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + 18, box["y"] + 35 + 17)  # under the 35 px header, the middle of the first row
    wait_for_app(page)


def download(page, button: str, into: Path) -> str:
    """Click a download button and return the text of the file it serves."""
    with page.expect_download() as got:
        page.get_by_role("button", name=button, exact=True).click()
    path = into / got.value.suggested_filename
    got.value.save_as(path)
    return path.read_text(encoding="utf-8")


@pytest.mark.timeout(900)  # a whole review, then `report --all` beside the running dashboard
def test_a_lead_walks_a_whole_review(page, tmp_path, demo_store, demo_inputs):
    """On a fresh copy of the run's demo store (loaded as the first start loads it; the first start itself is the
    session server's, tests/e2e/conftest.py)."""
    shutil.copy(demo_store, tmp_path / "concord.duckdb")
    env = {"CONCORD_DB": str(tmp_path / "concord.duckdb"), "CONCORD_DEMO_DIR": str(demo_inputs)}
    page.set_default_timeout(120_000)
    expect.set_options(timeout=120_000)
    truth = json.loads((demo_inputs / "truth.json").read_text())
    flawed = {r for name, b in truth["behaviours"].items() if name != "careful" for r in b["raters"]}
    main = page.get_by_test_id("stMain")
    with run_streamlit(env, tmp_path) as url:
        page.goto(url)
        wait_for_app(page, 300_000)

        # The Overview's first screen says what needs attention.
        expect(main).to_contain_text("Needs attention:")
        shot(page, "overview")
        go_to(page, "Agreement")
        expect(main.get_by_test_id("stVegaLiteChart").first).to_be_visible()
        shot(page, "agreement")

        # Feedback opens on who needs feedback next; the card below is the first of the list's.
        go_to(page, "Feedback")
        expect(page.get_by_role("heading", name="Who needs feedback next")).to_be_visible()
        picker = page.get_by_role("combobox", name="Contractor", exact=True)
        first = contractor_id(picker.input_value())
        assert first in flawed, f"the list starts with {first}, not a contractor with a planted behaviour"
        expect(main).to_contain_text("What to do:")
        shot(page, "feedback")

        # A planted position-bias contractor is told about position bias; a careful one is not.
        biased, calm = truth["behaviours"]["first_position"]["raters"][0], truth["behaviours"]["careful"]["raters"][0]
        choose(page, "Contractor", biased, named(biased))
        expect(picker).to_have_value(named(biased))
        expect(position_bias_shown(page).first).to_be_visible()
        choose(page, "Contractor", calm, named(calm))
        expect(picker).to_have_value(named(calm))
        expect(position_bias_shown(page)).to_have_count(0)

        # The lead takes the first of the list (a click on its row) and reads the card.
        click_first_row(page)
        expect(picker).to_have_value(named(first))
        expect(page.get_by_role("heading", name=re.compile(rf"^Report card: .*{re.escape(first)}"))).to_be_visible()
        expect(main).to_contain_text("Highlights")

        # One of their disagreements, opened from the card.
        open_tab(page, "Disagreements")
        main.get_by_role("button", name=re.compile(r"^Review .* disagreements$")).click()
        expect(page.get_by_role("heading", name="Disagreements").first).to_be_visible()
        wait_for_app(page)
        expect(main).to_contain_text(f"Options in the order {first} saw them")
        case = page.get_by_role("combobox", name="Case", exact=True)
        expect(case).to_have_value(re.compile(r"^1\. .* · open$"))
        expect(case).to_have_value(re.compile(re.escape(first)))

        # A note, saved under the name given once in the sidebar (local mode: docs/deploy.md).
        page.get_by_test_id("stSidebar").get_by_role("textbox", name="Your name").fill("e2e lead")
        page.keyboard.press("Enter")
        expect(main).to_contain_text("Saved by e2e lead")
        wait_for_app(page)
        choose(page, "Status", "feedback given")
        page.get_by_role("textbox", name=re.compile(r"^Note")).fill(NOTE)
        page.get_by_role("button", name="Save note", exact=True).click()
        expect(main).to_contain_text("Saved: feedback given")
        wait_for_app(page)
        expect(case).to_have_value(re.compile(r"^1\. .* · feedback given$"))
        shot(page, "disagreements")

        # The next case, one click away, opens with an empty note and the reviewer kept.
        page.get_by_role("button", name="Next case", exact=True).click()
        expect(main).not_to_contain_text("Saved: feedback given")
        wait_for_app(page)
        expect(case).to_have_value(re.compile(r"^2\. "))
        expect(page.get_by_role("textbox", name=re.compile(r"^Note"))).to_have_value("")
        expect(main).to_contain_text("Saved by e2e lead")

        # Back to the card: the note is there, and both exports carry it.
        main.get_by_role("button", name=re.compile(r"feedback report$")).click()
        expect(picker).to_have_value(named(first))
        open_tab(page, "Disagreements")
        expect(main).to_contain_text(NOTE)
        html = download(page, "Download report (HTML)", tmp_path)
        markdown = download(page, "Download report (Markdown)", tmp_path)
        for text in (html, markdown):
            assert first in text and "What to change" in text
        assert NOTE in markdown and NOTE in html

        # Marked as sent: the list says the contractor now waits for follow-up.
        page.get_by_role("button", name="Mark this report card as sent", exact=True).click()
        expect(main).to_contain_text("Recorded:")
        wait_for_app(page)
        expect(main).to_contain_text("waiting for follow-up")
        shot(page, "feedback_sent")

        # Beside the running dashboard, the command line writes every report card.
        out = tmp_path / "cards"
        run = subprocess.run(
            [sys.executable, "-m", "analytics", "report", "--all", "--format", "html", "--out", str(out)]
            + ["--db", env["CONCORD_DB"], "--json", "--n-boot", "100"],  # what is checked needs no finer intervals
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
    assert run.returncode == 0, run.stderr
    reports = json.loads(run.stdout)["reports"]
    ids = {r["rater_id"] for r in reports}
    assert first in ids and calm in ids
    assert ids <= set(truth["raters"])  # people, not aliases: no annotator_N card
    by_id = {r["rater_id"]: Path(r["file"]) for r in reports}
    assert "Position bias" in by_id[biased].read_text()
    assert NOTE in by_id[first].read_text()
