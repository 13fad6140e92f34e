"""Many users on one store: reader threads call the app's analytics (overview.summary, the level distribution,
the disagreement list) on cursors of ONE shared connection, as the Streamlit sessions of one server do, while a
writer thread loads files on another cursor. A reader never sees a half-loaded file: every figure it reads is
the figure of some whole number of loaded files, and within one read transaction all figures belong to the
same number of files (ingest_log and ratings agree). No thread errors.

Protection checked: each ingest is one transaction (load.ingest_file) and DuckDB gives every statement, and
every explicit transaction, one snapshot; ui.state hands each session a cursor of the shared connection.
Figures from a run are in bench/RESULTS.md ("Concurrent sessions").
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from analytics import store
from analytics.core.filters import Filters
from analytics.describe import distributions, overview
from analytics.ingest.load import ingest_file
from analytics.review import disagreements

RUBRIC = "answer_comparison"
DIMENSION = "usefulness_comparison"
LEVELS = ["A much better", "A better", "Equally good", "B better", "B much better"]
N_FILES = 10
N_READERS = 4
ALL = Filters()


@dataclass(frozen=True)
class State:
    """The figures after a whole number of files."""

    files: int
    ratings: int
    quarantined: int
    rubric_ratings: int
    cases: int


def write_files(d: Path) -> list[Path]:
    """N_FILES canonical CSVs of different sizes on their own tasks: two contractors and a researcher per task,
    and one off-scale row per file (quarantined)."""
    rng = random.Random(7)
    paths = []
    for i in range(N_FILES):
        lines = ["task_id,rater_id,role,rubric,dimension,target,value,submitted_at"]
        for t in range(250 + 120 * i):
            truth = rng.randrange(5)
            for rater, role, noise in (("c1", "contractor", 1), ("c2", "contractor", 2), ("r1", "researcher", 0)):
                v = min(4, max(0, truth + rng.randint(-noise, noise)))
                lines.append(
                    f"f{i}-t{t},{rater},{role},{RUBRIC},{DIMENSION},comparison,{LEVELS[v]},2026-03-0{1 + i % 9}"
                )
        lines.append(f"f{i}-x,c1,contractor,{RUBRIC},{DIMENSION},comparison,C better,2026-03-01")
        path = d / f"batch_{i:02d}.csv"
        path.write_text("\n".join(lines) + "\n")
        paths.append(path)
    return paths


def figures(cur) -> tuple[overview.Summary, int, int]:
    """What the pages read: the Overview summary, the rubric's level counts and its disagreement cases."""
    summary = overview.summary(cur, ALL)
    levels = distributions.level_distribution(cur, RUBRIC, ALL)
    cases = disagreements.disagreements(cur, RUBRIC, ALL)
    return summary, int(levels["n"].sum()), len(cases)


def reference_states(files: list[Path], d: Path) -> dict[int, State]:
    """The figures after 0, 1, ... N_FILES files, loaded one after another with nobody reading."""
    con = store.open_store(d / "reference.duckdb")
    states = {}
    for k in range(len(files) + 1):
        if k:
            assert ingest_file(con, files[k - 1]).status == "loaded"
        s, rubric_ratings, cases = figures(con)
        states[s.files_loaded] = State(s.files_loaded, s.ratings, s.quarantined_rows, rubric_ratings, cases)
    con.close()
    assert len(states) == len(files) + 1
    return states


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    """The files to load and the figures each whole number of them gives."""
    d = tmp_path_factory.mktemp("concurrency")
    files = write_files(d)
    return d, files, reference_states(files, d)


RUN: dict = {}  # what the last run did, for bench/RESULTS.md


def test_readers_never_see_a_half_loaded_file(setup, tmp_path):
    d, files, states = setup
    con = store.open_store(tmp_path / "shared.duckdb")  # the one connection of the process (ui.state)
    allowed = {
        "ratings": {s.ratings for s in states.values()},
        "quarantined": {s.quarantined for s in states.values()},
        "rubric_ratings": {s.rubric_ratings for s in states.values()},
        "cases": {s.cases for s in states.values()},
    }
    errors: list[BaseException] = []
    done = threading.Event()
    reads = [0] * N_READERS
    seen_files: set[int] = set()
    junk = tmp_path / "junk.csv"
    junk.write_bytes(b"\x00\x01 not a csv")

    def writer() -> None:
        cur = con.cursor()
        try:
            for path in files:
                assert ingest_file(cur, path).status == "loaded"
                assert ingest_file(cur, path).status == "already_loaded"  # changes nothing
                assert ingest_file(cur, junk).status == "rejected"  # changes nothing
        except BaseException as e:  # reported by the main thread
            errors.append(e)
        finally:
            done.set()

    def reader(i: int) -> None:
        cur = con.cursor()  # a session's cursor
        try:
            while not done.is_set() or reads[i] < 3:
                # Statement by statement (how the pages read): each figure is that of whole files.
                s, rubric_ratings, cases = figures(cur)
                assert s.ratings in allowed["ratings"], s.ratings
                assert s.quarantined_rows in allowed["quarantined"], s.quarantined_rows
                assert rubric_ratings in allowed["rubric_ratings"], rubric_ratings
                assert cases in allowed["cases"], cases
                # One statement: the log and the ratings agree.
                n_log, logged, n_ratings = cur.execute(
                    "SELECT (SELECT count(*) FROM ingest_log), (SELECT coalesce(sum(rows_loaded), 0) FROM ingest_log),"
                    " (SELECT count(*) FROM ratings)"
                ).fetchall()[0]
                assert logged == n_ratings == states[n_log].ratings, (n_log, logged, n_ratings)
                # One transaction: every figure belongs to the same number of files.
                cur.execute("BEGIN TRANSACTION")
                try:
                    s, rubric_ratings, cases = figures(cur)
                finally:
                    cur.execute("COMMIT")
                want = states[s.files_loaded]
                got = State(s.files_loaded, s.ratings, s.quarantined_rows, rubric_ratings, cases)
                assert got == want, (got, want)
                seen_files.add(s.files_loaded)
                reads[i] += 1
        except BaseException as e:
            errors.append(e)
            done.set()

    threads = [threading.Thread(target=writer, name="writer")]
    threads += [threading.Thread(target=reader, args=(i,), name=f"reader-{i}") for i in range(N_READERS)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    elapsed = time.perf_counter() - start
    assert not any(t.is_alive() for t in threads), "a thread hung"
    if errors:
        raise errors[0]
    final = store.table_counts(con)
    assert final["ratings"] == states[N_FILES].ratings and final["ingest_log"] == N_FILES
    assert len(seen_files) >= 3, f"the readers overlapped too little with the writer: saw {sorted(seen_files)}"
    RUN.update(readers=N_READERS, reads=sum(reads), files=N_FILES, seconds=elapsed, states_seen=len(seen_files),
               ratings=final["ratings"])  # fmt: skip
    print(f"\nconcurrent sessions: {RUN}")
    con.close()
