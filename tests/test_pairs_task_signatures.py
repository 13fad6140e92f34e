"""Task signatures of the one pairing query (analytics/agreement/pairing.py, pair_plans.py, signatures.py): tasks of one, two, three and four units
(a task's one or two items are grouped by min and max, more as a sorted list) give, at every grain, packed or not,
exactly the confusion counts and tasks of the pairs formed one by one in Python."""

from __future__ import annotations

import io
import itertools
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from unittest import mock

import duckdb
import numpy as np
import pandas as pd
import pytest

from analytics import store
from analytics.agreement import counts as ct
from analytics.agreement import pair_plans as pp
from analytics.agreement import pairing as pg
from analytics.agreement import sides as sd
from analytics.agreement import signatures as sg
from analytics.agreement import task_lists as tl
from analytics.core import packing as pk
from analytics.core.filters import Filters
from analytics.core.queries import Query
from tests.conftest import loaded_store
from tests.signatures import assert_same_signatures

LEVELS = ["1", "2", "3"]
TARGETS = ["1", "2", "3", "4"]


def _rows(seed: int, most: int = 4) -> list[tuple]:
    """Ratings of a dimension with up to `most` targets per task (task t has 1 + t % most), by contractors and
    researchers who each skip some tasks, and of a one-target dimension. With most=2, raters also skip one of
    a task's two targets now and then (pairs of raters then share one of them, or none)."""
    rng = np.random.default_rng(seed)
    rows = []
    for t in range(24 if most > 2 else 40):
        for rater, role in (
            ("c1", "contractor"),
            ("c2", "contractor"),
            ("c3", "contractor"),
            ("r1", "researcher"),
            ("r2", "researcher"),
        ):
            if rng.random() < 0.25:
                continue
            day = f"2026-03-{1 + t % 20:02d}"
            rows.append((f"t{t}", "", rater, role, "overall", str(rng.choice(LEVELS)), day))
            for target in TARGETS[: 1 + t % most]:
                if most == 2 and t % 2 and rng.random() < 0.3:
                    continue
                rows.append((f"t{t}", target, rater, role, "quality", str(rng.choice(LEVELS)), day))
    return rows


def _study_csv(seed: int, most: int) -> bytes:
    """`_rows(seed, most)` on rubric 'study', as a canonical CSV."""
    cols = ["task_id", "target", "rater_id", "role", "dimension", "value", "submitted_at"]
    buf = io.StringIO()
    pd.DataFrame(_rows(seed, most), columns=cols).assign(rubric="study").to_csv(buf, index=False)
    return buf.getvalue().encode()


@pytest.fixture(scope="module")
def stores(tmp_path_factory) -> Iterator[Callable[..., duckdb.DuckDBPyConnection]]:
    """`_store(seed, most=4)`: a read-only connection to the store of `_rows(seed, most)`, built once per module
    (it depends on nothing else; read-only, so no test can change what the next one reads)."""
    folder = tmp_path_factory.mktemp("signature-stores")
    opened: dict[tuple[int, int], duckdb.DuckDBPyConnection] = {}

    def _store(seed: int, most: int = 4) -> duckdb.DuckDBPyConnection:
        if (seed, most) not in opened:
            path = loaded_store(folder / f"{seed}-{most}.duckdb", {"study.csv": _study_csv(seed, most)})
            opened[seed, most] = store.open_store(path, read_only=True)
        return opened[seed, most]

    yield _store
    for con in opened.values():
        con.close()


