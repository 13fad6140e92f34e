"""An independent pandas computation of analytics/store/derived/contractor_tasks.py's rows, for tests that change the stored
ratings (loads, unloads, directories, scales) to check the kept table against."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator

import numpy as np
import pandas as pd

# Within computed_once: (function name, connection id) -> (connection, result). The assertions below read
# expected_rows and expected_reference_tasks three or four times over; the store does not change meanwhile.
_memo: dict | None = None


@contextlib.contextmanager
def computed_once(done: dict | None = None) -> Iterator[None]:
    """Within the block, expected_rows and expected_reference_tasks are computed once per connection (each caller
    gets its own copy); pass `done` to keep the results longer, only for a store nobody writes."""
    global _memo
    outer = _memo
    _memo = (outer if outer is not None else {}) if done is None else done
    try:
        yield
    finally:
        _memo = outer


def _once(compute: Callable[..., pd.DataFrame]) -> Callable[..., pd.DataFrame]:
    """`compute(con)`, remembered per connection inside computed_once."""

    @functools.wraps(compute)
    def cached(con) -> pd.DataFrame:
        if _memo is None:
            return compute(con)
        key = (compute.__name__, id(con))
        if key not in _memo:
            _memo[key] = (con, compute(con))  # the connection kept, so that its id stays its own
        return _memo[key][1].copy()

    return cached


COLUMNS = ["task_key", "dim_key", "rater_key", "rater_id", "rubric", "dimension", "submitted_at", "n_ratings",
           "agree_sum", "agree_n", "diff_sum", "inner_n", "v_sum", "v_sq"]  # fmt: skip


@_once
def expected_rows(con) -> pd.DataFrame:
    """contractor_tasks' rows computed in pandas from the ratings and the dimensions' scales as stored now."""
    r = con.execute(
        """SELECT task_key, dim_key, target_key, rater_key, rater_id, rubric, dimension, submitted_at, value_index
           FROM ratings WHERE role = 'contractor' AND value_index IS NOT NULL AND rater_id NOT LIKE 'anon:%'"""
    ).df()
    dims = con.execute("SELECT rubric, dimension, levels, level_values FROM dimensions").df()
    keys = [r["rubric"], r["dimension"]]
    r["v"] = _values(r["value_index"], _scale_numbers(dims["rubric"], dims["dimension"], dims["level_values"]), keys)
    q = pd.Series(
        [len(_list(x)) for x in dims["levels"]], index=pd.MultiIndex.from_arrays([dims["rubric"], dims["dimension"]])
    )
    r["q"] = q.reindex(pd.MultiIndex.from_arrays(keys)).to_numpy()
    unit = ["dim_key", "task_key", "target_key"]
    r["n_unit"] = r.groupby(unit)["v"].transform("size")
    r["total"] = r.groupby(unit)["v"].transform("sum")
    r["n_level"] = r.groupby([*unit, "value_index"])["v"].transform("size")
    shared = r["n_unit"] >= 2
    others = (r["n_unit"] - 1).where(shared)
    r["agree"] = ((r["n_level"] - 1) / others).where(shared)
    r["diff"] = (r["v"] - (r["total"] - r["v"]) / others).where(shared)
    r["inner"] = (r["value_index"] > 0) & (r["value_index"] < r["q"] - 1)
    r["v_sq"] = r["v"] * r["v"]
    g = r.groupby(["task_key", "dim_key", "rater_key", "rater_id", "rubric", "dimension"])
    out = pd.DataFrame(
        {
            "submitted_at": g["submitted_at"].min(),
            "n_ratings": g.size(),
            "agree_sum": g["agree"].sum(min_count=1),
            "agree_n": g["agree"].count(),
            "diff_sum": g["diff"].sum(min_count=1),
            "inner_n": g["inner"].sum(),
            "v_sum": g["v"].sum(),
            "v_sq": g["v_sq"].sum(),
        }
    ).reset_index()
    return _sorted(out)


def _list(x) -> list:
    return [] if x is None else list(x)


def _number(v) -> float:
    """A level's number, NaN for a level without one."""
    return np.nan if v is None or np.ma.is_masked(v) or pd.isna(v) else float(v)


