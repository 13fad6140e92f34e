"""Benchmark data: N tasks x 8 units x about 3 of 200 contractors, 10% of tasks also rated by a researcher.

1M tasks is about 25M ratings. Generated inside DuckDB (no Python loop over rows) and written sorted by
(rubric, dimension, task) as Parquet and CSV under bench/data/.

Three shapes:
- flat (ratings_<N>.*): 8 absolute dimensions of answer A only, one researcher, 8 weeks of dates; every
  dimension has one target. The figures in bench/RESULTS.md before the full shape were measured on it.
- full (ratings_<N>_full.*): every shape the pages read. Three absolute dimensions rated on both answers
  (targets A and B: dimensions with several targets), two comparison dimensions (A much better .. B much
  better) that follow the two answers' usefulness, 10% of tasks labelled by a researcher and 3% by a second
  one, dates over 17 weeks, and contractors of four kinds (careful, lenient, severe, always "Equally good").

    .venv/bin/python bench/generate.py --tasks 1000000 [--shape full]
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


ABSOLUTE = ["core", "coherence", "usefulness"]
COMPARISON = ["core_comparison", "usefulness_comparison"]
COMPARISON_LEVELS = ["A much better", "A better", "Equally good", "B better", "B much better"]

# Each (task, answer, dimension) has a latent quality 0..4; a comparison follows the two answers' qualities on
# its dimension. Contractor kinds by id: c..0 lenient (+1), c..1 severe (-1), c..2 always "Equally good" on
# comparisons, the rest careful; everyone adds noise on 30% of ratings.
FULL_SQL = """
WITH tasks AS (
    SELECT range AS t, hash(range) AS h FROM range($n)
), raters AS (
    SELECT t, h, k,
           -- contractors from other bits of the hash than the researcher choice (h % 10), so every one meets them
           CASE WHEN k < 3 THEN 'c' || lpad(CAST((h // 65536 + k * 67) % 200 AS VARCHAR), 3, '0')
                ELSE 'r' || lpad(CAST(((h // 10) + (k - 3) * 5) % 10 AS VARCHAR), 2, '0') END AS rater_id,
           CASE WHEN k < 3 THEN 'contractor' ELSE 'researcher' END AS role
    FROM tasks, range(5) AS ks(k)
    WHERE k < 2 OR (k = 2 AND h % 10 <> 1) OR (k = 3 AND h % 10 = 0) OR (k = 4 AND h % 10 = 0 AND (h // 10) % 10 < 3)
), u AS (
    SELECT d AS dimension, tg AS target, FALSE AS is_comparison
    FROM unnest($absolute) AS x(d), unnest(['A', 'B']) AS y(tg)
    UNION ALL
    SELECT d, 'comparison', TRUE FROM unnest($comparison) AS x(d)
), noisy AS (
    SELECT t, h, rater_id, role, dimension, target, is_comparison,
           CAST(hash(t, dimension, target) % 5 AS INT) AS q,
           CAST(hash(t, replace(dimension, '_comparison', ''), 'A') % 5 AS INT)
             - CAST(hash(t, replace(dimension, '_comparison', ''), 'B') % 5 AS INT) AS diff,
           CASE WHEN hash(t, rater_id, dimension, target) % 10 < 3
                THEN CAST(hash(t, dimension, rater_id, target) % 3 AS INT) - 1 ELSE 0 END AS noise,
           CASE WHEN role = 'researcher' THEN 0 WHEN right(rater_id, 1) = '0' THEN 1
                WHEN right(rater_id, 1) = '1' THEN -1 ELSE 0 END AS bias
    FROM raters, u
)
SELECT 'bt' || lpad(CAST(t AS VARCHAR), 7, '0') AS task_id, rater_id, role, 'answer_comparison' AS rubric,
       dimension, target,
       CASE WHEN NOT is_comparison THEN list_extract($levels, 1 + greatest(0, least(4, q + noise + bias)))
            WHEN role = 'contractor' AND right(rater_id, 1) = '2' THEN 'Equally good'
            ELSE list_extract($comparison_levels,
                              1 + greatest(0, least(4, 2 - sign(diff) * least(2, abs(diff)) + noise))) END AS value,
       TIMESTAMP '2026-01-05' + to_seconds(CAST((h + hash(rater_id) % 86400) % 10281600 AS BIGINT)) AS submitted_at
FROM noisy
ORDER BY rubric, dimension, task_id
"""


# Three distinct contractors a task: 0..199 shifted by 0, 67 and 134 are distinct mod 200 for any start.
MANY_SQL = """
WITH tasks AS (
    SELECT range AS t, hash(range) AS h FROM range($n)
), raters AS (
    SELECT t, h, CASE WHEN k < 3 THEN 'c' || lpad(CAST((h // 65536 + k * 67) % 200 AS VARCHAR), 3, '0')
                      ELSE 'r' || CAST((h // 10) % 5 AS VARCHAR) END AS rater_id,
           CASE WHEN k < 3 THEN 'contractor' ELSE 'researcher' END AS role
    FROM tasks, range(4) AS ks(k)
    WHERE k < 3 OR h % 10 = 0
), noisy AS (
    SELECT t, h, rater_id, role, dimension, CAST(hash(t, dimension) % 5 AS INT) AS q,
           CASE WHEN hash(t, rater_id, dimension) % 10 < 3
                THEN CAST(hash(t, dimension, rater_id) % 3 AS INT) - 1 ELSE 0 END AS noise,
           CASE WHEN role = 'researcher' THEN 0 WHEN right(rater_id, 1) = '0' THEN 1
                WHEN right(rater_id, 1) = '1' THEN -1 ELSE 0 END AS bias
    FROM raters, unnest($dimensions) AS x(dimension)
)
SELECT 'bt' || lpad(CAST(t AS VARCHAR), 7, '0') AS task_id, rater_id, role, 'answer_comparison' AS rubric,
       dimension, 'A' AS target, list_extract($levels, 1 + greatest(0, least(4, q + noise + bias))) AS value,
       TIMESTAMP '2026-01-05' + to_seconds(CAST((h + hash(rater_id) % 86400) % 10281600 AS BIGINT)) AS submitted_at
FROM noisy
ORDER BY rubric, dimension, task_id
"""
SUFFIX = {"flat": "", "full": "_full", "many": "_many"}


def generate(n_tasks: int, out: Path, shape: str = "flat") -> dict[str, Path]:
    """Write the ratings of n_tasks tasks in `shape` (flat, full or many) as Parquet and CSV; return their paths."""
    out.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect()
    if shape == "many":
        con.execute(f"CREATE TABLE r AS {MANY_SQL}", {"n": n_tasks, "dimensions": DIMENSIONS, "levels": LEVELS})
    elif shape == "full":
        params = {"n": n_tasks, "absolute": ABSOLUTE, "comparison": COMPARISON, "levels": LEVELS,
                  "comparison_levels": COMPARISON_LEVELS}  # fmt: skip
        con.execute(f"CREATE TABLE r AS {FULL_SQL}", params)
    else:
        con.execute(f"CREATE TABLE r AS {RATINGS_SQL}", [n_tasks, DIMENSIONS, DIMENSIONS, LEVELS])
    stem = f"ratings_{n_tasks}{SUFFIX[shape]}"
    paths = {"parquet": out / f"{stem}.parquet", "csv": out / f"{stem}.csv"}
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
    p.add_argument("--shape", choices=list(SUFFIX), default="flat", help="see the module docstring")
    args = p.parse_args()
    t = time.perf_counter()
    generate(args.tasks, Path(args.out), args.shape)
    print(f"generated in {time.perf_counter() - t:.1f} s")


if __name__ == "__main__":
    main()
