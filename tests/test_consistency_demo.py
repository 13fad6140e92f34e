"""On the demo (truth.json of the `demo_store` fixture, seed 7), the contractors flagged for breaking a rubric rule
are exactly those the simulator made break it (demo/behaviours.py RULE_BREAKING, truth.json
`rule_breaking`), nobody else breaks a rule at all, and careful contractors and researchers break none (issue #14,
"Done when"). Article Likert has its own file: its annotators rate too few topics to be flagged."""

from __future__ import annotations

import pytest

from analytics.alarms.review import reviewed_rules
from analytics.consistency import catalogue, rates

# Rules the demo can flag: those that flag, but article Likert's (ten topics per annotator, under MIN_TASKS).
RULES = [r for r in catalogue.rules() if r.flags and r.rubric != "article_likert"]
RUBRICS = sorted({r.rubric for r in RULES})


@pytest.fixture(scope="module")
def rated(demo):
    """The contractors' rule rates on the demo, flagged by the review's one alarm rule (analytics/alarms)."""
    return reviewed_rules(demo).raters


def planted(truth: dict, rule_id: str) -> set[str]:
    """The contractors truth.json says break a rule on purpose."""
    return {rid for rid, broken in truth["rule_breaking"].items() if rule_id in broken}


def test_the_demo_plants_breaking_of_the_rules_a_lead_could_flag(truth):
    # Not planted: rules whose checked submissions per contractor stay under the 30 the flag rule needs on the
    # demo (Good / Very good options, fact-checking tasks, flagged questions, labels on open-domain instructions
    # or without a constraint, rank 2): everyone keeps them (docs/consistency.md, the demo's planted breaking).
    assert {r.rule_id for r in RULES if planted(truth, r.rule_id)} == {
        "ac_comparison_follows_absolute",
        "if_ranking_follows_ratings",
        "pr_rank1_needs_all_high",
        "pr_justification_names_ids",
        "pr_justification_length",
        "pr_boilerplate_justification",
    }


@pytest.mark.parametrize("rule_id", [r.rule_id for r in RULES])
def test_flagged_contractors_are_exactly_the_planted_ones(rated, truth, rule_id):
    df = rated[rated["rule_id"] == rule_id]
    assert len(df) > 0, f"{rule_id} checked no contractor's submission on the demo"
    assert set(df.loc[df["flagged"], "rater_id"]) == planted(truth, rule_id)
    # Nobody else breaks the rule at all: the planted rule breaking is the demo's only.
    others = df[~df["rater_id"].isin(planted(truth, rule_id))]
    assert int(others["n_violations"].sum()) == 0
    for rid in planted(truth, rule_id):
        row = df.set_index("rater_id").loc[rid]
        # p_violate 0.3 or a habit: checked often enough to be flagged, well above the rest's rate of 0
        assert row["n_checked"] >= rates.MIN_TASKS and row["rate"] > 0.15, rid


@pytest.mark.parametrize("rubric", RUBRICS)
def test_careful_contractors_and_researchers_break_no_rule(demo, truth, rubric):
    careful = truth["behaviours"]["careful"]["raters"]
    found = demo.execute(
        """SELECT s.rater_id, s.role, count(*) AS n, count(*) FILTER (WHERE rr.violated) AS broken
           FROM rule_results rr JOIN submissions s USING (submission_id)
           WHERE rr.rubric = $rubric GROUP BY ALL""",
        {"rubric": rubric},
    ).df()
    mine = found[found["rater_id"].isin(careful) | (found["role"] == "researcher")]
    assert set(mine["rater_id"]) & set(careful) and (mine["role"] == "researcher").any()
    assert int(mine["broken"].sum()) == 0


def test_every_rule_is_checked_on_the_demo(demo):
    checked = dict(demo.execute("SELECT rule_id, count(*) FROM rule_results GROUP BY rule_id").fetchall())
    ids = [r.rule_id for r in catalogue.rules()]
    assert {rid: checked.get(rid, 0) > 0 for rid in ids} == dict.fromkeys(ids, True)
