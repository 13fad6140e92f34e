"""A store that opens but has damaged blocks (bits flipped in the data of its tables): every command gives the one
documented message (analytics.store.damaged_message: "... is not a readable DuckDB file ...", then what to do) on
one line and exits 2, never a traceback. The commands run in this process (tests.cli_helpers.run_cli), so an
exception that escapes main() fails the test."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from analytics import store
from analytics.cli.main import COMMANDS
from analytics.core.filters import Filters
from analytics.feedback import events
from analytics.ingest.load import ingest_bytes
from tests.cli_helpers import run_cli

# What the commands read first (plan: the kept rater tasks; followup: the feedback events).
TABLES = ("ratings", "ingest_log", "rater_tasks", "feedback_events")


def _rows(prefix: str, n: int = 60, task: str = "t") -> bytes:
    lines = [f"{task}{i},{prefix}{i % 3},clarity,{i % 5 + 1}" for i in range(n)]
    return ("task_id,rater_id,dimension,value\n" + "\n".join(lines) + "\n").encode()


@pytest.fixture(scope="module")
def damaged(tmp_path_factory) -> Path:
    """A small store (contractors and researchers) with one byte flipped in a data block of each of TABLES."""
    path = tmp_path_factory.mktemp("damaged") / "s.duckdb"
    con = store.open_store(path)
    assert ingest_bytes(con, _rows("c"), "c.csv", role="contractor").rows_loaded == 60
    assert ingest_bytes(con, _rows("r"), "r.csv", role="researcher").rows_loaded == 60
    events.record(con, "c0", "lead", "feedback_c0", [], Filters())
    con.execute("CHECKPOINT")
    size = int(con.execute("SELECT block_size FROM pragma_database_size()").fetchall()[0][0])
    blocks = {
        table: [b for (b,) in con.execute(f"SELECT DISTINCT block_id FROM pragma_storage_info('{table}')").fetchall()]
        for table in TABLES
    }
    con.close()
    raw = bytearray(path.read_bytes())
    for table, ids in blocks.items():
        found = sorted(b for b in ids if b is not None and b >= 0)
        assert found, f"{table} has no data block"
        raw[store.connection.HEADER_BYTES + found[0] * size + 64] ^= 0xFF
    path.write_bytes(bytes(raw))
    return path


def _commands(db: str, tmp: Path) -> dict[str, list[str]]:
    """Each command's arguments on the store `db` (those that need input get a small file)."""
    upload = tmp / "more.csv"
    upload.write_bytes(_rows("c", task="u"))
    return {
        "ingest": ["ingest", str(upload), "--db", db],
        "demo": ["demo", "--out", str(tmp / "demo"), "--load", "--db", db],
        "agreement": ["agreement", "--db", db],
        "alerts": ["alerts", "--db", db],
        "consistency": ["consistency", "--db", db],
        "effects": ["effects", "--db", db],
        "model": ["model", "--db", db],
        "plan": ["plan", "--budget", "5", "--db", db],
        "report": ["report", "--all", "--format", "md", "--out", str(tmp / "cards"), "--db", db],
        "followup": ["followup", "--db", db],
        "datasets": ["datasets", "--db", db],
    }


def test_every_command_is_run_below(tmp_path):
    """Each command of the dispatcher has its arguments in _commands (a new command gets a line there)."""
    assert set(_commands("s.duckdb", tmp_path)) == {c.__name__.rsplit(".", 1)[-1] for c in COMMANDS}


@pytest.mark.parametrize("name", [c.__name__.rsplit(".", 1)[-1] for c in COMMANDS])
def test_a_damaged_store_gives_the_one_message_and_exit_2(name, damaged, tmp_path):
    """Protection: main() turns an engine error that means damage into damaged_message, exit 2, one line."""
    copy = tmp_path / "s.duckdb"
    shutil.copy(damaged, copy)
    out = run_cli(*_commands(str(copy), tmp_path)[name])
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 2, (name, out.returncode, out.stderr[-2000:])
    assert len(lines) == 1, out.stderr[-2000:]
    assert lines[0].startswith(f"The store {copy} is not a readable DuckDB file"), lines[0]
    assert lines[0].endswith(store.DAMAGED_HINT) and "Traceback" not in out.stderr
