"""A store that cannot be used: corrupt, truncated, locked by another process, read-only, in a folder that
cannot be made or written, a folder instead of a file, or missing for a read-only command. Each gives one
clear message: StoreError from open_store, st.error in the app (no exception), exit code 2 with one line on
stderr from the command line; and nothing is lost: every file of the store's folder keeps its bytes.

Permissions: the tests run as root here, where chmod 0444 does not stop a write, so read-only is made with
`chattr +i` (immutable, which binds root too); where neither bites the case is skipped with the reason.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import streamlit as st

from analytics import store
from analytics.ingest.load import ingest_bytes
from analytics.store import connection
from tests.cli_helpers import run_cli
from tests.conftest import app_test

GOOD_CSV = b"task_id,rater_id,dimension,value\nt1,c1,clarity,3\nt2,c1,clarity,4\n"


@dataclass(frozen=True)
class Broken:
    """A store path that cannot be used, the folder to watch and what the message must say."""

    path: Path
    folder: Path
    says: str


def valid_store(path: Path) -> Path:
    """A small store with two ratings."""
    con = store.open_store(path)
    assert ingest_bytes(con, GOOD_CSV, "good.csv").rows_loaded == 2
    con.close()
    return path


def make_read_only(path: Path) -> Callable[[], None]:
    """Make a file or folder unwritable even for root; return the undo. Skip when that is not possible."""
    if os.geteuid() != 0:
        mode = path.stat().st_mode
        path.chmod(0o555 if path.is_dir() else 0o444)
        return lambda: path.chmod(mode)
    if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode:
        pytest.skip("running as root, where permissions do not bite, and chattr +i is not available here")
    return lambda: subprocess.run(["chattr", "-i", str(path)], check=True)


@contextlib.contextmanager
def corrupt_text(d: Path) -> Iterator[Broken]:
    """Another kind of file under the store's name."""
    (d / "s.duckdb").write_bytes(b"task_id,rater_id\n" * 500)
    yield Broken(d / "s.duckdb", d, "is not a readable DuckDB file")


@contextlib.contextmanager
def corrupt_blocks(d: Path) -> Iterator[Broken]:
    """A real store with bytes flipped all through its blocks (checksums no longer match)."""
    raw = bytearray(valid_store(d / "s.duckdb").read_bytes())
    for i in range(8192, len(raw), 997):
        raw[i] ^= 0xFF
    (d / "s.duckdb").write_bytes(bytes(raw))
    yield Broken(d / "s.duckdb", d, "is not a readable DuckDB file")


@contextlib.contextmanager
def truncated(d: Path) -> Iterator[Broken]:
    """A real store cut after its first block (a copy that stopped half way)."""
    raw = valid_store(d / "s.duckdb").read_bytes()
    (d / "s.duckdb").write_bytes(raw[:4096])
    yield Broken(d / "s.duckdb", d, "is not a readable DuckDB file")


@contextlib.contextmanager
def locked(d: Path) -> Iterator[Broken]:
    """A store another process holds open for writing."""
    path = valid_store(d / "s.duckdb")
    code = f"import sys, duckdb\ncon = duckdb.connect({str(path)!r})\nprint('ready', flush=True)\nsys.stdin.readline()"
    holder = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ready"
        yield Broken(path, d, "is in use by another program")
    finally:
        holder.communicate("\n", timeout=30)


@contextlib.contextmanager
def read_only_file(d: Path) -> Iterator[Broken]:
    """A store whose file cannot be written."""
    path = valid_store(d / "s.duckdb")
    undo = make_read_only(path)
    try:
        yield Broken(path, d, "cannot be written")
    finally:
        undo()


@contextlib.contextmanager
def read_only_folder(d: Path) -> Iterator[Broken]:
    """A writable store in a folder that cannot be written (no write-ahead log can be made)."""
    path = valid_store(d / "s.duckdb")
    undo = make_read_only(d)
    try:
        yield Broken(path, d, "cannot be written")
    finally:
        undo()


@contextlib.contextmanager
def folder_is_a_file(d: Path) -> Iterator[Broken]:
    """A store path whose folder is an existing file."""
    (d / "data").write_bytes(b"a file, not a folder")
    yield Broken(d / "data" / "s.duckdb", d, "cannot be created: its folder cannot be made (a file is in the way)")


@contextlib.contextmanager
def store_is_a_folder(d: Path) -> Iterator[Broken]:
    """A store path that names a folder."""
    (d / "s.duckdb").mkdir()
    yield Broken(d / "s.duckdb", d, "cannot be opened")


CASES = {f.__name__: f for f in (corrupt_text, corrupt_blocks, truncated, locked, read_only_file, read_only_folder,
                                  folder_is_a_file, store_is_a_folder)}  # fmt: skip


