"""The one pairing of raters: which ratings are compared with which, under which filters, counted per task.

Every page, export and command that compares two raters' ratings reads the queries built here.

A unit is (task_id, rubric, dimension, target). A pair is two ratings of the same unit by different raters:
a subject rating (the rater whose figure is computed) and a reference rating (who they are compared with).
A unit with two researcher labels gives a contractor two pairs (every label kept, no majority of two).

Filter rules (written once, here; docs/agreement.md repeats them):
- rubric and dimension restrict everything;
- dates select subject ratings by when they were submitted; reference labels count whatever their date, so
  a date range never removes the researcher labels a contractor is compared with;
- the rater filter chooses whose figures are shown; it never changes who counts as the team (pooled figures,
  team median), the reference side or the researcher ceiling;
- the role filter is replaced by the comparison's roles;
- symmetric sets (the researcher ceiling, rater x rater pairs) count each unordered pair of raters once
  (rater_a < rater_b). The ceiling describes how hard the rubric is and spans all dates; rater x rater pairs
  take both ratings from the date range.

Statistics come back per task "signature": the multiset of confusion cells a group (a rater, a dimension, a
pair of raters) has on one task, with the number of tasks that share it. That is what task-level intervals
resample (analytics/agreement/intervals.py), and summing signatures x tasks gives the confusion counts.

Contractors against researchers per rater group the confusion cells kept per contractor task at ingest
(analytics/store/derived/reference_tasks.py); their other queries read the pairs kept at ingest (analytics/store/derived/reference_pairs.py).
Elsewhere, two shapes keep this one pass over the ratings: per rater, a subject rating is met with its unit's
reference level counts packed in one integer (so raters of one role against each other need no self-join); per
dimension, a unit's pairs follow from its packed subject and reference level counts (no pair is formed); and on
dimensions with one target a task is its one unit (so tasks are counted without listing them).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa  # type: ignore[import-untyped]  # no stubs (pyarrow-stubs is not a dependency)
import pyarrow.compute as pc  # type: ignore[import-untyped]

from analytics.core.filters import Filters
from analytics.core.queries import Query, run
from analytics.store import keys
from analytics.store.derived import reference_pairs as rp
from analytics.store.derived import reference_tasks as rt

UNIT = ("task_id", "rubric", "dimension", "target")
COMPARISONS: dict[str, tuple[str, str] | None] = {
    "contractor_vs_researcher": ("contractor", "researcher"),
    "among_contractors": ("contractor", "contractor"),
    "researcher_vs_researcher": ("researcher", "researcher"),
    "all_raters": None,
}
# Grains a pair query may be grouped by (an allow-list: these become SQL identifiers).
GRAINS = {
    "rater": ("rater_a", "rubric", "dimension"),
    "dimension": ("rubric", "dimension"),
    "rater_pair": ("rater_a", "rater_b", "rubric", "dimension"),
}
# The same grains on the ratings' integer keys (analytics/store/keys.py): queries group by these and name them last.
KEYED_GRAINS = {
    "rater": ("rater_a", "dim_key"),
    "dimension": ("dim_key",),
    "rater_pair": ("key_a", "key_b", "dim_key"),
}
UNIT_KEYS = "task_key, dim_key, target_key"  # a unit on the keys: the join of every pairing
# A pair's columns on the keys, beside its named ones: the unit and both raters' keys (rater_a's is key_a).
PAIR_KEYS = f"{UNIT_KEYS}, key_a, key_b"
TAU_COLUMNS = ("concordant", "discordant", "tied_subject", "tied_reference", "tied_both")


@dataclass(frozen=True)
class Sides:
    """Which ratings are subjects, which are references, and whether pairs are unordered (a < b)."""

    name: str
    subject: Filters
    reference: Filters
    symmetric: bool = False


def _roles(role: str | None) -> tuple[str, ...]:
    return () if role is None else (role,)


def comparison_sides(filters: Filters, comparison: str) -> Sides:
    """Each rater of the comparison's subject role against every rater of its reference role."""
    if comparison not in COMPARISONS:
        raise ValueError(f"comparison must be one of {', '.join(COMPARISONS)}, not {comparison!r}")
    roles = COMPARISONS[comparison]
    subject_role, reference_role = (None, None) if roles is None else roles
    subject = filters.but(roles=_roles(subject_role))
    reference = Filters(rubric=filters.rubric, dimensions=filters.dimensions, roles=_roles(reference_role))
    return Sides(comparison, subject, reference)


def pooled_sides(filters: Filters) -> Sides:
    """Every contractor against every researcher (the team: the rater filter does not apply)."""
    sides = comparison_sides(filters.but(raters=()), "contractor_vs_researcher")
    return Sides("pooled", sides.subject, sides.reference)


def ceiling_sides(filters: Filters) -> Sides:
    """Every pair of researchers once, over all dates (the researcher ceiling)."""
    both = Filters(rubric=filters.rubric, dimensions=filters.dimensions, roles=("researcher",))
    return Sides("ceiling", both, both, symmetric=True)


def rater_pair_sides(filters: Filters, comparison: str | None = None) -> Sides:
    """Every pair of raters once, whatever their roles (with `comparison`, only a rater of its subject role with
    one of its reference role), both ratings in the date range."""
    both = filters.but(raters=(), roles=())
    roles = None if comparison is None else COMPARISONS[comparison]
    if roles is None:
        return Sides("rater_pairs", both, both, symmetric=True)
    subject, reference = (both.but(roles=(role,)) for role in roles)
    return Sides("rater_pairs", subject, reference, symmetric=roles[0] == roles[1])


def _side_ctes(
    sides: Sides,
    columns: str,
    join_dims: str = "",
    carry: tuple[str, ...] = (),
    only: str = "TRUE",
    named: bool = True,
) -> tuple[str, dict]:
    """The subject (s), reference (r) and pairs CTEs; `carry` names rating columns kept on both sides of a pair
    (as `<column>_a`, `<column>_b`; internal names only, never user input); `only`, a condition on both sides'
    ratings besides the filters (DuckDB does not push one on the pairs below their join); without `named`, the
    pairs may lack rater_a, rater_b, task_id and target (their keys are there)."""
    s_where, s_params = sides.subject.where_named("", "s_")
    r_where, r_params = sides.reference.where_named("", "r_")
    op = "<" if sides.symmetric else "<>"
    columns = ", ".join([columns, *carry])
    carried = "".join(f", s.{c} AS {c}_a, r.{c} AS {c}_b" for c in carry)
    subjects = f"""WITH s AS (
    SELECT {UNIT_KEYS}, task_id, rubric, dimension, target, rater_id, rater_key, {columns}
    FROM ratings{join_dims}
    WHERE value_index IS NOT NULL AND {s_where} AND {only}
)"""
    if not join_dims and only == "TRUE" and set(carry) <= set(KEPT_CARRY) and _reads_reference_pairs(sides):
        return subjects + _kept_pairs_cte(sides, carry, named), s_params
    sql = f"""{subjects}, r AS (
    SELECT {UNIT_KEYS}, rater_id, rater_key, {columns}
    FROM ratings{join_dims}
    WHERE value_index IS NOT NULL AND {r_where} AND {only}
), pairs AS (
    SELECT s.rater_id AS rater_a, r.rater_id AS rater_b, task_id, rubric, dimension, target, {UNIT_KEYS},
           s.rater_key AS key_a, r.rater_key AS key_b, s.value_index AS index_a, r.value_index AS index_b{carried}
    FROM s JOIN r USING ({UNIT_KEYS})
    WHERE s.rater_id {op} r.rater_id
)"""
    return sql, {**s_params, **r_params}


# Rating columns the kept pairs hold for both sides (analytics/store/derived/reference_pairs.py).
KEPT_CARRY = {"submitted_at": ("submitted_at", "reference_submitted_at")}


def _kept_pairs_cte(sides: Sides, carry: tuple[str, ...], named: bool = True) -> str:
    """The pairs CTE of contractors against researchers from the pairs kept at ingest (same columns as the
    self-join's; the subject filter reads the kept subject columns). Without `named`, no rater, task or target
    names: DuckDB keeps a join whose columns nobody reads, and naming 2.9M pairs took a third of the team's
    weekly pairs query at 1M tasks (0.15 s against 0.11 s)."""
    where, _ = sides.subject.where_named("p", "s_")
    carried = "".join(f", p.{KEPT_CARRY[c][0]} AS {c}_a, p.{KEPT_CARRY[c][1]} AS {c}_b" for c in carry)
    if not named:
        return f""", pairs AS (
    -- contractor-researcher pairs kept at ingest (reference_pairs), on their keys
    SELECT p.rubric, p.dimension, {UNIT_KEYS},
           p.rater_key AS key_a, p.reference_key AS key_b, p.value_index AS index_a, p.reference_index AS index_b{carried}
    FROM reference_pairs p
    WHERE {where}
)"""
    return f""", pairs AS (
    -- contractor-researcher pairs kept at ingest (reference_pairs), named by the key tables
    SELECT p.rater_id AS rater_a, k.rater_b, t.task_id, p.rubric, p.dimension, g.target, {UNIT_KEYS},
           p.rater_key AS key_a, p.reference_key AS key_b, p.value_index AS index_a, p.reference_index AS index_b{carried}
    FROM reference_pairs p
    JOIN task_keys t USING (task_key)
    JOIN target_keys g USING (target_key)
    JOIN (SELECT rater_key AS reference_key, rater_id AS rater_b FROM rater_keys) k USING (reference_key)
    WHERE {where}
)"""


