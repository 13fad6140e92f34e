"""Issue 48 item 6, words that match numbers: the researchers' figure is pooled and called pooled; each interval
sits beside its own coefficient (`ci95` is Cohen's kappa's, the card's kappa carries weighted kappa's); on fine
interval and ratio scales the unweighted coefficients are not headline figures (Snow et al. 2008's anger
ratings); the researcher line is researcher-researcher agreement, a reference and not a bound."""

from __future__ import annotations

import itertools
from pathlib import Path

import pandas as pd
import pytest

from analytics import agreement, store
from analytics.agreement import scales, team
from analytics.core.filters import Filters
from analytics.core.formatting import fmt_ci
from analytics.feedback import highlights
from analytics.feedback import report as fr
from analytics.feedback import team as fteam
from analytics.feedback.export import display
from analytics.feedback.export import html as html_export
from analytics.ingest.load import ingest_file
from tests.conftest import shared_path
from ui import agreement_view as view

ROOT = Path(__file__).resolve().parents[1]


def _pairs_agreeing(ratings: pd.DataFrame) -> tuple[int, int]:
    """The oracle, by hand with pandas: over units (task, target) with two or more researchers, every unordered
    pair of researchers once, the pairs that gave the same value and all pairs."""
    agree = total = 0
    for _, unit in ratings.groupby(["task_id", "target"]):
        for a, b in itertools.combinations(unit["value"].tolist(), 2):
            agree, total = agree + int(a == b), total + 1
    return agree, total


def test_the_researchers_figure_is_pooled_and_the_words_say_so(demo):
    """On the demo's primary comparison and on core_comparison the card's researcher figure is the pooled share of
    agreeing researcher pairs, not the median of each researcher's agreement with the others (on core_comparison
    0.67 against 0.64; on the primary they happen to be within 0.001), and the exports' words call it pooled."""
    ceiling = fteam.researcher_figures(demo, "answer_comparison").set_index("dimension")["exact_agreement"]
    median = {}
    for dimension in ("usefulness_comparison", "core_comparison"):
        rows = demo.execute(
            """SELECT task_id, target, rater_id, value FROM ratings WHERE role = 'researcher'
               AND rubric = 'answer_comparison' AND dimension = $dimension""",
            {"dimension": dimension},
        ).df()
        agree, total = _pairs_agreeing(rows)
        medians = []
        for rater in rows["rater_id"].unique():  # each researcher against the others, on the units they share
            mine = rows[rows["rater_id"] == rater].set_index(["task_id", "target"])["value"]
            theirs = rows[rows["rater_id"] != rater].set_index(["task_id", "target"])["value"]
            joined = theirs.to_frame("other").join(mine.rename("own"), how="inner")
            if len(joined):
                medians.append(float((joined["own"] == joined["other"]).mean()))
        assert ceiling[dimension] == pytest.approx(agree / total), dimension
        median[dimension] = pd.Series(medians).median()
    assert abs(ceiling["core_comparison"] - median["core_comparison"]) > 0.005  # the two differ, so the name matters
    assert "pooled over every pair of researchers" in display.EXPLAIN
    assert "median of each researcher" not in display.EXPLAIN


def test_each_card_column_carries_its_own_interval(demo):
    """`agreement --json`'s ci95 is Cohen's kappa's (ci95_of says so); the Feedback card's Kappa column is
    weighted kappa with weighted kappa's own interval on ordered scales (c13: the two kappas differ)."""
    spec = agreement.AgreementSpec(n_boot=200, filters=Filters(raters=("c13",)))
    raters = [r for r in agreement.contract_payload(demo, spec)["raters"] if r["rater_id"] == "c13"]
    assert raters and all(r["ci95_of"] == "cohen_kappa" for r in raters)
    assert all(r["ci95"] == [r["cohen_kappa_ci_low"], r["cohen_kappa_ci_high"]] for r in raters)
    differs = [
        r for r in raters if r["weighted_kappa"] is not None and abs(r["weighted_kappa"] - r["cohen_kappa"]) > 0.05
    ]
    assert differs  # the case: Cohen's kappa's interval beside weighted kappa would mislead
    rep = fr.feedback_report(demo, "c13", n_boot=200)
    shown = display.card_rows(rep)
    weighted = rep.card["kappa_statistic"].str.startswith("weighted")
    assert weighted.any()
    json_rows = {(r["rubric"], r["dimension"]): r for r in raters}
    for i in rep.card.index[weighted]:
        own = rep.card.loc[i]
        assert own["kappa"] == pytest.approx(json_rows[(own["rubric"], own["dimension"])]["weighted_kappa"])
        assert shown.loc[i, "Kappa"] == fmt_ci(own["kappa"], own["kappa_ci_low"], own["kappa_ci_high"])


@pytest.mark.parametrize(
    "level, n_levels, fine",
    [("interval", 101, True), ("ratio", 11, True), ("interval", 10, False), ("ordinal", 101, False)],
)
def test_the_headline_rule(level, n_levels, fine):
    """Fine: interval or ratio with more than FINE_LEVELS levels; there every unweighted coefficient is no
    headline figure and every weighted one is."""
    assert scales.FINE_LEVELS == 10 and scales.fine_grained(level, n_levels) == fine
    assert all(scales.headline(s, level, n_levels) != fine for s in scales.UNWEIGHTED)
    assert all(scales.headline(s, level, n_levels) for s in ("krippendorff_alpha", "gwet_ac2", "weighted_kappa"))


