"""A page's main loader run while the caches of the loaders it will likely call next fill, in another thread.

DuckDB releases the GIL while a query runs, so the loaders' queries and Python work overlap: on the Agreement page
the report and the shown dimension's raters, confusion matrix and rater pairs are independent. After a date change
at 1M tasks the page took a median 2.13 s with them one after the other and 1.82 s this way (bench/RESULTS.md,
session 23). The likely loaders run one after the other in a single thread: each in a thread of its own (four
queries at once on 2 cores) slowed the report from 0.8 s to 1.4 s and gained nothing. On the Feedback page the
list (its ranking, from the shared alarm review) and the card are `main`; the team's other figures (with the
ranking's agreement gaps), then the likely contractor's own figures, are the likely loaders (issue 50 item 9: a date
change on the demo went from about 5.0 s to 2.7 s with the other changes of that step)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from streamlit.runtime.scriptrunner_utils.script_run_context import in_cached_function

T = TypeVar("T")


def alongside(main: Callable[[], T], *likely: Callable[[], object]) -> T:
    """`main()`'s result, computed in this thread while `likely` (cached loaders called with the arguments the page
    will call them with) run one after the other in another. A likely call's error is dropped: nothing is cached
    for it, and the page's own call raises it where it always did."""
    if not likely:
        return main()
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="concord-warm") as pool:
        warming = pool.submit(_each, likely)
        result = main()
        warming.result()
    return result


def _each(calls: tuple[Callable[[], object], ...]) -> None:
    """Call each of `calls` in turn, dropping their results and errors. Their loaders' spinners are not drawn: this
    thread has no page to draw into, and each asked Streamlit for one ("missing ScriptRunContext!" in the log on
    every Feedback visit); marked as inside a cached function, a loader draws none, as a nested one does."""
    in_cached_function.set(True)  # this pool thread's own context: it ends with the pool
    for call in calls:
        with contextlib.suppress(Exception):
            call()