def pair_ctes(sides: Sides, carry: tuple[str, ...] = (), named: bool = True) -> tuple[str, dict]:
    """The pairing as SQL CTEs (`WITH s AS ..., r AS ..., pairs AS (...)`) and its named parameters, for a
    query elsewhere that aggregates the pairs its own way (the pairing itself is only written here); a query
    that reads only the pairs' keys passes `named=False` (no rater_a, rater_b, task_id or target promised)."""
    return _side_ctes(sides, "value_index", carry=carry, named=named)


MIN_BITS = 4  # packed level counts need at least this many bits per level (else the list form is used)


def packing_bits(width: int) -> int:
    """Bits per level when a unit's level counts are packed into one 126-bit integer (0: do not pack)."""
    bits = 126 // max(width, 1)
    return bits if bits >= MIN_BITS else 0


# A pairing packs into a BIGINT when that leaves every level this many bits (255 ratings of one level on a unit;
# more raise PackingOverflow and take the list form): BIGINT codes group faster than HUGEINT ones (the pooled
# pairing at 1M tasks: 0.85-0.99 s to 0.64-0.69 s).
NARROW_BITS = 8


@dataclass(frozen=True)
class Packing:
    """A unit's level counts packed into one SQL integer of `sql_type`, `bits` bits per level."""

    bits: int
    sql_type: str  # BIGINT (63 bits) or HUGEINT (126 bits)

    def one(self, level: str) -> str:
        """SQL: the code of one rating at level index `level` (the parameter $bits bound to `bits`)."""
        return f"CAST(1 AS {self.sql_type}) << ($bits * {level})"

    def total(self, level: str, where: str = "") -> str:
        """SQL: the code of a group's ratings (their level counts), optionally of those passing `where`; NULL when
        none does. A BIGINT sum is a HUGEINT in DuckDB, cast back (an out-of-range code is an overflow)."""
        only = f" FILTER (WHERE {where})" if where else ""
        return f"CAST(sum({self.one(level)}){only} AS {self.sql_type})"


def packing(width: int) -> Packing | None:
    """How a pairing packs the level counts of scales of up to `width` levels (None: the list form)."""
    narrow = 63 // max(width, 1)
    if narrow >= NARROW_BITS:
        return Packing(narrow, "BIGINT")
    bits = packing_bits(width)
    return Packing(bits, "HUGEINT") if bits else None


# Errors of a packed query whose codes cannot hold the counts (as PackingOverflow is, once decoded).
OVERFLOWS = (duckdb.ConversionException, duckdb.OutOfRangeException)


def multi_target_query() -> Query:
    """Dimensions with more than one target (where a task can hold several units of one rater), and whether they
    have exactly two (`two`: the rater-pair grain's task items then hold every rating, a rater rating a unit once)."""
    return Query(
        "multi_target_dimensions",
        """SELECT rubric || chr(31) || dimension AS dimension_key, targets = 2 AS two
FROM (SELECT dim_key, count(DISTINCT target_key) AS targets FROM ratings WHERE value_index IS NOT NULL
      GROUP BY dim_key HAVING count(DISTINCT target_key) > 1)
JOIN dimension_keys USING (dim_key)
ORDER BY ALL""",
    )


def multi_target(con: duckdb.DuckDBPyConnection, queries: list | None = None) -> list[str]:
    """Keys (rubric, chr(31), dimension) of the dimensions with more than one target (logged in `queries`)."""
    return run(con, multi_target_query(), queries)["dimension_key"].tolist()


def selected(keys: list[str], filters: Filters) -> list[str]:
    """The dimension keys (rubric, chr(31), dimension) of `keys` that `filters`' rubric and dimensions select."""
    return [key for key in keys if filters.selects(*key.split(chr(31), 1))]


# A condition on dim_key: one of the dimensions with several targets ($multi). A semi-join on a tiny table,
# applied to pairs: `list_contains($multi, rubric || chr(31) || dimension)` was pushed into the scan and built a
# string per rating (3 of the 5 s of the per-rater query at 1M tasks).
MULTI = """dim_key IN (
    SELECT dim_key FROM dimension_keys WHERE list_contains($multi, rubric || chr(31) || dimension))"""


def _named(grain: str, fields: str, source: str = "grouped", rater_key: bool = False) -> str:
    """The final SELECT of a keyed query: `source`'s groups with their names (dimension keys to rubric and
    dimension; with `rater_key`, the subject's rater key to rater_a; pairs of raters' key_a and key_b to rater_a
    and rater_b), then `fields`. In no order: `signatures` sorts groups and their signatures itself (sorting on
    the signature lists in SQL was 0.1 s of the per-rater pairing at 1M tasks)."""
    names = ", ".join(GRAINS[grain])
    raters = " JOIN (SELECT rater_key, rater_id AS rater_a FROM rater_keys) USING (rater_key)" if rater_key else ""
    if grain == "rater_pair":  # grouped on the raters' integer keys, not their ids (a fifth faster at 1M tasks)
        raters = "".join(
            f" JOIN (SELECT rater_key AS key_{s}, rater_id AS rater_{s} FROM rater_keys) USING (key_{s})" for s in "ab"
        )
    return f"""
SELECT {names}, {fields}
FROM {source} JOIN dimension_keys USING (dim_key){raters}"""


def pair_query(sides: Sides, grain: str, width: int, multi: list[str] | None = None, packed: bool = True) -> Query:
    """Per group of `grain` and task signature, the number of tasks and units with it.

    A signature is either `cells` (the sorted confusion cells index_a * width + index_b of the group's pairs on
    the task) or, for the rater grain when level counts can be packed, `units` (per unit of the task: the
    subject's level, the packed level counts of the unit's other reference ratings and their number). On
    dimensions with one target, a task holds one unit, so tasks are counted without listing them one by one.
    At the rater-pair grain, `packed` chooses the task items on dimensions of several targets
    (`_rater_pair_query`) over listing their tasks.
    """
    multi = [] if multi is None else multi
    pack = packing(width)
    if grain in KEPT_GRAINS and _reads_reference_pairs(sides):
        return _kept_tasks_query(sides, grain, width)
    if grain == "rater" and pack and packed and not sides.symmetric:
        return _packed_rater_query(sides, pack, multi)
    if grain == "dimension" and pack and packed and not sides.symmetric:
        return _packed_dimension_query(sides, pack, multi)
    if grain == "rater_pair" and multi and packed:
        return _rater_pair_query(sides, width, multi)
    keys = ", ".join(KEYED_GRAINS[grain])
    head, params = _side_ctes(sides, "value_index")
    one_pair_per_task = grain == "rater_pair"  # one target: a pair of raters shares at most one unit per task
    fields = "cells, n_tasks, n_units"
    if one_pair_per_task and not multi:
        sql = f"""{head}, grouped AS (
    SELECT {keys}, [index_a * $width + index_b] AS cells, count(*) AS n_tasks, count(*) AS n_units
    FROM pairs
    GROUP BY {keys}, index_a, index_b
){_named(grain, fields)}"""
        return Query(f"pairs_{sides.name}_by_{grain}", sql, {**params, "width": width})
    single = (
        f"""
    SELECT {keys}, [index_a * $width + index_b] AS cells, count(*) AS n_tasks, count(*) AS n_units
    FROM pairs
    WHERE NOT {MULTI}
    GROUP BY {keys}, index_a, index_b
    UNION ALL"""
        if one_pair_per_task
        else ""
    )
    # index_b < width, so a cell's number sorts as (index_a, index_b)
    where = MULTI if one_pair_per_task else "TRUE"
    listed = task_lists(keys, "pairs", where, "index_a * $width + index_b", "index_a, index_b", "cells", "target_key")
    sql = f"""{head}{listed}, grouped AS ({single}
    SELECT * FROM by_list
){_named(grain, fields)}"""
    named = {**params, "width": width, **({"multi": multi} if one_pair_per_task else {})}
    return Query(f"pairs_{sides.name}_by_{grain}", sql, named)


