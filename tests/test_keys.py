"""Integer keys of tasks, raters, dimensions and targets (analytics/store/keys.py): given at ingest, shared by every
file that names the same id, kept through unloads, and added to stores loaded before keys existed."""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import pytest

from analytics import agreement, store
from analytics.core.queries import Query
from analytics.ingest import unload
from analytics.ingest.load import ingest_bytes
from analytics.store import keys

FIRST = b"task_id,rater_id,role,rubric,dimension,target,value\nt1,c1,contractor,pilot,clarity,A,3\nt2,c1,contractor,pilot,clarity,A,4\nt1,r1,researcher,pilot,clarity,A,3\n"
SECOND = b"task_id,rater_id,role,rubric,dimension,target,value\nt1,c2,contractor,pilot,clarity,B,2\nt3,c2,contractor,pilot,tone,A,1\n"


THIRD = b"task_id,rater_id,role,rubric,dimension,value\nt9,c9,contractor,pilot,tone,1\n"


def key_of(con, table: str, key: str, **ids) -> int:
    where = " AND ".join(f"{c} = ?" for c in ids)
    rows = con.execute(f"SELECT {key} FROM {table} WHERE {where}", list(ids.values())).fetchall()
    assert len(rows) == 1, f"{ids} has {len(rows)} keys in {table}"
    return int(rows[0][0])


def test_every_rating_carries_the_keys_of_its_ids_and_a_second_file_reuses_them(con):
    ingest_bytes(con, FIRST, "first.csv")
    t1 = key_of(con, "task_keys", "task_key", task_id="t1")
    ingest_bytes(con, SECOND, "second.csv")
    assert key_of(con, "task_keys", "task_key", task_id="t1") == t1
    # each rating's keys are the keys of its own ids, in every file
    wrong = con.execute(
        """SELECT count(*) FROM ratings r
           LEFT JOIN task_keys t ON t.task_key = r.task_key AND t.task_id = r.task_id
           LEFT JOIN rater_keys k ON k.rater_key = r.rater_key AND k.rater_id = r.rater_id
           LEFT JOIN dimension_keys d ON d.dim_key = r.dim_key AND d.rubric = r.rubric AND d.dimension = r.dimension
           LEFT JOIN target_keys g ON g.target_key = r.target_key AND g.target = r.target
           WHERE t.task_id IS NULL OR k.rater_id IS NULL OR d.rubric IS NULL OR g.target IS NULL"""
    ).fetchall()[0][0]
    assert wrong == 0
    for table, key, ids in ((k.table, k.key, k.ids) for k in keys.KEYS):
        dupes = con.execute(
            f"SELECT count(*) FROM (SELECT {', '.join(ids)} FROM {table} GROUP BY ALL HAVING count(*) > 1)"
        ).fetchall()[0][0]
        distinct = con.execute(f"SELECT count(DISTINCT {key}) = count(*) FROM {table}").fetchall()[0][0]
        assert dupes == 0 and distinct, table
    assert con.execute("SELECT count(*) FROM task_keys").fetchall() == [(3,)]


def test_unloading_a_file_keeps_the_keys_and_a_reload_gets_the_same_ones(con):
    ingest_bytes(con, FIRST, "first.csv")
    ingest_bytes(con, SECOND, "second.csv")
    t3 = key_of(con, "task_keys", "task_key", task_id="t3")
    second = con.execute("SELECT ingest_id FROM ingest_log WHERE file_name = 'second.csv'").fetchall()[0][0]
    unload.unload_file(con, second, "test")
    assert key_of(con, "task_keys", "task_key", task_id="t3") == t3
    assert ingest_bytes(con, SECOND, "second.csv").status == "loaded"
    assert con.execute("SELECT DISTINCT task_key FROM ratings WHERE task_id = 't3'").fetchall() == [(t3,)]


def test_a_rating_without_keys_is_refused_not_lost(con):
    with pytest.raises(duckdb.ConstraintException):
        con.execute(
            "INSERT INTO ratings (task_id, rater_id, role, rubric, dimension, value, ingest_id) "
            "VALUES ('x', 'x', 'contractor', 'x', 'x', 'x', 1)"
        )