def _by_hand(rows: list[tuple], comparison: str, grain: str) -> dict[tuple, tuple[Counter, int, int]]:
    """Per group: a Counter of (task, subject level, reference level) pairs, the tasks and the units with a pair."""
    units = defaultdict(list)
    for task, target, rater, role, dim, value, _ in rows:
        units[(task, dim, target)].append((rater, role, LEVELS.index(value)))
    out: dict[tuple, list] = defaultdict(lambda: [Counter(), set(), set()])
    for (task, dim, target), ratings in units.items():
        for (ra, role_a, a), (rb, role_b, b) in itertools.permutations(ratings, 2):
            if comparison == "contractor_vs_researcher" and (role_a, role_b) != ("contractor", "researcher"):
                continue
            if comparison == "rater_pairs" and not ra < rb:  # each pair of raters once
                continue
            key = {"rater": (ra, "study", dim), "dimension": ("study", dim), "rater_pair": (ra, rb, "study", dim)}[
                grain
            ]
            out[key][0][(task, a, b)] += 1
            out[key][1].add(task)
            out[key][2].add((task, target))
    return {k: (c, len(t), len(u)) for k, (c, t, u) in out.items()}


@pytest.mark.parametrize("seed", [1])
@pytest.mark.parametrize("comparison", ["contractor_vs_researcher", "all_raters", "rater_pairs"])
@pytest.mark.parametrize("grain", ["rater", "dimension", "rater_pair"])
@pytest.mark.parametrize("packed", [True, False])
@pytest.mark.parametrize("most", [4, 2])
def test_signatures_equal_pairs_formed_by_hand(stores, seed, comparison, grain, packed, most):
    con = stores(seed, most)
    width, multi = pk.scale_width(con), pg.multi_target(con)
    sides = (
        sd.rater_pair_sides(Filters()) if comparison == "rater_pairs" else sd.comparison_sides(Filters(), comparison)
    )
    q = len(LEVELS)
    query = pp.pair_query(sides, grain, width, multi, packed)
    if grain == "rater_pair" and packed and most > 2:  # raters with three or four items on a task
        with pytest.raises(sg.TaskItemsOverflow):
            sg.signatures(sg.fetch(con, query), grain, width, lambda _k: q)
        assert sg.pair_signatures(con, sides, grain, lambda _k: q).keys()  # which runs the list form instead
        query = pp.pair_query(sides, grain, width, multi, packed=False)
    got = sg.signatures(query.df(con), grain, width, lambda _k: q)
    assert_same_signatures(sg.signatures(sg.fetch(con, query), grain, width, lambda _k: q), got)  # the Arrow decoding
    with mock.patch.object(sd, "reads_reference_pairs", return_value=False):  # the same, paired from the ratings
        direct = pp.pair_query(sides, grain, width, multi, packed)
    if not (grain == "rater_pair" and packed and most > 2):
        assert sg.signatures(direct.df(con), grain, width, lambda _k: q).keys() == got.keys()
    want = _by_hand(_rows(seed, most), comparison, grain)
    assert got.keys() == want.keys()
    assert any(n_units > n_tasks for _, n_tasks, n_units in want.values())  # tasks of several units are there
    for key, (pairs, n_tasks, n_units) in want.items():
        table = np.zeros((q, q))
        for (_, a, b), n in pairs.items():
            table[a, b] += n
        assert got[key].tasks == n_tasks and got[key].n_units == n_units, key
        assert np.array_equal(got[key].table(q), table), key
        # each task's own cells: the signatures hold the tasks' vectors, not only their sum
        per_task = Counter()
        for (task, a, b), n in pairs.items():
            per_task[task, a * q + b] += n
        vectors = Counter()
        for task in {t for t, _ in per_task}:
            vectors[tuple(per_task[task, c] for c in range(q * q))] += 1
        have = Counter(
            {tuple(int(x) for x in cells): int(n) for cells, n in zip(got[key].cells, got[key].n_tasks, strict=True)}
        )
        assert have == vectors, key
    if grain == "rater_pair":  # without intervals, the task items' cells summed per pair in SQL: the same tables
        log: list = []
        summed = sg.pair_signatures(con, sides, grain, lambda _k: q, log, summed=True)
        assert summed.keys() == want.keys()
        for key, (pairs, n_tasks, n_units) in want.items():
            table = np.zeros((q, q))
            for (_, a, b), n in pairs.items():
                table[a, b] += n
            assert (summed[key].tasks, summed[key].n_units) == (n_tasks, n_units), key
            assert np.array_equal(summed[key].table(q), table), key
        # raters with three or four items on a task: the summed query finds out and the list form runs instead
        items_pair = most == 2
        assert all(sig.summed == items_pair for sig in summed.values())
        assert log[-1].name.endswith("_summed") == items_pair