def _rater_tasks(side: Filters, prefix: str) -> str:
    """SQL: per task, dimension of several targets and rater of `side` (its filter's parameters named with
    `prefix`), the lowest and highest (target, level) as target_key * $width + level, and whether those are all
    the rater's ratings of the task, on two targets at most (`simple`)."""
    where, _ = side.where_named("", prefix)
    return f"""SELECT task_key, dim_key, rater_id, rater_key, min(target_key * $width + value_index) AS lo,
           max(target_key * $width + value_index) AS hi,
           count(*) = 1 OR (count(*) = 2 AND min(target_key * $width + value_index) // $width
                                < max(target_key * $width + value_index) // $width) AS simple
    FROM ratings
    WHERE value_index IS NOT NULL AND {where} AND {MULTI}
    GROUP BY task_key, dim_key, rater_id, rater_key"""


def _rater_pair_query(sides: Sides, width: int, multi: list[str]) -> Query:
    """`pair_query` at the rater-pair grain when some dimensions have several targets, without listing tasks
    (`_rater_pair_items`): a task's signature is its one unit pair's cell or its task items' cells."""
    keys = ", ".join(KEYED_GRAINS["rater_pair"])
    head, params = _rater_pair_items(sides)
    sql = f"""{head}, grouped AS (
    SELECT {keys}, [index_a * $width + index_b] AS cells, count(*) AS n_tasks, count(*) AS n_units
    FROM pairs
    GROUP BY {keys}, index_a, index_b
    UNION ALL
    SELECT {keys}, CASE WHEN n_items = 1 THEN [lo] WHEN n_items = 2 THEN [lo, hi] END AS cells, n_tasks, n_units
    FROM two
){_named("rater_pair", "cells, n_tasks, n_units")}"""
    return Query(f"pairs_{sides.name}_by_rater_pair", sql, {**params, "width": width, "multi": multi})


def summed_rater_pair_query(sides: Sides, width: int, multi: list[str]) -> Query:
    """`_rater_pair_query`'s groups with their cells summed over tasks (point estimates only, as `summed_query`):
    the distinct cells with their counts, the group's tasks and units, and `n_over`, its tasks the task items
    cannot pair (any: `summed_signatures` raises TaskItemsOverflow and the list form runs)."""
    keys = ", ".join(KEYED_GRAINS["rater_pair"])
    head, params = _rater_pair_items(sides)
    sql = f"""{head}, counted AS (
    SELECT {keys}, index_a * $width + index_b AS c, count(*) AS n FROM pairs GROUP BY ALL
    UNION ALL
    SELECT {keys}, c, sum(n_tasks) AS n
    FROM (SELECT {keys}, lo AS c, n_tasks FROM two WHERE n_items > 0
          UNION ALL
          SELECT {keys}, hi, n_tasks FROM two WHERE n_items = 2)
    GROUP BY ALL
), totals AS (
    SELECT {keys}, CAST(sum(n_tasks) AS BIGINT) AS n_tasks, CAST(sum(n_units) AS BIGINT) AS n_units,
           CAST(sum(n_over) AS BIGINT) AS n_over
    FROM (SELECT {keys}, count(*) AS n_tasks, count(*) AS n_units, 0 AS n_over FROM pairs GROUP BY ALL
          UNION ALL
          SELECT {keys}, n_tasks, n_units, CASE WHEN n_items < 0 THEN n_tasks ELSE 0 END FROM two)
    GROUP BY ALL
), grouped AS (
    SELECT {keys}, s.cells, s.counts, t.n_tasks, t.n_units, t.n_over
    FROM totals t
    LEFT JOIN (SELECT {keys}, list(c) AS cells, list(n) AS counts FROM counted GROUP BY ALL) s USING ({keys})
){_named("rater_pair", "cells, counts, n_tasks, n_units, n_over")}"""
    return Query(f"pairs_{sides.name}_by_rater_pair_summed", sql, {**params, "width": width, "multi": multi})


def _rater_pair_items(sides: Sides) -> tuple[str, dict]:
    """The CTEs of the rater-pair grain when some dimensions have several targets, ending in pairs and two.

    One-target dimensions pair units (a pair of raters shares at most one per task). On the others, a rater's
    ratings of a task are its one or two (target, level) items (min and max of target * width + level), and two
    raters of a task are paired once: the task's cells are their levels on the targets both rated, so no unit
    pair is formed and none is grouped per task (at 1M tasks, every dimension: 7.8 s to 5.9 s; a rubric with
    three two-target dimensions 9.5 s to 6.2 s). `pair_signatures` uses it where every dimension of several
    targets the filter selects has two (`multi_target_query`'s `two`); a pair where a rater still has more than two
    ratings of the task, or two of one target, comes back with no cells: `signatures` raises TaskItemsOverflow
    and `pair_signatures` runs the list form (`pair_query(..., packed=False)`)."""
    keys = ", ".join(KEYED_GRAINS["rater_pair"])
    head, params = _side_ctes(sides, "value_index", only=f"NOT {MULTI}")  # one-target dimensions' unit pairs
    op = "<" if sides.symmetric else "<>"
    items = ", ".join(
        f"{x}.lo // $width AS {x}t1, {x}.lo % $width AS {x}v1, {x}.hi // $width AS {x}t2, {x}.hi % $width AS {x}v2"
        for x in ("a", "b")
    )
    cell = "CASE WHEN bt1 = {t} THEN {v} * $width + bv1 WHEN bt2 = {t} THEN {v} * $width + bv2 END"
    sql = f"""{head}, s_tasks AS (
    {_rater_tasks(sides.subject, "s_")}
), r_tasks AS (
    {_rater_tasks(sides.reference, "r_")}
), task_cells AS (
    -- per pair of raters and task: the cells of a's lowest and (if it has two) highest target where b rated too
    SELECT key_a, key_b, dim_key, simple, {cell.format(t="at1", v="av1")} AS c1,
           CASE WHEN at2 > at1 THEN {cell.format(t="at2", v="av2")} END AS c2
    FROM (SELECT a.rater_key AS key_a, b.rater_key AS key_b, dim_key, a.simple AND b.simple AS simple, {items}
          FROM s_tasks a JOIN r_tasks b USING (task_key, dim_key)
          WHERE a.rater_id {op} b.rater_id)
), two AS (
    -- tasks per pair and distinct cells (at most two, as lo and hi); n_items -1: tasks the items cannot pair
    SELECT {keys}, lo, hi, n_items, count(*) AS n_tasks, sum(greatest(n_items, 0)) AS n_units
    FROM (SELECT {keys},
                 CASE WHEN c2 IS NULL OR c1 <= c2 THEN coalesce(c1, c2) ELSE c2 END AS lo,
                 CASE WHEN c1 IS NULL OR c2 IS NULL THEN NULL WHEN c1 <= c2 THEN c2 ELSE c1 END AS hi,
                 CASE WHEN NOT simple THEN -1 WHEN c1 IS NULL OR c2 IS NULL THEN 1 ELSE 2 END AS n_items
          FROM task_cells
          WHERE NOT simple OR c1 IS NOT NULL OR c2 IS NOT NULL)
    GROUP BY ALL
)"""
    return sql, params


def _packed_sides(sides: Sides, pack: Packing) -> tuple[str, dict]:
    """The CTEs both packed forms start from: subject ratings (s, with whether each is also a reference
    rating) and each unit's reference ratings (u: their number m and level counts packed, $bits bits a level)."""
    s_where, s_params = sides.subject.where_named("", "s_")
    r_where, r_params = sides.reference.where_named("", "r_")
    sql = f"""WITH s AS (
    SELECT {UNIT_KEYS}, rater_key, value_index, coalesce(({r_where}), false) AS is_reference
    FROM ratings
    WHERE value_index IS NOT NULL AND {s_where}
), u AS (
    -- each unit's reference ratings: their number and their level counts packed, $bits bits per level
    SELECT {UNIT_KEYS}, count(*) AS m, {pack.total("value_index")} AS code
    FROM ratings
    WHERE value_index IS NOT NULL AND {r_where}
    GROUP BY ALL
)"""
    return sql, {**s_params, **r_params, "bits": pack.bits}


def _reads_reference_pairs(sides: Sides) -> bool:
    """Whether `sides` are contractors against researchers (every researcher label of the filter's rubric and
    dimensions, any date): the pairs kept at ingest in reference_pairs (analytics/store/derived/reference_pairs.py)."""
    reference = Filters(rubric=sides.subject.rubric, dimensions=sides.subject.dimensions, roles=(rp.REFERENCE_ROLE,))
    return not sides.symmetric and sides.subject.roles == (rp.SUBJECT_ROLE,) and sides.reference == reference


