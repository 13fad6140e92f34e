"""Effects read from how a contractor uses an ordered absolute scale: leniency and severity (their signed
difference from researchers, or from the other contractors where researchers rarely rated with them), central
tendency (how often they keep to the inner levels) and halo (how little their ratings of one item vary across
the rubric's dimensions)."""

from __future__ import annotations

import pandas as pd

from analytics.agreement.report import MIN_TASKS
from analytics.effects.rows import finish, share_means, task_means
from analytics.filters import Filters
from analytics.queries import Query

# Ordered absolute dimensions: comparison scales have no "lenient" direction, two-level scales no inside, and a
# rank (1 = best) places an item against the task's other items, so its mean is fixed by their number.
ORDERED = """ordered AS (SELECT rubric, dimension, levels, level_values, len(levels) AS q FROM dimensions
                         WHERE NOT is_comparison AND measure <> 'nominal' AND kind <> 'ranking'
                               AND len(levels) >= 3)"""
VALUE = "coalesce(o.level_values[{i} + 1], {i})"  # a level's number on the scale, else its position


def researcher_differences_query(filters: Filters) -> Query:
    """Per contractor, ordered absolute dimension and task: their value minus the researchers' (kept pairs)."""
    where, params = filters.but(roles=()).where_named("p")
    return Query(
        "effects_researcher_differences",
        f"""WITH {ORDERED}
SELECT p.rater_id, p.rubric, p.dimension, p.task_key,
       avg({VALUE.format(i="p.value_index")} - {VALUE.format(i="p.reference_index")}) AS difference
FROM reference_pairs p JOIN ordered o USING (rubric, dimension)
WHERE {where} AND NOT starts_with(p.rater_id, 'anon:')
GROUP BY ALL""",
        params,
    )


def contractor_ratings_query(filters: Filters) -> Query:
    """Contractors' ratings of ordered absolute dimensions: value, scale position, and the other contractors'
    mean on the same unit (leave-self-out, where another contractor rated it)."""
    where, params = filters.but(roles=("contractor",)).where_named("r")
    return Query(
        "effects_contractor_ratings",
        f"""WITH {ORDERED},
rated AS (
    SELECT r.rater_id, r.rubric, r.dimension, r.task_key, r.target_key, r.value_index, o.q,
           {VALUE.format(i="r.value_index")} AS v
    FROM ratings r JOIN ordered o USING (rubric, dimension)
    WHERE {where} AND r.value_index IS NOT NULL AND NOT starts_with(r.rater_id, 'anon:'))
SELECT rater_id, rubric, dimension, task_key, target_key, value_index, q, v,
       CASE WHEN count(*) OVER unit >= 2 THEN (sum(v) OVER unit - v) / (count(*) OVER unit - 1) END AS others_mean
FROM rated
WINDOW unit AS (PARTITION BY rubric, dimension, task_key, target_key)""",
        params,
    )


def shift_rows(researchers: pd.DataFrame, ratings: pd.DataFrame) -> pd.DataFrame:
    """Leniency rows (raw = mean signed difference per task, + = more lenient): from researchers where the
    contractor shares at least MIN_TASKS tasks with them, else from the other contractors' mean."""
    by_ref = task_means(researchers, "difference").assign(basis="researchers") if len(researchers) else None
    others = ratings[ratings["others_mean"].notna()]
    per_task = (
        others.assign(difference=others["v"] - others["others_mean"])
        .groupby(["rater_id", "rubric", "dimension", "task_key"], as_index=False)[["difference"]]
        .mean()
    )
    by_team = task_means(per_task, "difference").assign(basis="consensus") if len(per_task) else None
    parts = [p for p in (by_ref, by_team) if p is not None]
    if not parts:
        return pd.DataFrame()
    both = pd.concat(parts, ignore_index=True)
    use_ref = both["basis"].eq("researchers") & both["n_tasks"].ge(MIN_TASKS)
    enough = use_ref.groupby([both[c] for c in ("rater_id", "rubric", "dimension")]).transform("any")
    chosen = both[(both["basis"] == "researchers") == enough].copy()
    chosen["evidence"] = [
        f"Mean difference {r:+.2f} scale points per task from the {'researchers' if b == 'researchers' else 'other contractors'}"
        f" over {n} tasks."
        for r, b, n in zip(chosen["raw"], chosen["basis"], chosen["n_tasks"], strict=True)
    ]
    lenient = finish(chosen, "leniency", "high", "levels", chosen["basis"])
    return pd.concat([lenient, lenient.assign(effect="severity", bad_side="low")], ignore_index=True)


def central_rows(ratings: pd.DataFrame) -> pd.DataFrame:
    """Central tendency rows: share of a contractor's ratings at the scale's inner levels (neither end), per
    task then over tasks; the evidence gives their variance against the other contractors'."""
    inner = ratings.assign(inner=((ratings["value_index"] > 0) & (ratings["value_index"] < ratings["q"] - 1)) * 1.0)
    per_task = inner.groupby(["rater_id", "rubric", "dimension", "task_key"], as_index=False)[["inner"]].mean()
    rows = share_means(per_task, "inner")
    var = ratings.groupby(["rater_id", "rubric", "dimension"])["v"].var()
    team = ratings.groupby(["rubric", "dimension"])["v"].var()
    ratio = [
        var.get((r, rb, d), float("nan")) / team.get((rb, d), float("nan"))
        for r, rb, d in zip(rows["rater_id"], rows["rubric"], rows["dimension"], strict=True)
    ]
    rows["evidence"] = [
        f"{s:.0%} of ratings at inner levels over {n} tasks; variance {v:.2f} times the contractors' overall."
        for s, n, v in zip(rows["raw"], rows["n_tasks"], ratio, strict=True)
    ]
    return finish(rows, "central_tendency", "high", "share", "own ratings")


def halo_rows(ratings: pd.DataFrame) -> pd.DataFrame:
    """Halo rows (per rubric, dimension ''): the spread of one item's ratings across the rubric's ordered
    dimensions (standard deviation of scale positions as shares of the scale, items with at least three
    dimensions), per task then over tasks; a spread well below the team's is a halo."""
    pos = ratings.assign(pos=ratings["value_index"] / (ratings["q"] - 1))
    item = pos.groupby(["rater_id", "rubric", "task_key", "target_key"])["pos"].agg(["std", "size"])
    item = item[item["size"] >= 3].reset_index()
    per_task = item.groupby(["rater_id", "rubric", "task_key"], as_index=False)["std"].mean()
    rows = task_means(per_task.assign(dimension=""), "std")
    rows["evidence"] = [
        f"One item's ratings across dimensions spread {s:.2f} of the scale on average over {n} tasks."
        for s, n in zip(rows["raw"], rows["n_tasks"], strict=True)
    ]
    return finish(rows, "halo", "low", "share of the scale", "own ratings")
