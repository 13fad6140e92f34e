"""The pairing counted per task signature (`pair_query`), in the plan that fits the sides, grain and scale.

Statistics come back per task "signature": the multiset of confusion cells a group (a rater, a dimension, a
pair of raters) has on one task, with the number of tasks that share it. That is what task-level intervals
resample (analytics/agreement/intervals.py), and summing signatures x tasks gives the confusion counts
(analytics/agreement/signatures.py decodes them).

Contractors against researchers per rater group the confusion cells kept per contractor task at ingest
(analytics/store/derived/reference_tasks.py); their other queries read the pairs kept at ingest (analytics/store/derived/reference_pairs.py).
Elsewhere, two shapes keep this one pass over the ratings: per rater, a subject rating is met with its unit's
reference level counts packed in one integer (analytics/core/packing.py; so raters of one role against each other need
no self-join); per dimension, a unit's pairs follow from its packed subject and reference level counts (no pair is
formed); and on dimensions with one target a task is its one unit (so tasks are counted without listing them).
Without intervals, `summed_query` and `summed_rater_pair_query` sum a group's cells over its tasks.
"""

from __future__ import annotations

from analytics.agreement import sides as sd
from analytics.agreement.pairing import (
    GRAINS,
    KEYED_GRAINS,
    MULTI,
    UNIT_KEYS,
    before,
    named_groups,
    order_join,
    order_select,
    side_ctes,
)
from analytics.agreement.sides import Sides
from analytics.agreement.task_lists import task_lists, unit_lists
from analytics.core import packing as pk
from analytics.core.filters import Filters
from analytics.core.packing import Packing
from analytics.core.queries import Query
from analytics.store.derived import reference_tasks as rt


def readable_pair_query(sides: Sides, grain: str, width: int) -> Query:
    """Every plan of this module in plain SQL, slower: each group's pairs on a task listed as sorted cells
    (index_a * $width + index_b), then its tasks counted per list. Its result decodes as the plans' do
    (signatures.signatures, the `cells` form) into the same Signatures; the plans' tables are its cells summed."""
    names = ", ".join(GRAINS[grain])
    head, params = side_ctes(sides, "value_index")
    sql = f"""{head}, tasks AS (
    -- each group's pairs on one task: their cells, sorted, and the units they are on
    SELECT {names}, task_id, list_sort(list(index_a * $width + index_b)) AS cells, count(DISTINCT target) AS n_units
    FROM pairs
    GROUP BY {names}, task_id
)
SELECT {names}, cells, count(*) AS n_tasks, sum(n_units) AS n_units
FROM tasks
GROUP BY ALL
ORDER BY ALL"""
    return Query(f"readable_pairs_{sides.name}_by_{grain}", sql, {**params, "width": width})


def pair_query(sides: Sides, grain: str, width: int, multi: list[str] | None = None, packed: bool = True) -> Query:
    """`_pair_plan`, with its readable form (`readable_pair_query`) beside it."""
    return _pair_plan(sides, grain, width, multi, packed).with_readable(readable_pair_query(sides, grain, width))


def _pair_plan(sides: Sides, grain: str, width: int, multi: list[str] | None = None, packed: bool = True) -> Query:
    """Per group of `grain` and task signature, the number of tasks and units with it.

    A signature is either `cells` (the sorted confusion cells index_a * width + index_b of the group's pairs on
    the task) or, for the rater grain when level counts can be packed, `units` (per unit of the task: the
    subject's level, the packed level counts of the unit's other reference ratings and their number). On
    dimensions with one target, a task holds one unit, so tasks are counted without listing them one by one.
    At the rater-pair grain, `packed` chooses the task items on dimensions of several targets
    (`_rater_pair_query`) over listing their tasks.
    """
    multi = [] if multi is None else multi
    pack = pk.packing(width)
    if grain in KEPT_GRAINS and sd.reads_reference_pairs(sides):
        return _kept_tasks_query(sides, grain, width)
    if grain == "rater" and pack and packed and not sides.symmetric:
        return _packed_rater_query(sides, pack, multi)
    if grain == "dimension" and pack and packed and not sides.symmetric:
        return _packed_dimension_query(sides, pack, multi)
    if grain == "rater_pair" and multi and packed:
        return _rater_pair_query(sides, width, multi)
    keys = ", ".join(KEYED_GRAINS[grain])
    head, params = side_ctes(sides, "value_index")
    one_pair_per_task = grain == "rater_pair"  # one target: a pair of raters shares at most one unit per task
    fields = "cells, n_tasks, n_units"
    if one_pair_per_task and not multi:
        sql = f"""{head}, grouped AS (
    SELECT {keys}, [index_a * $width + index_b] AS cells, count(*) AS n_tasks, count(*) AS n_units
    FROM pairs
    GROUP BY {keys}, index_a, index_b
){named_groups(grain, fields)}"""
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
){named_groups(grain, fields)}"""
    named = {**params, "width": width, **({"multi": multi} if one_pair_per_task else {})}
    return Query(f"pairs_{sides.name}_by_{grain}", sql, named)


def _rater_tasks(sides: Sides, side: Filters, prefix: str) -> str:
    """SQL: per task, dimension of several targets and rater of `side` (one of `sides`; its filter's parameters
    named with `prefix`), the lowest and highest (target, level) as target_key * $width + level, and whether
    those are all the rater's ratings of the task, on two targets at most (`simple`)."""
    where, _ = side.where_named("", prefix)
    ranked = order_select(sides)
    return f"""SELECT task_key, dim_key, rater_key{ranked}, min(target_key * $width + value_index) AS lo,
           max(target_key * $width + value_index) AS hi,
           count(*) = 1 OR (count(*) = 2 AND min(target_key * $width + value_index) // $width
                                < max(target_key * $width + value_index) // $width) AS simple
    FROM ratings{order_join(sides)}
    WHERE value_index IS NOT NULL AND {where} AND {MULTI}
    GROUP BY task_key, dim_key, rater_key{ranked}"""


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
){named_groups("rater_pair", "cells, n_tasks, n_units")}"""
    return Query(f"pairs_{sides.name}_by_rater_pair", sql, {**params, "width": width, "multi": multi})


def summed_rater_pair_query(sides: Sides, width: int, multi: list[str]) -> Query:
    """`_summed_rater_pair_plan`, with its readable form beside it (its cells summed over tasks)."""
    plan = _summed_rater_pair_plan(sides, width, multi)
    return plan.with_readable(readable_pair_query(sides, "rater_pair", width))


def _summed_rater_pair_plan(sides: Sides, width: int, multi: list[str]) -> Query:
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
){named_groups("rater_pair", "cells, counts, n_tasks, n_units, n_over")}"""
    return Query(f"pairs_{sides.name}_by_rater_pair_summed", sql, {**params, "width": width, "multi": multi})