# Grains whose signatures of contractors against researchers are grouped from reference_tasks. Per dimension, a
# task's signature merges every contractor's cells: listing them per task cost as much as the packed form over
# the kept pairs (0.9 s for 17 dimensions at 1M tasks), which stays.
KEPT_GRAINS = ("rater",)


def _kept_tasks_query(sides: Sides, grain: str, width: int) -> Query:
    """`pair_query` of contractors against researchers per rater, from the confusion cells kept per contractor
    task (analytics/store/derived/reference_tasks.py): a task's signature is its row's cells (the rows of a task rated at
    several submission times merged), grouped; cells are re-numbered to `width` after grouping (reference_tasks
    numbers them by CELL)."""
    head, params = _kept_task_rows(sides)
    sql = f"""{head}, grouped AS (
    SELECT rater_key, dim_key, list_transform(cells, lambda c: (c // {rt.CELL}) * $width + c % {rt.CELL}) AS cells,
           n_tasks, n_units
    FROM (SELECT rater_key, dim_key, cells, count(*) AS n_tasks, sum(n_units) AS n_units FROM tasks GROUP BY ALL)
){_named(grain, "cells, n_tasks, n_units", rater_key=True)}"""
    return Query(f"pairs_{sides.name}_by_{grain}", sql, {**params, "width": width})


def _kept_task_rows(sides: Sides) -> tuple[str, dict]:
    """The CTEs k and tasks of the kept per-rater pairing: per contractor task and dimension its sorted confusion
    cells (reference_tasks' numbering) and its units, a task's rows of several submission times merged."""
    where, params = sides.subject.where_named("", "s_")
    sql = f"""WITH k AS (
    -- contractor tasks with their confusion cells against researchers, kept at ingest (reference_tasks)
    SELECT rater_key, dim_key, task_key, cells, targets, one_row FROM reference_tasks WHERE {where}
), tasks AS (
    SELECT rater_key, dim_key, cells, array_length(targets) AS n_units FROM k WHERE one_row
    UNION ALL
    SELECT rater_key, dim_key, list_sort(flatten(list(cells))), array_length(list_distinct(flatten(list(targets))))
    FROM k WHERE NOT one_row
    GROUP BY rater_key, dim_key, task_key
)"""
    return sql, params


def summed_query(sides: Sides, grain: str, width: int) -> Query:
    """Per group of contractors against researchers at the rater or dimension grain, its confusion cells summed
    over tasks: the distinct cells (numbered index_a * width + index_b) with their counts, and the group's tasks
    and units. What point estimates need, without a row per task signature. The cells are counted from the kept
    pairs (per rater at 1M tasks, unnesting the kept tasks' cell lists took 0.16-0.21 s, counting the pairs on
    their few cells 0.05-0.10 s); per rater, tasks and units come from the kept tasks (`_kept_task_rows`), per
    dimension from the pairs' distinct tasks and units."""
    head, totals, params = _summed_by_rater(sides) if grain == "rater" else _summed_by_dimension(sides)
    keys = "rater_key, dim_key" if grain == "rater" else "dim_key"
    sql = f"""{head}, counted AS (
    SELECT {keys}, value_index * $width + reference_index AS c, count(*) AS n
    FROM pairs
    GROUP BY ALL
), grouped AS (
    SELECT {keys}, s.cells, s.counts, t.n_tasks, t.n_units
    FROM (SELECT {keys}, list(c) AS cells, list(n) AS counts FROM counted GROUP BY ALL) s
    JOIN ({totals}) t USING ({keys})
){_named(grain, "cells, counts, n_tasks, n_units", rater_key=grain == "rater")}"""
    return Query(f"pairs_{sides.name}_by_{grain}_summed", sql, {**params, "width": width})


def _filtered_pairs(sides: Sides, columns: str) -> tuple[str, dict]:
    """The CTE pairs: the `columns` of the kept pairs the filter selects."""
    where, params = sides.subject.where_named("", "s_")
    return (
        f"""pairs AS (
    SELECT {columns} FROM reference_pairs WHERE {where}
)""",
        params,
    )


def _summed_by_rater(sides: Sides) -> tuple[str, str, dict]:
    """`summed_query`'s CTEs per rater: the kept tasks (k, tasks) and the kept pairs the filter selects (pairs),
    with the SELECT of each group's tasks and units."""
    tasks, params = _kept_task_rows(sides)
    pairs, pair_params = _filtered_pairs(sides, "rater_key, dim_key, value_index, reference_index")
    totals = "SELECT rater_key, dim_key, count(*) AS n_tasks, sum(n_units) AS n_units FROM tasks GROUP BY ALL"
    return f"{tasks}, {pairs}", totals, {**params, **pair_params}


def _summed_by_dimension(sides: Sides) -> tuple[str, str, dict]:
    """`summed_query`'s CTE per dimension: the kept pairs the filter selects (pairs), with the SELECT of each
    dimension's distinct tasks and units among them."""
    pairs, params = _filtered_pairs(sides, "dim_key, task_key, target_key, value_index, reference_index")
    totals = """SELECT dim_key, count(DISTINCT task_key) AS n_tasks, count(DISTINCT (task_key, target_key)) AS n_units
          FROM pairs GROUP BY ALL"""
    return f"WITH {pairs}", totals, params


def _kept_pairs(sides: Sides, pack: Packing) -> tuple[str, dict]:
    """The CTE p of the packed form over the kept pairs: each researcher label on a unit where a subject rating
    the filter selects has a pair, with those subject ratings (their number m and level counts packed, $bits bits
    a level). A unit's kept pairs are every selected subject rating with every researcher label, so each label
    sees the same subject ratings; grouped per label, not per subject rating: a unit holds fewer labels than
    contractor ratings (0.99M groups instead of 2.26M at 1M tasks, 1.3 s of CPU instead of 2.0 for the query)."""
    s_where, s_params = sides.subject.where_named("", "s_")
    sql = f"""WITH p AS (
    -- researcher labels with their unit's selected contractor ratings, from the pairs kept at ingest
    SELECT {UNIT_KEYS}, reference_key, reference_index, count(*) AS m,
           {pack.total("value_index")} AS code
    FROM reference_pairs
    WHERE {s_where}
    GROUP BY {UNIT_KEYS}, reference_key, reference_index
)"""
    return sql, {**s_params, "bits": pack.bits}


def _kept_pair_sums(sides: Sides, pack: Packing) -> tuple[str, dict]:
    """The CTE units of the packed form over the kept pairs, in one pass: per unit where a subject rating the
    filter selects has a pair, the packed level counts of its pairs' subject sides (S) and reference sides (R)
    and its number of pairs (n). A unit's kept pairs are each of its ms selected subject ratings with each of its
    mr researcher labels, so S = mr * cs and R = ms * cr (cs, cr: the two sides' level counts) and n = ms * mr:
    its confusion cells cs x cr are S x R / n (`_decode`'s "pair_sums"). Grouping per researcher label first and
    then per unit to find cs and cr themselves (`_kept_pairs`) took more CPU (bench/RESULTS.md, session 26)."""
    s_where, s_params = sides.subject.where_named("", "s_")
    sql = f"""WITH units AS (
    -- the pairs kept at ingest of each unit with a selected contractor rating, summed per side
    SELECT {UNIT_KEYS}, {pack.total("value_index")} AS cs, count(*) AS n, {pack.total("reference_index")} AS cr
    FROM reference_pairs
    WHERE {s_where}
    GROUP BY {UNIT_KEYS}
)"""
    return sql, {**s_params, "bits": pack.bits}


def task_lists(keys: str, source: str, where: str, item: str, order: str, name: str, unit: str | None) -> str:
    """CTEs (ending in `by_list`) giving per group of `keys` each distinct task signature, the sorted list `name`
    of the task's `item`s (rows of `source` passing `where`), with n_tasks and n_units (the distinct values of the
    column `unit` on the task; None: each item is a unit). Tasks of one or two items take min and max, not a
    list: grouping on lists is slow (a quarter of the time at 1M tasks) and most tasks hold one or two units;
    their units are counted from min and max too (a count(DISTINCT) per task was a third of the rater-pair
    query at 1M tasks)."""
    spread = f", min({unit}) AS unit_lo, max({unit}) AS unit_hi" if unit else ""
    few_units = "sum(CASE WHEN unit_lo = unit_hi THEN 1 ELSE 2 END)" if unit else "sum(n_items)"
    few = f"""per_task AS (
    SELECT {keys}, task_key, min({item}) AS lo, max({item}) AS hi, count(*) AS n_items{spread}
    FROM {source}
    WHERE {where}
    GROUP BY ALL
), few AS (
    SELECT {keys}, CASE WHEN n_items = 1 THEN [lo] ELSE [lo, hi] END AS {name}, n_tasks, n_units
    FROM (SELECT {keys}, lo, hi, n_items, count(*) AS n_tasks, {few_units} AS n_units
          FROM per_task WHERE n_items <= 2 GROUP BY ALL)
)"""
    units = f"count(DISTINCT {unit})" if unit else "count(*)"
    return _with_listed(few, "n_items > 2", keys, source, where, f"list({item} ORDER BY {order})", name, units)


