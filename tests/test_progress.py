"""ui.progress.with_progress: long page work runs in a worker thread while this thread draws its progress bar;
quick work (a cache hit) draws none, and the work's error reaches the page."""

from __future__ import annotations

import threading
import time

import pytest

from ui import progress


class _Bar:
    """A stand-in for st.progress's element: records every draw and whether it was emptied."""

    def __init__(self, drawn: list) -> None:
        self.drawn = drawn

    def progress(self, share: float, text: str) -> None:
        self.drawn.append((share, text))

    def empty(self) -> None:
        self.drawn.append("emptied")


class _St:
    """A stand-in for the streamlit module with only `progress`, made in the page's thread."""

    def __init__(self) -> None:
        self.drawn: list = []
        self.threads: set[int] = set()

    def progress(self, share: float, text: str) -> _Bar:
        self.threads.add(threading.get_ident())
        self.drawn.append((share, text))
        return _Bar(self.drawn)


@pytest.fixture
def fake_st(monkeypatch):
    st = _St()
    monkeypatch.setattr(progress, "st", st)
    monkeypatch.setattr(progress, "SHOW_AFTER_S", 0.1)
    monkeypatch.setattr(progress, "POLL_S", 0.05)
    return st


def test_slow_work_shows_what_it_reports_then_the_bar_goes(fake_st):
    worker: list[int] = []

    def work(report):
        worker.append(threading.get_ident())
        report(0.4, "Fitting the rater model")
        time.sleep(0.6)
        return "view"

    assert progress.with_progress(work, "Estimating rater effects") == "view"
    assert worker[0] != threading.get_ident()  # the work ran in a worker thread ...
    assert fake_st.threads == {threading.get_ident()}  # ... and the bar was drawn in this one
    assert fake_st.drawn[0] == (0.0, "Estimating rater effects")
    shares = {d[0] for d in fake_st.drawn[1:-1]}
    assert shares == {0.4} and all(
        "Fitting the rater model..." in d[1] and d[1].endswith(" s)") for d in fake_st.drawn[1:-1]
    )
    assert fake_st.drawn[-1] == "emptied"


def test_quick_work_draws_no_bar(fake_st):
    assert progress.with_progress(lambda report: 7, "Estimating rater effects") == 7
    assert fake_st.drawn == []


def test_shares_are_kept_within_zero_and_one(fake_st):
    def work(report):
        report(1.7, "Drift week by week")
        time.sleep(0.3)

    progress.with_progress(work, "Estimating rater effects")
    assert {d[0] for d in fake_st.drawn[1:-1]} == {1.0}


@pytest.mark.parametrize("delay", [0.0, 0.3])  # an error before and after the bar appears
def test_the_works_error_is_raised_in_the_page(fake_st, delay):
    def work(report):
        time.sleep(delay)
        raise ValueError("no ratings under this filter")

    with pytest.raises(ValueError, match="no ratings under this filter"):
        progress.with_progress(work, "Estimating rater effects")
