"""Plans a lead issued: who issued which labels, when, under which filter; each label's completion (its researcher,
or any researcher for a label without one, rated the task in its rubric); plans withdrawn, by whom and when.

An open plan's tasks are left out of the next plan (candidates.py) until it is withdrawn; a labelled task is left
out anyway. Issuing or withdrawing does not bump the dataset version (no cached figure reads plans): the page reads
the plans on every run and keys its proposal on the open plans (`open_key`)."""

from __future__ import annotations

import duckdb
import pandas as pd

from analytics.alarms import acks
from analytics.core.filters import Filters
from analytics.core.queries import Query
from analytics.store import tx

MAX_NOTE = 500  # characters of a plan's note or an issuer's name
# The tables are migration 21 of analytics/store/migrations.py (label_plans, label_plan_tasks).
HAS_TABLES = Query("label_plans_table", "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'label_plans'")
NEXT_ID = Query("label_plan_next_id", "SELECT coalesce(max(plan_id), 0) + 1 FROM label_plans")
SAVE_PLAN = Query(
    "label_plan_save",
    """INSERT INTO label_plans (plan_id, issued_by, issued_at, budget, rubric, date_from, date_to, raters, note)
VALUES ($plan_id, $issued_by, $issued_at, $budget, $rubric, $date_from, $date_to, $raters, $note)""",
)
SAVE_TASKS = Query(
    "label_plan_tasks_save",
    """INSERT INTO label_plan_tasks (plan_id, priority, task_id, rubric, researcher, reason, expected_gain)
SELECT $plan_id, priority, task_id, rubric, researcher, reason, expected_gain FROM (SELECT unnest($rows, recursive := true))""",
)
WITHDRAW = Query(
    "label_plan_withdraw",
    "UPDATE label_plans SET withdrawn_by = $by, withdrawn_at = $at WHERE plan_id = $plan_id AND withdrawn_at IS NULL",
)
# A label is done when its researcher (any researcher, for a label without one) rated the task in its rubric.
LABELS = Query(
    "label_plan_labels",
    """WITH t AS (SELECT t.*, k.task_key FROM label_plan_tasks t LEFT JOIN task_keys k USING (task_id)),
r AS (SELECT DISTINCT task_key, rubric, rater_id FROM rater_tasks
      WHERE role = 'researcher' AND task_key IN (SELECT task_key FROM t))
SELECT t.plan_id, t.priority, t.task_id, t.rubric, t.researcher, t.reason, t.expected_gain,
       coalesce(bool_or(r.rater_id IS NOT NULL AND (t.researcher IS NULL OR r.rater_id = t.researcher)), FALSE) AS done
FROM t LEFT JOIN r ON r.task_key = t.task_key AND r.rubric = t.rubric
GROUP BY ALL ORDER BY t.plan_id, t.priority, t.researcher NULLS FIRST""",
)
PLANS = Query(
    "label_plans",
    """SELECT plan_id, issued_by, issued_at, budget, rubric, date_from, date_to, raters, note, withdrawn_by, withdrawn_at
FROM label_plans ORDER BY plan_id""",
)
ASSIGNED = Query(
    "label_plan_assigned",
    """WITH asked AS (SELECT unnest($task_ids) AS task_id, unnest($rubrics) AS rubric)
SELECT t.task_id, t.rubric, min(t.plan_id) FROM label_plan_tasks t JOIN label_plans p USING (plan_id)
JOIN asked a ON a.task_id = t.task_id AND a.rubric = t.rubric
WHERE p.withdrawn_at IS NULL GROUP BY ALL ORDER BY 1, 2 LIMIT 1""",
)
OPEN_IDS = Query("label_plans_open", "SELECT plan_id FROM label_plans WHERE withdrawn_at IS NULL ORDER BY plan_id")
PLAN_COLUMNS = (
    "plan_id",
    "issued_by",
    "issued_at",
    "status",
    "labels",
    "done",
    "completion",
    "rubric",
    "date_from",
    "date_to",
    "note",
    "withdrawn_by",
    "withdrawn_at",
)
LABEL_COLUMNS = ("plan_id", "priority", "task_id", "rubric", "researcher", "reason", "expected_gain", "done")