def unit_lists(keys: str, source: str, where: str, fields: tuple[str, ...], name: str, ident: str) -> str:
    """`task_lists` of units whose items are the tuples of `fields` (one row of `source` per unit), sorted as
    tuples. A task of one unit, or of two told apart by the column `ident`, takes each field of the unit with
    the lowest and the highest `ident` (arg_min and arg_max) and orders the two in SQL: min and max over the
    six-field tuples of the pooled pairing took 1.16 s of operator time at 1M tasks, the picks 0.66 s (for two
    fields they are no faster: task_patterns_query keeps `task_lists`). Other tasks (more units, or two with one
    `ident`) are listed."""
    n = range(len(fields))
    picks = ", ".join(f"arg_min({f}, {ident}) AS a_{i}, arg_max({f}, {ident}) AS b_{i}" for i, f in enumerate(fields))
    first = f"a_{n[-1]} <= b_{n[-1]}"  # whether the lowest `ident`'s unit sorts first, field by field
    for i in reversed(n[:-1]):
        first = f"(a_{i} < b_{i} OR (a_{i} = b_{i} AND {first}))"
    lo, hi = (", ".join(f"{p}_{i}" for i in n) for p in ("lo", "hi"))
    ordered = ", ".join(
        f"CASE WHEN a_first THEN a_{i} ELSE b_{i} END AS lo_{i}, CASE WHEN a_first THEN b_{i} ELSE a_{i} END AS hi_{i}"
        for i in n
    )
    item = f"({', '.join(fields)})"
    named = {p: ", ".join(f"{p}_{i} AS {f}" for i, f in enumerate(fields)) for p in ("lo", "hi")}
    few = f"""per_task AS (
    SELECT {keys}, task_key, count(*) AS n_items, min({ident}) < max({ident}) AS apart, {picks}
    FROM {source}
    WHERE {where}
    GROUP BY ALL
), few_units AS (
    SELECT {keys}, {lo}, {hi}, n_items, count(*) AS n_tasks, sum(n_items) AS n_units
    FROM (SELECT {keys}, n_items, {ordered}
          FROM (SELECT *, {first} AS a_first FROM per_task WHERE n_items = 1 OR (n_items = 2 AND apart)))
    GROUP BY ALL
), few AS (
    -- each tuple made from columns named as its fields: Spark names a struct's fields after its columns
    SELECT {keys}, CASE WHEN n_items = 1 THEN [lo] ELSE [lo, {item}] END AS {name}, n_tasks, n_units
    FROM (SELECT {keys}, n_items, n_tasks, n_units, lo, {named["hi"]}
          FROM (SELECT {keys}, n_items, n_tasks, n_units, {hi}, {item} AS lo
                FROM (SELECT {keys}, n_items, n_tasks, n_units, {hi}, {named["lo"]} FROM few_units)))
)"""
    # two units with one `ident` are listed, so a list can come from both kinds of task: merged
    listed = "n_items > 2 OR (n_items = 2 AND NOT apart)"
    agg = f"list({item} ORDER BY {', '.join(fields)})"
    return _with_listed(few, listed, keys, source, where, agg, name, "count(*)", merge=True)


def _with_listed(
    few: str, listed_when: str, keys: str, source: str, where: str, agg: str, name: str, units: str, merge: bool = False
) -> str:
    """The CTEs of `few` (per_task, and few: the tasks it lists itself) followed by `listed` (the tasks of
    per_task passing `listed_when`, their items aggregated by `agg`) and `by_list`, both kinds grouped; with
    `merge`, a list both kinds give is one row (grouping the few distinct lists, not the tasks)."""
    both = f"""SELECT * FROM few
    UNION ALL
    SELECT {keys}, {name}, count(*) AS n_tasks, sum(n_units) AS n_units
    FROM listed
    GROUP BY ALL"""
    if merge:
        both = f"""SELECT {keys}, {name}, sum(n_tasks) AS n_tasks, sum(n_units) AS n_units
    FROM ({both})
    GROUP BY ALL"""
    return f""", {few}, listed AS (
    SELECT {keys}, task_key, {agg} AS {name}, {units} AS n_units
    FROM {source} SEMI JOIN (SELECT {keys}, task_key FROM per_task WHERE {listed_when}) USING ({keys}, task_key)
    WHERE {where}
    GROUP BY ALL
), by_list AS (
    {both}
)"""


def _packed_tail(source: str, keys: str, packed: tuple[str, ...], name: str, has_pair: str, multi: list[str]) -> str:
    """The CTE `grouped` of a packed form over `source` (one row per unit): per group of `keys`, each distinct
    unit (`packed` columns, as the list `name`) with its tasks; on dimensions with several targets, a task's
    units listed together. Units without a pair (`has_pair` false) are left out."""
    fields = ", ".join(packed)
    single = f"""
    SELECT {keys}, [({fields})] AS {name}, count(*) AS n_tasks, count(*) AS n_units
    FROM {source}
    WHERE {has_pair}{{}}
    GROUP BY {keys}, {fields}"""
    if not multi:  # every dimension has one target: a task is its one unit
        return f""", grouped AS ({single.format("")}
)"""
    listed = unit_lists(keys, source, f"{has_pair} AND {MULTI}", packed, name, "target_key")
    return f"""{listed}, grouped AS ({single.format(f" AND NOT {MULTI}")}
    UNION ALL
    SELECT * FROM by_list
)"""


def _packed_rater_query(sides: Sides, pack: Packing, multi: list[str]) -> Query:
    """`pair_query` at the rater grain from each unit's packed reference level counts: no pair is formed, so
    raters of one role against each other cost one pass instead of a self-join."""
    head, params = _packed_sides(sides, pack)
    rows = f"""-- each subject rating with the unit's reference ratings other than its own
    SELECT s.rater_key, dim_key, task_key, target_key, s.value_index AS index_a,
           u.code - CASE WHEN s.is_reference THEN {pack.one("s.value_index")} ELSE 0 END AS code,
           u.m - CAST(s.is_reference AS INTEGER) AS m
    FROM s JOIN u USING ({UNIT_KEYS})"""
    tail = _packed_tail("j", "rater_key, dim_key", ("index_a", "code", "m"), "units", "m > 0", multi)
    sql = f"""{head}, j AS (
    {rows}
){tail}{_named("rater", "units, n_tasks, n_units", rater_key=True)}"""
    return Query(f"pairs_{sides.name}_by_rater", sql, {**params, **({"multi": multi} if multi else {})})


def _packed_dimension_query(sides: Sides, pack: Packing, multi: list[str]) -> Query:
    """`pair_query` at the dimension grain from packed level counts: per unit with a reference rating, its
    subject ratings (S), its reference ratings (R) and the ratings on both sides (B). A unit's pairs are every
    subject with every reference rating but itself, so its confusion cells are S x R minus B on the diagonal:
    no pair is formed, and on a dimension with one target no task is listed. Over the kept pairs (no rating on
    both sides: B is empty, and every unit has a pair) each unit's pairs are summed in one pass
    (`_kept_pair_sums`) where a level has NARROW_BITS bits or more; the sums' levels count up to ms * mr, which
    narrower levels (4-7 bits, scales of 16-31 levels) overflow on units of a few raters a side, so those group
    per researcher label first."""
    multi_param = {"multi": multi} if multi else {}
    if _reads_reference_pairs(sides) and pack.bits >= NARROW_BITS:
        head, params = _kept_pair_sums(sides, pack)
        tail = _packed_tail("units", "dim_key", ("cs", "n", "cr"), "pair_sums", "TRUE", multi)
        return Query(
            f"pairs_{sides.name}_by_dimension",
            f"""{head}{tail}{_named("dimension", "pair_sums, n_tasks, n_units")}""",
            {**params, **multi_param},
        )
    fields: tuple[str, ...] = ("cs", "ms", "cr", "mr", "cb", "mb")
    has_pair = "ms * mr > mb"  # S x R minus B: a pair other than a rating with itself
    if _reads_reference_pairs(sides):
        head, params = _kept_pairs(sides, pack)
        units = f"""SELECT dim_key, task_key, target_key, any_value(code) AS cs, any_value(m) AS ms,
           {pack.total("reference_index")} AS cr, count(*) AS mr
    FROM p"""
        fields, has_pair = fields[:4], "TRUE"
    else:
        head, params = _packed_sides(sides, pack)
        units = f"""-- each such unit's subject counts (S), reference counts (R) and the subject ratings among them (B)
    SELECT dim_key, task_key, target_key, {pack.total("s.value_index")} AS cs, count(*) AS ms, any_value(u.code) AS cr,
           any_value(u.m) AS mr, coalesce({pack.total("s.value_index", "s.is_reference")}, 0) AS cb,
           count(*) FILTER (WHERE s.is_reference) AS mb
    FROM s JOIN u USING ({UNIT_KEYS})"""
    tail = _packed_tail("units", "dim_key", fields, "sides", has_pair, multi)
    sql = f"""{head}, units AS (
    {units}
    GROUP BY {UNIT_KEYS}
){tail}{_named("dimension", "sides, n_tasks, n_units")}"""
    return Query(f"pairs_{sides.name}_by_dimension", sql, {**params, **multi_param})


