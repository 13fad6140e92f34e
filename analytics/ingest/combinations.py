"""The scale checks of a load, run once per distinct combination of role, rubric, dimension, target and value (a
file has few): each combination is checked against the store's scales (new dimensions declared or inferred on the
way) and given its dimension and target keys, so the rows need no join for them."""

from __future__ import annotations

import duckdb

from analytics import store
from analytics.core import rubrics
from analytics.core.queries import Query
from analytics.ingest import limits
from analytics.ingest.scales_file import declare_for_new_dimensions, missing_sql
from analytics.store import keys
from analytics.store.derived import refresh

# The columns that identify a combination of scale-related values; a file has few distinct combinations
# (dimensions x levels x targets x roles), so scale checks run once per combination, not once per row.
COMBO_COLUMNS = ("raw_role", "raw_rubric", "raw_dimension", "raw_target", "raw_value")


NUMBER = "TRY_CAST(trim(raw_value) AS DOUBLE)"

# Checks on a combination c (normalised values, c.is_missing when the value means missing) joined with its
# stored dimension d, in order. A value that means missing (NA, N/A, null, the dimension's missing codes) is a
# rating without a level: it loads with value_index NULL. An empty or absent value is no rating at all.
DECLARE_HINT = "declare its scale in a scales file and load it with --scales PATH (or on the Data page)"
COMBO_CHECKS = (
    *(
        (
            fld,
            f"length(c.raw_{fld}) > {limits.MAX_FIELD_CHARS}",
            f"'{fld} is ' || format('{{:,}}', length(c.raw_{fld})) || ' characters long, over the limit of"
            f" {limits.MAX_FIELD_CHARS:,}; {limits.SHORTEN}'",
        )
        for fld in ("role", "rubric", "dimension", "target", "value")
    ),
    ("dimension", "c.dimension IS NULL", "'missing required field dimension'"),
    ("value", "c.value IS NULL", "'missing required field value'"),
    (
        "value",
        f"NOT c.is_missing AND NOT isfinite({NUMBER.replace('raw_value', 'c.raw_value')})",
        "'value ' || trim(c.raw_value) || ' is not a finite number (NaN and infinity are not ratings)'",
    ),
    (
        "role",
        "c.role NOT IN ('contractor', 'researcher')",
        "'role ' || c.role || ' is neither contractor nor researcher'",
    ),
    (
        "dimension",
        "d.dimension IS NULL",
        "CASE WHEN c.is_missing AND c.rubric NOT IN (SELECT rubric FROM catalogue_rubrics) THEN 'value '"
        " || c.raw_value || ' means missing, and ' || c.rubric || '/' || c.dimension"
        f" || ' has no other value yet, so its scale is unknown: {DECLARE_HINT}'"
        " ELSE 'rubric ' || c.rubric || ' has no dimension ' || c.dimension END",
    ),
    (
        "target",
        "len(d.targets) > 0 AND NOT list_contains(d.targets, c.target)",
        "'target ' || CASE WHEN c.target = '' THEN '(empty)' ELSE c.target END || ' is not one of '"
        " || array_to_string(d.targets, ', ') || ' for ' || c.dimension",
    ),
    (
        "value",
        "NOT c.is_missing AND d.source = 'inferred' AND d.measure <> 'nominal' AND TRY_CAST(c.value AS DOUBLE) IS NULL",
        "'value ' || c.raw_value || ' is text, but ' || c.rubric || '/' || c.dimension || ' holds numbers (its scale"
        f" was inferred from an earlier file); to rate it with labels, {DECLARE_HINT}'",
    ),
    (
        "value",
        "NOT c.is_missing AND NOT list_contains(d.levels, c.value)",
        "'value ' || c.raw_value || ' is not on the scale of ' || c.rubric || '/' || c.dimension || ' ('"
        " || array_to_string(d.levels[1:12], ', ') || CASE WHEN len(d.levels) > 12 THEN ', ...' ELSE '' END || ')'"
        " || CASE WHEN TRY_CAST(c.raw_value AS DOUBLE) IS NOT NULL"
        " AND TRY_CAST(c.raw_value AS DOUBLE) <> round(TRY_CAST(c.raw_value AS DOUBLE))"
        " AND list_bool_and(list_transform(d.levels, lambda x: coalesce(TRY_CAST(x AS DOUBLE) = round(TRY_CAST(x AS"
        " DOUBLE)), true)))"
        " THEN ': half or fractional scores are not allowed' ELSE '' END",
    ),
)


