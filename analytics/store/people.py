"""The rater directory: one person, one id, whatever id each export gave them.

A directory CSV (docs/formats.md) names each person once: `rater_id, display_name, aliases, team, active_from,
active_to`, where `aliases` lists the other ids the same person has in other exports, separated by ";" (the
demo's article-Likert files call contractor c13 annotator_13). Loading it renames the ratings and submissions
of every alias to the person's id, so every query, page, export and command sees one rater; each renamed row
is recorded, and unloading the directory gives the rows their own ids back. A file loaded after the directory
has its aliases renamed in its own load. Renaming never makes one person rate a unit twice: a directory that
would is refused whole, and a later file's rating that would is quarantined (an earlier file's rating stays,
as for any duplicate).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import duckdb
import pandas as pd

from analytics.core import rater_ids as an
from analytics.core.queries import Query
from analytics.store import keys
from analytics.store.derived import refresh

FORMAT = "rater_directory"
COLUMNS = ("rater_id", "display_name", "aliases", "team", "active_from", "active_to")

# Migration 7. renamed_* record each renamed row: which load it belongs to, which directory renamed it, and
# its own id (and key) to give back when that directory is unloaded.
MIGRATION = [
    """CREATE TABLE rater_directory (
        ingest_id INTEGER NOT NULL, line INTEGER NOT NULL, rater_id VARCHAR NOT NULL, display_name VARCHAR,
        team VARCHAR, active_from DATE, active_to DATE)""",
    "CREATE TABLE rater_aliases (ingest_id INTEGER NOT NULL, alias VARCHAR NOT NULL, rater_id VARCHAR NOT NULL)",
    """CREATE TABLE renamed_ratings (
        directory_id INTEGER NOT NULL, ingest_id INTEGER NOT NULL, task_key INTEGER NOT NULL,
        dim_key INTEGER NOT NULL, target_key INTEGER NOT NULL, rater_key INTEGER NOT NULL,
        original_rater_id VARCHAR NOT NULL, original_rater_key INTEGER NOT NULL)""",
    """CREATE TABLE renamed_submissions (
        directory_id INTEGER NOT NULL, submission_id VARCHAR NOT NULL, original_rater_id VARCHAR NOT NULL)""",
]


@dataclass(frozen=True)
class Entry:
    """One person of a directory file, as read (line is the file's line number)."""

    line: int
    rater_id: str
    display_name: str | None
    aliases: tuple[str, ...]
    team: str | None
    active_from: dt.date | None
    active_to: dt.date | None


class DirectoryConflict(ValueError):
    """Loading the directory would merge two ratings of one unit into one person's."""


# The alias map of every loaded directory (or of one, $directory), with the keys of both ids.
_ALIAS_MAP = """
SELECT a.ingest_id AS directory_id, a.alias, ak.rater_key AS alias_key, a.rater_id, pk.rater_key
FROM rater_aliases a
JOIN rater_keys ak ON ak.rater_id = a.alias
JOIN rater_keys pk ON pk.rater_id = a.rater_id
WHERE $directory IS NULL OR a.ingest_id = $directory"""

# Ratings about to be renamed (of one load, $ingest, or of every load) that would give the person a second
# rating of a unit: the person rated it already, or two aliases of one person did.
_CONFLICTS = f"""
WITH m AS ({_ALIAS_MAP}),
moving AS (
    SELECT r.task_id, r.rubric, r.dimension, r.target, r.task_key, r.dim_key, r.target_key, r.ingest_id,
           m.alias, m.rater_id, m.rater_key
    FROM ratings r JOIN m ON r.rater_key = m.alias_key
    WHERE $ingest IS NULL OR r.ingest_id = $ingest),
staying AS (
    SELECT r.task_key, r.dim_key, r.target_key, r.rater_key, r.ingest_id, r.rater_id AS alias
    FROM ratings r WHERE r.rater_key NOT IN (SELECT alias_key FROM m)
    UNION ALL SELECT task_key, dim_key, target_key, rater_key, ingest_id, alias FROM moving)
SELECT mv.task_id, mv.rubric, mv.dimension, mv.target, mv.alias, mv.rater_id, mv.ingest_id,
       st.alias AS other_id, l.file_name AS other_file, st.ingest_id AS other_ingest
FROM moving mv
JOIN staying st ON st.task_key = mv.task_key AND st.dim_key = mv.dim_key AND st.target_key = mv.target_key
     AND st.rater_key = mv.rater_key AND (st.alias <> mv.alias)
JOIN ingest_log l ON l.ingest_id = st.ingest_id
ORDER BY mv.task_id, mv.rubric, mv.dimension, mv.target, mv.alias"""


def read_directory(rows: list[dict[str, str]], lines: list[int]) -> tuple[list[Entry], list[str]]:
    """Directory entries from CSV rows (dicts by header, with their line numbers) and the problems found, each
    naming line and field."""
    entries: list[Entry] = []
    problems: list[str] = []
    for n, row in zip(lines, rows, strict=True):
        get = {k: (row.get(k) or "").strip() for k in COLUMNS}
        if not get["rater_id"]:
            problems.append(f"line {n}, field rater_id: missing (every person needs an id)")
            continue
        dates = {}
        for f in ("active_from", "active_to"):
            try:
                dates[f] = dt.date.fromisoformat(get[f]) if get[f] else None
            except ValueError:
                problems.append(f"line {n}, field {f}: {get[f]!r} is not a date (use YYYY-MM-DD)")
                dates[f] = None
        lo, hi = dates["active_from"], dates["active_to"]
        if lo and hi and lo > hi:
            problems.append(f"line {n}, field active_to: {hi} is before active_from {lo}")
        aliases = tuple(dict.fromkeys(a.strip() for a in get["aliases"].split(";") if a.strip()))
        entries.append(Entry(n, get["rater_id"], get["display_name"] or None, aliases, get["team"] or None, lo, hi))
    return entries, problems + _identity_problems(entries)


def _identity_problems(entries: list[Entry]) -> list[str]:
    """Ids named twice: a person on two lines, an alias of two people, an alias that is another person."""
    problems: list[str] = []
    person_line: dict[str, int] = {}
    for e in entries:
        if e.rater_id in person_line:
            problems.append(f"line {e.line}, field rater_id: {e.rater_id} is already on line {person_line[e.rater_id]}")
        person_line.setdefault(e.rater_id, e.line)
    alias_of: dict[str, Entry] = {}
    for e in entries:
        for a in e.aliases:
            if a == e.rater_id:
                continue
            if a in person_line:
                problems.append(
                    f"line {e.line}, field aliases: {a} is a person of its own (line {person_line[a]}); "
                    "list it as an alias of one person only"
                )
            elif a in alias_of and alias_of[a].rater_id != e.rater_id:
                problems.append(
                    f"line {e.line}, field aliases: {a} is already an alias of {alias_of[a].rater_id} "
                    f"(line {alias_of[a].line})"
                )
            alias_of.setdefault(a, e)
    return problems


def stored_conflicts(con: duckdb.DuckDBPyConnection, entries: list[Entry]) -> list[str]:
    """Problems of entries against the directories already loaded (an alias of another person there)."""
    rows = con.execute("SELECT alias, rater_id FROM rater_aliases UNION SELECT rater_id, rater_id FROM rater_directory")
    known = dict(rows.fetchall())
    problems = []
    for e in entries:
        for a in e.aliases:
            if a != e.rater_id and known.get(a, e.rater_id) != e.rater_id:
                problems.append(
                    f"line {e.line}, field aliases: {a} is {known[a]} in a directory loaded before; unload that "
                    "directory first to change who it is"
                )
        if known.get(e.rater_id, e.rater_id) != e.rater_id:
            problems.append(
                f"line {e.line}, field rater_id: {e.rater_id} is an alias of {known[e.rater_id]} in a directory "
                "loaded before"
            )
    return problems


RATER_DIRECTORY_INSERT = Query(
    "rater_directory_insert",
    """INSERT INTO rater_directory
       VALUES ($ingest_id, $line, $rater_id, $display_name, $team, $active_from, $active_to)""",
)
RATER_ALIASES_INSERT = Query("rater_aliases_insert", "INSERT INTO rater_aliases VALUES ($ingest_id, $alias, $rater_id)")


def add_directory(con: duckdb.DuckDBPyConnection, ingest_id: int, entries: list[Entry], name: str) -> int:
    """Store a directory as load `ingest_id` and rename its aliases' ratings everywhere (inside the load's
    transaction); return the ratings renamed. DirectoryConflict when a person would rate a unit twice."""
    RATER_DIRECTORY_INSERT.bind(ingest_id=ingest_id).run_many(
        con,
        [
            {
                "line": e.line,
                "rater_id": e.rater_id,
                "display_name": e.display_name,
                "team": e.team,
                "active_from": e.active_from,
                "active_to": e.active_to,
            }
            for e in entries
        ],
    )
    aliases = [{"alias": a, "rater_id": e.rater_id} for e in entries for a in e.aliases if a != e.rater_id]
    if aliases:
        RATER_ALIASES_INSERT.bind(ingest_id=ingest_id).run_many(con, aliases)
    keys.register(con, "rater_key", f"(SELECT rater_id FROM rater_directory WHERE ingest_id = {int(ingest_id)})")
    conflicts = con.execute(_CONFLICTS, {"directory": ingest_id, "ingest": None}).fetchall()
    if conflicts:
        t, rubric, dim, target, alias, person, _, other, other_file, _ = conflicts[0]
        unit = f"{rubric}/{dim} of task {t}" + (f" ({target})" if target else "")
        more = f" ({len(conflicts) - 1} more such ratings)" if len(conflicts) > 1 else ""
        raise DirectoryConflict(
            f"{name}: {alias} and {other} would both be {person}, and both rated {unit} (in {other_file}); one "
            f"person rates a unit once, so the directory was not loaded{more}. Unload one of the ratings' files "
            "or correct the directory."
        )
    return _rename(con, ingest_id, None)


def rename_load(con: duckdb.DuckDBPyConnection, ingest_id: int, name: str) -> list[tuple[str, str]]:
    """Rename the aliases among the ratings and submissions of a ratings load (inside its transaction); a rating
    that would give a person a second rating of a unit goes to quarantine instead. Return (field, reason) of
    each rating quarantined."""
    conflicts = con.execute(_CONFLICTS, {"directory": None, "ingest": ingest_id}).fetchall()
    out = []
    for t, rubric, dim, target, alias, person, _, other, other_file, other_ingest in conflicts:
        unit = f"{rubric}/{dim} of task {t}" + (f" ({target})" if target else "")
        where = "in this file" if other_ingest == ingest_id else f"in an earlier file ({other_file})"
        out.append(
            (
                alias,
                f"{name}: rater {alias} is {person} in the rater directory, who rated {unit} as {other} {where}",
            )
        )
        con.execute(
            """DELETE FROM ratings WHERE ingest_id = $i AND rater_id = $a AND task_id = $t AND rubric = $r
               AND dimension = $d AND target = $g""",
            {"i": ingest_id, "a": alias, "t": t, "r": rubric, "d": dim, "g": target},
        )
    _rename(con, None, ingest_id)
    return out


def _rename(con: duckdb.DuckDBPyConnection, directory: int | None, ingest: int | None) -> int:
    """Rename alias ratings and submissions (of one directory's aliases, or of one load), recording each."""
    p = {"directory": directory, "ingest": ingest}
    scope = "($ingest IS NULL OR r.ingest_id = $ingest)"
    n = con.execute(
        f"""INSERT INTO renamed_ratings
            SELECT m.directory_id, r.ingest_id, r.task_key, r.dim_key, r.target_key, m.rater_key, m.alias, m.alias_key
            FROM ratings r JOIN ({_ALIAS_MAP}) m ON r.rater_key = m.alias_key WHERE {scope}""",
        p,
    ).fetchall()[0][0]
    if not n:
        return 0
    con.execute(
        f"""INSERT INTO renamed_submissions
            SELECT a.ingest_id, s.submission_id, s.rater_id FROM submissions s JOIN rater_aliases a ON s.rater_id = a.alias
            WHERE ($directory IS NULL OR a.ingest_id = $directory) AND {scope.replace("r.", "s.")}""",
        p,
    )
    con.execute(
        f"""UPDATE submissions s SET rater_id = a.rater_id FROM rater_aliases a
            WHERE s.rater_id = a.alias AND ($directory IS NULL OR a.ingest_id = $directory)
              AND {scope.replace("r.", "s.")}""",
        p,
    )
    con.execute(
        f"""UPDATE ratings r SET rater_id = m.rater_id, rater_key = m.rater_key FROM ({_ALIAS_MAP}) m
            WHERE r.rater_key = m.alias_key AND {scope}""",
        p,
    )
    if directory is not None:  # a ratings load adds its kept pairs after this, already renamed
        refresh.after_renames(con, _loads_renamed_by(con, directory))
    return int(n)


LOADS_RENAMED_BY = Query(
    "loads_renamed_by",
    "SELECT DISTINCT ingest_id FROM renamed_ratings WHERE directory_id = $directory AND ingest_id <> $directory",
)


def _loads_renamed_by(con: duckdb.DuckDBPyConnection, directory: int) -> list[int]:
    """The loads whose ratings a directory renamed (from the record of renamed rows, not a pass over ratings)."""
    rows = LOADS_RENAMED_BY.bind(directory=directory).rows(con)
    return [i for (i,) in rows]


def _load_rows_delete(table: str, column: str, ingest_id: int) -> Query:
    """The DELETE of one load's rows of a table (`table` and `column` are fixed names, never input)."""
    return Query(f"{table}_delete", f"DELETE FROM {table} WHERE {column} = $ingest_id", {"ingest_id": ingest_id})


def unload(con: duckdb.DuckDBPyConnection, ingest_id: int) -> None:
    """Inside an unload's transaction: a directory gives its renamed rows their own ids back and goes; a
    ratings load's renamed rows are forgotten with it."""
    touched = _loads_renamed_by(con, ingest_id)
    con.execute(
        """UPDATE ratings r SET rater_id = n.original_rater_id, rater_key = n.original_rater_key
           FROM renamed_ratings n
           WHERE n.directory_id = $d AND r.ingest_id = n.ingest_id AND r.task_key = n.task_key
             AND r.dim_key = n.dim_key AND r.target_key = n.target_key AND r.rater_key = n.rater_key""",
        {"d": ingest_id},
    )
    con.execute(
        """UPDATE submissions s SET rater_id = n.original_rater_id FROM renamed_submissions n
           WHERE n.directory_id = $d AND s.submission_id = n.submission_id""",
        {"d": ingest_id},
    )
    for table in ("renamed_ratings", "renamed_submissions"):
        _load_rows_delete(table, "directory_id", ingest_id).run(con)
    _load_rows_delete("renamed_ratings", "ingest_id", ingest_id).run(con)
    for table in ("rater_directory", "rater_aliases"):
        _load_rows_delete(table, "ingest_id", ingest_id).run(con)
    refresh.after_renames(con, touched)


def has_aliases(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether any loaded directory names an alias (a ratings load then renames)."""
    return bool(con.execute("SELECT count(*) FROM (SELECT 1 FROM rater_aliases LIMIT 1)").fetchall()[0][0])


DIRECTORY = Query(
    "rater_directory",
    """
WITH latest AS (
    SELECT * FROM rater_directory QUALIFY row_number() OVER (PARTITION BY rater_id ORDER BY ingest_id DESC) = 1),
al AS (SELECT rater_id, string_agg(DISTINCT alias, '; ' ORDER BY alias) AS aliases FROM rater_aliases GROUP BY 1),
activity AS (
    SELECT r.rater_id, count(*) AS ratings,
           count(*) FILTER (WHERE CAST(r.submitted_at AS DATE) < d.active_from
                               OR CAST(r.submitted_at AS DATE) > d.active_to) AS ratings_outside_active,
           count(*) FILTER (WHERE n.rater_key IS NOT NULL) AS ratings_renamed
    FROM ratings r JOIN latest d USING (rater_id)
    LEFT JOIN renamed_ratings n ON n.ingest_id = r.ingest_id AND n.task_key = r.task_key AND n.dim_key = r.dim_key
         AND n.target_key = r.target_key AND n.rater_key = r.rater_key
    GROUP BY 1)
SELECT d.rater_id, d.display_name, coalesce(al.aliases, '') AS aliases, d.team, d.active_from, d.active_to,
       coalesce(a.ratings, 0) AS ratings, coalesce(a.ratings_renamed, 0) AS ratings_renamed,
       coalesce(a.ratings_outside_active, 0) AS ratings_outside_active
FROM latest d LEFT JOIN al USING (rater_id) LEFT JOIN activity a USING (rater_id)
ORDER BY d.rater_id""",
)


def directory(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Every person of the loaded directories: names, aliases, team, active period, their ratings, how many
    were renamed from an alias and how many fall outside the active period."""
    return DIRECTORY.df(con)


DISPLAY_NAMES = Query(
    "display_names",
    """SELECT rater_id, display_name FROM rater_directory WHERE display_name IS NOT NULL
       QUALIFY row_number() OVER (PARTITION BY rater_id ORDER BY ingest_id DESC) = 1""",
)


def display_names(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """rater_id -> display name, for the people a directory names (the latest directory wins)."""
    rows = DISPLAY_NAMES.rows(con)
    return dict(rows)


def who(rater_id: str, names: dict[str, str]) -> str:
    """How a rater is named to people: "Dana K. (c13)" when the directory names them, a label position of a file
    without rater ids as such, else the id."""
    if an.is_anonymous(rater_id):
        return f"{an.position_name(rater_id)} (no rater id)"
    name = names.get(rater_id)
    return f"{name} ({rater_id})" if name and name != rater_id else rater_id
