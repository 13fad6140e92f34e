"""The contractor feedback report (analytics.feedback) and its exports (analytics.feedback.export) on a small hand-built
store whose every figure below is counted by hand from ROWS.

Snapshot: the Markdown export of c1's report is compared with tests/snapshots/feedback_report.md. After an
intended change to what a lead receives, regenerate it with

    UPDATE_SNAPSHOTS=1 .venv/bin/pytest tests/test_feedback.py -k snapshot

and review the diff of the snapshot file in the commit.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import math
import os
import re
from pathlib import Path
from unittest import mock

import numpy as np
import pandas as pd
import pytest

from analytics.agreement import intervals as iv
from analytics.core import formatting
from analytics.core.filters import Filters
from analytics.feedback import cases as fcases
from analytics.feedback import report as fr
from analytics.feedback import scope
from analytics.feedback import team as fteam
from analytics.feedback.export import csv as csv_export
from analytics.feedback.export import display
from analytics.feedback.export import html as html_export
from analytics.feedback.export import markdown as md_export
from analytics.ingest.load import ingest_bytes
from analytics.review import disagreements as dis
from analytics.store import open_store
from analytics.store.derived import rater_tasks
from analytics.store.stamp import stamp_line
from tests.conftest import built_once

SNAPSHOT = Path(__file__).parent / "snapshots" / "feedback_report.md"
AC, UC, U = "answer_comparison", "usefulness_comparison", "usefulness"
AMB, AB, EQ, BB, BMB = "A much better", "A better", "Equally good", "B better", "B much better"
HOSTILE = "Cheaper <script>alert(1)</script> [click](http://evil.example) ![img](http://evil.example/x.png) $x^2$"
FORMULA = '=HYPERLINK("http://evil.example","ok")'
DAYS = {  # three weeks starting on Mondays 2026-03-02, 03-09 and 03-16
    "t1": "2026-03-02",
    "t2": "2026-03-03",
    "t3": "2026-03-04",
    "t4": "2026-03-09",
    "t5": "2026-03-10",
    "t6": "2026-03-11",
    "t7": "2026-03-16",
    "t8": "2026-03-17",
}
# Comparison usefulness per task. r2 labels t1, t4 and t7 only. c1 agrees in week 1 and drifts away; c2 agrees
# except on t8; c3 says "Equally good" on t1-t4.
COMPARISON = {
    "r1": dict(t1=AB, t2=BB, t3=EQ, t4=AB, t5=BMB, t6=AMB, t7=BB, t8=AB),
    "r2": dict(t1=AB, t4=BB, t7=BB),
    "c1": dict(t1=AB, t2=BB, t3=EQ, t4=AB, t5=BB, t6=BB, t7=AB, t8=EQ),
    "c2": dict(t1=AB, t2=BB, t3=EQ, t4=AB, t5=BMB, t6=AMB, t7=BB, t8=BB),
    "c3": dict(t1=EQ, t2=EQ, t3=EQ, t4=EQ),
}
# Absolute usefulness of answers A and B on t1-t4: c1 rates one level up on half of them (lenient).
ABSOLUTE = {
    "r1": dict(t1=("Good", "Bad"), t2=("Bad", "Good"), t3=("Neutral", "Neutral"), t4=("Good", "Bad")),
    "r2": dict(t1=("Good", "Bad"), t4=("Good", "Neutral")),
    "c1": dict(t1=("Very good", "Bad"), t2=("Bad", "Very good"), t3=("Good", "Neutral"), t4=("Very good", "Neutral")),
    "c2": dict(t1=("Good", "Bad"), t2=("Bad", "Good"), t3=("Neutral", "Neutral"), t4=("Good", "Bad")),
    "c3": dict(t1=("Bad", "Bad"), t2=("Bad", "Bad"), t3=("Bad", "Bad"), t4=("Bad", "Bad")),
}
SECONDS = {"c1": [30] * 8, "c2": [300] * 8, "c3": [200, 400, 200, 400], "r1": [600] * 8, "r2": [600] * 3}
COMMENTS = {
    ("c1", "t6"): HOSTILE,
    ("c1", "t7"): FORMULA,
    ("r1", "t6"): "A answers the question; B's source is a forum.",
}


def _rows() -> list[str]:
    lines = ["task_id,rater_id,role,rubric,dimension,target,value,submitted_at,duration_s,comment"]
    for rater, tasks in COMPARISON.items():
        role = "researcher" if rater.startswith("r") else "contractor"
        for i, (task, value) in enumerate(tasks.items()):
            comment = COMMENTS.get((rater, task), "").replace('"', '""')
            lines.append(
                f'{task},{rater},{role},{AC},{UC},comparison,{value},{DAYS[task]}T10:00:00,{SECONDS[rater][i]},"{comment}"'
            )
            if task in ABSOLUTE[rater]:
                for target, v in zip("AB", ABSOLUTE[rater][task], strict=True):
                    lines.append(
                        f"{task},{rater},{role},{AC},{U},{target},{v},{DAYS[task]}T10:00:00,{SECONDS[rater][i]},"
                    )
    return lines


NOTED = dis.CaseKey("t4", AC, UC, "comparison", "c1", "r2")
NOTE = "Read the guide on [sources](http://evil.example) <b>again</b>."


def _feedback_store(folder: Path) -> None:
    """The hand-built store: ROWS loaded, and one review note on NOTED."""
    con = open_store(folder / "store.duckdb")
    result = ingest_bytes(con, ("\n".join(_rows()) + "\n").encode(), "feedback.csv")
    assert result.status == "loaded" and result.rows_quarantined == 0, result.errors
    dis.save_note(con, NOTED, "feedback given", NOTE, "lead")
    con.execute("UPDATE review_notes SET updated_at = TIMESTAMP '2026-03-20 09:30:00'")  # a fixed date for the snapshot
    con.close()


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """The hand-built store, built once per run and opened read-only (no test writes to it)."""
    con = open_store(built_once(tmp_path_factory, "feedback-store", _feedback_store) / "store.duckdb", read_only=True)
    yield con
    con.close()


@pytest.fixture(scope="module")
def _report(store) -> fr.FeedbackReport:
    return fr.feedback_report(store, "c1")


@pytest.fixture
def rep(_report) -> fr.FeedbackReport:
    """c1's report, computed once for the module; each test gets its own copy."""
    return copy.deepcopy(_report)


