"""Which contractor the Feedback page opens on (analytics.feedback.review_first.default_contractor: the lowest upper
bound of primary-dimension agreement, with no cut at a number of tasks) and how it shows a report without dates."""

from __future__ import annotations

import pytest
import streamlit as st

from analytics import store
from analytics.core.filters import Filters
from analytics.feedback import review_first
from analytics.ingest.load import ingest_bytes
from tests.conftest import app_test

AC, UC = "answer_comparison", "usefulness_comparison"
PAGE = "app_pages/feedback.py"


def _csv(agree: dict[str, tuple[int, int]]) -> bytes:
    """Canonical CSV without dates: r1 rates every task "A better"; each contractor rates `tasks` tasks and
    agrees with r1 on the first `agreeing` of them ("B better" on the others)."""
    lines = ["task_id,rater_id,role,rubric,dimension,target,value"]
    n = max(t for t, _ in agree.values())
    lines += [f"t{i},r1,researcher,{AC},{UC},comparison,A better" for i in range(n)]
    for rater, (tasks, agreeing) in agree.items():
        for i in range(tasks):
            value = "A better" if i < agreeing else "B better"
            lines.append(f"t{i},{rater},contractor,{AC},{UC},comparison,{value}")
    return ("\n".join(lines) + "\n").encode()


# a_first sorts first and agrees most; b_few agrees on 1 of 3 tasks; c_low agrees on half of 40.
RATERS = {"a_first": (40, 36), "b_few": (3, 1), "c_low": (40, 20), "c_mid": (40, 28)}


def _load(con, agree: dict[str, tuple[int, int]]) -> None:
    result = ingest_bytes(con, _csv(agree), "ratings.csv")
    assert result.status == "loaded" and result.rows_quarantined == 0, result.errors


def test_default_is_confidently_lowest(con):
    _load(con, RATERS)
    # b_few's value (0.33) is lower than c_low's (0.50), but 3 tasks bound it only below 0.79 (Wilson): c_low's
    # upper bound is lower.
    assert review_first.default_contractor(con) == "c_low"
    assert review_first.default_contractor(con, Filters(rubric=AC)) == "c_low"
    # The rater filter narrows the choice; the role and dimension filters do not matter.
    assert review_first.default_contractor(con, Filters(raters=("a_first", "c_mid"))) == "c_mid"
    assert review_first.default_contractor(con, Filters(roles=("researcher",), dimensions=("x",))) == "c_low"
    assert review_first.default_contractor(con, Filters(raters=("r1",))) is None


def test_few_tasks_rank_by_what_they_show_with_no_cut(con):
    """0 of 5 tasks agreeing bounds agreement below 0.44 (Wilson), lower than 12 of 12's: it opens first, where
    the 30-task cut used to fall back to the contractor with the most tasks."""
    _load(con, {"x_many": (12, 12), "x_few": (5, 0)})
    assert review_first.default_contractor(con) == "x_few"


@pytest.fixture
def page_store(tmp_path, monkeypatch):
    path = tmp_path / "feedback.duckdb"
    con = store.open_store(path)
    _load(con, RATERS)
    con.close()
    monkeypatch.setenv("CONCORD_DB", str(path))
    monkeypatch.setenv("CONCORD_DEMO_DIR", str(tmp_path / "no-demo"))
    st.cache_data.clear()  # page caches are keyed by dataset version, which another test's store may share
    st.cache_resource.clear()
    return path


def test_page_opens_on_the_default_with_n_in_tasks_and_no_dates(page_store):
    at = app_test(PAGE)
    assert not at.exception, at.exception
    assert at.selectbox(key="fb_contractor").value == "c_low"  # not the alphabetically first a_first
    captions = " ".join(c.value for c in at.caption)
    assert "no dates" in captions
    assert "– to –" not in captions and "- to -" not in captions
    at.session_state["fb_section"] = "Agreement"  # the card's tab with its figures (only the open tab is drawn)
    at.run()
    assert not at.exception, at.exception
    card = next(d.value for d in at.dataframe if "exact_agreement" in d.value.columns)  # the report card
    assert list(card.columns[:5]) == ["rubric", "dimension_label", "is_primary", "n_tasks", "n"]
    assert card.loc[card["is_primary"], "n_tasks"].tolist() == [40]
    # Choosing another contractor sticks across reruns.
    at.selectbox(key="fb_contractor").select("a_first").run()
    assert not at.exception, at.exception
    assert at.selectbox(key="fb_contractor").value == "a_first"