def first_failing(checks: tuple, what: str) -> str:
    """A SQL CASE giving the first failing check's reason (what='reason') or field (what='field')."""
    if what == "reason":
        return "CASE " + " ".join(f"WHEN {cond} THEN {reason}" for _, cond, reason in checks) + " END"
    return "CASE " + " ".join(f"WHEN {cond} THEN '{fld}'" for fld, cond, _ in checks) + " END"


# A value in one spelling: numbers as the catalogue and scales files spell them (rubrics.canonical_number:
# "3.0" -> "3", "2.50" -> "2.5"), other text trimmed; empty is NULL (no value).
VALUE_SQL = f"""CASE WHEN isfinite({NUMBER}) AND abs({NUMBER}) < 1e15 AND {NUMBER} = round({NUMBER})
                       THEN CAST(CAST({NUMBER} AS BIGINT) AS VARCHAR)
                     WHEN isfinite({NUMBER}) AND abs({NUMBER}) < 1e15 THEN CAST({NUMBER} AS VARCHAR)
                     ELSE nullif(trim(raw_value), '') END"""


def check_combinations(con: duckdb.DuckDBPyConnection, role: str | None) -> int:
    """Build `stage_combos` from `stage_input`: each distinct scale combination checked against the store's
    scales (new dimensions declared or inferred on the way) and keyed; return the rows it rejects. The Spark
    engine checks its input's combinations with it too (analytics/engines/spark/engine.py)."""
    bad = _check_combos(con, role)
    _combo_keys(con)
    return bad


def _combo_values(role: str | None) -> Query:
    """The UPDATE that puts each combination's cleaned values on `stage_combos` (`role`: the role given for the
    file, else each row's own)."""
    return Query(
        "stage_combos_values",
        f"""UPDATE stage_combos SET
              role = {"$role" if role else "lower(coalesce(nullif(trim(raw_role), ''), 'contractor'))"},
              rubric = coalesce(nullif(trim(raw_rubric), ''), 'unspecified'),
              dimension = nullif(trim(raw_dimension), ''), target = coalesce(trim(raw_target), ''),
              value = {VALUE_SQL}""",
        {"role": role} if role else {},
    )


def _check_combos(con: duckdb.DuckDBPyConnection, role: str | None) -> int:
    """Build `stage_combos` (one row per distinct scale combination, checked); return rows it rejects."""
    # Only low-cardinality columns are read here, so this pass is cheap even for tens of millions of rows.
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE stage_combos AS
            SELECT combo_key, {", ".join(f"any_value({c}) AS {c}" for c in COMBO_COLUMNS)}, count(*) AS n
            FROM stage_input s GROUP BY combo_key"""
    )
    con.execute(
        """ALTER TABLE stage_combos ADD COLUMN role VARCHAR; ALTER TABLE stage_combos ADD COLUMN rubric VARCHAR;
           ALTER TABLE stage_combos ADD COLUMN dimension VARCHAR; ALTER TABLE stage_combos ADD COLUMN target VARCHAR;
           ALTER TABLE stage_combos ADD COLUMN value VARCHAR;"""
    )
    _combo_values(role).run(con)
    if (
        con.execute(f"SELECT count(*) FROM (SELECT DISTINCT {', '.join(COMBO_COLUMNS)} FROM stage_combos)").fetchall()[
            0
        ][0]
        != con.execute("SELECT count(*) FROM stage_combos").fetchall()[0][0]
    ):
        raise RuntimeError("two different value combinations share a 64-bit hash; please report this file")
    con.execute(
        """CREATE OR REPLACE TEMP TABLE catalogue_rubrics AS
           SELECT DISTINCT rubric FROM dimensions WHERE source = 'catalogue'"""
    )
    _declare_new_dimensions(con)
    _infer_unknown_dimensions(con)
    missing = missing_sql("c0.value", "coalesce(d0.missing, CAST([] AS VARCHAR[]))")
    position = "list_position(d.levels, c.value)"
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE stage_combos AS
            SELECT c.* REPLACE (coalesce(c.value, '') AS value),
                   dense_rank() OVER (ORDER BY c.rubric, c.dimension, c.target) AS unit_dim,
                   CASE WHEN NOT c.is_missing THEN {position} - 1 END AS value_index,
                   CASE WHEN NOT c.is_missing THEN coalesce(d.level_values[{position}], TRY_CAST(c.value AS DOUBLE),
                            CASE WHEN d.kind IN ('ordinal', 'ranking') THEN {position} - 1 END) END AS value_num,
                   {first_failing(COMBO_CHECKS, "reason")} AS combo_problem,
                   {first_failing(COMBO_CHECKS, "field")} AS combo_field
            FROM (SELECT c0.*, {missing} AS is_missing FROM stage_combos c0
                  LEFT JOIN dimensions d0 ON d0.rubric = c0.rubric AND d0.dimension = c0.dimension) c
            LEFT JOIN dimensions d ON d.rubric = c.rubric AND d.dimension = c.dimension"""
    )
    return int(
        con.execute("SELECT coalesce(sum(n) FILTER (WHERE combo_problem IS NOT NULL), 0) FROM stage_combos").fetchall()[
            0
        ][0]
    )


