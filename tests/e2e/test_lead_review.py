"""A lead's review, in a real browser on a fresh demo store (issue #12, "done when"): the Feedback page opens on
the contractor who most needs feedback (one with a planted behaviour), a planted position-bias contractor is told about position bias and a
careful one is not, one of the contractor's disagreements opens side by side and is marked reviewed (the case
list says so at once), and, with the dashboard stopped, the command line writes every report card.

The README's screenshots are taken here: `scripts/screenshots.sh` runs this test with CONCORD_README_SCREENSHOTS=1
and the Agreement, Disagreements and Feedback pages are saved to docs/ once each has finished loading; on other
runs they go to tests/artifacts/ only."""

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

from tests.e2e.conftest import ARTIFACTS, ROOT, run_streamlit, wait_for_app
from tests.e2e.test_disagreement_note_flow import choose, go_to

README_SHOTS = os.environ.get("CONCORD_README_SCREENSHOTS") == "1"
DOCS = ROOT / "docs"
WIDTH = 1400


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


def position_bias_shown(page):
    """The "Position bias: <rubric>" headings of the Feedback page's "What to change" section."""
    return page.get_by_test_id("stMain").locator("strong").filter(has_text=re.compile(r"^Position bias:"))


@pytest.mark.timeout(600)  # `report --all` writes 40 report cards
def test_a_lead_reviews_the_contractor_who_most_needs_feedback(page, tmp_path, demo_store, demo_inputs):
    """On a fresh copy of the run's demo store (loaded as the first start loads it; the first start itself is the
    session server's, tests/e2e/conftest.py)."""
    shutil.copy(demo_store, tmp_path / "concord.duckdb")
    env = {"CONCORD_DB": str(tmp_path / "concord.duckdb"), "CONCORD_DEMO_DIR": str(demo_inputs)}
    page.set_default_timeout(120_000)
    expect.set_options(timeout=120_000)
    with run_streamlit(env, tmp_path) as url:
        page.goto(url)
        wait_for_app(page, 300_000)
        truth = json.loads((demo_inputs / "truth.json").read_text())
        planted = truth["behaviours"]["first_position"]["raters"]
        careful = truth["behaviours"]["careful"]["raters"]
        main = page.get_by_test_id("stMain")

        go_to(page, "Agreement")
        expect(main.get_by_test_id("stVegaLiteChart").first).to_be_visible()
        shot(page, "agreement")

        # Feedback opens on the contractor who most needs feedback: on the demo, one of the planted behaviours
        # (not a typical or careful contractor), and the page says what to change.
        go_to(page, "Feedback")
        picker = page.get_by_role("combobox", name="Contractor", exact=True)
        first = contractor_id(picker.input_value())
        flawed = {r for name, b in truth["behaviours"].items() if name != "careful" for r in b["raters"]}
        assert first in flawed, f"Feedback opened on {first}, not on a contractor with a planted behaviour"
        expect(main).to_contain_text("What to do:")
        # A planted position-bias contractor is told about position bias.
        biased = planted[0]
        choose(page, "Contractor", biased, re.compile(rf"(^|\(){re.escape(biased)}\)?$"))
        expect(picker).to_have_value(re.compile(rf"(^|\(){re.escape(biased)}\)?$"))
        expect(position_bias_shown(page).first).to_be_visible()
        shot(page, "feedback")
        # A careful contractor is not told about position bias.
        calm = careful[0]
        choose(page, "Contractor", calm, re.compile(rf"(^|\(){re.escape(calm)}\)?$"))
        expect(picker).to_have_value(re.compile(rf"(^|\(){re.escape(calm)}\)?$"))
        expect(position_bias_shown(page)).to_have_count(0)

        # One of the first contractor's disagreements, side by side, marked reviewed.
        go_to(page, "Disagreements")
        box = page.get_by_role("combobox", name="Contractors", exact=True)
        box.click()
        page.keyboard.type(first)
        # Named as people are: "Name (id)" with the demo's rater directory.
        page.get_by_role("option", name=re.compile(rf"(^|\(){re.escape(first)}\)?$")).click()
        page.keyboard.press("Escape")
        wait_for_app(page)
        expect(main).to_contain_text(f"Options in the order {first} saw them")
        case = page.get_by_role("combobox", name="Case", exact=True)
        expect(case).to_have_value(re.compile(r"^1\. .* · open$"))
        open_before = int(
            main.get_by_test_id("stMetric").filter(has_text="Open").get_by_test_id("stMetricValue").inner_text()
        )
        # The name is given once, in the sidebar, and recorded with the note (local mode: docs/deploy.md).
        page.get_by_test_id("stSidebar").get_by_role("textbox", name="Your name").fill("e2e lead")
        page.keyboard.press("Enter")
        expect(main).to_contain_text("Saved by e2e lead")
        wait_for_app(page)
        choose(page, "Status", "feedback given")
        page.get_by_role("textbox", name=re.compile(r"^Note")).fill("You picked the first-shown answer again.")
        page.get_by_role("button", name="Save note").click()
        expect(main).to_contain_text("Saved: feedback given")
        wait_for_app(page)
        expect(case).to_have_value(re.compile(r"^1\. .* · feedback given$"))
        open_metric = main.get_by_test_id("stMetric").filter(has_text="Open").get_by_test_id("stMetricValue")
        expect(open_metric).to_have_text(f"{open_before - 1:,}")
        shot(page, "disagreements")

    # The dashboard holds the store while it runs; stopped, the command line writes every report card.
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
    assert all(Path(r["file"]).is_file() for r in reports)
