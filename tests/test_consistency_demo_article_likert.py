"""On the demo (the `demo_store` fixture, seed 7), every annotator keeps the article Likert rule that flags: each
annotator rates the same ten topics (seeds/004), too few to be flagged (rates.MIN_TASKS), so the simulator plants
no breaking of it and truth.json lists none. How often the two best predictions are equal is reported, not flagged."""

from __future__ import annotations

import json

import pytest

from analytics import store
from analytics.alarms.review import reviewed_rules
from analytics.consistency import article_likert as rules

RULE_IDS = tuple(r.rule_id for r in rules.RULES)


@pytest.fixture(scope="module")
def rated(demo_store):
    """The article Likert rules' contractor rates on the demo, flagged by the review's one alarm rule."""
    con = store.open_store(demo_store, read_only=True)
    try:
        df = reviewed_rules(con).raters
    finally:
        con.close()
    return df[df["rule_id"].isin(RULE_IDS)]


def test_nobody_breaks_best_is_highest_and_nobody_is_flagged(rated, demo_store):
    truth = json.loads((demo_store.parent / "inputs" / "truth.json").read_text())
    assert not any(rid in broken for broken in truth["rule_breaking"].values() for rid in RULE_IDS)
    best = rated[rated["rule_id"] == "al_best_is_highest"]
    # seven contractor annotators (demo/article_likert.py ANNOTATOR_BEHAVIOURS), ten topics each at most
    assert len(best) == 7 and best["n_checked"].between(1, 10).all()
    assert int(best["n_violations"].sum()) == 0
    assert not rated["flagged"].any()


def test_reference_equals_topic_is_reported_per_annotator(rated):
    df = rated[rated["rule_id"] == "al_reference_equals_topic"]
    # the demo's topic judgement mostly repeats the reference one (seeds/004: "they are the same")
    assert len(df) == 7 and df["n_violations"].sum() > df["n_checked"].sum() / 2