def _combo_keys(con: duckdb.DuckDBPyConnection) -> None:
    """Dimension and target keys on the value combinations (a few rows), so that the rows need no join for them."""
    keys.register(con, "dim_key", "stage_combos")
    keys.register(con, "target_key", "stage_combos")
    con.execute(
        """CREATE OR REPLACE TEMP TABLE stage_combos AS SELECT c.*, d.dim_key, g.target_key FROM stage_combos c
           LEFT JOIN dimension_keys d USING (rubric, dimension) LEFT JOIN target_keys g USING (target)"""
    )


NEW_DIMENSIONS_DECLARED_FOR_ALL = Query(
    "new_dimensions_declared_for_all",
    """SELECT DISTINCT c.rubric, c.dimension FROM stage_combos c
       WHERE c.dimension IS NOT NULL AND c.rubric NOT IN (SELECT rubric FROM catalogue_rubrics)
         AND c.dimension IN (SELECT dimension FROM scale_declarations WHERE rubric = $all_rubrics)
         AND NOT EXISTS (SELECT 1 FROM dimensions d WHERE d.rubric = c.rubric AND d.dimension = c.dimension)""",
)


def _declare_new_dimensions(con: duckdb.DuckDBPyConnection) -> None:
    """Dimensions new to the store on rubrics the catalogue does not know take a declaration for every rubric."""
    pairs = NEW_DIMENSIONS_DECLARED_FOR_ALL.bind(all_rubrics=store.ALL_RUBRICS).rows(con)
    declare_for_new_dimensions(con, pairs)


RATINGS_REINDEX = Query(
    "ratings_value_index_update",
    """UPDATE ratings SET value_index = list_position($levels, value) - 1
       WHERE rubric = $rubric AND dimension = $dimension""",
)


def _infer_unknown_dimensions(con: duckdb.DuckDBPyConnection) -> None:
    """Give undeclared dimensions of rubrics the catalogue does not know a scale from their values (DESIGN.md)."""
    rows = con.execute(
        f"""SELECT c.rubric, c.dimension, list(DISTINCT c.value), any_value(d.kind), any_value(d.levels),
                  any_value(d.level_values)
            FROM stage_combos c LEFT JOIN dimensions d ON d.rubric = c.rubric AND d.dimension = c.dimension
            WHERE c.dimension IS NOT NULL AND c.value IS NOT NULL AND coalesce(d.source, 'inferred') = 'inferred'
              AND c.rubric NOT IN (SELECT rubric FROM catalogue_rubrics)
              AND coalesce(isfinite(TRY_CAST(trim(c.raw_value) AS DOUBLE)), true)
              AND greatest(coalesce(length(c.raw_rubric), 0), coalesce(length(c.raw_dimension), 0),
                           coalesce(length(c.raw_target), 0), coalesce(length(c.raw_value), 0),
                           coalesce(length(c.raw_role), 0)) <= {limits.MAX_FIELD_CHARS}
            GROUP BY c.rubric, c.dimension"""
    ).fetchall()
    for rubric, dimension, values, kind, levels, level_values in rows:
        previous = None
        if levels is not None:
            previous = rubrics.Dimension(dimension, dimension, kind, tuple(levels), values=tuple(level_values or ()))
        dim = rubrics.infer_dimension(dimension, list(values), previous)
        if not dim.levels or (previous is not None and previous.levels == dim.levels):
            continue  # only missing values so far, or nothing new
        store.save_dimensions(
            con,
            [[rubric, dimension, dimension, dim.kind, list(dim.levels), list(dim.levels), [], "", False, False,
              "inferred", dim.measure, list(dim.values), []]],
        )  # fmt: skip
        if previous is not None:  # new levels changed the positions of the old ones
            RATINGS_REINDEX.bind(levels=list(dim.levels), rubric=rubric, dimension=dimension).run(con)
            refresh.after_rescale(con, rubric, dimension)
