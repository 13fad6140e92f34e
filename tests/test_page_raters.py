"""AppTest of the Raters page on the demo store: who shows which effect, one contractor's effects against the
team, and (fitted when asked, issue #51) the model's accuracy beside agreement with researchers and the consensus
labels to download."""

from __future__ import annotations

import datetime as dt

import pandas as pd

from analytics import effects, store
from analytics.alarms.review import review
from analytics.core.filters import Filters
from analytics.model import calibration, rater_model, raters
from tests.conftest import app_test
from ui import raters_charts as rc

PAGE = "app_pages/raters.py"
FIT = "raters_fit_model"


def fitted(at):
    """The page after clicking "Fit the rater model"."""
    return at.button(key=FIT).click().run()


def _markdown(at) -> str:
    """The page's Markdown as text (escapes removed)."""
    return " ".join(m.value for m in at.markdown).replace("\\", "")


def test_effects_model_and_consensus_on_the_demo(shared_app_store):
    at = fitted(app_test(PAGE))
    assert not at.exception, at.exception
    text = _markdown(at)
    assert "Flagged:" in text
    # The first rubric picked is the demo's answer comparison: its planted first-position contractors are named.
    assert all(c in text for c in ("c13", "c21", "c26"))
    # The contractor picker opens on the contractor with most flags; their flagged effects carry evidence.
    contractor = at.selectbox(key="raters_contractor").value
    assert contractor
    headers = [t.value.columns.tolist() for t in at.dataframe]
    assert any("estimate" in h and "team_value" in h for h in headers)
    assert any("accuracy" in h and "exact_agreement" in h for h in headers)
    assert any("confidence" in h and "label" in h for h in headers)
    assert at.selectbox(key="raters_model_dim").value == "usefulness_comparison"  # the rubric's primary dimension
    assert not any("Error" in e.value for e in at.error)
    assert not any("did not converge" in w.value for w in at.warning)
    assert not any("not calibrated" in i.value for i in at.info)


def test_the_grid_has_every_contractor_and_effect_and_says_which_were_not_measured(shared_app_store, demo_store):
    """Every contractor has a cell for every effect; a contractor without a drift estimate (tasks over too few
    weeks) is "not measured", not a blank, and the page says why."""
    con = store.open_store(demo_store, read_only=True)
    view = raters.raters_view(con, Filters(), "answer_comparison", n_boot=0)
    con.close()
    grid, table = view.grid, view.effects
    assert len(grid) == table["rater_id"].nunique() * table["effect"].nunique()
    measured = set(zip(table["rater_id"], table["effect"], strict=True))
    for row in grid.itertuples():
        assert (row.standing == raters.NOT_MEASURED) == ((row.rater_id, row.effect) not in measured)
        assert row.n_measured == ((table["rater_id"] == row.rater_id) & (table["effect"] == row.effect)).sum()
    unmeasured = grid[grid["standing"] == raters.NOT_MEASURED]
    assert not unmeasured.empty and set(unmeasured["effect"]) == {"drift"}  # the demo's short-lived contractors
    at = app_test(PAGE)
    assert raters.NOT_MEASURED_WHY in [c.value for c in at.caption]


def test_page_figures_equal_the_command_lines(demo_store):
    """The effects the page shows are the review's under the sidebar's filters (the table `effects --json` prints
    under the same filters, flagged by the one alarm rule), the rubric's rows."""
    con = store.open_store(demo_store, read_only=True)
    view = raters.raters_view(con, Filters(), "preference_ranking", n_boot=0)
    table = review(con, Filters()).effects
    table = table[table["rubric"] == "preference_ranking"].reset_index(drop=True)
    con.close()
    pd.testing.assert_frame_equal(view.effects.drop(columns=["standing"]), table)


def test_an_unconverged_fit_is_flagged_on_the_page(app_store, monkeypatch):
    """When the rater model stops at its step limit on the dimension shown, the page says its figures there are
    approximate (and says nothing when it converged: test_effects_model_and_consensus_on_the_demo)."""
    monkeypatch.setattr(rater_model, "MAX_ITERATIONS", 2)
    at = fitted(app_test(PAGE))
    assert not at.exception, at.exception
    assert any("did not converge on this dimension within 2 steps" in w.value for w in at.warning)


def test_an_uncalibrated_dimension_is_labelled_on_the_page(app_store, monkeypatch):
    """When the dimension shown has too few researcher-labelled units to calibrate its accuracy intervals on, the
    page says so with the coverage such intervals were measured to have."""
    monkeypatch.setattr(calibration, "MIN_CALIBRATION_UNITS", 10**9)
    at = fitted(app_test(PAGE))
    assert not at.exception, at.exception
    assert any(f"covered {calibration.UNCALIBRATED_COVERAGE}" in i.value for i in at.info)