def has_tables(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the store has the plans' tables (a store opened read-only before migration 21 has not)."""
    return bool(HAS_TABLES.rows(con)[0][0])


def issue(
    con: duckdb.DuckDBPyConnection, plan: pd.DataFrame, by: str, filters: Filters, budget: int, note: str = ""
) -> int:
    """Keep `plan` (choose.PLAN_COLUMNS rows) as issued by `by` under `filters`; its id. ValueError for an empty
    plan, a missing name, an over-long note, or a task an open plan already assigns (a plan issued twice: a second
    click, or two leads on one proposal)."""
    who = acks.checked_text("a labelling plan", "who issues it", by, MAX_NOTE)
    if len(note) > MAX_NOTE:
        raise ValueError(f"a labelling plan's note is longer than {MAX_NOTE} characters")
    if plan.empty:
        raise ValueError("a labelling plan needs at least one task: there is nothing to issue")
    rows = [
        {
            "priority": int(p),
            "task_id": str(t),
            "rubric": str(r),
            "researcher": None if pd.isna(x) else str(x),
            "reason": str(why),
            "expected_gain": float(g),
        }
        for p, t, r, x, why, g in plan[
            ["priority", "task_id", "rubric", "researcher", "reason", "expected_gain"]
        ].itertuples(index=False)
    ]
    with tx.write(con):
        taken = ASSIGNED.bind(task_ids=[r["task_id"] for r in rows], rubrics=[r["rubric"] for r in rows]).rows(con)
        if taken:
            task, rubric, other = taken[0]
            raise ValueError(
                f"task {task} ({rubric}) is already assigned in open plan {other}: the plan shown was issued already; "
                "look at the plan proposed now"
            )
        plan_id = int(NEXT_ID.rows(con)[0][0])
        SAVE_PLAN.bind(
            plan_id=plan_id,
            issued_by=who,
            issued_at=tx.now(),
            budget=int(budget),
            rubric=filters.rubric,
            date_from=filters.date_from,
            date_to=filters.date_to,
            raters=list(filters.raters) or None,
            note=note.strip() or None,
        ).run(con)
        SAVE_TASKS.bind(plan_id=plan_id, rows=rows).run(con)
    return plan_id


def withdraw(con: duckdb.DuckDBPyConnection, plan_id: int, by: str) -> None:
    """Withdraw an open plan: its labels not yet done may be proposed again."""
    who = acks.checked_text("a labelling plan", "who withdraws it", by, MAX_NOTE)
    with tx.write(con):
        WITHDRAW.bind(plan_id=int(plan_id), by=who, at=tx.now()).run(con)


def labels(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Every issued label with whether it is done (LABEL_COLUMNS)."""
    return LABELS.df(con) if has_tables(con) else pd.DataFrame(columns=list(LABEL_COLUMNS))


def plans(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Every issued plan with its completion (PLAN_COLUMNS), newest first."""
    if not has_tables(con):
        return pd.DataFrame(columns=list(PLAN_COLUMNS))
    kept = PLANS.df(con)
    done = labels(con).groupby("plan_id")["done"].agg(labels="size", done="sum").reset_index()
    out = kept.merge(done, how="left", on="plan_id")
    out["labels"] = out["labels"].fillna(0).astype("int64")
    out["done"] = out["done"].fillna(0).astype("int64")
    out["completion"] = (out["done"] / out["labels"].where(out["labels"] > 0)).astype(float)
    out["status"] = [
        "withdrawn" if pd.notna(w) else "complete" if d == n else "open"
        for w, d, n in zip(out["withdrawn_at"], out["done"], out["labels"], strict=True)
    ]
    return out.sort_values("plan_id", ascending=False)[list(PLAN_COLUMNS)].reset_index(drop=True)


def open_key(con: duckdb.DuckDBPyConnection) -> tuple[int, ...]:
    """The ids of the plans not withdrawn: what a cached proposal depends on besides the dataset version."""
    if not has_tables(con):
        return ()
    return tuple(int(i) for (i,) in OPEN_IDS.rows(con))