def ranking_query(sides: Sides, grain: str) -> Query:
    """Per group of `grain` and task: item pairs both sides order alike, oppositely or tie, grouped by tasks."""
    group = ", ".join(f"a.{k}" for k in GRAINS[grain])
    # joined by name, every rating of the filter was read first: 0.26-0.31 s at 1M tasks with no ranking scale rated
    join = f" SEMI JOIN ({keys.RANKING_DIM_KEYS}) USING (dim_key)"
    head, params = _side_ctes(sides, "value_index", join)
    sql = f"""{head}, item_pairs AS (
    SELECT {group}, a.task_key,
           count(*) FILTER (WHERE sign(a.index_a - b.index_a) * sign(a.index_b - b.index_b) > 0) AS concordant,
           count(*) FILTER (WHERE sign(a.index_a - b.index_a) * sign(a.index_b - b.index_b) < 0) AS discordant,
           count(*) FILTER (WHERE a.index_a = b.index_a AND a.index_b <> b.index_b) AS tied_subject,
           count(*) FILTER (WHERE a.index_a <> b.index_a AND a.index_b = b.index_b) AS tied_reference,
           count(*) FILTER (WHERE a.index_a = b.index_a AND a.index_b = b.index_b) AS tied_both
    FROM pairs a JOIN pairs b
      ON a.key_a = b.key_a AND a.key_b = b.key_b AND a.task_key = b.task_key
     AND a.dim_key = b.dim_key AND a.target_key < b.target_key
    GROUP BY {group}, a.task_key
)
SELECT {", ".join(GRAINS[grain])}, {", ".join(TAU_COLUMNS)}, count(*) AS n_tasks
FROM item_pairs
GROUP BY ALL
ORDER BY ALL"""
    return Query(f"ranking_pairs_{sides.name}_by_{grain}", sql, params)


def unit_pairs_query(sides: Sides) -> Query:
    """Every pair itself (one row per pair of ratings), for drilling into cases on a few units."""
    head, params = _side_ctes(sides, "value_index")
    return Query(f"pair_rows_{sides.name}", f"{head}\nSELECT * EXCLUDE ({PAIR_KEYS}) FROM pairs ORDER BY ALL", params)


CASE_COLUMNS = ("value", "submitted_at")


def case_pairs_query(sides: Sides, disagreeing: bool = True) -> Query:
    """The pairs of `unit_pairs_query` with both ratings' stored values and submission times (value_a,
    value_b, submitted_at_a, submitted_at_b); with `disagreeing`, only pairs on different levels
    (index_a <> index_b). The Disagreements case list and the Feedback report's cases read it."""
    head, params = _side_ctes(sides, "value_index", carry=CASE_COLUMNS)
    where = " WHERE index_a <> index_b" if disagreeing else ""
    sql = f"{head}\nSELECT * EXCLUDE ({PAIR_KEYS}) FROM pairs{where} ORDER BY ALL"
    return Query(f"case_pairs_{sides.name}", sql, params)


def shared_tasks_query(sides: Sides, bound: dict[str, int]) -> Query:
    """How many tasks the subject side rated (`subject_tasks`) and how many of them have a pair with the
    reference side on some unit (`paired_tasks`), per rubric, under the filter rules above. Contractors against
    researchers without a dimension filter read the rater tasks and the cells per contractor task kept at ingest
    (analytics/store/derived/rater_tasks.py, analytics/store/derived/reference_tasks.py). `bound` is keys.task_key_bound's."""
    tail = """
SELECT rubric, subject_tasks, coalesce(paired_tasks, 0) AS paired_tasks
FROM rated LEFT JOIN paired USING (rubric)
ORDER BY rubric"""
    tasks = keys.distinct_tasks("task_key")
    if _reads_reference_pairs(sides) and not sides.subject.dimensions:
        where, params = sides.subject.where_named("", "s_")
        sql = f"""WITH rated AS (
    SELECT rubric, {tasks} AS subject_tasks FROM rater_tasks WHERE n_valued > 0 AND {where} GROUP BY rubric
), paired AS (
    SELECT rubric, {tasks} AS paired_tasks FROM reference_tasks WHERE {where} GROUP BY rubric
){tail}"""
    else:
        head, params = _side_ctes(sides, "value_index")
        sql = f"""{head}, rated AS (
    SELECT rubric, {tasks} AS subject_tasks FROM s GROUP BY rubric
), paired AS (
    SELECT rubric, {tasks} AS paired_tasks FROM pairs GROUP BY rubric
){tail}"""
    return Query(f"shared_tasks_{sides.name}", sql, {**params, **bound})


@dataclass(frozen=True)
class Signatures:
    """One group's tasks as distinct confusion-cell signatures over the full scale; or, `summed` (point
    estimates only), its cells summed over every task as one row of weight 1."""

    cells: np.ndarray  # (signatures x q*q) counts of (subject level, reference level) pairs
    n_tasks: np.ndarray  # (signatures,) tasks with each signature
    n_units: int  # distinct units with a pair
    summed_tasks: int | None = None  # set when the tasks were summed in SQL: how many there were

    @property
    def tasks(self) -> int:
        """Number of tasks with a pair."""
        return int(self.n_tasks.sum()) if self.summed_tasks is None else self.summed_tasks

    @property
    def summed(self) -> bool:
        """Whether the tasks were summed (no interval can resample them)."""
        return self.summed_tasks is not None

    def table(self, q: int) -> np.ndarray:
        """The (q x q) confusion counts summed over every task."""
        return (self.n_tasks @ self.cells).reshape(q, q)


class PackingOverflow(RuntimeError):
    """A unit holds more ratings of one level than its packed counts can: use the list form."""


class TaskItemsOverflow(PackingOverflow):
    """A rater holds more ratings of a task than the rater-pair grain's task items (`_rater_pair_query`): two
    at most, on two targets. The list form pairs such tasks."""


def unpack(code: int, m: int, bits: int, q: int) -> np.ndarray:
    """The level counts packed in `code` (`bits` bits per level), checked against their number `m`."""
    return unpack_codes(_split([code]), np.array([m], dtype=np.int64), bits, q)[0]


def signatures(
    result: pd.DataFrame | pa.Table, grain: str, width: int, q_of: Callable[[tuple], int | None]
) -> dict[tuple, Signatures]:
    """Decode a `pair_query` result (`fetch`'s Arrow table, or a DataFrame) into each group's Signatures (groups
    whose scale is unknown are left out).

    Decoded per scale size at once (not group by group: pairs of raters are tens of thousands of groups)."""
    keys = list(GRAINS[grain])
    out: dict[tuple, Signatures] = {}
    if not len(result):
        return out
    names = result.column_names if isinstance(result, pa.Table) else list(result.columns)
    form = next(c for c in ("sides", "pair_sums", "units", "cells") if c in names)
    missing = result.column(form).null_count if isinstance(result, pa.Table) else int(result[form].isna().sum())
    if missing:  # only the task items leave a signature out (a task they cannot pair)
        raise TaskItemsOverflow(f"{missing} group(s) hold tasks the task items cannot pair")
    found = entries(result, form, form)
    if isinstance(result, pa.Table):
        n_units = pc.cast(result.column("n_units"), pa.float64())  # a HUGEINT sum: Decimal objects in pandas
        rest = result.drop_columns([form])
        df = rest.set_column(rest.schema.get_field_index("n_units"), "n_units", n_units).to_pandas()
    else:
        df = result
    gid = df.groupby(keys, sort=True).ngroup().to_numpy()
    order = np.argsort(gid, kind="stable")
    df, gid = df.iloc[order].reset_index(drop=True), gid[order]
    found = found.moved(np.argsort(order))
    starts = np.flatnonzero(np.r_[True, gid[1:] != gid[:-1]])
    ends = np.r_[starts[1:], len(df)]
    group_keys = list(df.loc[starts, keys].itertuples(index=False, name=None))
    qs = [q_of(k) for k in group_keys]
    q_row = np.repeat([q or 0 for q in qs], ends - starts)
    n_tasks_all, n_units_all = df["n_tasks"].to_numpy(float), df["n_units"].to_numpy(float)
    for q in sorted({q for q in qs if q}):
        rows = np.flatnonzero(q_row == q)
        decoded = _decode(form, found.of_rows(rows, len(df)), len(rows), q, width)
        cells, n_tasks, group = _distinct(decoded, n_tasks_all[rows], gid[rows])
        mine = np.flatnonzero([k == q for k in qs])  # the groups of this scale size
        los, his = np.searchsorted(group, mine, side="left"), np.searchsorted(group, mine, side="right")
        for g, lo, hi in zip(mine, los, his, strict=True):
            n_units = int(n_units_all[starts[g] : ends[g]].sum())
            out[group_keys[g]] = Signatures(cells[lo:hi], n_tasks[lo:hi], n_units)
    return out


