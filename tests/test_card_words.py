"""Words a contractor reads (issue 50): a drift's difference from the team is said in percentage points, never as a
bare "+11%" that reads as a percent of the team's; the card's shift highlight and the Distributions page's "Shift
from researchers" paragraph are in plain words, without the statistics' jargon."""

from __future__ import annotations

import re

import pandas as pd

from analytics.effects import drift
from analytics.feedback.highlights import highlights
from tests.conftest import app_test
from tests.test_page_distributions import app_store  # noqa: F401  # the small store the page test uses

JARGON = ("bootstrap", "Gaussian", "multiplier", "upward bias", "distance", "disjoint", "excludes 0", "95% interval of")
BARE_PERCENT = re.compile(r"[+-]\d+%")


def test_drift_evidence_says_percentage_points(demo, truth):
    """The evidence a drifting contractor's card and alarm carry names points above or below the team's week."""
    rows = drift.drift_rows(demo)
    mine = rows[rows["rater_id"].isin(truth["behaviours"]["drifting"]["raters"])]
    assert len(mine)
    for text in mine["evidence"]:
        assert not BARE_PERCENT.search(text), text
        assert re.search(r"\d+ percentage points? (above|below) the team's|level with the team's", text), text
        assert f"in the {drift.RECENT_WEEKS} weeks since" in text


def _card(rows: list[tuple[str, float, float, float]]) -> pd.DataFrame:
    """A card of non-primary dimensions (label, mean difference and its interval) on one rubric."""
    return pd.DataFrame(
        [
            {
                "rubric": "answer_comparison",
                "dimension_label": label,
                "is_primary": False,
                "mean_difference": m,
                "mean_difference_ci_low": lo,
                "mean_difference_ci_high": hi,
            }
            for label, m, lo, hi in rows
        ]
    )


def test_the_shift_highlight_is_in_plain_words():
    card = _card([("Coherence", -1.3, -1.87, -0.73), ("Core information", 0.4, 0.1, 0.7), ("Side", 0.2, -0.1, 0.5)])
    trend = pd.DataFrame({"change_ci_high": pd.Series(dtype=float)})
    times = pd.DataFrame({"ratio": pd.Series(dtype=float)})
    (sentence,) = highlights(card, trend, times)
    assert "on 2 dimensions your ratings lean one way compared with researchers' on the same tasks" in sentence
    assert "1 toward the scale's last level, 1 toward its first" in sentence
    assert "The largest lean is on Coherence: on average 1.30 levels toward the first level." in sentence
    assert not any(j in sentence for j in JARGON)


def test_the_shift_from_researchers_paragraph_is_in_plain_words(app_store):  # noqa: F811
    at = app_test("app_pages/distributions.py", timeout=60)
    assert not at.exception, at.exception
    (text,) = [c.value for c in at.caption if "uses the scale compared with researchers" in c.value]
    for column in ("Mean level", "Difference", "Total variation", "small_n"):
        assert column in text
    assert not [j for j in JARGON if j in text]
