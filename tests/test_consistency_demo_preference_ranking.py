"""On the demo (truth.json of the `demo_store` fixture, seed 7), the contractors flagged for breaking a preference
ranking rule are exactly those the simulator made break it (analytics/demo/behaviours.py RULE_BREAKING: always_equal
ties both responses in Best, fast_careless writes one-line justifications reused across tasks), nobody else breaks
one, and careful contractors and researchers break no rule of the rubric."""

from __future__ import annotations

import json

import pytest

from analytics import store
from analytics.consistency import preference_ranking as rules
from analytics.consistency import rates

RUBRIC = rules.RUBRIC
RULE_IDS = tuple(r.rule_id for r in rules.RULES)


@pytest.fixture(scope="module")
def demo(demo_store):
    """A read-only connection to the demo store."""
    con = store.open_store(demo_store, read_only=True)
    yield con
    con.close()


@pytest.fixture(scope="module")
def truth(demo_store) -> dict:
    """The demo's truth.json."""
    return json.loads((demo_store.parent / "inputs" / "truth.json").read_text())


@pytest.fixture(scope="module")
def rated(demo) -> dict:
    """rater_rates on the demo, by (rater_id, rule_id)."""
    df = rates.rater_rates(demo)
    return df[df["rule_id"].isin(RULE_IDS)].reset_index(drop=True)


def planted(truth: dict, rule_id: str) -> set[str]:
    """The contractors truth.json says break a rule on purpose."""
    return {rid for rid, broken in truth["rule_breaking"].items() if rule_id in broken}


def test_the_demo_plants_breaking_of_the_rules_a_lead_could_flag(truth):
    # pr_rank2_needs_critical_high: rank 2 needs every critical dimension High, which few demo responses have,
    # so no contractor has 30 checked submissions there; it is kept by everyone instead.
    assert {rule_id for rule_id in RULE_IDS if planted(truth, rule_id)} == set(RULE_IDS) - {
        "pr_rank2_needs_critical_high"
    }


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_flagged_contractors_are_exactly_the_planted_ones(rated, truth, rule_id):
    df = rated[rated["rule_id"] == rule_id]
    assert len(df) > 0, f"{rule_id} checked no contractor's submission on the demo"
    assert set(df.loc[df["flagged"], "rater_id"]) == planted(truth, rule_id)
    others = df[~df["rater_id"].isin(planted(truth, rule_id))]
    assert int(others["n_violations"].sum()) == 0


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_planted_rule_breakers_are_credibly_above_the_rest(rated, truth, rule_id):
    df = rated[rated["rule_id"] == rule_id].set_index("rater_id")
    for rid in planted(truth, rule_id):
        row = df.loc[rid]
        others = df.drop(index=rid)
        pooled = others["n_violations"].sum() / others["n_checked"].sum()
        # fast_careless at p_violate 0.3, always_equal by habit: the Wilson lower bound clears the others' rate
        assert row["n_checked"] >= rates.MIN_TASKS and row["rate_ci_low"] > pooled and row["rate"] > 0.15, rid


def test_careful_contractors_and_researchers_break_no_rule(demo, truth):
    careful = truth["behaviours"]["careful"]["raters"]
    found = demo.execute(
        """SELECT s.rater_id, s.role, count(*) AS n, count(*) FILTER (WHERE rr.violated) AS broken
           FROM rule_results rr JOIN submissions s USING (submission_id)
           WHERE rr.rubric = $rubric GROUP BY ALL""",
        {"rubric": RUBRIC},
    ).df()
    mine = found[found["rater_id"].isin(careful) | (found["role"] == "researcher")]
    assert set(mine["rater_id"]) & set(careful) and (mine["role"] == "researcher").any()
    assert int(mine["broken"].sum()) == 0


def test_every_rule_is_checked_on_the_demo(demo):
    checked = dict(
        demo.execute(
            "SELECT rule_id, count(*) FROM rule_results WHERE rubric = $rubric GROUP BY rule_id", {"rubric": RUBRIC}
        ).fetchall()
    )
    assert {rid: checked.get(rid, 0) > 0 for rid in RULE_IDS} == dict.fromkeys(RULE_IDS, True)
