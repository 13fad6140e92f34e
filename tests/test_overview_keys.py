"""Overview counts on the integer keys: a task is (task_id, rubric), so one task id in two rubrics is two tasks."""

from __future__ import annotations

import datetime as dt

from analytics.core.filters import Filters
from analytics.describe import overview
from analytics.ingest.load import ingest_bytes

AC, UC = "answer_comparison", "usefulness_comparison"
ROWS = [  # task, rater, role, rubric, dimension, target, value, duration, day of March 2026
    ("t1", "c1", "contractor", AC, UC, "comparison", "A better", 60, 2),
    ("t2", "c1", "contractor", AC, UC, "comparison", "B better", 120, 3),
    ("t1", "r1", "researcher", AC, UC, "comparison", "A better", 30, 3),
    ("t1", "c1", "contractor", "preference_ranking", "accuracy", "", "2", 90, 10),
    ("t1", "c1", "contractor", "preference_ranking", "relevance", "", "3", 30, 10),
]


def test_one_task_id_in_two_rubrics_is_two_tasks(con):
    lines = ["task_id,rater_id,role,rubric,dimension,target,value,duration_s,submitted_at"]
    lines += [",".join([*map(str, row[:-1]), f"2026-03-{row[-1]:02d}T10:00:00"]) for row in ROWS]
    result = ingest_bytes(con, ("\n".join(lines) + "\n").encode(), "r.csv")
    assert (result.status, result.rows_loaded) == ("loaded", len(ROWS))

    s = overview.summary(con, Filters())
    assert (s.ratings, s.tasks, s.raters, s.contractors, s.researchers, s.rubrics) == (5, 3, 2, 1, 1, 2)
    assert (s.first_rating, s.last_rating) == (dt.datetime(2026, 3, 2, 10), dt.datetime(2026, 3, 10, 10))

    by_rubric = overview.volume_by_rubric(con, Filters())
    assert by_rubric[["rubric", "role", "ratings", "tasks", "raters"]].values.tolist() == [
        ["answer_comparison", "contractor", 2, 2, 1],
        ["answer_comparison", "researcher", 1, 1, 1],
        ["preference_ranking", "contractor", 2, 1, 1],
    ]

    by_week = overview.volume_by_week(con, Filters(roles=("contractor",)))
    assert by_week[["rubric", "ratings", "tasks"]].values.tolist() == [
        ["answer_comparison", 2, 2],  # week of 2 March
        ["preference_ranking", 2, 1],  # week of 9 March
    ]

    raters = overview.raters(con, Filters()).set_index("rater_id")
    c1 = raters.loc["c1"]
    assert (c1["role"], c1["rubrics"], c1["tasks"], c1["ratings"]) == (
        "contractor",
        "answer_comparison, preference_ranking",
        3,
        4,
    )
    # One duration per task and rater (the longest of its ratings): 60, 120 and 90 seconds.
    assert c1["median_duration_s"] == 90
    assert raters.loc["r1", "tasks"] == 1

    # The date filter still reads the text columns: only the second week's ratings are left.
    later = overview.summary(con, Filters(date_from=dt.date(2026, 3, 9)))
    assert (later.ratings, later.tasks, later.rubrics) == (2, 1, 1)