@pytest.fixture(scope="module")
def anger():
    """Snow et al. 2008's anger ratings (0-100, declared interval) in an in-memory store."""
    con = store.open_store(":memory:")
    assert ingest_file(con, shared_path("real-data", "snow2008", "anger.standardized.tsv")).status == "loaded"
    yield con
    con.close()


def test_snow_anger_shows_no_unweighted_headline(anger):
    """On the 101-level anger scale the page's dimension table, the command line's text and the rater table show
    alpha and AC2 but not percent agreement, Fleiss' kappa or AC1, and say why; the JSON keeps every figure."""
    payload = agreement.contract_payload(anger, agreement.AgreementSpec(n_boot=0, filters=Filters()))
    d = payload["dimensions"][0]
    assert (d["level"], d["n_levels"]) == ("interval", 101)
    assert all(d[s] is not None for s in ("percent_agreement", "fleiss_kappa", "gwet_ac1"))  # the contract's keys
    text = agreement.contract_text(payload).splitlines()
    assert text[2].count("not shown") == 3  # percent agreement, Fleiss' kappa, AC1
    assert f"{d['krippendorff_alpha']:.3f}" in text[2] and f"{d['gwet_ac2']:.3f}" in text[2]
    assert any("unweighted coefficients (exact matches only) are not shown" in line for line in text)
    report = agreement.agreement_report(anger, agreement.AgreementSpec(comparison="among_contractors", n_boot=0))
    dims = pd.DataFrame({"dimension": ["anger"], "label": ["Anger"], "is_primary": [True]})
    table = view.dimension_table(report, dims).iloc[0]
    for s in ("percent_agreement", "fleiss_kappa", "gwet_ac1"):
        assert table[view.label(s)] == view.NOT_HEADLINE
    among = report.dimensions.iloc[0]  # contractors alone: the page's figures, not the JSON's all raters
    assert table[view.label("krippendorff_alpha")].startswith(f"{among['krippendorff_alpha']:.3f}")
    assert table[view.label("gwet_ac2")].startswith(f"{among['gwet_ac2']:.3f}")
    assert "not shown on this interval scale of 101 levels" in table["notes"]
    raters = agreement.rater_agreement(anger, agreement.AgreementSpec(n_boot=0, filters=Filters()))
    stats = view.rater_statistics(raters, "snow2008_affect", "anger")
    assert "weighted_kappa" in stats and not set(stats) & set(scales.UNWEIGHTED)


def test_snow_anger_card_and_highlights_read_weighted_kappa(anger):
    """A worker's Feedback card does not headline exact agreement on the 0-100 scale, and the highlight sentence
    gives the card's weighted kappa instead, with its own interval."""
    worker = anger.execute(
        "SELECT rater_id FROM ratings WHERE role = 'contractor' GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1"
    ).fetchone()[0]
    rep = fr.feedback_report(anger, worker, n_boot=200)
    card = rep.card.iloc[0]
    assert display.card_rows(rep).iloc[0]["Exact"] == display.NOT_HEADLINE
    page = html_export.to_html(rep)
    assert page.count(f">{display.NOT_HEADLINE}</td>") == 2  # the exact-agreement strip and the Exact column
    primary = rep.card.assign(is_primary=True)  # the catalogue marks no primary affect: read it as one
    sentence = highlights.highlights(primary, rep.trend.iloc[0:0], rep.durations.iloc[0:0])[0]
    assert f"weighted kappa (quadratic) with researchers {card['kappa']:.2f}" in sentence
    assert f"(95% interval {card['kappa_ci_low']:.2f} to {card['kappa_ci_high']:.2f}" in sentence


def test_the_researcher_line_is_named_a_reference_not_a_ceiling(demo):
    """The yardstick, the exports' words and the command line call it researcher-researcher agreement, a
    reference and not a bound; no page, export or doc calls it a ceiling (the JSON key `ceiling` stays)."""
    yard = team.yardsticks(pd.DataFrame(), fteam.researcher_figures(demo), "answer_comparison", "usefulness", "kappa")
    assert yard["reference"].tolist() == [team.CEILING] == ["Researcher-researcher agreement"]
    assert "not a bound" in yard["basis"].iloc[0]
    assert "not a bound" in display.EXPLAIN
    payload = agreement.contract_payload(demo, agreement.AgreementSpec(n_boot=0, filters=Filters()))
    assert "ceiling" in payload
    assert "Researcher-researcher agreement (pooled researcher pairs; a reference, not a bound)" in (
        agreement.contract_text(payload)
    )
    shown = [*ROOT.glob("app_pages/*.py"), *ROOT.glob("analytics/feedback/export/*.py"), *ROOT.glob("docs/*.md")]
    for path in [*shown, ROOT / "README.md", ROOT / "ui" / "charts.py", ROOT / "ui" / "feedback_charts.py"]:
        assert "researcher ceiling" not in path.read_text(encoding="utf-8").lower(), path
