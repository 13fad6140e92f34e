"""AppTest of the Feedback page on the demo store: the contractor picker (and its defaults), the report card,
weekly and level charts, the disagreements as plain text, and the three downloads' contents."""

from __future__ import annotations

import datetime as dt
import json
import re
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

from analytics import store
from analytics.core.filters import Filters
from analytics.feedback import card as fcard
from analytics.feedback import events
from analytics.feedback import next as who_next
from analytics.feedback import report as fr
from analytics.feedback import rules as frules
from analytics.feedback import team as fteam
from analytics.feedback.export import display
from analytics.review import disagreements as dis
from tests.conftest import app_test, click_downloads
from ui import sidebar

PAGE = "app_pages/feedback.py"
SECTION = "fb_section"  # the card's open tab (app_pages/feedback.py): only its section is drawn


def opened(at, section: str):
    """The page rerun with the card's tab `section` open, as a click on it does."""
    at.session_state[SECTION] = section
    at.run()
    assert not at.exception, at.exception
    return at


EVERY_RUBRIC = "Every rubric this contractor rated"  # the caption of app_pages/feedback.py


@pytest.fixture
def downloads(monkeypatch) -> dict[str, bytes]:
    """Every file a download button offered during the test, by its media URL's file id."""
    seen: dict[str, bytes] = {}
    original = MemoryMediaFileStorage.load_and_get_id

    def record(self, path_or_data, mimetype, kind, filename=None):
        file_id = original(self, path_or_data, mimetype, kind, filename)
        seen[file_id] = path_or_data if isinstance(path_or_data, bytes) else str(path_or_data).encode()
        return file_id

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", record)
    return seen


def _download(at, key: str, files: dict[str, bytes], buttons: dict) -> str:
    """The text the download button with this key offers, written as a click writes it."""
    (url,) = click_downloads(at, buttons, key)
    return files[Path(url).stem].decode("utf-8")


def test_page_shows_the_report_of_the_chosen_contractor(shared_app_store, downloads, download_buttons):
    at = app_test(PAGE)
    assert not at.exception, at.exception
    picker = at.selectbox(key="fb_contractor")
    at = picker.select("c06").run()
    assert not at.exception, at.exception
    assert {"Highlights", "What to change"} <= {s.value for s in at.subheader}
    charts = 0
    for section, heading in (
        ("Agreement", "Agreement with researchers, per dimension"),
        ("Week by week", "Agreement week by week"),
        ("Levels and time", "Levels used, against researchers on the same units"),
    ):
        opened(at, section)
        assert heading in [s.value for s in at.subheader], section
        shown = at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart")
        assert shown, section
        charts += len(shown)
    assert charts >= 3  # agreement vs team, weekly, levels
    card = _card(opened(at, "Agreement"))
    assert {"exact_agreement", "team_exact_agreement", "ceiling_exact_agreement"} <= set(card.columns)
    assert card["n"].max() > 0
    html = _download(at, "fb_dl_html", downloads, download_buttons)
    md = _download(at, "fb_dl_md", downloads, download_buttons)
    csv = _download(at, "fb_dl_csv", downloads, download_buttons)
    # The demo's rater directory names c06: "Feedback for <display name> (c06)"
    assert html.startswith("<!DOCTYPE html>") and re.search(r"Feedback for [^<(]+ \(c06\)", html)
    assert re.match(r"# Feedback for .+ \(c06\)\n", md)
    assert csv.startswith("section,contractor,rubric")
    assert {"agreement", "effect", "disagreement"} <= {line.split(",")[0] for line in csv.splitlines()[1:]}
    others = re.compile(r"\bc(?!06\b)\d\d\b")  # any other contractor id of the demo (c01..c40)
    for text in (html, md, csv):
        assert not others.search(text), others.search(text)


def _unescaped(markdown: str) -> str:
    """Markdown source with its backslash escapes resolved (ui.text.md_escape escapes ':', '(' and '-')."""
    return re.sub(r"\\(.)", r"\1", markdown)


def _card(at):
    """The report card table (the first table with exact agreement; the effects table comes before it)."""
    return next(d.value for d in at.dataframe if "exact_agreement" in d.value.columns)


def _planted(demo_store: Path) -> dict[str, list[str]]:
    """Planted behaviour -> its contractors, from the demo's truth.json (written beside the demo store's inputs)."""
    truth = json.loads((demo_store.parent / "inputs" / "truth.json").read_text())
    return {name: b["raters"] for name, b in truth["behaviours"].items()}


