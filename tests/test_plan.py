"""The labelling plan (analytics/plan, docs/plan.md): newcomers first, then the widest intervals; never a task a
researcher labelled or one outside the filters; the budget counts labels, second labels for researcher-researcher agreement; issued
plans keep their tasks out of the next plan until withdrawn, with their completion; the intervals it starts from
are the Agreement page's."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd
import pytest

from analytics import agreement as ag
from analytics.core.filters import Filters
from analytics.ingest.load import ingest_bytes
from analytics.plan import candidates as cd
from analytics.plan import choose, issued, widths
from analytics.plan.needs import USABLE_TASKS, lacking, needs
from analytics.plan.propose import check_budget, propose, summary

AC, UC = "answer_comparison", "usefulness_comparison"
DAY0 = dt.datetime(2026, 3, 2, 10)
LEVELS = ["A much better", "A better", "Equally good", "B better", "B much better"]


def _project_csv() -> bytes:
    """A small project: r1 labelled tasks 0-59, which h1 and h2 rated (h1 agrees on 45, h2 on 30); tasks 60-159 are
    unlabelled, rated by h1 and h2; the newcomer n1 rated tasks 58-79 (two of them labelled) in the last week; the
    old hand o1 rated tasks 100-119 three months earlier and left."""
    lines = ["task_id,rater_id,role,rubric,dimension,target,value,submitted_at"]

    def day(i: int, shift: int = 0) -> str:
        return (DAY0 + dt.timedelta(days=i // 2 + shift)).isoformat()

    for i in range(60):
        lines.append(f"t{i:03d},r1,researcher,{AC},{UC},comparison,A better,{day(i)}")
    for i in range(160):
        for rater, agree in (("h1", 45), ("h2", 30)):
            value = "A better" if i < agree or i >= 60 and i % 3 else "B better"
            lines.append(f"t{i:03d},{rater},contractor,{AC},{UC},comparison,{value},{day(i)}")
    for i in range(58, 80):
        value = LEVELS[i % 5]
        lines.append(f"t{i:03d},n1,contractor,{AC},{UC},comparison,{value},{day(160, 1)}")
    for i in range(100, 120):
        lines.append(f"t{i:03d},o1,contractor,{AC},{UC},comparison,A better,{day(0, -90)}")
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture
def project(con):
    """The store holding the small project."""
    result = ingest_bytes(con, _project_csv(), "project.csv")
    assert result.status == "loaded" and result.rows_quarantined == 0, result.errors
    return con


def _researcher_tasks(con) -> set[str]:
    return {t for (t,) in con.execute("SELECT DISTINCT task_id FROM ratings WHERE role = 'researcher'").fetchall()}


def test_the_newcomer_comes_first_then_the_widest_interval(project):
    aims = needs(project, Filters())
    rows = aims.contractors.set_index("rater_id")
    assert rows.loc["n1", "n_tasks"] == 2 and not rows.loc["n1", "usable"] and rows.loc["n1", "active"]
    assert not rows.loc["o1", "active"]  # rated three months before the latest rating
    plan = propose(project, Filters(), 20)
    # n1 rated 20 unlabelled tasks: each is worth a step towards a usable interval, so all of them come first.
    assert all("n1" in c for c in plan.labels["contractors"])
    assert plan.labels["reason"].iloc[0].startswith("n1 has 2 of the 30 tasks")
    after = plan.after.set_index("rater_id")
    assert after.loc["n1", "n_tasks"] == 22
    assert after.loc["n1", "half_width"] < rows.loc["n1", "half_width"]
    # With n1's tasks all planned, the next labels narrow the wider of h1 and h2 (h2 agrees less: a wider interval).
    more = propose(project, Filters(), 40)
    rest = more.labels.iloc[20:]
    assert rest["reason"].str.contains("narrows").all()
    assert rows.loc["h2", "half_width"] > rows.loc["h1", "half_width"]
    assert rest["reason"].iloc[0].startswith("narrows h2's interval")


def test_a_plan_never_proposes_a_labelled_task(project, demo):
    for con in (project, demo):
        plan = propose(con, Filters(), 400)
        assert len(plan.labels) == min(400, plan.n_candidates)
        assert not set(plan.labels["task_id"]) & _researcher_tasks(con)


@pytest.mark.parametrize(
    "filters",
    [
        Filters(rubric="instruction_following"),
        Filters(raters=("c09", "c31")),
        Filters(date_from=dt.date(2026, 3, 20), date_to=dt.date(2026, 4, 5)),
        Filters(rubric=AC, raters=("c12",), date_from=dt.date(2026, 3, 1)),
    ],
    ids=["rubric", "raters", "dates", "all three"],
)
def test_a_plan_stays_inside_the_filters(demo, filters):
    plan = propose(demo, filters, 300)
    assert len(plan.labels), "the filter leaves candidates: the test means something"
    where, params = filters.but(roles=(), dimensions=()).where_named("r")
    inside = {
        (t, b)
        for t, b in demo.execute(
            f"""SELECT DISTINCT r.task_id, r.rubric FROM ratings r JOIN dimensions d USING (rubric, dimension)
            WHERE r.role = 'contractor' AND d.is_primary AND {where}""",
            params,
        ).fetchall()
    }
    planned = set(zip(plan.labels["task_id"], plan.labels["rubric"], strict=True))
    assert planned <= inside
    if filters.raters:
        assert set(plan.before["rater_id"]) <= set(filters.raters)
        assert all(set(c) <= set(filters.raters) for c in plan.labels["contractors"])


def test_a_role_filter_without_contractors_plans_nothing(demo):
    plan = propose(demo, Filters(roles=("researcher",)), 10)
    assert plan.labels.empty and plan.before.empty and plan.n_candidates == 0


def test_the_budget_counts_labels_and_buys_second_labels_for_researcher_agreement(project):
    plan = propose(project, Filters(), 40, ("r1", "r2"))
    labels = plan.labels
    assert len(labels) == 40
    seconds = labels[labels["second_label"]]
    assert len(seconds) == 4  # 10% of the labels: the project has no task two researchers labelled
    for task in seconds["task_id"]:
        both = labels[labels["task_id"] == task]
        assert len(both) == 2 and set(both["researcher"]) == {"r1", "r2"}
        assert both["priority"].nunique() == 1
    assert set(labels["researcher"].value_counts()) == {20}  # spread evenly
    assert seconds["reason"].str.startswith("second researcher, for researcher-researcher agreement").all()
    assert (seconds["expected_gain"] == 0).all()
    # The expected after counts a task once, however many researchers label it.
    firsts = labels[~labels["second_label"]]
    added = sum("h1" in c for c in firsts["contractors"])
    after = plan.after.set_index("rater_id")
    assert after.loc["h1", "n_tasks"] == plan.before.set_index("rater_id").loc["h1", "n_tasks"] + added
    # One researcher: no second labels; none named: nobody assigned.
    assert not propose(project, Filters(), 40, ("r1",)).labels["second_label"].any()
    assert propose(project, Filters(), 40).labels["researcher"].isna().all()


def test_an_issued_plan_keeps_its_tasks_out_until_withdrawn_and_shows_its_completion(project):
    first = propose(project, Filters(), 10, ("r1",))
    plan_id = issued.issue(project, first.labels, "lead@example.org", Filters(), 10, "newcomers first")
    assigned = set(first.labels["task_id"])
    second = propose(project, Filters(), 10, ("r1",))
    assert not set(second.labels["task_id"]) & assigned
    assert second.n_candidates == first.n_candidates - 10
    kept = issued.plans(project).set_index("plan_id")
    assert kept.loc[plan_id, "labels"] == 10 and kept.loc[plan_id, "done"] == 0
    assert kept.loc[plan_id, "status"] == "open" and kept.loc[plan_id, "issued_by"] == "lead@example.org"
    # r1 labels two of the plan's tasks, r2 a third: r1's two are done, r2's label is not r1's.
    done = sorted(assigned)[:3]
    rows = [f"{t},r1,researcher,{AC},{UC},comparison,A better,2026-05-01T10:00:00" for t in done[:2]]
    rows.append(f"{done[2]},r2,researcher,{AC},{UC},comparison,A better,2026-05-01T10:00:00")
    body = "task_id,rater_id,role,rubric,dimension,target,value,submitted_at\n" + "\n".join(rows) + "\n"
    assert ingest_bytes(project, body.encode(), "labels.csv").status == "loaded"
    kept = issued.plans(project).set_index("plan_id")
    assert kept.loc[plan_id, "done"] == 2 and kept.loc[plan_id, "completion"] == pytest.approx(0.2)
    label_rows = issued.labels(project)
    assert set(label_rows.loc[label_rows["done"], "task_id"]) == set(done[:2])
    issued.withdraw(project, plan_id, "lead@example.org")
    assert issued.plans(project).set_index("plan_id").loc[plan_id, "status"] == "withdrawn"
    again = propose(project, Filters(), 10, ("r1",))
    # Withdrawn: its tasks may come back, except those a researcher labelled since.
    assert again.n_candidates == first.n_candidates - 3
    assert not set(again.labels["task_id"]) & set(done)


def test_issuing_needs_a_name_and_a_plan(project):
    plan = propose(project, Filters(), 5)
    with pytest.raises(ValueError, match="needs who issues it"):
        issued.issue(project, plan.labels, "  ", Filters(), 5)
    with pytest.raises(ValueError, match="at least one task"):
        issued.issue(project, plan.labels.iloc[:0], "lead", Filters(), 5)
    with pytest.raises(ValueError, match="note"):
        issued.issue(project, plan.labels, "lead", Filters(), 5, "x" * (issued.MAX_NOTE + 1))
    issued.issue(project, plan.labels, "lead", Filters(), 5)
    with pytest.raises(ValueError, match="already assigned in open plan 1"):  # the same proposal issued twice
        issued.issue(project, plan.labels, "lead", Filters(), 5)
    assert len(issued.plans(project)) == 1


@pytest.mark.parametrize("budget", [0, -3, 10_001, 2.5, True])
def test_a_budget_outside_its_range_is_refused(budget):
    with pytest.raises(ValueError, match="budget"):
        check_budget(budget)


@pytest.mark.parametrize(
    "filters", [Filters(), Filters(rubric=AC), Filters(date_from=dt.date(2026, 3, 20))], ids=["all", "rubric", "dates"]
)
def test_the_intervals_are_the_agreement_pages_and_the_overview_counts_the_same_contractors(demo, filters):
    aims = needs(demo, filters)
    primary = aims.primary
    spec = ag.AgreementSpec(filters=filters.but(dimensions=tuple(sorted(set(primary.values())))))
    rows = ag.rater_agreement(demo, spec, stats=("exact_agreement",))
    is_primary = [primary.get(r) == d for r, d in zip(rows["rubric"], rows["dimension"], strict=True)]
    rows = rows[(rows["role"] == "contractor").to_numpy() & np.array(is_primary, dtype=bool)]
    page = rows.set_index(["rater_id", "rubric"])
    mine = aims.contractors.set_index(["rater_id", "rubric"])
    common = mine.index.intersection(page.index)
    assert len(common) >= 20
    width = (page.loc[common, "exact_agreement_ci_high"] - page.loc[common, "exact_agreement_ci_low"]) / 2
    assert np.allclose(mine.loc[common, "half_width"], width)
    assert (mine.loc[common, "n_tasks"] == page.loc[common, "n_tasks"]).all()
    short = aims.contractors[aims.contractors["active"] & ~aims.contractors["usable"]]
    pd.testing.assert_frame_equal(
        lacking(demo, filters), short[["rater_id", "rubric", "n_tasks"]].reset_index(drop=True), check_dtype=False
    )


@pytest.mark.parametrize("p", [0.0, 0.3, 0.62, 1.0])
@pytest.mark.parametrize("n", [1.0, 7.5, 30.0, 400.0])
def test_the_width_model_inverts_the_wilson_interval(p, n):
    assert widths.effective_tasks(p, widths.half_width(p, n)) == pytest.approx(n, rel=1e-6)
    model = widths.WidthModel(p, 2.0, 10)
    assert model.at(10) == pytest.approx(widths.half_width(p, 20.0))
    assert model.at(20) <= model.at(10) and model.shown_at(0) is None


def test_disagreement_and_recency_weigh_a_task(project):
    aims = needs(project, Filters())
    found = cd.candidates(project, Filters(), aims).set_index("task_id")
    # o1's tasks (100-119) were rated by h1 and h2 recently too: their latest rating is recent.
    assert found.loc["t070", "disagreement"] > 0  # n1 gives a level h1 and h2 do not
    old = cd.recency(pd.Series([aims.latest - dt.timedelta(days=56)]), aims.latest)
    assert old[0] == pytest.approx(0.25)
    assert cd.recency(pd.Series([aims.latest]), aims.latest)[0] == 1.0


def test_the_summary_reads_the_plan(project):
    plan = propose(project, Filters(), 20)
    head = summary(plan)
    assert head.short_now == 1 and head.short_after == 1  # n1 reaches 22 of 30 tasks
    assert head.widest_after < head.widest_now
    assert choose.COVERAGE > 0 and USABLE_TASKS == 30