def _scale_numbers(*keys_and_values: pd.Series) -> pd.Series:
    """The levels' numbers (NaN: none) indexed by the scale's keys and the level's position."""
    *keys, values = keys_and_values
    rows = [(*k, i, _number(v)) for *k, vs in zip(*keys, values, strict=True) for i, v in enumerate(_list(vs))]
    frame = pd.DataFrame(rows, columns=[*range(len(keys)), "i", "v"]).astype({"i": np.int64, "v": float})
    return frame.set_index([*range(len(keys)), "i"])["v"]


def _values(index: pd.Series, numbers: pd.Series, keys: list) -> np.ndarray:
    """Each rating's value: its level's number on its scale (`keys`), else its position (a level without a number,
    or past the scale's numbers)."""
    position = np.asarray(index, dtype=np.int64)
    v = numbers.reindex(pd.MultiIndex.from_arrays([*keys, position])).to_numpy(dtype=float)
    return np.where(np.isnan(v), position.astype(float), v)


def kept_rows(con) -> pd.DataFrame:
    """contractor_tasks as stored."""
    return _sorted(con.execute(f"SELECT {', '.join(COLUMNS)} FROM contractor_tasks").df())


def _sorted(df: pd.DataFrame) -> pd.DataFrame:
    out = df[COLUMNS].sort_values(["task_key", "dim_key", "rater_key"]).reset_index(drop=True)
    for c in ("n_ratings", "agree_n", "inner_n", "task_key", "dim_key", "rater_key"):
        out[c] = out[c].astype(np.int64)
    return out


RUBRIC_COLUMNS = ["task_key", "rater_key", "rater_id", "rubric", "submitted_at", "agree_sum", "agree_n", "spread_sum",
                  "items"]  # fmt: skip


def expected_rubric_rows(con) -> pd.DataFrame:
    """contractor_rubric_tasks' rows in pandas: per contractor, rubric and task, expected_rows' agreement sums over
    the dimensions, and the sum over items (targets) rated on three or more ordered absolute dimensions of the
    sample sd of their positions / (q - 1), with the number of such items."""
    tasks = expected_rows(con)
    g = tasks.groupby(["task_key", "rater_key", "rater_id", "rubric"])
    out = pd.DataFrame(
        {
            "submitted_at": g["submitted_at"].min(),
            "agree_sum": g["agree_sum"].sum(min_count=1),
            "agree_n": g["agree_n"].sum(),
        }
    ).reset_index()
    r = con.execute(
        """SELECT r.task_key, r.target_key, r.rater_key, r.rubric, r.value_index / (len(d.levels) - 1) AS pos
           FROM ratings r JOIN dimensions d USING (rubric, dimension)
           WHERE r.role = 'contractor' AND r.value_index IS NOT NULL AND r.rater_id NOT LIKE 'anon:%'
             AND NOT d.is_comparison AND d.measure <> 'nominal' AND d.kind <> 'ranking' AND len(d.levels) >= 3"""
    ).df()
    items = r.groupby(["task_key", "rater_key", "rubric", "target_key"])["pos"].agg(["std", "size"])
    items = items[items["size"] >= 3].reset_index()
    halo = items.groupby(["task_key", "rater_key", "rubric"]).agg(spread_sum=("std", "sum"), items=("std", "size"))
    out = out.merge(halo.reset_index(), on=["task_key", "rater_key", "rubric"], how="left")
    out[["spread_sum", "items"]] = out[["spread_sum", "items"]].fillna(0)
    return out[RUBRIC_COLUMNS].sort_values(["task_key", "rater_key", "rubric"]).reset_index(drop=True)


def kept_rubric_rows(con) -> pd.DataFrame:
    """contractor_rubric_tasks as stored."""
    df = con.execute(f"SELECT {', '.join(RUBRIC_COLUMNS)} FROM contractor_rubric_tasks").df()
    return df.sort_values(["task_key", "rater_key", "rubric"]).reset_index(drop=True)