def test_opens_on_the_first_of_who_needs_feedback_next_with_real_dates(shared_app_store, demo_store):
    """The page opens on the first of the ranked list (analytics.feedback.next) and the card's caption gives that
    contractor's first and last rating dates."""
    con = store.open_store(demo_store, read_only=True)
    ranked = who_next.with_events(who_next.ranking(con, Filters()), events.last_events(con), events.now())
    expected = ranked["rater_id"].iloc[0]
    first, last = con.execute(
        "SELECT min(submitted_at)::DATE, max(submitted_at)::DATE FROM ratings WHERE rater_id = ?", [expected]
    ).fetchall()[0]
    con.close()
    at = app_test(PAGE)
    assert not at.exception, at.exception
    assert at.selectbox(key="fb_contractor").value == expected
    captions = [_unescaped(c.value) for c in at.caption]
    assert any(f"ratings from {first} to {last}." in c for c in captions), captions


def test_what_to_change_names_position_bias_for_a_planted_contractor_only(shared_app_store, demo_store):
    planted = _planted(demo_store)
    at = app_test(PAGE)
    assert not at.exception, at.exception
    assert "What to change" in [s.value for s in at.subheader]
    at.selectbox(key="fb_contractor").select(planted["first_position"][0]).run()
    assert not at.exception, at.exception
    shown = [_unescaped(m.value) for m in at.markdown]
    assert "**Position bias: Answer comparison (web-research answers A vs B)**" in shown, shown
    assert any(m.startswith("What to do: Read both answers") for m in shown)
    at.selectbox(key="fb_contractor").select(planted["careful"][0]).run()
    assert not at.exception, at.exception
    assert not any(_unescaped(m.value).startswith("**Position bias") for m in at.markdown)
    assert any("Checked and not seen: Position bias" in _unescaped(c.value) for c in at.caption)


def test_one_rubric_control_every_rubric_rated_when_the_sidebar_says_all(shared_app_store, demo_store):
    """The sidebar's Rubric is the one rubric control: the card draws no picker of its own; under All rubrics the
    Agreement, Week by week and Levels tabs draw a chart for every rubric the contractor rated, saying so; with one
    rubric chosen in the sidebar, that rubric alone."""
    truth = json.loads((demo_store.parent / "inputs" / "truth.json").read_text())
    team = truth["volume"]["projects"]["preference_ranking"]["contractors"]  # they rate answer comparisons too
    at = app_test(PAGE)
    at.selectbox(key="fb_contractor").select(team[0]).run()
    opened(at, "Agreement").selectbox(key="fb_statistic").select("kappa").run()
    assert not at.exception, at.exception
    assert [s.key for s in at.selectbox if s.label == "Rubric"] == ["f_rubric"]  # the sidebar's is the only one
    rubrics = set(_card(at)["rubric"])
    assert {"preference_ranking", "answer_comparison"} <= rubrics
    assert set(_card(at)["dimension_label"]) >= {"Accuracy"}
    for section in ("Agreement", "Week by week", "Levels and time"):
        opened(at, section)
        titles = {_unescaped(m.value) for m in at.markdown}
        assert {f"**{sidebar.rubric_title(r)}**" for r in rubrics} <= titles, section
        every = [c for c in at.caption if _unescaped(c.value).startswith(EVERY_RUBRIC)]
        assert len(every) == 1, section
        charts = at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart")
        assert len(charts) >= len(rubrics), section
    opened(at, "Agreement")
    at.sidebar.selectbox(key="f_rubric").select("preference_ranking").run()
    assert not at.exception, at.exception
    assert set(_card(at)["rubric"]) == {"preference_ranking"}
    assert not [c for c in at.caption if _unescaped(c.value).startswith(EVERY_RUBRIC)]


def test_sidebar_single_rater_is_the_default(shared_app_store):
    at = app_test(PAGE)
    at.sidebar.multiselect(key="f_raters").select("c17").run()
    assert not at.exception, at.exception
    assert at.selectbox(key="fb_contractor").value == "c17"


def test_disagreement_text_and_notes_show_as_plain_text(app_store):
    con = store.open_store(app_store)
    case = dis.disagreements(con, "answer_comparison", contractors=("c06",)).iloc[0]
    note = "Look at [the guide](http://evil.example) <b>first</b>"
    dis.save_note(con, dis.CaseKey.from_row(case), "feedback given", note, "lead")
    con.close()
    at = app_test(PAGE)
    at.selectbox(key="fb_contractor").select("c06").run()
    opened(at, "Disagreements")
    assert note in [t.value for t in at.text]  # st.text: shown literally
    assert not any("<b>first" in m.value or "](http" in m.value for m in at.markdown)


def test_disagreements_page_hands_the_contractor_over(shared_app_store):
    at = app_test("app_pages/disagreements.py")
    assert not at.exception, at.exception
    button = at.button(key="dis_to_feedback")
    contractor = re.match(r"Open (\S+)'s feedback report", button.label).group(1)
    at = button.click().run()
    assert not at.exception, at.exception
    assert at.title[0].value == "Feedback"
    assert at.selectbox(key="fb_contractor").value == contractor