# Level counts per unit (subject level s, then counts of levels 0..4); the top values fill a level's bits.
UNIT_COUNTS = [
    (0, 1, 0, 0, 0, 0),
    (1, 0, 0, 3, 0, 0),
    (2, 0, 0, 0, 7, 0),
    (4, 0, 0, 0, 0, "full"),
    (3, 2, 5, "full", 1, 9),
]


def _packed_units(width: int) -> tuple[str, np.ndarray]:
    """A `units` result packed by the SQL's own rule (pairs.packing of `width`: its bits and SQL type) and the
    table it decodes to. At width 5 the codes are BIGINTs of 12 bits a level; at width 9 HUGEINTs of 14 bits,
    where level 4 straddles the two 64-bit halves."""
    pack = pk.packing(width)
    assert pack is not None
    full = (1 << pack.bits) - 1
    rows, want = [], np.zeros((5, 5))
    for s, *counts in UNIT_COUNTS:
        counts = [full if c == "full" else c for c in counts]
        code = " + ".join(f"(CAST({c} AS {pack.sql_type}) << {pack.bits * k})" for k, c in enumerate(counts))
        rows.append(f"({s}, {code}, {sum(counts)})")
        want[s] = counts
    sql = f"""SELECT 'c1' AS rater_a, 'study' AS rubric, 'd' AS dimension, [(s, code, m + $extra)] AS units,
       1 AS n_tasks, CAST(1 AS HUGEINT) AS n_units
FROM (VALUES {", ".join(rows)}) v(s, code, m)"""
    return sql, want


@pytest.mark.parametrize("width", [5, 9])
@pytest.mark.parametrize("fetched", ["arrow", "pandas"])
def test_packed_codes_decode_to_their_counts(con, fetched, width):
    sql, want = _packed_units(width)
    query = Query("units", sql, {"extra": 0})
    result = sg.fetch(con, query) if fetched == "arrow" else query.df(con)
    assert pk.packing(width).sql_type == ("BIGINT" if width == 5 else "HUGEINT")
    sig = sg.signatures(result, "rater", width, lambda _k: 5)[("c1", "study", "d")]
    assert np.array_equal(sig.table(5), want)


@pytest.mark.parametrize("width", [5, 9])
def test_packed_counts_that_do_not_add_up_are_an_overflow(con, width):
    query = Query("units", _packed_units(width)[0], {"extra": 1})
    with pytest.raises(pk.PackingOverflow):
        sg.signatures(sg.fetch(con, query), "rater", width, lambda _k: 5)


@pytest.mark.parametrize(
    ("top", "n", "groups"), [(3, 1000, 40), (300, 2000, 40), (70000, 1000, 40), (2, 2000, 70000), (2**33, 50, 4)]
)
def test_signature_order_is_lexsorts(top, n, groups):
    # Signatures keep np.lexsort's order (group, then cells), so a resample draws the same tasks as before the
    # byte-key sort; counts of 2**33 take the lexsort itself.
    rng = np.random.default_rng(top)
    cells = rng.integers(0, top + 1, (n, 9)).astype(float)
    group = np.sort(rng.integers(0, groups, n))
    assert np.array_equal(sg._row_order(cells, group)[0], np.lexsort([*cells.T[::-1], group]))
    # Distinct rows per group with their summed task counts: np.unique's rows and a dictionary's sums.
    n_tasks = rng.integers(1, 4, n).astype(float)
    got_cells, got_tasks, got_group = sg._distinct(cells, n_tasks, group)
    sums: dict[tuple, float] = {}
    for g, row, t in zip(group, cells, n_tasks, strict=True):
        sums[(int(g), *row)] = sums.get((int(g), *row), 0.0) + t
    want = np.unique(np.column_stack([group, cells]), axis=0)
    assert np.array_equal(np.column_stack([got_group, got_cells]), want)
    assert np.array_equal(got_tasks, [sums[tuple(r)] for r in want.tolist()])