def _card_row(rep: fr.FeedbackReport, dimension: str):
    return rep.card.set_index("dimension").loc[dimension]


def test_card_agreement_with_researchers_counted_by_hand(rep):
    uc = _card_row(rep, UC)
    # c1 vs r1 on t1-t8 and r2 on t1, t4, t7: 11 pairs; agreeing: t1 (x2), t2, t3, t4 (r1) = 5.
    assert uc["n"] == 11
    assert uc["exact_agreement"] == pytest.approx(5 / 11)
    assert uc["exact_agreement_ci_low"] <= 5 / 11 <= uc["exact_agreement_ci_high"]
    assert uc["kappa_statistic"] == "weighted kappa (linear)"
    assert uc["is_primary"]
    u = _card_row(rep, U)
    # Absolute usefulness: 8 pairs with r1 (3 agree) and 4 with r2 (2 agree); c1 is one level up on the other 7.
    assert u["n"] == 12
    assert u["exact_agreement"] == pytest.approx(5 / 12)
    assert u["mean_difference"] == pytest.approx(7 / 12)
    assert rep.card["dimension"].tolist()[0] == UC  # the primary dimension comes first


def test_team_median_leaves_the_contractor_out_and_ceiling_is_researchers(rep):
    uc = _card_row(rep, UC)
    # Others: c2 agrees on 9 of 11 pairs, c3 on 1 of 6 (t3 only); the median of two is their mean.
    assert uc["team_exact_agreement"] == pytest.approx((9 / 11 + 1 / 6) / 2)
    assert uc["team_contractors"] == 2
    # r1 and r2 share t1, t4, t7 and agree on t1 and t7: the ceiling is 2/3.
    assert uc["ceiling_exact_agreement"] == pytest.approx(2 / 3)
    assert uc["ceiling_tasks"] == 3  # pooled researcher pairs (analytics.agreement.team), one pair per task