def test_a_store_loaded_before_keys_is_migrated_with_the_same_figures(tmp_path):
    path = tmp_path / "old.duckdb"
    old = duckdb.connect(str(path))
    old.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMP)")
    for version, statements in store.MIGRATIONS:
        if version >= 5:
            break
        for sql in statements:
            old.execute(sql)
        old.execute("INSERT INTO schema_migrations VALUES (?, current_timestamp)", [version])
    rows = [
        (f"t{t}", f"c{r}", "contractor" if r < 3 else "researcher", "pilot", "clarity", "", str(v), v - 1, v, 1)
        for t in range(12)
        for r, v in enumerate([(t % 3) + 1, ((t + 1) % 3) + 1, (t % 3) + 1, ((t * t) % 3) + 1])
    ]
    old.executemany(
        "INSERT INTO ratings (task_id, rater_id, role, rubric, dimension, target, value, value_index, value_num, "
        "ingest_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    # the same rows loaded into a new store: its inferred scale is given to the old store too
    csv = "task_id,rater_id,role,rubric,dimension,value\n" + "".join(
        f"{r[0]},{r[1]},{r[2]},pilot,clarity,{r[6]}\n" for r in rows
    )
    fresh = store.open_store(tmp_path / "new.duckdb")
    assert ingest_bytes(fresh, csv.encode(), "same.csv").rows_loaded == 48
    scale = fresh.execute(
        f"SELECT {', '.join(store.DIMENSION_COLUMNS)} FROM dimensions WHERE rubric = 'pilot'"
    ).fetchall()
    store.save_dimensions(old, scale)
    old.close()
    con = store.open_store(path)
    assert store.schema_version(con) >= 5
    assert con.execute("SELECT count(*), count(task_key), count(DISTINCT task_key) FROM ratings").fetchall() == [
        (48, 48, 12)
    ]
    # and the same figures
    migrated, loaded = (agreement.agreement_report(c, agreement.AgreementSpec(n_boot=50)) for c in (con, fresh))
    assert list(migrated.raters["rater_id"]) == ["c0", "c1", "c2"]
    for a, b in ((migrated.raters, loaded.raters), (migrated.dimensions, loaded.dimensions)):
        pd.testing.assert_frame_equal(a, b)


def test_distinct_tasks_counts_what_count_distinct_counts_in_every_group(con):
    """keys.distinct_tasks (a bitmap over the task keys) against DuckDB's count(DISTINCT) on the same groups:
    repeated keys, the first and the largest key, a group missing a key, a group of NULL keys only."""
    ingest_bytes(con, FIRST, "first.csv")
    ingest_bytes(con, SECOND, "second.csv")
    bound = keys.task_key_bound(con)
    assert bound == {keys.TASK_KEY_MAX: 3}  # t1, t2, t3
    rng = np.random.default_rng(7)
    rows = pd.DataFrame({"g": rng.integers(0, 5, 400), "k": rng.choice([1, 2, 3, 3, 3], 400)}).astype({"k": "Int64"})
    rows.loc[(rows["g"] == 3) & (rows["k"] == 2), "k"] = 3  # group 3 never has task 2
    rows.loc[rows["g"] == 4, "k"] = None  # group 4 counts no task
    con.register("rows_view", rows)
    got = con.execute(
        f"SELECT g, {keys.distinct_tasks('k')} AS n, count(DISTINCT k) AS want FROM rows_view GROUP BY g ORDER BY g",
        bound,
    ).df()
    assert got["n"].tolist() == got["want"].tolist() == [3, 3, 3, 2, 0]


def test_an_empty_store_bounds_its_task_keys_at_one(con):
    assert keys.task_key_bound(con) == {keys.TASK_KEY_MAX: 1}
    assert con.execute(
        f"SELECT {keys.distinct_tasks('x')} FROM range(0) t(x)", keys.task_key_bound(con)
    ).fetchall() == [(0,)]


def test_task_counts_read_their_bound_again_when_a_load_commits_in_between(tmp_path):
    """A load committing between reading the bound and counting brings task keys beyond the bound (the race
    tests/test_concurrency.py met with pages reading during loads): counted_tasks reads the bound again."""
    con = store.open_store(tmp_path / "store.duckdb")
    ingest_bytes(con, FIRST, "first.csv")  # t1, t2
    reader, writer = con.cursor(), con.cursor()
    count = f"SELECT {keys.distinct_tasks('task_key')} AS n FROM ratings"
    bound = keys.task_key_bound(reader)
    assert ingest_bytes(writer, THIRD, "third.csv").status == "loaded"  # t9 gets key 3, beyond the bound
    with pytest.raises(duckdb.OutOfRangeException):
        Query("tasks", count, bound).df(reader)
    bounds: list[int] = []

    def load_once_then_count(bound: dict[str, int]) -> Query:
        if not bounds:
            assert ingest_bytes(writer, SECOND, "second.csv").status == "loaded"  # t3 gets key 4
        bounds.append(bound[keys.TASK_KEY_MAX])
        return Query("tasks", count, bound)

    assert keys.counted_tasks(reader, load_once_then_count)["n"].item() == 4  # t1, t2, t9, t3
    assert bounds == [3, 4]
    con.close()
