"""ui.prefetch.alongside (a page's main loader with the likely next ones warming their caches in another thread)
and ui.agreement_view.likely_dimension (the Agreement page's guess of the dimension it will show)."""

from __future__ import annotations

import threading

import pandas as pd
import pytest

from ui.agreement_view import likely_dimension
from ui.prefetch import alongside


def test_main_runs_here_and_the_likely_calls_in_turn_in_one_other_thread():
    seen: list[tuple[str, int]] = []
    main_started = threading.Event()

    def likely(n: int):
        def call():
            main_started.wait(5)
            seen.append(("likely", threading.get_ident()))
            return n

        return call

    def main():
        main_started.set()
        seen.append(("main", threading.get_ident()))
        return "report"

    assert alongside(main, likely(1), likely(2), likely(3)) == "report"
    assert ("main", threading.get_ident()) in seen
    others = {ident for who, ident in seen if who == "likely"}
    assert len(seen) == 4 and len(others) == 1 and threading.get_ident() not in others  # all done on return


def test_a_likely_calls_error_is_dropped_and_the_next_one_still_runs():
    ran: list[str] = []

    def bad():
        raise ValueError("no pairs on this dimension")

    assert alongside(lambda: 7, bad, lambda: ran.append("after")) == 7
    assert ran == ["after"]


def test_the_main_calls_error_is_raised_after_the_likely_calls_end():
    ended = threading.Event()

    def main():
        raise KeyError("scale")

    with pytest.raises(KeyError, match="scale"):
        alongside(main, ended.set)
    assert ended.is_set()


def test_without_likely_calls_main_runs_alone():
    assert alongside(lambda: threading.get_ident()) == threading.get_ident()


DIMS = pd.DataFrame({"dimension": ["accuracy", "overall", "tone"], "is_primary": [False, True, False]})


@pytest.mark.parametrize(
    ("chosen", "dims", "expected"),
    [
        ("tone", DIMS, "tone"),  # chosen before, still in the rubric
        (None, DIMS, "overall"),  # first visit: the primary dimension (the selectbox's default)
        ("gone", DIMS, "overall"),  # a dimension of another rubric
        (None, DIMS.assign(is_primary=False), "accuracy"),  # no primary: the first
        (None, DIMS.iloc[:0], None),  # no dimensions
    ],
)
def test_the_likely_dimension(chosen, dims, expected):
    assert likely_dimension(chosen, dims) == expected