def summed_signatures(
    result: pa.Table, grain: str, width: int, q_of: Callable[[tuple], int | None]
) -> dict[tuple, Signatures]:
    """Decode a `summed_query` or `summed_rater_pair_query` result into each group's summed Signatures (groups
    whose scale is unknown are left out; cells off a group's scale are dropped, as `_decode` drops them)."""
    keys = list(GRAINS[grain])
    if not result.num_rows:
        return {}
    if "n_over" in result.column_names and pc.max(result.column("n_over")).as_py():
        raise TaskItemsOverflow("some group(s) hold tasks the task items cannot pair")
    cells = result.column("cells").combine_chunks()
    row = pc.list_parent_indices(cells).to_numpy().astype(np.int64)
    code = _ints(pc.list_flatten(cells))
    count = _ints(pc.list_flatten(result.column("counts").combine_chunks())).astype(float)
    group_keys = list(zip(*(result.column(k).to_pylist() for k in keys), strict=True))
    q = np.array([q_of(k) or 0 for k in group_keys], dtype=np.int64)
    start = np.r_[0, np.cumsum(q * q)]  # each group's q*q cells laid end to end
    ok, at = _cell_at(code, width, q[row])
    flat = np.bincount(start[row[ok]] + at[ok], weights=count[ok], minlength=int(start[-1]))
    n_tasks, n_units = (_ints(result.column(c).combine_chunks()) for c in ("n_tasks", "n_units"))
    return {
        key: Signatures(flat[start[i] : start[i + 1]][None, :], np.ones(1), int(n_units[i]), int(n_tasks[i]))
        for i, key in sorted(enumerate(group_keys), key=lambda ik: ik[1])
        if q[i]
    }


@dataclass(frozen=True)
class Entries:
    """A signature column flattened: per entry (a cell, a unit or a unit's sides), its result row and its fields;
    a packed code is an (entries x 2) uint64 array of its low and high 64 bits."""

    row: np.ndarray
    fields: tuple[np.ndarray, ...]

    def moved(self, new_row: np.ndarray) -> Entries:
        """The entries of rows renumbered by `new_row` (old row -> new row)."""
        return Entries(new_row[self.row], self.fields)

    def of_rows(self, rows: np.ndarray, n_rows: int) -> Entries:
        """The entries of `rows` only, their rows numbered by position in `rows`."""
        at = np.full(n_rows, -1)
        at[rows] = np.arange(len(rows))
        keep = at[self.row] >= 0
        return Entries(at[self.row[keep]], tuple(f[keep] for f in self.fields))


# Per signature form, the positions of its fields that are packed level counts (Packing's codes).
CODE_FIELDS = {"cells": (), "units": (1,), "sides": (0, 2, 4), "pair_sums": (0, 2), "patterns": (0,)}


def entries(result: pd.DataFrame | pa.Table, column: str, form: str) -> Entries:
    """The entries of `result`'s list column `column` (signatures of `form`), from Arrow or a DataFrame."""
    if isinstance(result, pa.Table):
        return _arrow_entries(form, result.column(column))
    return _object_entries(form, result[column].to_numpy())


def _arrow_entries(form: str, column: pa.ChunkedArray) -> Entries:
    """The entries of a signature column fetched as Arrow (no Python object per entry)."""
    lists = column.combine_chunks()
    row = pc.list_parent_indices(lists).to_numpy().astype(np.int64)
    flat = pc.list_flatten(lists)
    parts = [flat] if form == "cells" else flat.flatten()
    fields = tuple(_codes(p) if i in CODE_FIELDS[form] else _ints(p) for i, p in enumerate(parts))
    return Entries(row, fields)


def _ints(values: pa.Array) -> np.ndarray:
    """An Arrow integer (or integral decimal) array as int64."""
    return pc.cast(values, pa.int64()).to_numpy(zero_copy_only=False)


def _codes(values: pa.Array) -> np.ndarray:
    """Packed codes (DuckDB's HUGEINT arrives as decimal128(38, 0): 16-byte little-endian integers; a BIGINT as
    int64, never negative) as their (low, high) 64-bit halves."""
    if pa.types.is_int64(values.type) and not values.null_count:
        return np.column_stack([values.to_numpy().astype(np.uint64), np.zeros(len(values), np.uint64)])
    if not pa.types.is_decimal128(values.type) or values.type.scale != 0 or values.null_count:
        return _split([int(v) for v in values.to_pylist()])
    words = np.frombuffer(values.buffers()[1], dtype="<u8").reshape(-1, 2)
    return words[values.offset : values.offset + len(values)]


def _split(codes: Iterable[int]) -> np.ndarray:
    """Python integers below 2**128 as their (low, high) 64-bit halves."""
    low = (1 << 64) - 1
    return np.array([(c & low, c >> 64) for c in codes], dtype=np.uint64).reshape(-1, 2)


def _object_entries(form: str, values: np.ndarray) -> Entries:
    """The entries of a signature column of Python objects (lists of cells, or of tuples or dicts)."""
    if form == "cells":
        lens = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
        flat = np.concatenate([np.asarray(v, dtype=np.int64) for v in values]) if len(values) else np.zeros(0, np.int64)
        return Entries(np.repeat(np.arange(len(values)), lens), (flat,))
    n_fields = {"units": 3, "sides": 6, "pair_sums": 3, "patterns": 2}[form]
    rows = [(i, *(u.values() if isinstance(u, dict) else u)) for i, units in enumerate(values) for u in units]
    cols = list(zip(*rows, strict=True)) if rows else [()] * (n_fields + 1)
    fields = tuple(
        _split(c) if i in CODE_FIELDS[form] else np.asarray(c, dtype=np.int64).reshape(-1)
        for i, c in enumerate(cols[1:])
    )
    return Entries(np.asarray(cols[0], dtype=np.int64).reshape(-1), fields)