@pytest.fixture(params=CASES.keys())
def broken(request, tmp_path) -> Iterator[Broken]:
    """Each way a store can be unusable, in a folder of its own."""
    d = tmp_path / "store"
    d.mkdir()
    with CASES[request.param](d) as b:
        yield b


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under the folder (relative path -> SHA-256), to prove nothing was written or lost."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_open_store_says_why(broken):
    """Protection: open_store turns every failure (connect, folder, migration) into one readable StoreError."""
    before = snapshot(broken.folder)
    with pytest.raises(store.StoreError) as caught:
        store.open_store(broken.path)
    message = str(caught.value)
    assert broken.says in message and str(broken.path) in message and "\n" not in message, message
    assert snapshot(broken.folder) == before


def test_the_app_shows_the_message(broken, monkeypatch):
    """Protection: ui.state.connection shows StoreError with st.error and stops the page (no traceback)."""
    monkeypatch.setenv("CONCORD_DB", str(broken.path))
    monkeypatch.setenv("CONCORD_DEMO_DIR", str(broken.folder.parent / "no-demo"))
    st.cache_resource.clear()
    st.cache_data.clear()
    before = snapshot(broken.folder)
    at = app_test()
    assert not at.exception, at.exception[0].value if at.exception else ""
    assert len(at.error) == 1 and broken.says in at.error[0].value, [e.value for e in at.error]
    assert snapshot(broken.folder) == before


def test_the_command_line_exits_2_with_one_line(broken, tmp_path):
    """Protection: python -m analytics ingest catches StoreError and exits 2 with one line on stderr."""
    upload = tmp_path / "good.csv"
    upload.write_bytes(GOOD_CSV.replace(b"t1", b"t9"))
    before = snapshot(broken.folder)
    out = run_cli("ingest", str(upload), "--db", str(broken.path), "--json")
    assert out.returncode == 2, (out.returncode, out.stdout, out.stderr)
    assert out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and broken.says in lines[0], out.stderr
    assert snapshot(broken.folder) == before


def test_demo_load_into_a_broken_store_exits_2(tmp_path):
    """Protection: `demo --load` opens the store like `ingest` does (it used to end in a traceback)."""
    (tmp_path / "data").write_bytes(b"a file, not a folder")
    out = run_cli("demo", "--out", str(tmp_path / "demo"), "--load", "--db", str(tmp_path / "data" / "s.duckdb"))
    assert out.returncode == 2, out.stderr
    assert out.stderr.strip().splitlines()[-1].endswith("(a file is in the way).")
    assert len(out.stderr.strip().splitlines()) == 1


def test_a_missing_store_opened_read_only_is_not_created(tmp_path):
    """Protection: read-only commands (agreement on the store) say the store does not exist and create nothing."""
    missing = tmp_path / "nowhere" / "s.duckdb"
    with pytest.raises(store.StoreError, match="does not exist yet"):
        store.open_store(missing, read_only=True)
    out = run_cli("agreement", "--db", str(missing), "--json")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.strip().splitlines() == [f"The store {missing} does not exist yet: load some data first."]
    assert not (tmp_path / "nowhere").exists()


def test_a_store_opened_read_only_refuses_an_ingest_and_keeps_its_bytes(tmp_path):
    """Protection: an ingest into a read-only connection is rejected by its transaction, not half-written."""
    path = valid_store(tmp_path / "s.duckdb")
    before = snapshot(tmp_path)
    con = store.open_store(path, read_only=True)
    result = ingest_bytes(con, GOOD_CSV.replace(b"t1", b"t9"), "more.csv")
    assert result.status == "rejected" and "read-only" in result.errors[0], result.errors
    assert store.table_counts(con)["ratings"] == 2
    con.close()
    assert snapshot(tmp_path) == before
    assert store.table_counts(store.open_store(path))["ratings"] == 2


def test_after_the_holder_lets_go_the_store_opens_with_its_data(tmp_path):
    """Nothing lost: once the other process closes a locked store, it opens with every rating."""
    d = tmp_path / "store"
    d.mkdir()
    with locked(d) as b, pytest.raises(store.StoreError):
        store.open_store(b.path)
    con = store.open_store(d / "s.duckdb")
    assert store.table_counts(con)["ratings"] == 2
    con.close()


def test_engine_messages_never_mistake_a_block_for_a_lock():
    """Protection: "block" (as in a corrupt block) contains "lock"; only DuckDB's lock message means in use."""
    msg = connection._explain_io_error(Path("s.duckdb"), Exception("Corrupt database file: ... in block at location 1"))
    assert msg.startswith("The store s.duckdb is not a readable DuckDB file (corrupt or another kind of file)")