def test_the_contractors_own_figures_are_computed_alongside_the_teams(app_store, monkeypatch):
    """After a date change the chosen contractor's own figures are computed in the prefetch thread, then the team's
    figures other than the alarms (there, or in the page's thread when it has ranked first), while the list's ranking
    (the alarm review and agreement bounds) is computed in the page's (ui/prefetch.py); each once, and the card
    shown is the API's report card."""
    at = app_test(PAGE)
    opened(at.selectbox(key="fb_contractor").select("c06").run(), "Agreement")
    calls: list[tuple[str, object, str]] = []

    def spy(module: object, name: str, subject):
        original = getattr(module, name)

        def run(*args, **kwargs):
            calls.append((name, subject(args), threading.current_thread().name))
            return original(*args, **kwargs)

        monkeypatch.setattr(module, name, run)

    spy(fr, "own_figures", lambda args: (args[1], args[2]))  # (con, contractor, filters, ...)
    spy(fteam, "team_parts", lambda args: args[1])  # (con, filters, researchers)
    spy(who_next, "ranking", lambda args: args[1])  # (con, filters, alerts, rules)
    low, high = at.sidebar.date_input(key="f_dates").value
    later = low + dt.timedelta(days=(high - low).days // 4)
    at.sidebar.date_input(key="f_dates").set_value((later, high)).run()
    assert not at.exception, at.exception
    assert sorted(name for name, *_ in calls) == ["own_figures", "ranking", "team_parts"], calls
    threads = {name: thread for name, _, thread in calls}
    (contractor, filters) = next(subject for name, subject, _ in calls if name == "own_figures")
    assert contractor == "c06" and filters.date_from == later  # (the last day selected is an open end)
    assert threads["own_figures"].startswith("concord-warm") and not threads["ranking"].startswith("concord-warm")
    con = store.open_store(app_store)
    card = fcard.report_card(con, "c06", filters)
    con.close()
    expected = card[card["rubric"].isin(set(card.loc[card["n"] > 0, "rubric"]))]
    shown = _card(at)
    assert shown["n"].tolist() == expected["n"].tolist()
    assert shown["exact_agreement"].round(6).tolist() == expected["exact_agreement"].round(6).tolist()


def test_a_first_visit_computes_the_likely_contractors_own_figures_while_it_ranks(app_store, monkeypatch):
    """On a first visit (nobody chosen yet) the page guesses from the alarm review whom the list opens on
    (who_next.likely_first) and computes their own figures in the prefetch thread while it ranks: the guess is the
    contractor opened, whose figures are computed once."""
    guesses: list[str | None] = []
    owns: list[tuple[str, str]] = []
    guess, own = who_next.likely_first, fr.own_figures

    def guessed(*args, **kwargs):
        guesses.append(guess(*args, **kwargs))
        return guesses[-1]

    def computed(con, contractor, *args, **kwargs):
        owns.append((contractor, threading.current_thread().name))
        return own(con, contractor, *args, **kwargs)

    monkeypatch.setattr(who_next, "likely_first", guessed)
    monkeypatch.setattr(fr, "own_figures", computed)
    at = app_test(PAGE)
    assert not at.exception, at.exception
    opened_on = at.selectbox(key="fb_contractor").value
    assert guesses == [opened_on]
    assert len(owns) == 1 and owns[0][0] == opened_on and owns[0][1].startswith("concord-warm"), owns


def test_the_rules_table_is_the_exports_flagged_rules_and_sentence(shared_app_store, demo_store):
    """The page's "Rubric rules broken" lists what the exports list (display.flagged_rule_rows, no Flagged column)
    and the same sentence counting the others, for a contractor with flagged and unflagged broken rules."""
    con = store.open_store(demo_store, read_only=True)
    team = fteam.team_figures(con, Filters(), fteam.researcher_figures(con, None))
    con.close()
    broken = team.rules.raters[team.rules.raters["n_violations"] > 0].groupby("rater_id")["flagged"]
    mixed = [r for r, f in broken if f.any() and not f.all()]
    assert mixed, "the demo plants a contractor with flagged and unflagged broken rules"
    report = SimpleNamespace(rules=frules.broken_rules(mixed[0], team))  # all the rule rows read
    at = app_test(PAGE)
    at.selectbox(key="fb_contractor").select(mixed[0]).run()
    opened(at, "Alarms and rules")
    shown = next(d.value for d in at.dataframe if "Broken in" in d.value.columns)
    expected = display.flagged_rule_rows(report)
    assert "Flagged" not in shown.columns
    assert shown.reset_index(drop=True).astype(str).equals(expected.astype(str))
    assert display.unflagged_rules_line(report) in [_unescaped(m.value) for m in at.markdown]