def assert_kept_tasks_are_the_ratings(con) -> None:
    """The kept contractor task and rubric rows, and the confusion cells per contractor task, equal the pandas
    computation from the ratings as they now are."""
    with computed_once():
        pd.testing.assert_frame_equal(kept_rows(con), expected_rows(con), check_dtype=False, rtol=1e-9)
        pd.testing.assert_frame_equal(kept_rubric_rows(con), expected_rubric_rows(con), check_dtype=False, rtol=1e-9)
        assert_contractor_days_are_the_tasks(con)
        assert_reference_tasks_are_the_ratings(con)
        assert_rater_tasks_are_the_ratings(con)
        assert_level_counts_are_the_ratings(con)
        assert_task_patterns_are_the_ratings(con)


def assert_task_patterns_are_the_ratings(con) -> None:
    """The kept task patterns (analytics/store/derived/task_patterns.py) hold the store's packing whenever it is a
    BIGINT one (and no row otherwise), and give the rows of the task pattern query on the ratings, exactly."""
    from analytics.agreement import counts as ct
    from analytics.agreement.pairing import multi_target
    from analytics.core import packing as pk
    from analytics.core.filters import Filters
    from analytics.store.derived import task_patterns as tp

    bits = tp.store_bits(con)
    assert tp.usable_bits(con) == bits
    if not bits:
        assert not con.execute("SELECT count(*) FROM task_patterns").fetchall()[0][0]
        return
    pack = pk.packing(pk.scale_width(con))
    for filters in (
        Filters(),
        *(Filters(rubric=r) for (r,) in con.execute("SELECT DISTINCT rubric FROM ratings").fetchall()),
    ):
        kept = ct.kept_task_patterns_query(filters).df(con)
        live = ct.task_patterns_query(filters, multi_target(con), pack).df(con)
        # the kept units are named structs, the query's row constructors unnamed: the same fields in order
        kept["units"] = [[(u["code"], u["m"]) for u in units] for units in kept["units"]]
        live["units"] = [[tuple(u) for u in units] for units in live["units"]]
        pd.testing.assert_frame_equal(kept, live, check_dtype=False)


REFERENCE_COLUMNS = ["task_key", "dim_key", "rater_key", "rater_id", "role", "rubric", "dimension", "submitted_at",
                     "cells", "targets", "one_row"]  # fmt: skip


@_once
def expected_reference_tasks(con) -> pd.DataFrame:
    """reference_tasks' rows in pandas: every contractor rating with every researcher rating of its unit (both with
    a level), grouped per contractor, task, dimension and submission time into the sorted cells (subject position *
    CELL + reference position) and the sorted targets; one_row when the contractor has one such row on the task
    and dimension."""
    from analytics.store.derived.reference_tasks import CELL

    r = con.execute(
        """SELECT task_key, dim_key, target_key, rater_key, rater_id, role, rubric, dimension, submitted_at,
                  value_index FROM ratings WHERE value_index IS NOT NULL"""
    ).df()
    unit = ["task_key", "dim_key", "target_key"]
    s, ref = r[r["role"] == "contractor"], r[r["role"] == "researcher"][[*unit, "value_index"]]
    pairs = s.merge(ref, on=unit, suffixes=("", "_ref"))
    pairs["cell"] = pairs["value_index"].astype(np.int64) * CELL + pairs["value_index_ref"].astype(np.int64)
    keys = ["task_key", "dim_key", "rater_key", "rater_id", "role", "rubric", "dimension", "submitted_at"]
    g = pairs.groupby(keys, dropna=False)
    out = g.size().reset_index()[keys]
    group = g.ngroup().to_numpy()
    out["cells"] = _sorted_lists(group, pairs["cell"].to_numpy(), len(out), unique=False)
    out["targets"] = _sorted_lists(group, pairs["target_key"].to_numpy(), len(out), unique=True)
    out["one_row"] = out.groupby(["task_key", "dim_key", "rater_key"])["cells"].transform("size") == 1
    return _reference_sorted(out)