@pytest.mark.parametrize("q", [1, 2, 3, 5, 9, 31])
def test_unpacked_codes_are_pythons_shifts(q):
    # Every packing width the SQL uses (126 // q bits a level, up to 126 for one level), against Python's integers.
    bits = pk.packing_bits(q)
    rng = np.random.default_rng(q)
    counts = rng.integers(0, min(1 << min(bits, 62), 2**40), (200, q))
    counts[0] = (1 << min(bits, 62)) - 1  # every level full
    codes = [sum(int(c) << (bits * k) for k, c in enumerate(row)) for row in counts]
    got = pk.unpack_codes(pk.split_codes(codes), counts.sum(axis=1), bits, q)
    want = [[(code >> (bits * k)) & ((1 << bits) - 1) for k in range(q)] for code in codes]
    assert np.array_equal(got, np.array(want, dtype=float))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_unit_lists_equal_pythons_sorted_tuples(seed):
    # unit_lists picks a task's one or two units with scalar arg_min/arg_max and orders them in SQL; the tasks and
    # lists must be those of sorting each task's tuples in Python: ties on the first fields, units sharing an
    # ident (listed instead) and tasks of one to four units, on HUGEINT codes beyond 64 bits.
    rng = np.random.default_rng(seed)
    rows = []
    for task in range(400):
        n = int(rng.integers(1, 5))
        idents = rng.choice(6, n, replace=False) if rng.random() < 0.8 else rng.integers(0, 2, n)
        for ident in idents:
            a, b = int(rng.integers(0, 3)), int(rng.integers(0, 3)) << 70
            rows.append((int(rng.integers(0, 2)), task, int(ident), a, b, int(rng.integers(0, 2))))
    con = duckdb.connect()
    con.execute("CREATE TEMP TABLE u (k INTEGER, task_key INTEGER, ident INTEGER, a INTEGER, b HUGEINT, c INTEGER)")
    con.executemany("INSERT INTO u VALUES (?, ?, ?, ?, ?, ?)", rows)
    ctes = tl.unit_lists("k", "u", "TRUE", ("a", "b", "c"), "units", "ident")
    got = con.execute(f"WITH dummy AS (SELECT 1){ctes} SELECT k, units, n_tasks, n_units FROM by_list").fetchall()
    tasks: dict[tuple, list] = defaultdict(list)
    for k, task, _ident, a, b, c in rows:
        tasks[(k, task)].append((a, b, c))
    want = Counter((k, tuple(sorted(units))) for (k, _t), units in tasks.items())
    assert len({(k, tuple(units)) for k, units, _, _ in got}) == len(got)  # one row per list
    assert Counter({(k, tuple(units)): n for k, units, n, _ in got}) == want
    assert all(n_units == n * len(units) for _, units, n, n_units in got)
    assert any(len(units) == 2 for _, units, _, _ in got) and any(len(units) > 2 for _, units, _, _ in got)


def _tasks_of(patterns) -> dict:
    """Per dimension, a Counter of tasks as their sorted unit level-count vectors (the patterns' numbering and
    row order left out)."""
    out = {}
    for key, tp in patterns.items():
        tasks = Counter()
        for members, n in zip(tp.membership, tp.n_tasks, strict=True):
            units = [
                tuple(int(x) for x in tp.counts[p]) for p in np.flatnonzero(members) for _ in range(int(members[p]))
            ]
            tasks[tuple(sorted(units))] += int(n)
        out[key] = tasks
    return out


