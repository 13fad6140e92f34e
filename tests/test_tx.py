"""The one write-transaction helper (analytics/store/tx.py): it commits, rolls back on any error and raises it again,
holds the write lock only while writing; and no other module of analytics/ writes BEGIN, COMMIT or ROLLBACK."""

from __future__ import annotations

import ast
import re
import threading
from pathlib import Path

import duckdb
import pytest

from analytics import store
from analytics.store import migrations, tx

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def mem() -> duckdb.DuckDBPyConnection:
    """An in-memory connection with one table of numbers."""
    con = duckdb.connect()
    con.execute("CREATE TABLE t (x INTEGER)")
    yield con
    con.close()


def _rows(con: duckdb.DuckDBPyConnection) -> list[int]:
    return [x for (x,) in con.execute("SELECT x FROM t ORDER BY x").fetchall()]


def _lock_is_free() -> bool:
    """Whether another thread could take the write lock now."""
    free: list[bool] = []

    def probe() -> None:
        got = tx.WRITE_LOCK.acquire(blocking=False)
        free.append(got)
        if got:
            tx.WRITE_LOCK.release()

    t = threading.Thread(target=probe)
    t.start()
    t.join()
    return free[0]


def test_a_write_commits_when_its_block_ends(mem):
    with tx.write(mem) as con:
        con.execute("INSERT INTO t VALUES (1), (2)")
    assert _rows(mem) == [1, 2]
    assert _rows(mem.cursor()) == [1, 2]  # committed: another cursor sees it
    assert _lock_is_free()


def test_a_write_rolls_back_on_error_and_raises_it_again(mem):
    mem.execute("INSERT INTO t VALUES (1)")
    with pytest.raises(RuntimeError, match="disk full"):
        with tx.write(mem):
            mem.execute("INSERT INTO t VALUES (2)")
            raise RuntimeError("disk full")
    assert _rows(mem) == [1]
    assert _lock_is_free()
    with tx.write(mem):  # no transaction was left open: the next one begins
        mem.execute("INSERT INTO t VALUES (3)")
    assert _rows(mem) == [1, 3]


def test_a_write_rolls_back_after_a_failed_statement(mem):
    """DuckDB aborts the transaction itself after a failed statement; the rollback still ends it cleanly."""
    with pytest.raises(duckdb.Error):
        with tx.write(mem):
            mem.execute("INSERT INTO t VALUES (1)")
            mem.execute("INSERT INTO no_such_table VALUES (1)")
    assert _rows(mem) == []
    assert _lock_is_free()


def test_a_write_rolls_back_on_an_interrupt(mem):
    """Any exception, not only Exception's kind (KeyboardInterrupt, a page's rerun)."""
    with pytest.raises(KeyboardInterrupt):
        with tx.write(mem):
            mem.execute("INSERT INTO t VALUES (1)")
            raise KeyboardInterrupt
    assert _rows(mem) == []
    assert _lock_is_free()


def test_a_write_returning_early_commits(mem):
    def add() -> str:
        with tx.write(mem):
            mem.execute("INSERT INTO t VALUES (7)")
            return "done"

    assert add() == "done" and _rows(mem) == [7]


def test_the_lock_is_held_while_writing_and_only_then(mem):
    assert _lock_is_free()
    with tx.write(mem):
        assert not _lock_is_free()  # another thread's write waits
    assert _lock_is_free()