def _sorted_lists(group: np.ndarray, x: np.ndarray, groups: int, unique: bool) -> list:
    """Per group number (0 .. groups - 1), the sorted values of `x` in it (without repeats if `unique`)."""
    if groups == 0:
        return []
    order = np.lexsort((x, group))
    group, x = group[order], x[order]
    if unique:
        new = np.ones(len(x), dtype=bool)
        new[1:] = (group[1:] != group[:-1]) | (x[1:] != x[:-1])
        group, x = group[new], x[new]
    return [list(part) for part in np.split(x, np.cumsum(np.bincount(group, minlength=groups))[:-1])]


def kept_reference_tasks(con) -> pd.DataFrame:
    """reference_tasks as stored."""
    return _reference_sorted(con.execute(f"SELECT {', '.join(REFERENCE_COLUMNS)} FROM reference_tasks").df())


def _reference_sorted(df: pd.DataFrame) -> pd.DataFrame:
    out = df.reindex(columns=REFERENCE_COLUMNS)
    for c in ("cells", "targets"):
        out[c] = [[int(x) for x in v] for v in out[c]]
    for c in ("task_key", "dim_key", "rater_key"):
        out[c] = out[c].astype(np.int64)
    out["one_row"] = out["one_row"].astype(bool)
    out["submitted_at"] = pd.to_datetime(out["submitted_at"])
    return out.sort_values(["task_key", "dim_key", "rater_key", "submitted_at"]).reset_index(drop=True)


def assert_reference_tasks_are_the_ratings(con) -> None:
    """The kept confusion cells per contractor task equal the pandas computation from the ratings."""
    pd.testing.assert_frame_equal(kept_reference_tasks(con), expected_reference_tasks(con), check_dtype=False)


RATER_TASK_KEYS = ["task_key", "rater_key", "rater_id", "role", "rubric", "submitted_at"]


def expected_rater_tasks(con) -> pd.DataFrame:
    """rater_tasks' rows in pandas: the ratings per rater, role, rubric, task and submission time, how many have a
    level, the longest duration, and whether the row is the rater's one row of the task under the role and rubric."""
    r = con.execute(f"SELECT {', '.join(RATER_TASK_KEYS)}, value_index, duration_s FROM ratings").df()
    g = r.groupby(RATER_TASK_KEYS, dropna=False)
    out = pd.DataFrame(
        {"n_ratings": g.size(), "n_valued": g["value_index"].count(), "duration_s": g["duration_s"].max()}
    ).reset_index()
    out["one_row"] = out.groupby(["task_key", "rater_key", "role", "rubric"])["n_ratings"].transform("size") == 1
    return _rater_sorted(out)


def kept_rater_tasks(con) -> pd.DataFrame:
    """rater_tasks as stored."""
    cols = [*RATER_TASK_KEYS, "n_ratings", "n_valued", "duration_s", "one_row"]
    return _rater_sorted(con.execute(f"SELECT {', '.join(cols)} FROM rater_tasks").df())


def _rater_sorted(df: pd.DataFrame) -> pd.DataFrame:
    out = df.copy()
    for c in ("task_key", "rater_key", "n_ratings", "n_valued"):
        out[c] = out[c].astype(np.int64)
    out["submitted_at"] = pd.to_datetime(out["submitted_at"])
    out["duration_s"] = out["duration_s"].astype(float)
    return out.sort_values(["task_key", "rater_key", "role", "rubric", "submitted_at"]).reset_index(drop=True)


def assert_rater_tasks_are_the_ratings(con) -> None:
    """The kept rater tasks equal the pandas computation from the ratings."""
    pd.testing.assert_frame_equal(kept_rater_tasks(con), expected_rater_tasks(con), check_dtype=False)


LEVEL_COLUMNS = ["ingest_id", "dim_key", "rater_key", "rater_id", "role", "rubric", "dimension", "value_index", "day",
                 "n"]  # fmt: skip


def expected_level_counts(con) -> pd.DataFrame:
    """level_counts' rows in pandas: the ratings counted per load, dimension, rater, role, level (missing too) and
    day of submission (undated apart)."""
    r = con.execute(
        "SELECT ingest_id, dim_key, rater_key, rater_id, role, rubric, dimension, value_index, submitted_at FROM ratings"
    ).df()
    r["day"] = pd.to_datetime(r["submitted_at"]).dt.floor("D")  # level_counts keeps it as a DATE
    g = r.groupby(LEVEL_COLUMNS[:-1], dropna=False).size().rename("n").reset_index()
    return _level_sorted(g)


