"""Overview's researcher-labelled share reads the one pairing (analytics.agreement.pairing)."""

from __future__ import annotations

import datetime as dt

from analytics.agreement import pairing as pg
from analytics.agreement import sides as sd
from analytics.core.filters import Filters
from analytics.describe import overview
from analytics.ingest.load import ingest_bytes

AC, UC = "answer_comparison", "usefulness_comparison"
ROWS = [  # task, rater, role, value, day of March 2026
    ("t1", "c1", "contractor", "A better", 5),
    ("t1", "r1", "researcher", "A better", 1),  # a label before the date range still counts
    ("t2", "c1", "contractor", "B better", 5),
    ("t3", "c1", "contractor", "B better", 5),
    ("t3", "r1", "researcher", "B better", 5),
    ("t4", "c2", "contractor", "A better", 5),
    ("t4", "r1", "researcher", "A better", 5),
    ("t5", "c1", "contractor", "A better", 2),  # before the date range
    ("t5", "r1", "researcher", "A better", 2),
]


def test_researcher_share_is_contractor_tasks_paired_with_a_researcher(con):
    lines = ["task_id,rater_id,role,rubric,dimension,target,value,submitted_at"]
    lines += [f"{t},{r},{role},{AC},{UC},comparison,{v},2026-03-{d:02d}T10:00:00" for t, r, role, v, d in ROWS]
    assert ingest_bytes(con, ("\n".join(lines) + "\n").encode(), "r.csv").status == "loaded"
    f = Filters(raters=("c1",), date_from=dt.date(2026, 3, 4))
    s = overview.summary(con, f)
    # c1's tasks in the range: t1, t2, t3; a researcher rated the same unit on t1 (any date) and t3.
    assert (s.contractor_tasks, s.paired_tasks) == (3, 2)
    assert s.researcher_share == 2 / 3
    # The same count as the pairing itself.
    pairs = pg.unit_pairs_query(sd.comparison_sides(f, "contractor_vs_researcher")).df(con)
    assert pairs["task_id"].nunique() == s.paired_tasks
    # The role filter is replaced by the comparison's roles.
    assert overview.summary(con, f.but(roles=("researcher",))).researcher_share == 2 / 3
    assert overview.summary(con, Filters()).researcher_share == 4 / 5
    assert overview.summary(con, Filters(raters=("r1",))).researcher_share is None
