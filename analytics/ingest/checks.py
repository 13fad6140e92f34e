"""The checks a file passes before it is parsed (size, readable, not binary, UTF-8 text) and the choice of its
format; a file that fails one is rejected whole, before anything is written."""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

import duckdb

from analytics.ingest import FORMATS, closest, detect_format, limits
from analytics.ingest.base import FileRejected
from analytics.ingest.scales_file import Scales, read_scales_file

DEFAULT_MAX_UPLOAD_MB = 2048


def max_bytes() -> int:
    """The size limit of one file in bytes: $CONCORD_MAX_UPLOAD_MB megabytes (read at each call), else 2048."""
    raw = os.environ.get("CONCORD_MAX_UPLOAD_MB", "").strip() or str(DEFAULT_MAX_UPLOAD_MB)
    if not raw.isdigit() or int(raw) == 0:
        raise ValueError(f"CONCORD_MAX_UPLOAD_MB must be a whole number of megabytes above 0, not {raw!r}")
    return int(raw) * 1024 * 1024


MAX_BYTES = max_bytes()  # the limit when this module was imported; checks call max_bytes()

BINARY_MAGIC = {b"PK\x03\x04": "a zip archive", b"\x1f\x8b": "a gzip archive", b"%PDF": "a PDF document"}


def upload_too_large(name: str, size: int, limit_mb: int) -> str:
    """The message for an upload over the dashboard's limit, naming the command line for larger files."""
    return (
        f"{name} is {size / 2**20:.1f} MB, over the upload limit of {limit_mb} MB; load larger files with the "
        "command line: python -m analytics ingest FILE"
    )


def is_an_open_store(con: duckdb.DuckDBPyConnection, path: Path) -> bool:
    """Whether `path` is a database file this connection has open. Reading it would also close a handle on
    it, and the system then drops DuckDB's lock on the store (analytics/explore/worker.py, _copy_in_child)."""
    rows = con.execute("SELECT path FROM duckdb_databases() WHERE NOT internal AND path IS NOT NULL").fetchall()
    try:
        return any(os.path.exists(p) and os.path.samefile(path, p) for (p,) in rows)
    except OSError:
        return False


def signature(path: Path) -> tuple[int, int]:
    """What tells a changed file: its size and modification time (nanoseconds)."""
    st = os.stat(path)
    return st.st_size, st.st_mtime_ns


def open_regular(path: Path, name: str) -> BinaryIO:
    """The file opened for reading without blocking, refused (FileRejected) unless it is a regular file.

    O_NONBLOCK: opening a FIFO for reading would wait for a writer. No O_NOFOLLOW: a user may name a link. The
    check is on the opened descriptor (fstat), so a FIFO, device or folder swapped in after any check by path is
    refused before a byte is read (/dev/zero would otherwise fill the private folder's disk)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise FileRejected(f"{name} is not a regular file ({_kind(mode)}); only files of ratings can be loaded")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _kind(mode: int) -> str:
    """What a non-regular file is, in words."""
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a socket or other special file"


def copy_and_hash(src: BinaryIO, dst: Path, copied: Callable[[int], None] = lambda n: None) -> str:
    """Copy the open file src to dst in one read, returning the SHA-256 of the bytes copied (`copied` hears the
    bytes done)."""
    digest = hashlib.sha256()
    done = 0
    with open(dst, "wb") as out:
        for chunk in iter(lambda: src.read(1 << 20), b""):
            digest.update(chunk)
            out.write(chunk)
            done += len(chunk)
            if done % (64 << 20) < len(chunk):  # every 64 MB
                copied(done)
    return digest.hexdigest()


def read_scales(scales: Scales | str | os.PathLike | None) -> Scales | None:
    """A scales argument as a parsed scales file (a path is read and checked; ScalesError says why not)."""
    if scales is None or isinstance(scales, Scales):
        return scales
    return read_scales_file(scales)


def too_large(name: str, size: int) -> str:
    """The reason for a file over the size limit, with the fix: a smaller file, or a higher limit (a setting)."""
    return (
        f"{name} is {size / 2**20:.1f} MB, over the limit of {max_bytes() // 2**20} MB; split the file, or raise "
        "CONCORD_MAX_UPLOAD_MB (a setting of whoever runs the dashboard or the command)"
    )


def check_file(path: Path, name: str, known_digest: str | None = None) -> tuple[str, bytes]:
    """Refuse empty, oversized and binary files; return the content hash and the first bytes."""
    size = path.stat().st_size
    if size == 0:
        raise FileRejected(f"{name} is empty")
    if size > max_bytes():
        raise FileRejected(too_large(name, size))
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        head = f.read(65536)
        if known_digest is None:
            digest.update(head)
            for chunk in iter(lambda: f.read(1 << 20), b""):
                digest.update(chunk)
    data_hash = known_digest or digest.hexdigest()
    if head.startswith(b"PAR1"):
        return data_hash, head
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):  # what spreadsheets save as "Unicode text"
        raise FileRejected(f"{name} is UTF-16 text; save it as UTF-8 (in Excel: CSV UTF-8)")
    for magic, what in BINARY_MAGIC.items():
        if head.startswith(magic):
            raise FileRejected(f"{name} is {what}, not a ratings file (CSV, Parquet, JSON or JSONL)")
    if b"\x00" in head:
        offset = head.index(b"\x00")
        raise FileRejected(f"{name} is a binary file, not text (a NUL byte at offset {offset})")
    try:
        head.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        if e.start < len(head) - 4:  # a multi-byte character cut at the end of the head is fine
            line = head.count(b"\n", 0, e.start) + 1
            raise FileRejected(
                f"{name}, line {line}: not UTF-8 text (byte 0x{head[e.start]:02x} at offset {e.start}); save it as UTF-8"
            ) from e
    if not head.strip(b"\xef\xbb\xbf \r\n\t"):
        raise FileRejected(f"{name} holds only white space")
    return data_hash, head


def check_nesting(path: Path, name: str, head: bytes) -> None:
    """Refuse a JSON document nested past limits.MAX_READ_DEPTH before any JSON reader sees it (an iterative scan
    of the whole file). In JSONL a deep line other than the first is that line's problem (quarantined)."""
    if not head.lstrip(b"\xef\xbb\xbf \r\n\t").startswith((b"{", b"[")):
        return
    found = limits.json_nesting(path)
    if found.depth > limits.MAX_READ_DEPTH and (not found.by_line or found.line == 1):
        raise FileRejected(f"{name}, line {found.line}: {limits.too_deep_document(found.depth)}")


def choose_format(fmt: str, head: bytes, name: str) -> str:
    """The format a file is read as: the one chosen, or under auto the one detected (else FileRejected saying
    which formats come closest and which choice to make)."""
    if fmt == "auto":
        found = detect_format(head, name)
        if found is None:
            raise FileRejected(closest.unknown_format(head, name))
        return found
    if fmt not in FORMATS:
        raise FileRejected(f"unknown format {fmt!r}; choose one of auto, {', '.join(FORMATS)}")
    return fmt