def test_the_views_report_their_progress_in_order(demo_store):
    """effects_view and model_view each tell their progress from 0 to their last part, never backwards, the model
    naming the dimensions fitted."""
    con = store.open_store(demo_store, read_only=True)
    heard: list[tuple[float, str]] = []
    raters.effects_view(con, Filters(), "answer_comparison", progress=lambda s, what: heard.append((s, what)))
    assert [s for s, _ in heard] == [0.0, raters.EFFECTS_STARTS["drift"]]
    assert heard[0][1] == "Estimating rater effects and deciding alarms"
    heard.clear()
    raters.model_view(con, Filters(), "answer_comparison", n_boot=0, progress=lambda s, what: heard.append((s, what)))
    con.close()
    shares = [s for s, _ in heard]
    assert shares == sorted(shares) and shares[0] == 0.0 and shares[-1] == raters.MODEL_STARTS["agreement"]
    fitting = [(s, what) for s, what in heard if what.startswith("Fitting the rater model")]
    assert (
        fitting[1][1].startswith("Fitting the rater model: 1 of") and fitting[-1][0] == raters.MODEL_STARTS["agreement"]
    )


def test_the_model_is_fitted_when_asked_and_then_shown_directly(app_store, demo_store, monkeypatch):
    """Issue #51: the page opens with the effects and no fit (a button instead of the model's sections); the
    button fits it, and later runs under the same filters and rubric show it from the cache without fitting again;
    a date change asks again. What it shows is model_view's figures."""
    con = store.open_store(demo_store, read_only=True)
    expected = raters.model_view(con, Filters(), "answer_comparison")
    con.close()
    fits: list[str] = []
    fit = rater_model.fit_model
    monkeypatch.setattr(
        rater_model, "fit_model", lambda con, filters, **kw: fits.append(filters.rubric) or fit(con, filters, **kw)
    )
    at = app_test(PAGE)
    assert not at.exception, at.exception
    assert fits == [] and at.button(key=FIT).label == "Fit the rater model"
    assert "Who shows which effect" in [h.value for h in at.subheader]
    assert "Consensus labels" not in [h.value for h in at.subheader]
    assert not any("accuracy" in t.value.columns for t in at.dataframe)

    fitted(at)
    assert not at.exception, at.exception
    assert fits == ["answer_comparison"] and "Consensus labels" in [h.value for h in at.subheader]
    dimension = at.selectbox(key="raters_model_dim").value
    shown = next(t.value for t in at.dataframe if "accuracy" in t.value.columns)
    one = expected.beside[expected.beside["dimension"] == dimension].reset_index(drop=True)
    pd.testing.assert_frame_equal(shown.reset_index(drop=True), one)

    at.selectbox(key="raters_contractor").select_index(1).run()
    assert not at.exception and fits == ["answer_comparison"]
    assert at.selectbox(key="raters_model_dim").value == dimension  # shown directly, not fitted again

    dates = at.sidebar.date_input(key="f_dates")
    lo, hi = dates.value
    dates.set_value((lo + dt.timedelta(days=7), hi)).run()
    assert not at.exception and fits == ["answer_comparison"]
    assert not any(s.key == "raters_model_dim" for s in at.selectbox)
    assert at.button(key=FIT).label == "Fit the rater model"


def test_choosing_another_contractor_redraws(shared_app_store):
    at = app_test(PAGE)
    first = at.selectbox(key="raters_contractor").value
    at.selectbox(key="raters_contractor").select_index(1).run()
    assert not at.exception
    assert at.selectbox(key="raters_contractor").value != first


def test_rater_filter_picks_rows_never_the_team(demo_store):
    """With the sidebar's rater filter on two contractors, their figures are the same as without it: the team
    they are shrunk toward and the model are everyone's."""
    con = store.open_store(demo_store, read_only=True)
    everyone = raters.raters_view(con, Filters(), "instruction_following", n_boot=0)
    two = raters.raters_view(con, Filters(raters=("c06", "c27")), "instruction_following", n_boot=0)
    con.close()
    assert set(two.effects["rater_id"]) == {"c06", "c27"}
    mine = everyone.effects[everyone.effects["rater_id"].isin(["c06", "c27"])].reset_index(drop=True)
    pd.testing.assert_frame_equal(two.effects, mine)
    assert set(two.beside["rater_id"]) == {"c06", "c27"}


def test_one_contractors_effects_show_the_own_estimate_and_n_beside_the_shrunk_one(shared_app_store, demo_store):
    """The contractor's panel rows carry their tasks in the row label, the chart draws the own (raw) estimate as
    a hollow ring beside the shrunk point, and the tables head the two with words that say which is which."""
    con = store.open_store(demo_store, read_only=True)
    view = raters.raters_view(con, Filters(), "answer_comparison", n_boot=0)
    con.close()
    panels = raters.contractor_panels(view, "c03")
    assert [f"{w} (n = {n} tasks)" for w, n in zip(panels["where"], panels["n_tasks"], strict=True)] == list(
        panels["where_n"]
    )
    spec = rc.contractor_effects(panels, "c03").to_dict()
    marks = [(layer["mark"], layer["encoding"]["x"]["field"]) for layer in spec["spec"]["layer"]]
    assert ({"type": "point", "filled": False, "size": 90, "strokeWidth": 1.5, "opacity": 1}, "raw") in marks
    assert spec["spec"]["layer"][0]["encoding"]["y"]["field"] == "where_n"
    at = app_test(PAGE)
    assert any(c.value.startswith("Own estimate: the contractor's figure from their tasks alone") for c in at.caption)
    assert effects.EFFECT_HEADERS["raw"] == "own estimate (their tasks alone)"
    assert effects.EFFECT_HEADERS["estimate"] == "shrunk toward the team"
