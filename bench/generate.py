"""Benchmark data: N tasks x 8 dimensions x about 3 of 200 contractors, 10% of tasks also rated by a researcher.

1M tasks is about 25M ratings. Generated inside DuckDB (no Python loop over rows) and written sorted by
(rubric, dimension, task) as Parquet and CSV under bench/data/.

    .venv/bin/python bench/generate.py --tasks 1000000
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import duckdb

HERE = Path(__file__).resolve().parent
LEVELS = ["Very bad", "Bad", "Neutral", "Good", "Very good"]
DIMENSIONS = ["unsupported", "irrelevant", "core", "strong_core", "side", "strong_side", "coherence", "usefulness"]

# Each task has a latent quality; each rater adds noise; a few raters are lenient. Levels are 0..4.
RATINGS_SQL = """
WITH tasks AS (
    SELECT range AS t, hash(range) AS h FROM range(?)
), raters AS (
    SELECT t, h, k, CASE WHEN k < 3 THEN 'c' || lpad(CAST((h + k * 67) % 200 AS VARCHAR), 3, '0')
                         ELSE 'r' || lpad(CAST((h // 10) % 10 AS VARCHAR), 2, '0') END AS rater_id,
           CASE WHEN k < 3 THEN 'contractor' ELSE 'researcher' END AS role
    FROM tasks, range(4) AS ks(k)
    WHERE k < 2 OR (k = 2 AND h % 10 <> 1) OR (k = 3 AND h % 10 = 0)
), dims AS (
    SELECT unnest(?) AS dimension, generate_subscripts(?, 1) AS d
)
SELECT 'bt' || lpad(CAST(t AS VARCHAR), 7, '0') AS task_id, rater_id, role, 'answer_comparison' AS rubric,
       dimension, 'A' AS target,
       list_extract(?, 1 + greatest(0, least(4,
           CAST((h >> d) % 5 AS INT) + CASE WHEN hash(t, rater_id, d) % 10 < 3 THEN (CAST(hash(t, d, rater_id) % 3 AS INT) - 1) ELSE 0 END
       ))) AS value,
       TIMESTAMP '2026-01-05' + to_seconds(CAST(t % 4838400 AS BIGINT)) AS submitted_at
FROM raters, dims
ORDER BY rubric, dimension, task_id
"""


def generate(n_tasks: int, out: Path) -> dict[str, Path]:
    """Write ratings.parquet and ratings.csv for n_tasks tasks; return their paths."""
    out.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect()
    con.execute(f"CREATE TABLE r AS {RATINGS_SQL}", [n_tasks, DIMENSIONS, DIMENSIONS, LEVELS])
    paths = {"parquet": out / f"ratings_{n_tasks}.parquet", "csv": out / f"ratings_{n_tasks}.csv"}
    con.execute("COPY r TO ? (FORMAT parquet)", [str(paths["parquet"])])
    con.execute("COPY r TO ? (FORMAT csv, HEADER)", [str(paths["csv"])])
    n = con.execute("SELECT count(*) FROM r").fetchall()[0][0]
    print(f"{n_tasks:,} tasks -> {n:,} ratings")
    return paths


def main() -> None:
    """Generate the benchmark data set of the size asked for."""
    p = argparse.ArgumentParser()
    p.add_argument("--tasks", type=int, default=100_000)
    p.add_argument("--out", default=str(HERE / "data"))
    args = p.parse_args()
    t = time.perf_counter()
    generate(args.tasks, Path(args.out))
    print(f"generated in {time.perf_counter() - t:.1f} s")


if __name__ == "__main__":
    main()