def _rater_pair_items(sides: Sides) -> tuple[str, dict]:
    """The CTEs of the rater-pair grain when some dimensions have several targets, ending in pairs and two.

    One-target dimensions pair units (a pair of raters shares at most one per task). On the others, a rater's
    ratings of a task are its one or two (target, level) items (min and max of target * width + level), and two
    raters of a task are paired once: the task's cells are their levels on the targets both rated, so no unit
    pair is formed and none is grouped per task. `pair_signatures` uses it where every dimension of several
    targets the filter selects has two (`multi_target_query`'s `two`); a pair where a rater still has more than two
    ratings of the task, or two of one target, comes back with no cells: `signatures` raises TaskItemsOverflow
    and `pair_signatures` runs the list form (`pair_query(..., packed=False)`)."""
    keys = ", ".join(KEYED_GRAINS["rater_pair"])
    head, params = side_ctes(sides, "value_index", only=f"NOT {MULTI}")  # one-target dimensions' unit pairs
    items = ", ".join(
        f"{x}.lo // $width AS {x}t1, {x}.lo % $width AS {x}v1, {x}.hi // $width AS {x}t2, {x}.hi % $width AS {x}v2"
        for x in ("a", "b")
    )
    cell = "CASE WHEN bt1 = {t} THEN {v} * $width + bv1 WHEN bt2 = {t} THEN {v} * $width + bv2 END"
    sql = f"""{head}, s_tasks AS (
    {_rater_tasks(sides, sides.subject, "s_")}
), r_tasks AS (
    {_rater_tasks(sides, sides.reference, "r_")}
), task_cells AS (
    -- per pair of raters and task: the cells of a's lowest and (if it has two) highest target where b rated too
    SELECT key_a, key_b, dim_key, simple, {cell.format(t="at1", v="av1")} AS c1,
           CASE WHEN at2 > at1 THEN {cell.format(t="at2", v="av2")} END AS c2
    FROM (SELECT a.rater_key AS key_a, b.rater_key AS key_b, dim_key, a.simple AND b.simple AS simple, {items}
          FROM s_tasks a JOIN r_tasks b USING (task_key, dim_key)
          WHERE {before(sides, "a", "b")})
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


# Grains whose signatures of contractors against researchers are grouped from reference_tasks. Per dimension, a
# task's signature merges every contractor's cells: listing them per task cost as much as the packed form over
# the kept pairs, which stays.
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
){named_groups(grain, "cells, n_tasks, n_units", rater_key=True)}"""
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
    """`_summed_plan`, with its readable form beside it (its cells summed over tasks)."""
    return _summed_plan(sides, grain, width).with_readable(readable_pair_query(sides, grain, width))


def _summed_plan(sides: Sides, grain: str, width: int) -> Query:
    """Per group of contractors against researchers at the rater or dimension grain, its confusion cells summed
    over tasks: the distinct cells (numbered index_a * width + index_b) with their counts, and the group's tasks
    and units. What point estimates need, without a row per task signature. The cells are counted from the kept
    pairs (faster than unnesting the kept tasks' cell lists); per rater, tasks and units come from the kept tasks
    (`_kept_task_rows`), per dimension from the pairs' distinct tasks and units."""
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
){named_groups(grain, "cells, counts, n_tasks, n_units", rater_key=grain == "rater")}"""
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
    contractor ratings, so there are fewer groups."""
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
){tail}{named_groups("rater", "units, n_tasks, n_units", rater_key=True)}"""
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
    if sd.reads_reference_pairs(sides) and pack.bits >= pk.NARROW_BITS:
        head, params = _kept_pair_sums(sides, pack)
        tail = _packed_tail("units", "dim_key", ("cs", "n", "cr"), "pair_sums", "TRUE", multi)
        return Query(
            f"pairs_{sides.name}_by_dimension",
            f"""{head}{tail}{named_groups("dimension", "pair_sums, n_tasks, n_units")}""",
            {**params, **multi_param},
        )
    fields: tuple[str, ...] = ("cs", "ms", "cr", "mr", "cb", "mb")
    has_pair = "ms * mr > mb"  # S x R minus B: a pair other than a rating with itself
    if sd.reads_reference_pairs(sides):
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
){tail}{named_groups("dimension", "sides, n_tasks, n_units")}"""
    return Query(f"pairs_{sides.name}_by_dimension", sql, {**params, **multi_param})