def test_weekly_agreement_and_trend_show_the_drift(rep):
    w = rep.weekly.set_index("week")
    weeks = [dt.datetime(2026, 3, d) for d in (2, 9, 16)]
    assert list(w.index) == weeks
    # Every dimension pooled. Week 1: comparison 4 of 4 pairs (t1 x2, t2, t3), absolute 4 of 8 (t1 B x2, t2 A,
    # t3 B); week 2: comparison 1 of 4 (t4 with r1), absolute 1 of 4 (t4 B with r2); week 3: 0 of 3.
    assert w["n_pairs"].tolist() == [12, 8, 3]
    assert w["exact_agreement"].tolist() == pytest.approx([8 / 12, 2 / 8, 0.0])
    assert w["n_tasks"].tolist() == [3, 3, 2]
    assert w["small_n"].all()  # 2-3 tasks a week: small samples, judged by tasks
    lo, hi = w.loc[weeks[1], ["ci_low", "ci_high"]]
    assert 0 <= lo <= 0.25 <= hi <= 1
    assert (w["ci_high"] - w["ci_low"] > 0.3).all()  # never a zero-width interval from three tasks
    # The team's weekly figure is the median of c2 and c3: week 1 c2 12/12, c3 4/12 (comparison t3; absolute
    # t1 B x2, t2 A) -> 2/3.
    assert w.loc[weeks[0], "team_exact_agreement"] == pytest.approx(2 / 3)
    t = rep.trend.iloc[0]
    # Three weeks: the first week against the last (the middle one is left out).
    assert (t["early"], t["late"], t["change"]) == pytest.approx((8 / 12, 0.0, -8 / 12))
    # Three tasks against two: the fall is not shown to be real (Newcombe's interval at n = tasks spans 0).
    assert t["change_ci_low"] < -8 / 12 and t["change_ci_high"] > 0


def test_task_bootstrap_needs_two_tasks_and_stays_in_range():
    rng = np.random.default_rng(0)
    assert iv.ratio_samples(np.array([1.0]), np.array([2.0]), 100, rng).size == 0
    samples = iv.ratio_samples(np.array([1.0, 0.0, 2.0]), np.array([1.0, 1.0, 2.0]), 500, rng)
    assert samples.size == 500 and samples.min() >= 0 and samples.max() <= 1


def test_a_change_from_one_task_each_side_is_never_a_zero_width_interval():
    """Agreement falling from 2/3 (one task) to 0 (one task): Newcombe's interval at n = tasks, not [-0.67, -0.67]
    (Newcombe 1998, method 10: hybrid Wilson score interval of a difference of proportions)."""
    lo, hi, method = iv.difference_interval(2 / 3, 1, 0.0, 1, np.full(100, -2 / 3), 30)
    assert method == "Newcombe (tasks)" and lo < -2 / 3 < hi and hi - lo > 0.5
    assert (lo, hi) == pytest.approx(iv.newcombe(2 / 3, 1, 0.0, 1))


def test_levels_against_researchers_on_the_same_pairs(rep):
    lv = rep.levels[(rep.levels["dimension"] == U)]
    you = lv[lv["role"] == "contractor"].set_index("level")["n"]
    res = lv[lv["role"] == "researcher"].set_index("level")["n"]
    # c1's 12 pairs count t1 and t4 twice (r1 and r2): Very good is t1 A x2, t2 B, t4 A x2.
    assert you.to_dict() == {"Very bad": 0, "Bad": 3, "Neutral": 3, "Good": 1, "Very good": 5}
    assert res.to_dict() == {"Very bad": 0, "Bad": 4, "Neutral": 3, "Good": 5, "Very good": 0}
    assert lv.groupby("role")["share"].sum().tolist() == pytest.approx([1.0, 1.0])


def test_durations_against_the_team_median(rep):
    d = rep.durations.iloc[0]
    # c1 takes 30 s per task; the team median is the median of c2's 300 s and c3's 300 s (200/400).
    assert (d["submissions"], d["median_s"], d["team_median_s"]) == (8, pytest.approx(30), pytest.approx(300))
    assert d["ratio"] == pytest.approx(0.1)


