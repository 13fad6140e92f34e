"""In a real browser: the app opens on the demo data, a file uploaded on the Data page shows on the Overview."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.e2e.conftest import screenshot, wait_for_app

UPLOAD = (
    "task_id,rater_id,role,rubric,dimension,target,value,submitted_at\n"
    "e2e-1,e2e_rater,contractor,e2e_rubric,clarity,,4,2026-03-02T10:00:00\n"
    "e2e-1,e2e_researcher,researcher,e2e_rubric,clarity,,5,2026-03-02T11:00:00\n"
    "e2e-2,e2e_rater,contractor,e2e_rubric,clarity,,2,2026-03-03T10:00:00\n"
    "e2e-2,e2e_researcher,researcher,e2e_rubric,clarity,,2,2026-03-03T11:00:00\n"
    "e2e-3,e2e_rater,contractor,article_likert,likert,first,2.5,2026-03-03T10:00:00\n"
)


def metric(page, label: str):
    """The metric box whose label is `label`."""
    return page.get_by_test_id("stMetric").filter(has=page.get_by_text(label, exact=True))


def go_to(page, title: str) -> None:
    """Open a page from the sidebar navigation and wait for its heading."""
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=title).click()
    expect(page.get_by_role("heading", name=title).first).to_be_visible()
    wait_for_app(page)


def test_upload_shows_on_overview(app_page, tmp_path, external_requests):
    page = app_page
    expect(page.get_by_role("heading", name="Overview")).to_be_visible()
    files_metric = metric(page, "Files loaded")
    expect(files_metric).to_be_visible()
    before = int(re.search(r"(\d+)\s*$", files_metric.inner_text()).group(1))
    assert before >= 4, "the demo data should have been loaded on first start"
    screenshot(page, "overview_demo")

    go_to(page, "Data")
    upload = tmp_path / "e2e_batch.csv"
    upload.write_text(UPLOAD)
    page.get_by_test_id("stFileUploaderDropzoneInput").first.set_input_files(str(upload))
    page.get_by_role("button", name="Load files").click()
    main = page.get_by_test_id("stMain")
    expect(main).to_contain_text("e2e_batch.csv (canonical): loaded, 4 rows loaded, 1 quarantined")
    wait_for_app(page)
    screenshot(page, "data_after_upload")

    go_to(page, "Overview")
    expect(metric(page, "Files loaded")).to_contain_text(str(before + 1))
    screenshot(page, "overview_after_upload")
    assert external_requests == [], f"requests left loopback: {external_requests[:3]}"
