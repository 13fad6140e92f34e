"""What a command writes on stderr besides its result: the one line of a refusal, and progress on a terminal."""

from __future__ import annotations

import sys
from collections.abc import Callable


def fail(message: str) -> int:
    """Print the message as one line on stderr; the exit code of bad input (2)."""
    print(message, file=sys.stderr)
    return 2


def terminal_line(name: str) -> Callable[[float, str], None]:
    """A progress callback (share done, stage) that rewrites one line on stderr, "name: stage (share)"."""

    def show(share: float, stage: str) -> None:
        end = "\n" if share >= 1.0 else ""
        print(f"\r{name}: {stage} ({share:.0%})\033[K", end=end, file=sys.stderr, flush=True)

    return show


def progress_on_terminal(name: str) -> Callable[[float, str], None] | None:
    """The progress line of `name` when stderr is a terminal, else None (piped output carries no progress)."""
    return terminal_line(name) if sys.stderr.isatty() else None