def test_severe_cases_ranked_with_texts_and_notes(rep):
    cases = rep.disagreements
    # Opposite direction: t6 (3 steps), then t7 (r1 and r2: one case) and t4 (r2), newest first; one step: t8;
    # very: t5.
    assert cases["task_id"].tolist() == ["t6", "t7", "t4", "t8", "t5"]
    assert cases["severity"].tolist()[:3] == [dis.OPPOSITE] * 3
    t6 = cases.iloc[0]
    assert t6["contractor_comment"] == HOSTILE
    assert t6["researcher_explanation"] == COMMENTS[("r1", "t6")]
    noted = cases[cases["task_id"] == "t4"].iloc[0]
    assert (noted["status"], noted["note"], noted["reviewer"]) == ("feedback given", NOTE, "lead")


def test_a_case_shows_every_researchers_rating_of_the_unit(rep):
    """t7 was rated by r1 and r2: its one case carries both ratings, and the card's line (page and exports, through
    display.case_values) names both, not only the furthest researcher."""
    t7 = rep.disagreements[rep.disagreements["task_id"] == "t7"].iloc[0]
    both = f"r1: {COMPARISON['r1']['t7']}; r2: {COMPARISON['r2']['t7']}"
    assert (t7["researchers"], t7["n_researchers"]) == (both, 2)
    line = display.case_values(t7, "c1")
    assert f"researchers {both}" in line
    for text in (md_export.to_markdown(rep), html_export.to_html(rep)):
        assert both in text
    one = rep.disagreements[rep.disagreements["n_researchers"] == 1].iloc[0]
    assert f"researcher {one['researcher_id']}: {one['researcher_value']} ·" in display.case_values(one, "c1")


def test_noted_cases_are_listed_beyond_the_limit(store):
    cases = fcases.severe_cases(store, "c1", limit=2)
    assert cases["task_id"].tolist() == ["t6", "t7", "t4"]  # the two most severe, and the noted case


def test_filters_restrict_dates_and_rubric(store):
    rep = fr.feedback_report(store, "c1", Filters(date_from=dt.date(2026, 3, 9)))
    assert rep.weekly["week"].min() == dt.datetime(2026, 3, 9)
    assert _card_row(rep, UC)["n"] == 7  # t4 (2), t5, t6, t7 (2), t8
    assert _card_row(rep, UC)["ceiling_exact_agreement"] == pytest.approx(2 / 3)  # the ceiling keeps t1 (all dates)
    with pytest.raises(ValueError, match="no ratings"):
        fr.feedback_report(store, "c1", Filters(rubric="preference_ranking"))
    with pytest.raises(ValueError, match="no ratings"):
        fr.feedback_report(store, "r1")  # a researcher is not a contractor


def test_the_span_from_kept_rater_tasks_equals_the_ratings(demo):
    """A report's number of ratings and first and last times come from the rater tasks kept at ingest; they are
    what the ratings themselves give, for every contractor under rubric and date filters."""
    contractors = [
        r for (r,) in demo.execute("SELECT DISTINCT rater_id FROM ratings WHERE role = 'contractor'").fetchall()
    ]
    for f in (
        Filters(),
        Filters(date_from=dt.date(2026, 3, 10)),
        Filters(rubric="answer_comparison", date_to=dt.date(2026, 3, 20)),
    ):
        for contractor in contractors:
            where, params = scope.subject_filter(f, contractor).where_named()
            sql = f"SELECT count(*), min(submitted_at), max(submitted_at) FROM ratings WHERE role = 'contractor' AND {where}"
            want = demo.execute(sql, params).fetchall()[0]
            assert scope.span_query(contractor, f).rows(demo)[0] == want, (contractor, f)
            with mock.patch.object(rater_tasks, "answers", return_value=False):  # the fallback over the ratings
                assert scope.span_query(contractor, f).rows(demo)[0] == want, (contractor, f)
    assert scope.span_query("nobody", Filters()).rows(demo)[0] == (0, None, None)


def test_highlights_name_the_speed_and_no_fall_on_five_tasks(rep):
    text = " ".join(rep.highlights)
    assert "fell" not in text  # a fall over 3 + 2 tasks whose interval spans 0 is not news
    assert "median 30 s per submission" in text and "0.10 times the team's" in text


OTHERS = re.compile(r"\b(c2|c3)\b")


