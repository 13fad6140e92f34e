"""Long page work with a progress bar: the work runs in a worker thread and reports its progress, which this
(the page's) thread draws.

A cached loader cannot draw the bar itself: Streamlit records what a cached function draws and replays it on
every cache hit, and a bar drawn into a placeholder made outside the function cannot be replayed (the
placeholder does not exist then). The worker thread draws nothing; it only leaves its latest report where the
page's thread reads it. When the user moves on before the work ends, the page's run stops at its next bar update
and the work still finishes in its thread: its cached result is there on the next visit, and a second caller of
the same cached loader waits for it (Streamlit computes one value once) instead of starting it again."""

from __future__ import annotations

import contextvars
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import streamlit as st

T = TypeVar("T")
Report = Callable[[float, str], None]  # (share of the work done, what it is doing)

POLL_S = 0.25  # how often the bar is redrawn
SHOW_AFTER_S = 0.5  # work done sooner (a cache hit) draws no bar at all
# One pool for the process, not one per call: a pool's exit waits for its work, and a stopped page run must not.
_WORKERS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="concord-long-work")


def with_progress(work: Callable[[Report], T], first: str) -> T:
    """`work(report)`'s result, with a progress bar that shows what `work` last reported (`first` until it
    reports) and the time so far; the bar goes when the work ends."""
    latest: list[tuple[float, str]] = [(0.0, first)]

    def report(share: float, what: str) -> None:
        latest[0] = (min(max(share, 0.0), 1.0), what)  # one reference swapped whole: no lock needed

    started = time.perf_counter()
    running = _WORKERS.submit(contextvars.copy_context().run, work, report)  # its queries count as the page's
    try:
        return running.result(timeout=SHOW_AFTER_S)
    except TimeoutError:
        pass
    bar = st.progress(0.0, text=first)
    while True:
        try:
            result = running.result(timeout=POLL_S)
            break
        except TimeoutError:
            share, what = latest[0]
            bar.progress(share, text=f"{what}... ({time.perf_counter() - started:.0f} s)")
    bar.empty()
    return result