@pytest.mark.parametrize("seed", [1, 2])
def test_task_patterns_packed_from_arrow_equal_the_lists(stores, seed):
    # The packed (code, m) patterns decoded from Arrow (pairs.entries, unpack_codes per dimension at once) hold the
    # same tasks as the list form, and decode as from a DataFrame (the Spark engine's path), patterns included.
    con = stores(seed)
    width, multi, q_of = pk.scale_width(con), pg.multi_target(con), lambda _k: len(LEVELS)
    listed = ct.task_patterns(ct.task_patterns_query(Filters()).df(con), q_of)
    # the packing the width takes (a BIGINT) and the 126-bit one wider scales take
    for pack in (pk.packing(width), pk.Packing(pk.packing_bits(width), "HUGEINT")):
        packed = ct.task_patterns_query(Filters(), multi, pack)
        arrow = ct.task_patterns(sg.fetch(con, packed), q_of, pack.bits)
        assert _tasks_of(arrow) == _tasks_of(listed) and len(arrow) == 2
        assert any(tp.membership.sum(axis=1).max() > 1 for tp in arrow.values())  # tasks of several units
        frame = ct.task_patterns(packed.df(con), q_of, pack.bits)
        for key, tp in arrow.items():
            assert np.array_equal(tp.counts, frame[key].counts)
            assert np.array_equal(tp.membership, frame[key].membership)
            assert np.array_equal(tp.n_tasks, frame[key].n_tasks)
        with pytest.raises(pk.PackingOverflow):  # a count the bits cannot hold still refuses the packing
            one_bit = pk.Packing(1, pack.sql_type)
            ct.task_patterns(sg.fetch(con, ct.task_patterns_query(Filters(), multi, one_bit)), q_of, 1)
    assert pk.packing(width).sql_type == "BIGINT"


@pytest.mark.parametrize("most", [2, 4])
def test_rater_pairs_take_task_items_on_two_targets_and_lists_on_more(stores, most):
    """pair_signatures pairs raters by task items where every dimension of several targets has two, lists the
    tasks where one has more, and falls back to the lists when the items meet a task they cannot pair."""
    con = stores(1, most)
    sides, q = sd.rater_pair_sides(Filters()), len(LEVELS)
    log: list = []
    got = sg.pair_signatures(con, sides, "rater_pair", lambda _k: q, log)
    width, multi = pk.scale_width(con), pg.multi_target(con)
    listed = sg.signatures(
        pp.pair_query(sides, "rater_pair", width, multi, packed=False).df(con), "rater_pair", width, lambda _k: q
    )
    assert_same_signatures(got, listed)
    assert ("task_cells" in log[-1].sql) == (most == 2)  # the task items ran, or the list form at once
    assert [x.name for x in log].count("pairs_rater_pairs_by_rater_pair") == 1
    # the targets are counted once, by the query that finds the dimensions with several
    assert [x.name for x in log] == ["scale_width", "multi_target_dimensions", "pairs_rater_pairs_by_rater_pair"]
    # told (wrongly) that the dimension has two targets, the items find a rater's third rating and fall back
    told = Query("multi_target_dimensions", f"SELECT dimension_key, true AS two FROM ({pg.multi_target_query().sql})")
    with mock.patch.object(pg, "multi_target_query", return_value=told):
        assert_same_signatures(sg.pair_signatures(con, sides, "rater_pair", lambda _k: q), listed)
        # summed (no interval), the items count the tasks they cannot pair (n_over) and the list form runs too
        log = []
        summed = sg.pair_signatures(con, sides, "rater_pair", lambda _k: q, log, summed=True)
    assert summed.keys() == listed.keys()
    for key, sig in listed.items():
        assert summed[key].summed == (most == 2), key
        assert (summed[key].tasks, summed[key].n_units) == (sig.tasks, sig.n_units), key
        assert np.array_equal(summed[key].table(q), sig.table(q)), key
    assert log[-1].name == (
        "pairs_rater_pairs_by_rater_pair_summed" if most == 2 else "pairs_rater_pairs_by_rater_pair"
    )
    # a filter on the one-target dimension needs no targets counted beyond that query, and no task items
    log = []
    sg.pair_signatures(con, sd.rater_pair_sides(Filters(dimensions=("overall",))), "rater_pair", lambda _k: q, log)
    assert [x.name for x in log] == ["scale_width", "multi_target_dimensions", "pairs_rater_pairs_by_rater_pair"]
    assert "task_cells" not in log[-1].sql
