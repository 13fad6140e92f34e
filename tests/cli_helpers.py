"""The command line run in this process (analytics.cli.main), for tests in which the process itself is not what is
tested: its exit code, stdout and stderr as `python -m analytics` would give them, without starting Python again.

Environment variables a run needs (CONCORD_DB, ...) are set by the test through monkeypatch, so none outlives it;
the commands close the connections they open."""

from __future__ import annotations

import contextlib
import io
from typing import NamedTuple

from analytics.cli.main import main
from tests.conftest import TerminalStderr


class CliRun(NamedTuple):
    """What one command gave: named as subprocess.CompletedProcess names them."""

    returncode: int
    stdout: str
    stderr: str


def run_cli(*args: str, check: bool = False, terminal: bool = False) -> CliRun:
    """Run `python -m analytics ARGS` in this process with stdout and stderr captured; `check` fails the test on a
    non-zero exit (as subprocess.run's check does), `terminal` gives the command a stderr that is a terminal."""
    out, err = io.StringIO(), TerminalStderr() if terminal else io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as e:  # argparse refusing the arguments (exit 2) or printing help (exit 0)
            code = e.code if isinstance(e.code, int) else 0 if e.code is None else 1
    run = CliRun(code, out.getvalue(), err.getvalue())
    if check:
        assert run.returncode == 0, f"python -m analytics {' '.join(args)} exited {run.returncode}: {run.stderr}"
    return run