def test_exports_name_no_other_contractor(rep):
    for text in (md_export.to_markdown(rep), html_export.to_html(rep), csv_export.disagreements_csv(rep)):
        assert "c1" in text
        assert not OTHERS.search(text)


def test_exports_keep_untrusted_text_as_text(rep):
    md = md_export.to_markdown(rep)
    # Markup only counts when its first character is not backslash-escaped.
    for payload in (r"<script", r"<b>", r"\]\(http", r"!\[img", r"\$x"):
        assert not re.search(r"(?<!\\)" + payload, md), payload
    assert "\\<script>" in md and "\u2060//evil" in md  # escaped, and no bare URL to autolink
    html = html_export.to_html(rep)
    assert "<script" not in html and "<b>again" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    csv = csv_export.disagreements_csv(rep)
    assert "'" + FORMULA.replace('"', '""') in csv  # a spreadsheet formula is neutralised


def _rendered(md: str) -> list:
    """The tokens a CommonMark renderer with GitHub's tables and strikethrough makes of `md`, inline ones
    flattened."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable(["table", "strikethrough"]).parse(md)
    return [t for tok in tokens for t in [tok, *(tok.children or [])]]


def test_markdown_renders_untrusted_text_as_the_same_text(rep):
    """Read by a CommonMark renderer, the export makes no link, image, HTML, code or emphasis of anything, and
    each hostile comment comes out as exactly its own characters (an invisible word joiner keeps bare URLs from
    becoming links)."""
    tokens = _rendered(md_export.to_markdown(rep))
    live = {"link_open", "image", "html_inline", "html_block", "code_inline", "em_open", "strong_open", "s_open"}
    assert not [t for t in tokens if t.type in live]
    text = "".join(t.content for t in tokens if t.type == "text").replace(formatting.WORD_JOINER, "")
    for comment in (HOSTILE, FORMULA):
        assert comment in text


def test_markdown_reads_cleanly_as_plain_text(rep):
    """Outside the quoted submission text nothing is escaped: intervals keep their brackets, ids their
    underscores, sentences their full stops (the old export wrote "0.45 \\[0.17, 0.75\\]" and
    "usefulness\\_comparison")."""
    md = md_export.to_markdown(rep)
    prose = [line for line in md.splitlines() if not line.startswith(">")]
    assert not [line for line in prose if "\\" in line]
    assert re.search(r"\b0\.\d\d \[0\.\d\d, 0\.\d\d\]", md) and "(usefulness_comparison" in md


@pytest.mark.parametrize(
    ("text", "escaped"),
    [
        ("0.41 [0.21, 0.63] of 30 tasks.", "0.41 [0.21, 0.63] of 30 tasks."),
        ("rater_id a_b snake_case", "rater_id a_b snake_case"),
        ("R&D, 3 < 4, a - b, C:\\Users", "R&D, 3 < 4, a - b, C:\\Users"),
        ("*bold* _em_ `code` ~~gone~~ a|b $x$", "\\*bold\\* \\_em\\_ \\`code\\` \\~\\~gone\\~\\~ a\\|b \\$x\\$"),
        ("[click](http://e.x) ![i](y)", "\\[click\\](http:\u2060//e.x) \\!\\[i\\](y)"),
        ("[ref]: http://e.x", "\\[ref\\]: http:\u2060//e.x"),
        ("<b>hi</b> &amp;", "\\<b>hi\\</b> \\&amp;"),
        ("# h", "\\# h"),
        ("> q", "\\> q"),
        ("- item", "\\- item"),
        ("12. item", "12\\. item"),
        ("---", "\\---"),
        ("\\*", "\\\\\\*"),
    ],
)
def test_md_escape_escapes_only_markup(text, escaped):
    assert formatting.md_escape(text) == escaped
    tokens = _rendered(formatting.md_escape(text))
    assert [t.type for t in tokens if t.type not in {"text", "softbreak"}] == [
        "paragraph_open",
        "inline",
        "paragraph_close",
    ]
    assert "".join(t.content for t in tokens if t.type == "text").replace(formatting.WORD_JOINER, "") == text


def test_html_is_self_contained(rep):
    html = html_export.to_html(rep)
    assert not re.search(r"\b(src|href)\s*=", html, re.I)  # nothing to fetch or follow
    assert "<link" not in html and "@import" not in html and "url(" not in html
    assert "<style>" in html and html.count("<svg") >= 3  # inline CSS; card strips and the weekly chart
    assert "@media print" in html and "@page" in html  # printable: tables fit the page, cases are not split


def test_markdown_snapshot(rep):
    assert rep.stamp["code_version"] and rep.stamp["dataset_version"] >= 1
    rep = dataclasses.replace(rep, stamp={**rep.stamp, "code_version": "snapshot"})  # the commit changes
    text = md_export.to_markdown(rep, generated_at=dt.datetime(2026, 3, 21, 8, 0))
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
        SNAPSHOT.parent.mkdir(exist_ok=True)
        SNAPSHOT.write_text(text, encoding="utf-8")
    assert SNAPSHOT.exists(), "run with UPDATE_SNAPSHOTS=1 to create the snapshot"
    assert text == SNAPSHOT.read_text(encoding="utf-8")


def test_report_needs_a_contractor(store):
    with pytest.raises(ValueError, match="contractor id"):
        fr.feedback_report(store, "")
    with pytest.raises(ValueError, match="contractor id"):
        fr.own_figures(store, "")


def test_own_figures_computed_beforehand_give_the_same_report(store, rep):
    """The Feedback page computes a contractor's own figures while the team's compute, then joins them: the
    report is the one computed in one go, and own figures of another contractor or filter are refused."""
    team = fteam.team_figures(store)
    joined = fr.feedback_report(store, "c1", team=team, own=fr.own_figures(store, "c1"))
    for field in dataclasses.fields(fr.FeedbackReport):
        a, b = getattr(joined, field.name), getattr(rep, field.name)
        if isinstance(a, pd.DataFrame):
            pd.testing.assert_frame_equal(a, b, check_dtype=False)
        else:
            assert a == b, field.name
    later = Filters(date_from=dt.date(2026, 3, 9))
    with pytest.raises(ValueError, match="another contractor, filter"):
        fr.feedback_report(store, "c1", later, team, own=fr.own_figures(store, "c1"))
    with pytest.raises(ValueError, match="another contractor, filter"):
        fr.feedback_report(store, "c1", team=team, n_boot=0, own=fr.own_figures(store, "c1"))
    with pytest.raises(ValueError, match="no ratings"):
        fr.own_figures(store, "r1")
    assert math.isnan(iv.percentile(np.empty(0))[0])


def test_every_export_carries_the_stamp(rep):
    """Markdown, HTML and CSV exports say what the figures were computed on (dataset version, seed, code); the
    Markdown and HTML in plain words at their end (tests/test_feedback_export.py)."""
    line = stamp_line(rep.stamp)
    assert f"Dataset version {rep.stamp['dataset_version']}" in line and "seed 0" in line
    plain = display.provenance_line(rep)
    assert f"version {rep.stamp['dataset_version']} of the loaded data" in plain and "(seed 0)" in plain
    assert plain in md_export.to_markdown(rep) and plain in html_export.to_html(rep)
    csv_text = csv_export.disagreements_csv(rep)
    header = csv_text.splitlines()[0]
    assert "stamp_dataset_version" in header and "stamp_code_version" in header


@pytest.mark.parametrize(
    ("text", "export", "page"),
    [
        ("see http://e.x", "see http:\u2060//e.x", "see http\\:\u2060//e\\.x"),
        ("www.e.x a@b.c", "www\u2060.e.x a@\u2060b.c", "www\u2060\\.e\\.x a@\u2060b\\.c"),
        (":red[x] 1.5", ":red[x] 1.5", "\\:red\\[x\\] 1\\.5"),
        ("*a*", "\\*a\\*", "\\*a\\*"),
    ],
)
def test_pages_and_exports_escape_markdown_with_one_function(text, export, page):
    """One md_escape (analytics.formatting) for exports and pages: exports escape only CommonMark's markup and read
    as plain text; pages (ui.text.md_escape) escape every mark, Streamlit's markdown having more syntax; both keep
    a bare URL or e-mail address from becoming a link with the same word joiner."""
    from ui import text as ui_text

    assert formatting.md_escape(text) == export
    assert formatting.md_escape(text, every_mark=True) == page
    assert ui_text.md_escape(text) == page