def test_writers_queue_instead_of_failing_each_other(tmp_path):
    """Two threads writing through cursors of one connection, as the dashboard's sessions do."""
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    con.execute("CREATE TABLE c (n INTEGER)")
    con.execute("INSERT INTO c VALUES (0)")
    errors: list[BaseException] = []

    def bump() -> None:
        cur = con.cursor()
        try:
            for _ in range(50):
                with tx.write(cur):
                    n = cur.execute("SELECT n FROM c").fetchall()[0][0]
                    cur.execute("UPDATE c SET n = $n", {"n": n + 1})
        except BaseException as e:  # noqa: BLE001 - collected for the assertion
            errors.append(e)

    threads = [threading.Thread(target=bump) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert con.execute("SELECT n FROM c").fetchall()[0][0] == 100
    con.close()


def test_a_read_only_transaction_refuses_writes_and_always_ends(mem):
    with tx.read_only(mem) as con:
        assert con.execute("SELECT count(*) FROM t").fetchall()[0][0] == 0
    with pytest.raises(duckdb.Error):
        with tx.read_only(mem) as con:
            con.execute("INSERT INTO t VALUES (1)")
    with tx.write(mem):  # no transaction was left open
        mem.execute("INSERT INTO t VALUES (1)")
    assert _rows(mem) == [1]


def test_a_failing_catalogue_sync_leaves_no_transaction_open(con, monkeypatch):
    """Protection: store.sync_catalogue used to leave its transaction open (and the lock's hold with it) when a
    statement failed; through tx.write it rolls back, and the catalogue stays as it was."""
    con.execute("UPDATE dimensions SET label = 'renamed since' WHERE source = 'catalogue'")  # out of step: it writes
    before = con.execute("SELECT count(*) FROM dimensions WHERE source = 'catalogue'").fetchall()[0][0]

    def fail(con, rows):
        raise RuntimeError("disk full")

    monkeypatch.setattr(migrations, "save_dimensions", fail)
    with pytest.raises(RuntimeError, match="disk full"):
        store.sync_catalogue(con)
    monkeypatch.undo()
    assert con.execute("SELECT count(*) FROM dimensions WHERE source = 'catalogue'").fetchall()[0][0] == before
    assert _lock_is_free()
    store.sync_catalogue(con)  # a new transaction begins: none was left open
    labels = con.execute("SELECT count(*) FROM dimensions WHERE label = 'renamed since'").fetchall()[0][0]
    assert labels == 0  # and the catalogue is back in step


def test_an_open_of_a_store_in_step_with_the_catalogue_writes_nothing(con):
    """A read-write open syncs the catalogue only when it changed (it used to rewrite all 75 rows every time)."""
    con.execute("CALL enable_logging('QueryLog')")
    store.sync_catalogue(con)
    ran = [m for (m,) in con.execute("SELECT message FROM duckdb_logs() WHERE type = 'QueryLog'").fetchall()]
    assert not any(m.lstrip().upper().startswith(("DELETE", "INSERT", "BEGIN")) for m in ran), ran


# --- the source rule: no module of analytics/ but tx.py begins, commits or rolls back by hand ---------------

TRANSACTION_SQL = re.compile(r"^\s*(BEGIN|COMMIT|ROLLBACK|ABORT|START\s+TRANSACTION|END\s+TRANSACTION)\b", re.I)
TRANSACTION_METHODS = ("begin", "commit", "rollback")


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes of a module and of its classes and functions."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def hand_written_transactions(source: str) -> list[int]:
    """The lines of `source` that begin, commit or roll back a transaction by hand: a text starting with the SQL
    (wherever it is run from: execute, a Query, a variable) or a call of a connection's begin/commit/rollback."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            if TRANSACTION_SQL.match(node.value):
                found.append(node.lineno)
        elif isinstance(node, ast.JoinedStr) and node.values:
            first = node.values[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str) and TRANSACTION_SQL.match(first.value):
                found.append(node.lineno)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in TRANSACTION_METHODS
            and not node.args
        ):
            found.append(node.lineno)
    return sorted(set(found))


def test_only_tx_writes_transactions_by_hand():
    found = [
        f"{p.relative_to(ROOT)}:{line}"
        for p in sorted((ROOT / "analytics").rglob("*.py"))
        if p != ROOT / "analytics" / "store" / "tx.py"
        for line in hand_written_transactions(p.read_text(encoding="utf-8"))
    ]
    assert found == [], f"transactions written by hand (use analytics.store.tx.write / tx.read_only): {found}"


def test_the_rule_sees_hand_written_transactions():
    for code in (
        "con.execute('BEGIN TRANSACTION')",
        "con.execute('begin')",
        "con.execute('COMMIT')",
        "cur.execute('ROLLBACK')",
        "con.execute(f'BEGIN TRANSACTION {mode}')",
        "Q = Query('start', 'START TRANSACTION')",
        "con.begin()",
        "con.commit()",
        "con.rollback()",
    ):
        assert hand_written_transactions(code), code
    for code in (
        '"""Load one file as one transaction; COMMIT at the end."""',
        "con.execute('SELECT 1')",
        "on_progress(0.95, 'committing')",
        "x = 'CASE WHEN a THEN b END'",
        "with tx.write(con):\n    con.execute('INSERT INTO t VALUES (1)')",
    ):
        assert not hand_written_transactions(code), code
