"""AppTest of the Consistency page on the demo store, with a rule made for the test (which submissions break it
is set here): the rules chart and table, the flagged contractor, the violations and one opened side by side."""

from __future__ import annotations

import pandas as pd
import pytest

from analytics.consistency import catalogue
from tests.conftest import app_test

PAGE = "app_pages/consistency.py"
BREAKER = "c05"


def _every_other_task_of_the_breaker(con) -> pd.DataFrame:
    """Every rated answer-comparison submission is checked; the breaker breaks it on even-hashed tasks."""
    return con.execute(
        """SELECT submission_id, rater_id = $breaker AND hash(task_id) % 2 = 0 AS violated,
                  CASE WHEN rater_id = $breaker AND hash(task_id) % 2 = 0 THEN 'planted for the test' ELSE '' END
                      AS detail
           FROM submissions WHERE rubric = 'answer_comparison' AND status = 'rated'""",
        {"breaker": BREAKER},
    ).df()


RULE = catalogue.Rule(
    "test_planted", "answer_comparison", "A rule made for the test.", ("submissions",), _every_other_task_of_the_breaker
)


@pytest.fixture
def planted(app_store, monkeypatch):
    monkeypatch.setattr(catalogue, "rules", lambda: (RULE,))
    return app_store


def test_rules_contractors_and_a_violation_side_by_side(planted):
    at = app_test(PAGE)
    assert not at.exception, at.exception
    markdown = " ".join(m.value for m in at.markdown).replace("\\", "")  # escaped markdown, read as text
    assert "Flagged:" in markdown and BREAKER in markdown
    tables = [df.value for df in at.dataframe]
    rules = next(t for t in tables if "description" in t.columns or "Description" in t.columns)
    assert len(rules) == 1
    # The violations table holds only the breaker's submissions; the opened one names the rule and what was found.
    assert "Rule broken:" in markdown and "planted for the test" in markdown
    assert at.selectbox(key="cons_violation").options
    # The side-by-side panel of the opened submission shows its task and its ratings (the case panel).
    assert any("Options in the order" in c.value for c in at.caption)


def test_check_again_keeps_results_and_says_so(planted):
    at = app_test(PAGE)
    at.button(key="cons_recheck").click().run()
    assert not at.exception
    assert any("Checked again" in s.value for s in at.success)


def test_no_rubric_with_rules_under_the_filters(planted):
    at = app_test(PAGE)
    at.sidebar.selectbox(key="f_rubric").select("instruction_following").run()
    assert not at.exception
    assert any("No submission under these filters" in i.value for i in at.info)


def test_feedback_report_has_the_broken_rule_with_the_same_rate_as_the_consistency_page(planted):
    """The contractor's broken rule appears in the Feedback page and its Markdown export with the rule's words,
    and the rate there is the Consistency page's (one figure, two pages)."""
    from analytics import store
    from analytics.alarms.review import reviewed_rules
    from analytics.feedback import report
    from analytics.feedback.export import markdown

    con = store.open_store(planted)
    expected = reviewed_rules(con).raters.set_index(["rater_id", "rule_id"]).loc[(BREAKER, "test_planted")]
    rep = report.feedback_report(con, BREAKER, n_boot=0)
    con.close()
    row = rep.rules.set_index("rule_id").loc["test_planted"]
    assert (row["n_checked"], row["n_violations"]) == (expected["n_checked"], expected["n_violations"])
    assert row["rate"] == pytest.approx(expected["rate"]) and bool(row["flagged"])
    md = markdown.to_markdown(rep)
    assert "## Rubric rules you broke" in md and "A rule made for the test." in md
    at = app_test("app_pages/feedback.py")
    at.session_state["fb_section"] = "Alarms and rules"  # the card's tab with the rules (only the open tab is drawn)
    at.selectbox(key="fb_contractor").select(BREAKER).run()
    assert not at.exception
    shown = next(df.value for df in at.dataframe if "Broken in" in df.value.columns)
    assert shown["Broken in"].tolist() == [f"{expected['n_violations']} of {expected['n_checked']}"]


def test_overview_shows_the_weekly_share_breaking_a_rule(planted):
    at = app_test("app_pages/overview.py")
    assert not at.exception
    assert any("breaking at least one of their rubric document" in c.value for c in at.caption)


def test_command_line_prints_the_contract_on_the_store(planted, capsys):
    """`python -m analytics consistency --db PATH --json`: rules, raters and violations as issue #14 states them,
    the same figures the page shows (read-only: computed without writing)."""
    import json

    from analytics.cli.main import main

    assert main(["consistency", "--db", str(planted), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert set(payload) == {"rules", "raters", "violations"}
    assert payload["rules"][0].keys() == {"rule_id", "rubric", "description", "n_checked", "n_violations"}
    flagged = [r["rater_id"] for r in payload["raters"] if r["flagged"]]
    assert flagged == [BREAKER]
    assert {v["rater_id"] for v in payload["violations"]} == {BREAKER}
    assert main(["consistency", "--db", str(planted)]) == 0
    assert f"{BREAKER} on test_planted" in capsys.readouterr().out