def _distinct(cells: np.ndarray, n_tasks: np.ndarray, group: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each group's distinct cells rows with their summed task counts, sorted by group then cells (np.unique's
    order): packed units that differ can give the same cells, and every query form's signatures come out in one
    order, so a resample draws the same tasks whichever form ran."""
    order, keys = _row_order(cells, group)
    if keys is None:
        sorted_cells, sorted_group = cells[order], group[order]
        new = np.r_[True, (sorted_group[1:] != sorted_group[:-1]) | (sorted_cells[1:] != sorted_cells[:-1]).any(axis=1)]
    else:  # rows compared as their sort keys' bytes: a fraction of the float cells' memory
        new = np.r_[True, keys[order[1:]] != keys[order[:-1]]]
    which = np.cumsum(new) - 1
    first = order[new]
    return cells[first], np.bincount(which, weights=n_tasks[order]), group[first]


def _row_order(cells: np.ndarray, group: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """The stable order of rows by group, then cells (np.lexsort's), and the rows' sort keys: each row's group
    and cells as big-endian bytes, one sort of those (a lexsort makes a pass per cell, 4-5x slower on the 25 cells
    of a five-level scale); None beside np.lexsort's order where values do not fit below 2**32."""
    n = len(cells)
    if not n or min(cells.min(), group.min()) < 0 or max(cells.max(), group.max()) >= 2**32:
        return np.lexsort([*cells.T[::-1], group]), None
    parts = [_big_endian(group).reshape(n, -1), _big_endian(cells).reshape(n, -1)]
    keys = np.ascontiguousarray(np.concatenate(parts, axis=1))
    rows = keys.view(np.dtype((np.void, keys.shape[1]))).ravel()
    return np.argsort(rows, kind="stable"), rows


def _big_endian(values: np.ndarray) -> np.ndarray:
    """Non-negative integers below 2**32 as the bytes of the narrowest big-endian unsigned type holding them all."""
    top = int(values.max())
    width = ">u1" if top < 2**8 else ">u2" if top < 2**16 else ">u4"
    return values.astype(width).view(np.uint8)


def _decode(form: str, entries: Entries, n_rows: int, q: int, width: int) -> np.ndarray:
    """(rows x q*q) confusion cells of `pair_query` rows of one scale size, from their entries."""
    row = entries.row
    if form == "cells":
        ok, at = _cell_at(entries.fields[0], width, q)
        return _summed(n_rows, q, row[ok] * q * q + at[ok])
    if not len(row):
        return np.zeros((n_rows, q * q))
    bits = packing(width).bits  # type: ignore[union-attr]  # a packed form ran: the width packs
    if form == "units":  # (subject level, packed reference counts, their number)
        a, code, m = entries.fields
        on = a < q
        counts = unpack_codes(code[on], m[on], bits, q)
        return _summed(n_rows, q, (row[on] * q * q + a[on] * q)[:, None] + np.arange(q), counts)
    f = entries.fields
    if form == "pair_sums":  # a unit's kept pairs summed per side (S, n, R): its cells are S x R / n
        pair_s, pair_r = (unpack_codes(f[i], f[1], bits, q) for i in (0, 2))
        cells = pair_s[:, :, None] * pair_r[:, None, :] / f[1][:, None, None]
        return _summed(n_rows, q, row[:, None] * q * q + np.arange(q * q), cells.reshape(len(row), q * q))
    # (S, R, B) codes and counts
    subject, reference = (unpack_codes(f[i], f[i + 1], bits, q) for i in (0, 2))
    pairs = subject[:, :, None] * reference[:, None, :]
    if len(f) > 4:
        pairs[:, np.arange(q), np.arange(q)] -= unpack_codes(f[4], f[5], bits, q)
    return _summed(n_rows, q, row[:, None] * q * q + np.arange(q * q), pairs.reshape(len(row), q * q))


def _cell_at(code: np.ndarray, width: int, q: int | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per confusion cell code (a * width + b), whether it lies on a q x q scale and its flat index a * q + b there
    (`q`: one size, or one per code)."""
    a, b = code // width, code % width
    return (a < q) & (b < q), a * q + b


def _summed(n_rows: int, q: int, at: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """(rows x q*q) sums of `weights` (default 1 each) at the flat cell indices `at` (row * q*q + cell). A bincount:
    with np.add.at the team's per-rater decoding at 1M tasks took 0.069 s instead of 0.043 s."""
    w = None if weights is None else weights.reshape(-1)
    return (
        np.bincount(at.reshape(-1), weights=w, minlength=n_rows * q * q)
        .astype(float, copy=False)
        .reshape(n_rows, q * q)
    )


def unpack_codes(codes: np.ndarray, m: np.ndarray, bits: int, q: int) -> np.ndarray:
    """The level counts packed in each of `codes` ((low, high) 64-bit halves, `bits` bits per level) as
    (units x q), checked against their numbers `m` (PackingOverflow when a unit holds more ratings of one level
    than the bits can count)."""
    low, high = codes[:, 0], codes[:, 1]
    mask = np.uint64((1 << min(bits, 64)) - 1)  # a count above 2**64 cannot be: m's check would catch it
    counts = np.empty((len(codes), q))
    for k in range(q):
        at = bits * k
        if at >= 64:
            word = high >> np.uint64(at - 64)
        else:
            word = low >> np.uint64(at)
            if 0 < at < 64 < at + bits:  # the level's bits straddle the two halves
                word = word | (high << np.uint64(64 - at))
        counts[:, k] = word & mask
    if len(codes) and not np.array_equal(counts.sum(axis=1), m.astype(float)):
        bad = int(np.flatnonzero(counts.sum(axis=1) != m)[0])
        raise PackingOverflow(f"packed level counts {counts[bad].tolist()} do not add up to {int(m[bad])} ratings")
    return counts


def fetch(con: duckdb.DuckDBPyConnection, query: Query) -> pd.DataFrame | pa.Table:
    """A pair query's result: as Arrow on DuckDB (its nested signatures then decode without a Python object per
    entry), else (the Spark engine) as a DataFrame."""
    if isinstance(con, duckdb.DuckDBPyConnection):
        return con.sql(query.sql, params=query.params).to_arrow_table()
    return query.df(con)


def pair_signatures(
    con: duckdb.DuckDBPyConnection,
    sides: Sides,
    grain: str,
    q_of: Callable[[tuple], int | None],
    queries: list | None = None,
    summed: bool = False,
) -> dict[tuple, Signatures]:
    """Run `pair_query` for `sides` at `grain` and decode it (the list form when packed counts overflow);
    the queries that ran are appended to `queries`. With `summed` (no interval will resample the tasks), the
    kept pairs per rater or dimension and the rater-pair task items come summed per group (`summed_query`,
    `summed_rater_pair_query`): the same tables without a row per task signature to fetch and decode (0.2 s of
    Python for the per-rater pairing at 1M tasks)."""
    width = scale_width(con, queries)
    # Only the rater-pair grain and the packed rater and dimension grains count one-target dimensions apart; the
    # others need no pass over the ratings to find the dimensions with several targets.
    reads_kept = _reads_reference_pairs(sides)
    kept = grain in KEPT_GRAINS and reads_kept  # kept per task: no targets to count apart
    duck = isinstance(con, duckdb.DuckDBPyConnection)  # Spark keeps the signatures' queries
    if summed and duck and grain in ("rater", "dimension") and reads_kept:
        return _logged(
            queries, summed_query(sides, grain, width), lambda q: summed_signatures(fetch(con, q), grain, width, q_of)
        )
    packs = grain in ("rater", "dimension") and packing(width) is not None and not sides.symmetric and not kept
    needs_multi = grain == "rater_pair" or packs
    found = run(con, multi_target_query(), queries) if needs_multi else None
    multi = [] if found is None else found["dimension_key"].tolist()
    packed = True
    if grain == "rater_pair" and multi:
        multi = selected(multi, sides.subject)  # only dimensions the pairs can be on count (both sides share them)
        # the task items serve dimensions of two targets; on wider ones (instruction following rates four
        # outputs) they would only find out and fall back, so those take the list form at once
        two = set(found.loc[found["two"], "dimension_key"]) if found is not None else set()
        packed = all(key in two for key in multi)
    if summed and duck and grain == "rater_pair" and multi and packed:
        try:
            return _logged(
                queries,
                summed_rater_pair_query(sides, width, multi),
                lambda q: summed_signatures(fetch(con, q), grain, width, q_of),
            )
        except TaskItemsOverflow:
            packed = False  # a task the items cannot pair: the list form at once
    query = pair_query(sides, grain, width, multi, packed)
    try:
        result = signatures(fetch(con, query), grain, width, q_of)
    except (PackingOverflow, *OVERFLOWS):
        query = pair_query(sides, grain, width, multi, packed=False)
        result = signatures(fetch(con, query), grain, width, q_of)
    if queries is not None:
        queries.append(query)
    return result


def _logged(queries: list | None, query: Query, decode: Callable[[Query], dict]) -> dict:
    """`decode(query)`, with the query appended to `queries` once it has decoded."""
    result = decode(query)
    if queries is not None:
        queries.append(query)
    return result


def tau_signatures(df: pd.DataFrame, grain: str) -> dict[tuple, tuple[np.ndarray, np.ndarray]]:
    """Decode a `ranking_query` result: per group, (signatures x 5) item-pair counts and tasks per signature."""
    keys = list(GRAINS[grain])
    out = {}
    for key, g in df.groupby(keys, sort=True) if not df.empty else []:
        key = key if isinstance(key, tuple) else (key,)
        out[key] = (g[list(TAU_COLUMNS)].to_numpy(float), g["n_tasks"].to_numpy(float))
    return out


def scale_width_query() -> Query:
    """The largest number of levels of any dimension with ratings (the packing width of confusion cells); a
    catalogued scale nobody rated (e.g. a real dataset's -100..100) must not turn packing off for the rest."""
    return Query(
        "scale_width",
        """SELECT coalesce(max(array_length(d.levels)), 1) AS width FROM dimensions d
JOIN dimension_keys k USING (rubric, dimension)
WHERE k.dim_key IN (SELECT DISTINCT dim_key FROM ratings)""",
    )


def data_queries() -> list[Query]:
    """The pairings' queries whose results depend on the stored ratings only, whatever the filters (the packing
    width and the dimensions with several targets): each reads every rating, so a page runs them once per dataset
    version and hands their results to the QueryLog of each computation (QueryLog.know)."""
    return [scale_width_query(), multi_target_query()]


def scale_width(con: duckdb.DuckDBPyConnection, queries: list | None = None) -> int:
    """scale_width_query's width (logged in `queries`; a QueryLog shared by several computations runs it once)."""
    return int(run(con, scale_width_query(), queries)["width"].iloc[0])
