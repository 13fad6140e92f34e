"""The private folders a load copies its file into, named after the process that made them, so that those of a
process that died (killed with -9: no clean-up ran) are found and removed at the next load, and never those of a
process still running."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

PREFIX = "concord-ingest-"
NAMED = re.compile(rf"{PREFIX}(\d+)-")
SAFE_SUFFIX = re.compile(r"\.[A-Za-z0-9]{1,12}")


@contextmanager
def folder() -> Iterator[Path]:
    """A new private folder for one load (the stale ones of dead processes removed first); removed after it."""
    remove_stale()
    with tempfile.TemporaryDirectory(prefix=f"{PREFIX}{os.getpid()}-") as d:
        yield Path(d)


def suffix(name: str) -> str:
    """The file name's extension when it is short and plain (".csv"), else none: the private copy's name never
    carries what an upload's name holds beyond that (a 300-character extension is no file name)."""
    ext = Path(name).suffix
    return ext if SAFE_SUFFIX.fullmatch(ext) else ""


def remove_stale(where: str | os.PathLike | None = None) -> list[Path]:
    """Remove the private folders of this user whose process is no longer running; the folders removed."""
    base = Path(where or tempfile.gettempdir())
    removed = []
    try:
        entries = list(os.scandir(base))
    except OSError:
        return []
    for entry in entries:
        found = NAMED.match(entry.name)
        if found is None or not _stale(entry, int(found.group(1))):
            continue
        shutil.rmtree(entry.path, ignore_errors=True)
        removed.append(Path(entry.path))
    return removed


def _stale(entry: os.DirEntry[str], pid: int) -> bool:
    """Whether a private folder is this user's (a real folder, not a link) and its process is gone."""
    try:
        if not entry.is_dir(follow_symlinks=False) or entry.stat(follow_symlinks=False).st_uid != os.getuid():
            return False
    except OSError:
        return False
    return not alive(pid)


def alive(pid: int) -> bool:
    """Whether a process with this id runs (one of another user counts as running)."""
    if pid <= 0:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
