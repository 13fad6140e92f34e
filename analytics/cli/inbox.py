"""The hand-over folder's file handling: a private folder, files read and written without following links, and
the checks that a named process really holds the store (analytics/cli/handover.py uses these).

The folder `<store>.inbox/` is the dashboard's user's alone (mode 0700, owned by that user); a folder anyone else
could write is refused, so every file in it was put there by that user (or by root). Requests are served only
when their file belongs to the dashboard's user, so a hand-over never reads a file with more rights than its
requester has. Nothing here follows a symbolic link planted in the folder or blocks on a FIFO.
"""

from __future__ import annotations

import errno
import json
import os
import re
import secrets
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Any

REQUEST_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")  # request ids, and so result file names: no dots, no slashes
MAX_JSON_BYTES = 256 * 1024  # a request, result or heartbeat is a few KB; a larger one is not read
FOLDER_MODE = 0o700
FILE_MODE = 0o600


class InboxRefused(RuntimeError):
    """The hand-over folder is not this user's private folder; the message says which and what to do."""


def ensure_private_folder(path: Path) -> None:
    """Create `path` (mode 0700) if missing; InboxRefused when it exists but is not this user's private folder."""
    try:
        os.mkdir(path, FOLDER_MODE)
    except FileExistsError:
        pass
    else:
        os.chmod(path, FOLDER_MODE)  # the umask may have taken more than we asked for, never less
    check_private_folder(path)


def check_private_folder(path: Path) -> None:
    """InboxRefused unless `path` is a real folder (not a link), owned by this user, that no one else can use."""
    st = os.lstat(path)
    why = ""
    if not stat.S_ISDIR(st.st_mode):
        why = "is not a folder (a link or a file is in its place)"
    elif st.st_uid != os.geteuid():
        why = f"belongs to another user (uid {st.st_uid}), not to the user running Concord (uid {os.geteuid()})"
    elif st.st_mode & 0o077:
        why = f"can be used by other users (mode {stat.S_IMODE(st.st_mode):04o}, not 0700)"
    if why:
        raise InboxRefused(
            f"The hand-over folder {path} {why}, so command-line loads are not handed over through it. "
            "Remove it (the dashboard makes a private one when it next starts) or, if it is yours, make it "
            "private with chmod 700."
        )


def write_private(path: Path, payload: dict[str, Any]) -> None:
    """Write JSON to `path` so a reader sees all or nothing: a new temp file (random name, 0600, created
    without following links) renamed over `path` (a rename replaces a planted link, never writes through it)."""
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, FILE_MODE)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(json.dumps(payload))
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


class NotOwnFile(ValueError):
    """A file in the folder that is not one of this user's regular files (a link, FIFO, folder, another's)."""


def read_private(path: Path) -> dict[str, Any]:
    """The JSON object in one of this user's regular files, opened without following a link or blocking on a
    FIFO and checked on the opened file itself. FileNotFoundError, NotOwnFile, or ValueError (not JSON)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as e:
        if e.errno == errno.ENOENT:
            raise
        raise NotOwnFile(f"{path.name} cannot be opened as a plain file ({e.strerror})") from e
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotOwnFile(f"{path.name} is not a regular file")
        if st.st_uid != os.geteuid():
            raise NotOwnFile(f"{path.name} was written by another user (uid {st.st_uid})")
        if st.st_size > MAX_JSON_BYTES:
            raise NotOwnFile(f"{path.name} is larger than {MAX_JSON_BYTES // 1024} KB")
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as f:
        data = json.loads(f.read(MAX_JSON_BYTES + 1).decode("utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path.name} is not a JSON object")
    return data


def remove_entry(path: Path) -> None:
    """Remove whatever is at `path` (file, link, FIFO or empty folder) without following it; errors ignored."""
    try:
        if stat.S_ISDIR(os.lstat(path).st_mode):
            os.rmdir(path)
        else:
            os.unlink(path)
    except OSError:
        pass


def loadable_problem(path: str) -> str | None:
    """Why the file named `path` cannot be loaded by the hand-over (None: it can): it must be a regular file
    (no device, FIFO or folder) whose private copy fits on the temporary folder's disk."""
    name = Path(path).name
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO opens at once instead of waiting for a writer
    except OSError as e:
        return f"{name} cannot be opened ({e.strerror})"
    try:
        st = os.fstat(fd)
    finally:
        os.close(fd)
    if not stat.S_ISREG(st.st_mode):
        return f"{name} is not a regular file (a device, FIFO or folder), so it is not loaded"
    free = shutil.disk_usage(tempfile.gettempdir()).free
    if st.st_size > free:
        return (
            f"{name} ({st.st_size / 1e9:,.1f} GB) does not fit on the disk of the temporary folder "
            f"({free / 1e9:,.1f} GB free), where it is copied before loading"
        )
    return None


# --- who holds the store -------------------------------------------------------------------------------------

LOCK_PID = re.compile(r"\(PID (\d+)\)")


def lock_holder(error: BaseException) -> int | None:
    """The pid DuckDB names as holding the store's lock, from the error of a refused open (or its cause)."""
    for e in (error, error.__cause__):
        found = LOCK_PID.search(str(e)) if e is not None else None
        if found:
            return int(found.group(1))
    return None


def is_own_process(pid: int) -> bool:
    """Whether `pid` is a running process of this user."""
    if pid <= 0:
        return False
    proc = Path(f"/proc/{pid}")
    if Path("/proc/self").exists():
        try:
            return proc.stat().st_uid == os.geteuid()
        except OSError:
            return False
    try:
        os.kill(pid, 0)
    except PermissionError:
        return False
    except OSError:
        return False
    return True


def holds_open(pid: int, path: Path) -> bool | None:
    """Whether process `pid` has the file `path` open (its /proc fd list); None where there is no /proc."""
    if not Path("/proc/self/fd").is_dir():
        return None
    try:
        target = os.stat(path)
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        try:
            st = os.stat(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if (st.st_dev, st.st_ino) == (target.st_dev, target.st_ino):
            return True
    return False