def kept_level_counts(con) -> pd.DataFrame:
    """level_counts as stored."""
    return _level_sorted(con.execute("SELECT *, CAST(submitted_at AS TIMESTAMP) AS day FROM level_counts").df())


def _level_sorted(df: pd.DataFrame) -> pd.DataFrame:
    out = df[LEVEL_COLUMNS].astype({"value_index": "Float64", "n": "int64"})
    return out.sort_values(LEVEL_COLUMNS[:-1], na_position="last").reset_index(drop=True)


def assert_level_counts_are_the_ratings(con) -> None:
    """The kept level counts equal the pandas computation from the ratings."""
    pd.testing.assert_frame_equal(kept_level_counts(con), expected_level_counts(con), check_dtype=False)


DAY_COLUMNS = ["dim_key", "rater_key", "rater_id", "rubric", "dimension", "submitted_at", "tasks", "n_ratings",
               "v_sum", "v_sq", "inner_s1", "inner_s2", "shift_tasks", "shift_s1", "shift_s2", "researcher_tasks",
               "researcher_s1", "researcher_s2"]  # fmt: skip


def expected_tasks_with_researchers(con) -> pd.DataFrame:
    """expected_rows with `researcher`: the task's mean of the contractor's value minus the researcher's over all
    its contractor-researcher pairs on the dimension (expected_reference_tasks' cells; NaN without a pair)."""
    from analytics.store.derived.reference_tasks import CELL

    dims = con.execute(
        "SELECT k.dim_key, d.level_values FROM dimensions d JOIN dimension_keys k USING (rubric, dimension)"
    ).df()
    numbers = _scale_numbers(dims["dim_key"].astype(np.int64), dims["level_values"])
    cells = expected_reference_tasks(con)[["task_key", "dim_key", "rater_key", "cells"]].explode("cells")
    cell, dim = cells["cells"].to_numpy(dtype=np.int64), [cells["dim_key"].to_numpy(dtype=np.int64)]
    cells["difference"] = _values(cell // CELL, numbers, dim) - _values(cell % CELL, numbers, dim)
    keys = ["task_key", "dim_key", "rater_key"]
    mean = cells.groupby(keys)["difference"].mean().rename("researcher").reset_index()
    return expected_rows(con).merge(mean, on=keys, how="left")


def expected_contractor_days(con) -> pd.DataFrame:
    """contractor_days' rows in pandas: expected_tasks_with_researchers (the contractor tasks from the ratings)
    summed per contractor, dimension and day of submission (NULL times their own day)."""
    t = expected_tasks_with_researchers(con)
    t["submitted_at"] = t["submitted_at"].dt.floor("D")
    t["inner"] = t["inner_n"] / t["n_ratings"]
    t["shift"] = (t["diff_sum"] / t["agree_n"]).where(t["agree_n"] > 0)
    _add_squares(t, "inner", "shift", "researcher")
    g = t.groupby(["dim_key", "rater_key", "rater_id", "rubric", "dimension", "submitted_at"], dropna=False)
    sums = {"tasks": g.size(), "n_ratings": g["n_ratings"].sum(), "v_sum": g["v_sum"].sum(), "v_sq": g["v_sq"].sum()}
    sums |= {"inner_s1": g["inner"].sum(), "inner_s2": g["inner_sq"].sum()}
    sums |= _count_sums(g, "shift", "shift_tasks", "shift_s1", "shift_s2")
    sums |= _count_sums(g, "researcher", "researcher_tasks", "researcher_s1", "researcher_s2")
    return _days_sorted(pd.DataFrame(sums).reset_index())


def _add_squares(t: pd.DataFrame, *columns: str) -> None:
    """Adds each column's square as `{column}_sq` (NaN where it is missing), for _count_sums' s2."""
    for c in columns:
        t[f"{c}_sq"] = t[c] * t[c]


def _count_sums(g, column: str, n: str, s1: str, s2: str | None) -> dict:
    """Per group, the number of non-missing values of `column`, their sum and (s2) sum of squares (NaN: none; the
    squares are the frame's `{column}_sq`, see _add_squares)."""
    out = {n: g[column].count(), s1: g[column].sum(min_count=1)}
    return out | ({s2: g[f"{column}_sq"].sum(min_count=1)} if s2 else {})


def _sorted_rows(df: pd.DataFrame, columns: list[str], order: list[str], counts: tuple[str, ...]) -> pd.DataFrame:
    out = df[columns].sort_values(order).reset_index(drop=True)
    for c in counts:
        out[c] = out[c].astype(np.int64)
    return out


def _days_sorted(df: pd.DataFrame) -> pd.DataFrame:
    counts = ("dim_key", "rater_key", "tasks", "n_ratings", "shift_tasks", "researcher_tasks")
    return _sorted_rows(df, DAY_COLUMNS, ["dim_key", "rater_key", "submitted_at"], counts)


RUBRIC_DAY_COLUMNS = ["rater_key", "rater_id", "rubric", "submitted_at", "tasks", "consensus_n", "consensus_s1",
                      "consensus_s2", "researchers_n", "researchers_s1", "halo_n", "halo_s1", "halo_s2"]  # fmt: skip


def expected_contractor_rubric_days(con) -> pd.DataFrame:
    """contractor_rubric_days' rows in pandas: expected_rubric_rows (from the ratings) with each task's share of
    contractor-researcher pairs (expected_reference_tasks' cells) that agree exactly, summed per contractor, rubric
    and day of submission."""
    from analytics.store.derived.reference_tasks import CELL

    t = expected_rubric_rows(con)
    cells = expected_reference_tasks(con)[["task_key", "rater_key", "rubric", "cells"]].explode("cells")
    cell = cells["cells"].to_numpy(dtype=np.int64)
    cells["agree"] = cell // CELL == cell % CELL
    share = cells.groupby(["task_key", "rater_key", "rubric"])["agree"].mean().rename("researchers").reset_index()
    t = t.merge(share, on=["task_key", "rater_key", "rubric"], how="left")
    t["submitted_at"] = t["submitted_at"].dt.floor("D")
    t["consensus"] = (t["agree_sum"] / t["agree_n"]).where(t["agree_n"] > 0)
    t["halo"] = (t["spread_sum"] / t["items"]).where(t["items"] > 0)
    _add_squares(t, "consensus", "halo")
    g = t.groupby(["rater_key", "rater_id", "rubric", "submitted_at"], dropna=False)
    sums = {"tasks": g.size()} | _count_sums(g, "consensus", "consensus_n", "consensus_s1", "consensus_s2")
    sums |= _count_sums(g, "researchers", "researchers_n", "researchers_s1", None)
    sums |= _count_sums(g, "halo", "halo_n", "halo_s1", "halo_s2")
    return _rubric_days_sorted(pd.DataFrame(sums).reset_index())


def _rubric_days_sorted(df: pd.DataFrame) -> pd.DataFrame:
    counts = ("rater_key", "tasks", "consensus_n", "researchers_n", "halo_n")
    return _sorted_rows(df, RUBRIC_DAY_COLUMNS, ["rater_key", "rubric", "submitted_at"], counts)


def assert_contractor_days_are_the_tasks(con) -> None:
    """The kept contractor days (per dimension and per rubric) equal the pandas sums of the contractor tasks and
    their pairs computed from the ratings."""
    kept = _days_sorted(con.execute(f"SELECT {', '.join(DAY_COLUMNS)} FROM contractor_days").df())
    rubric = con.execute(f"SELECT {', '.join(RUBRIC_DAY_COLUMNS)} FROM contractor_rubric_days").df()
    with computed_once():
        pd.testing.assert_frame_equal(kept, expected_contractor_days(con), check_dtype=False, rtol=1e-9)
        pd.testing.assert_frame_equal(
            _rubric_days_sorted(rubric), expected_contractor_rubric_days(con), check_dtype=False, rtol=1e-9
        )
