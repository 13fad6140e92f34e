"""Bad input, format by format: what is quarantined or rejected, with messages naming file, line or record and
field; the good rows still load; rows loaded + rows quarantined = rows read; reloads and failures change nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from analytics import store
from analytics.ingest import staging
from analytics.ingest.load import ingest_bytes
from tests.conftest import built_once, connect_copy

CSV_HEADER = "task_id,rater_id,role,rubric,dimension,target,value\n"
AL_FILE = "preference_json_3_completed.json"


def csv_row(rater: str, value: str, dimension: str = "usefulness_comparison", task: str = "t1") -> str:
    """One canonical CSV line rating the answer comparison."""
    return f"{task},{rater},contractor,answer_comparison,{dimension},comparison,{value}\n"


def canonical_csv(*extra: str) -> bytes:
    """Two good canonical rows (lines 2 and 3), then `extra` lines from line 4 on."""
    return (CSV_HEADER + csv_row("c1", "A better") + csv_row("c2", "B better") + "".join(extra)).encode()


def answer_comparison(rater: str, **overrides) -> dict:
    """An answer comparison submission with three ratings (usefulness of A and B, and the comparison)."""
    record = {
        "format": "concord.answer_comparison/v1",
        "submission_id": f"ac-1-{rater}",
        "task_id": "ac-1",
        "rater_id": rater,
        "question": "Why is the sky blue?",
        "display_order": ["A", "B"],
        "options": {"A": {"answer": "Rayleigh scattering.", "ratings": {"usefulness": "Good"}},
                    "B": {"answer": "Because.", "ratings": {"usefulness": "Bad"}}},
        "comparison": {"usefulness": "A better"},
    }  # fmt: skip
    record.update(overrides)
    return record


def instruction_following(rater: str, ranking=(("o1",), ("o2",)), rating_o1=5, **overrides) -> dict:
    """An instruction following submission with four ratings (two 1-7 ratings, two ranks)."""
    record = {
        "format": "concord.instruction_following/v1",
        "submission_id": f"if-1-{rater}",
        "task_id": "if-1",
        "rater_id": rater,
        "status": "rated",
        "instruction": "Say hello.",
        "outputs": [{"output_id": "o1", "text": "Hello.", "rating": rating_o1},
                    {"output_id": "o2", "text": "Bye.", "rating": 2}],
        "ranking": [list(g) for g in ranking],
    }  # fmt: skip
    record.update(overrides)
    return record


def preference_ranking(rater: str, accuracy=5, **overrides) -> dict:
    """A preference ranking submission with four ratings (accuracy and rank of two responses)."""
    record = {
        "format": "concord.preference_ranking/v1",
        "submission_id": f"pr-1-{rater}",
        "task_id": "pr-1",
        "rater_id": rater,
        "prompt": "Find me a job.",
        "action": "rate",
        "responses": [{"response_id": "r1", "rank": 1, "ratings": {"accuracy": accuracy}},
                      {"response_id": "r2", "rank": 2, "ratings": {"accuracy": 3}}],
    }  # fmt: skip
    record.update(overrides)
    return record


def topic(name: str, first=4, second=3, **extra) -> dict:
    """An article Likert topic with five ratings (three Likert scores, two best predictions)."""
    return {
        "topic": name,
        "reference": "The reference.",
        "first_prediction": "One.",
        "second_prediction": "Two.",
        "third_prediction": "Three.",
        "best_prediction_reference": "first_prediction",
        "best_prediction_topic": "second_prediction",
        "first_prediction_likert": first,
        "second_prediction_likert": second,
        "third_prediction_likert": 2,
        **extra,
    }


def jsonl(*records: dict | str) -> bytes:
    """Records (or raw text lines) as JSONL bytes."""
    return "\n".join(r if isinstance(r, str) else json.dumps(r) for r in records).encode()


def likert_file(*third: dict) -> bytes:
    """Two good topics, then the given ones from topic 3 on."""
    return json.dumps([topic("Apollo 11"), topic("Cricket final"), *third], indent=1).encode()


@dataclass(frozen=True)
class Bad:
    """A file with bad rows: how many rows must load and be quarantined, and what one message must name."""

    data: bytes
    file_name: str
    loaded: int
    quarantined: int
    says: tuple[str, ...]
    fmt: str = "auto"


AC, IF, PR = "comparisons.jsonl", "instructions.jsonl", "preferences.jsonl"
AC_GOOD = (answer_comparison("c1"), answer_comparison("c2"))  # 6 ratings
IF_GOOD = (instruction_following("c1"), instruction_following("c2"))  # 8 ratings
PR_GOOD = (preference_ranking("c1"), preference_ranking("c2"))  # 8 ratings

QUARANTINED = {
    # canonical CSV: two good rows, the bad one on line 4
    "canonical-off_scale": Bad(canonical_csv(csv_row("c3", "C better")), "long.csv", 2, 1,
                               ("line 4", "field value", "C better", "not on the scale")),
    "canonical-half_score": Bad(canonical_csv("t1,c3,contractor,preference_ranking,accuracy,r1,2.5\n"), "long.csv",
                                2, 1, ("line 4", "field value", "2.5", "half or fractional scores are not allowed")),
    "canonical-missing_field": Bad(canonical_csv(csv_row("", "A better")), "long.csv", 2, 1,
                                   ("line 4", "field rater_id", "missing required field rater_id")),
    "canonical-unknown_dimension": Bad(canonical_csv(csv_row("c3", "A better", "usefulnes_comparison")), "long.csv",
                                       2, 1, ("line 4", "field dimension", "has no dimension usefulnes_comparison")),
    "canonical-duplicate": Bad(canonical_csv(csv_row("c1", "B better")), "long.csv", 1, 2,
                               ("line 2", "field rater_id", "rater c1", "more than once in this file", "lines 2, 4")),
    "canonical-malformed_csv_row": Bad(canonical_csv("t1,c3,contractor\n", csv_row("c4", "A better")), "long.csv",
                                       3, 1, ("line 4", "field rubric", "malformed CSV row")),
    "canonical-malformed_json_line": Bad(
        b'{"task_id": "t1", "rater_id": "c1", "dimension": "d", "value": "1"}\n{"task_id": "t1", "rater_id\n'
        b'{"task_id": "t1", "rater_id": "c2", "dimension": "d", "value": "2"}\n', "long.jsonl", 2, 1,
        ("line 2", "not valid JSON")),
    # answer comparison: two good submissions (6 ratings), the bad one on line 3
    "answer_comparison-off_scale": Bad(jsonl(*AC_GOOD, answer_comparison("c3", comparison={"usefulness": "A way better"})),
                                       AC, 8, 1, ("line 3", "field value", "A way better", "not on the scale")),
    "answer_comparison-missing_field": Bad(jsonl(*AC_GOOD, {**answer_comparison("c3"), "rater_id": None}), AC, 6, 1,
                                           ("line 3", "field rater_id", "missing required field rater_id")),
    "answer_comparison-missing_field_in_json_array": Bad(
        json.dumps([*AC_GOOD, {**answer_comparison("c3"), "task_id": ""}]).encode(), "comparisons.json", 6, 1,
        ("submission ac-1-c3", "field task_id", "missing required field task_id")),
    "answer_comparison-unknown_dimension": Bad(
        jsonl(*AC_GOOD, answer_comparison("c3", options={"A": {"ratings": {"usefullness": "Good"}}})), AC, 7, 1,
        ("line 3", "field dimension", "has no dimension usefullness")),
    "answer_comparison-duplicate": Bad(jsonl(*AC_GOOD, answer_comparison("c1", submission_id="again")), AC, 3, 6,
                                       ("line 1", "field rater_id", "rater c1", "more than once", "lines 1, 3")),
    "answer_comparison-malformed_json_line": Bad(jsonl(*AC_GOOD, '{"format": "concord.answer_comparison/v1", '), AC,
                                                 6, 1, ("line 3", "not valid JSON")),
    "answer_comparison-bad_display_order": Bad(jsonl(*AC_GOOD, answer_comparison("c3", display_order=["A", "A"])), AC,
                                               8, 1, ("line 3", "field display_order", "usefulness comparison")),
    # instruction following: two good submissions (8 ratings), the bad one on line 3
    "instruction_following-off_scale": Bad(jsonl(*IF_GOOD, instruction_following("c3", rating_o1=8)), IF, 11, 1,
                                           ("line 3", "field value", "value 8", "instruction_following/rating")),
    "instruction_following-half_score": Bad(jsonl(*IF_GOOD, instruction_following("c3", rating_o1=4.5)), IF, 11, 1,
                                            ("line 3", "field value", "4.5", "half or fractional")),
    "instruction_following-missing_field": Bad(jsonl(*IF_GOOD, instruction_following("c3", task_id=None)), IF, 8, 1,
                                               ("line 3", "field task_id", "missing required field task_id")),
    "instruction_following-unknown_dimension": Bad(
        jsonl(*IF_GOOD, instruction_following("c3", outputs=[{"output_id": "o1", "labels": {"funny": "Yes"}}],
                                              ranking=[])), IF, 8, 1,
        ("line 3", "field dimension", "has no dimension funny")),  # fmt: skip
    "instruction_following-duplicate": Bad(jsonl(*IF_GOOD, instruction_following("c2", submission_id="x")), IF, 4, 8,
                                           ("line 2", "rater c2", "more than once", "lines 2, 3")),
    "instruction_following-malformed_json_line": Bad(jsonl(*IF_GOOD, "not json at all"), IF, 8, 1,
                                                     ("line 3", "not valid JSON")),
    "instruction_following-ranking_names_unknown_output": Bad(
        jsonl(*IF_GOOD, instruction_following("c3", ranking=[["o1"], ["o2", "o9"]])), IF, 12, 1,
        ("line 3", "field ranking", "ranking names output o9, which is not one of o1, o2")),
    "instruction_following-output_missing_from_ranking": Bad(
        jsonl(*IF_GOOD, instruction_following("c3", ranking=[["o1"]])), IF, 11, 1,
        ("line 3", "field ranking", "output o2 is missing from the ranking")),
    # preference ranking: two good submissions (8 ratings), the bad one on line 3
    "preference_ranking-off_scale": Bad(jsonl(*PR_GOOD, preference_ranking("c3", accuracy=6)), PR, 11, 1,
                                        ("line 3", "field value", "value 6", "preference_ranking/accuracy")),
    "preference_ranking-half_score": Bad(jsonl(*PR_GOOD, preference_ranking("c3", accuracy="3.5")), PR, 11, 1,
                                         ("line 3", "field value", "3.5", "half or fractional")),
    "preference_ranking-missing_field": Bad(jsonl(*PR_GOOD, preference_ranking("c3", rater_id=None)), PR, 8, 1,
                                            ("line 3", "field rater_id", "missing required field rater_id")),
    "preference_ranking-unknown_dimension": Bad(
        jsonl(*PR_GOOD, preference_ranking("c3", responses=[{"response_id": "r1", "ratings": {"humour": 3}}])), PR,
        8, 1, ("line 3", "field dimension", "has no dimension humour")),
    "preference_ranking-duplicate": Bad(jsonl(*PR_GOOD, preference_ranking("c1", submission_id="x")), PR, 4, 8,
                                        ("line 1", "rater c1", "more than once", "lines 1, 3")),
    "preference_ranking-malformed_json_line": Bad(jsonl(*PR_GOOD, "{]"), PR, 8, 1, ("line 3", "not valid JSON")),
    "preference_ranking-rejected_without_reason": Bad(
        jsonl(*PR_GOOD, preference_ranking("c3", action="reject", responses=[])), PR, 8, 1,
        ("line 3", "field rejection_reason", "needs its rejection_reason")),
    # article Likert: two good topics (10 ratings), the bad one is topic 3
    "article_likert-off_scale": Bad(likert_file(topic("Moon", first=6)), AL_FILE, 14, 1,
                                    ("topic 3", "field value", "value 6", "article_likert/likert")),
    "article_likert-half_score": Bad(
        likert_file(topic("Moon", second=2.5)), AL_FILE, 14, 1,
        ("Likert score 2.5 in preference_json_3_completed.json, topic 3, second_prediction_likert: "
         "half scores are not allowed",)),  # the message docs/formats.md section 5 quotes
    "article_likert-missing_field": Bad(likert_file({**topic("x"), "topic": None}), AL_FILE, 10, 1,
                                        ("topic 3", "field topic", "missing required field topic")),
    "article_likert-unknown_dimension": Bad(likert_file(topic("Moon", fluency_likert=3)), AL_FILE, 15, 1,
                                            ("topic 3", "field dimension", "has no dimension fluency_likert")),
    "article_likert-duplicate": Bad(likert_file(topic("Apollo 11")), AL_FILE, 5, 10,
                                    ("topic 3", "field rater_id", "rater annotator_3", "more than once")),
    "article_likert-topic_lines_in_jsonl": Bad(jsonl(topic("Apollo 11"), "{oops", topic("Moon")),
                                               "preference_json_3_completed.jsonl", 10, 1, ("line 2", "not valid JSON")),
}  # fmt: skip


def _seeded_store(folder: Path) -> None:
    """A store holding one earlier file, so that "unchanged" means something."""
    con = store.open_store(folder / "store.duckdb")
    result = ingest_bytes(con, (CSV_HEADER + csv_row("c9", "A better", task="t0")).encode(), "earlier.csv")
    assert (result.status, result.rows_loaded) == ("loaded", 1)
    con.close()


@pytest.fixture(scope="session")
def seeded_store(tmp_path_factory) -> Path:
    """The seeded store, loaded once per run (each test writes to its own copy: see `seeded`)."""
    return built_once(tmp_path_factory, "ingest-bad-input-seeded", _seeded_store) / "store.duckdb"


@pytest.fixture
def seeded(seeded_store, tmp_path):
    """A private copy of the store holding one earlier file."""
    con = connect_copy(seeded_store, tmp_path / "store.duckdb")
    yield con
    con.close()


def stored_counts(con) -> dict[str, int]:
    """Row counts of every table an ingest writes, and the dataset version."""
    return {**store.table_counts(con), "version": store.dataset_version(con)}


@pytest.mark.parametrize("case", QUARANTINED.values(), ids=QUARANTINED.keys())
def test_bad_rows_are_quarantined_and_good_rows_load(con, case: Bad):
    result = ingest_bytes(con, case.data, case.file_name, fmt=case.fmt)
    assert result.status == "loaded", result.errors
    assert (result.rows_loaded, result.rows_quarantined) == (case.loaded, case.quarantined), result.errors
    assert result.rows_read == result.rows_loaded + result.rows_quarantined
    log = con.execute("SELECT rows_read, rows_loaded, rows_quarantined FROM ingest_log").fetchall()
    assert log == [(result.rows_read, case.loaded, case.quarantined)]
    assert store.table_counts(con)["ratings"] == case.loaded
    assert store.table_counts(con)["quarantine"] == case.quarantined
    reasons = [r[0] for r in con.execute("SELECT reason FROM quarantine").fetchall()]
    assert all(r.startswith(case.file_name) or case.file_name in r for r in reasons), reasons
    assert any(all(part in r for part in case.says) for r in reasons), reasons
    assert any(all(part in e for part in case.says) for e in result.errors), result.errors


def big_jsonl_with_latin1_line(record, n: int = 300) -> bytes:
    """Many good lines (past the 64 KiB the loader checks up front), then one line saved as latin-1."""
    good = jsonl(*(record(f"c{i}") for i in range(n)))
    assert len(good) > 65536
    bad = json.dumps(record("late"), ensure_ascii=False).replace("late", "caf\u00e9").encode("latin-1")
    return good + b"\n" + bad + b"\n"


@pytest.mark.parametrize(
    ("record", "per_record", "file_name"),
    [
        (lambda r: {"task_id": "t1", "rater_id": r, "dimension": "d", "value": "1", "comment": "x" * 200}, 1, "l.jsonl"),
        (answer_comparison, 3, AC),
        (instruction_following, 4, IF),
        (preference_ranking, 4, PR),
    ],
    ids=["canonical", "answer_comparison", "instruction_following", "preference_ranking"],
)  # fmt: skip
def test_a_line_in_another_encoding_is_quarantined_with_its_line(con, record, per_record, file_name):
    data = big_jsonl_with_latin1_line(record)
    result = ingest_bytes(con, data, file_name)
    assert result.status == "loaded", result.errors
    assert (result.rows_loaded, result.rows_quarantined) == (300 * per_record, 1)
    assert any(f"{file_name}, line 301" in e and "not UTF-8" in e for e in result.errors), result.errors


def test_a_csv_row_in_another_encoding_is_quarantined_with_its_line(con):
    rows = "".join(csv_row("c1", "A better", task=f"t{i}") for i in range(900))
    data = (CSV_HEADER + rows).encode() + csv_row("c1", "A better caf\u00e9").encode("latin-1")
    assert len(data) > 65536
    result = ingest_bytes(con, data, "long.csv")
    assert (result.status, result.rows_loaded, result.rows_quarantined) == ("loaded", 900, 1)
    assert any("long.csv, line 902" in e and "encoding" in e for e in result.errors), result.errors


LATIN1_COMMENT = "caf\u00e9"
REJECTED = {
    "canonical-wrong_encoding": (
        canonical_csv(csv_row("c3", "A better")).replace(b"c3", LATIN1_COMMENT.encode("latin-1")), "long.csv", "auto",
        ("long.csv", "line 4", "not UTF-8"),
    ),
    "answer_comparison-wrong_encoding": (
        jsonl(*AC_GOOD).replace(b"A better", LATIN1_COMMENT.encode("latin-1"), 1) + b"\n", AC, "auto",
        (AC, "line 1", "not UTF-8"),
    ),
    "article_likert-wrong_encoding": (
        likert_file(topic("Moon")).replace(b"Moon", LATIN1_COMMENT.encode("latin-1")), AL_FILE, "auto",
        (AL_FILE, "not UTF-8"),
    ),
    "canonical-empty": (b"", "long.csv", "auto", ("long.csv is empty",)),
    "answer_comparison-empty": (b"", AC, "answer_comparison", (f"{AC} is empty",)),
    "article_likert-empty": (b"  \n", AL_FILE, "article_likert", (f"{AL_FILE} holds only white space",)),
    "json_array-empty": (b"[]", AC, "answer_comparison", (AC, "is not in the answer_comparison format")),
    "article_likert-malformed_json": (
        likert_file(topic("Moon"))[:-30], AL_FILE, "auto", (AL_FILE, "line", "column", "not valid JSON"),
    ),
    "canonical_csv-chosen_as_article_likert": (
        canonical_csv(), "long.csv", "article_likert", ("long.csv", "is not in the article_likert format"),
    ),
    "instruction_following-chosen_as_answer_comparison": (
        jsonl(*IF_GOOD), IF, "answer_comparison",
        (IF, "is not in the answer_comparison format", "concord.instruction_following/v1"),
    ),
    "answer_comparison-chosen_as_preference_ranking": (
        json.dumps(list(AC_GOOD)).encode(), "comparisons.json", "preference_ranking",
        ("comparisons.json", "is not in the preference_ranking format"),
    ),
    "answer_comparison-chosen_as_article_likert": (
        jsonl(*AC_GOOD), AC, "article_likert", (AC, "is not in the article_likert format"),
    ),
    "answer_comparison-chosen_as_canonical": (
        jsonl(*AC_GOOD), AC, "canonical", (AC, "no line has the required fields"),
    ),
    "article_likert-without_annotator_in_file_name": (
        likert_file(), "likert.json", "auto", ("likert.json", "preference_json_N_completed.json"),
    ),
    "unknown_format_under_auto-text": (b"Dear team,\nhere are the ratings.\n", "notes.txt", "auto",
                                       ("notes.txt", "not in a format Concord recognises")),
    "unknown_format_under_auto-json": (
        jsonl({"format": "concord.something_else/v9", "task_id": "t"}), "other.jsonl", "auto",
        ("other.jsonl", "concord.something_else/v9, which Concord does not read"),
    ),
}  # fmt: skip


@pytest.mark.parametrize(("data", "file_name", "fmt", "says"), REJECTED.values(), ids=REJECTED.keys())
def test_unreadable_files_are_rejected_and_change_nothing(seeded, data, file_name, fmt, says):
    before = stored_counts(seeded)
    result = ingest_bytes(seeded, data, file_name, fmt=fmt)
    assert result.status == "rejected"
    assert (result.rows_read, result.rows_loaded, result.rows_quarantined) == (0, 0, 0)
    assert len(result.errors) == 1
    assert all(part in result.errors[0] for part in says), result.errors
    assert stored_counts(seeded) == before


SAMPLES = {
    "canonical": (canonical_csv(), "long.csv"),
    "answer_comparison": (jsonl(*AC_GOOD), AC),
    "instruction_following": (jsonl(*IF_GOOD), IF),
    "preference_ranking": (jsonl(*PR_GOOD), PR),
    "article_likert": (likert_file(), AL_FILE),
}


@pytest.mark.parametrize(("data", "file_name"), SAMPLES.values(), ids=SAMPLES.keys())
def test_loading_the_same_bytes_twice_changes_nothing(con, data, file_name):
    first = ingest_bytes(con, data, file_name)
    assert first.status == "loaded" and first.rows_loaded > 0, first.errors
    before = stored_counts(con)
    again = ingest_bytes(con, data, f"copy of {file_name}")
    assert again.status == "already_loaded"
    assert "the same content was loaded before" in again.errors[0]
    assert stored_counts(con) == before


@pytest.mark.parametrize(("data", "file_name"), SAMPLES.values(), ids=SAMPLES.keys())
def test_a_failure_half_way_leaves_the_store_as_it_was(seeded, monkeypatch, data, file_name):
    insert_rows = staging.insert_rows

    def fail_at_submissions(con, table, *args, **kwargs):
        """Insert tasks and items as usual (ratings and quarantine are in by now), then fail."""
        if table == "submissions":
            raise RuntimeError("disk full")
        return insert_rows(con, table, *args, **kwargs)

    monkeypatch.setattr(staging, "insert_rows", fail_at_submissions)
    before = stored_counts(seeded)
    result = ingest_bytes(seeded, data, file_name)
    assert result.status == "rejected"
    assert result.errors == [f"{file_name}: could not be loaded (RuntimeError: disk full)"]
    assert stored_counts(seeded) == before
    monkeypatch.undo()
    assert ingest_bytes(seeded, data, file_name).status == "loaded"  # nothing was half-written that blocks a retry


def with_comment(task: str, value: str = "A better", comment: str = "ok", rater: str = "c1") -> str:
    """One canonical CSV line with a comment (quoted when it spans lines)."""
    quoted = '"' + comment.replace('"', '""') + '"' if "\n" in comment or "," in comment else comment
    return f"{task},{rater},contractor,answer_comparison,usefulness_comparison,comparison,{value},{quoted}\n"


def quarantined_lines(con) -> list[tuple]:
    return con.execute("SELECT line, field FROM quarantine ORDER BY line").fetchall()


def test_csv_lines_count_the_lines_inside_quoted_multiline_fields(con):
    # The line of a row or rejected row is its line in the file, as an editor shows it: a quoted comment
    # spanning three lines moves every later row down by two.
    data = (
        CSV_HEADER.replace("value\n", "value,comment\n")
        + with_comment("t1", comment="first\nsecond\nthird")  # lines 2-4
        + with_comment("t2")  # line 5
        + "t3,c1,contractor,answer_comparison,usefulness_comparison,comparison,A better,x,EXTRA\n"  # line 6
        + with_comment("t4", comment="one\ntwo")  # lines 7-8
        + with_comment("t5", value="C better")  # line 9: not on the scale
        + "t6,c1,contractor,answer_comparison,usefulness_comparison\n"  # line 10: too few columns
        + with_comment("t2", rater="c1", comment="again")  # line 11: t2 twice
    ).encode()
    result = ingest_bytes(con, data, "multiline.csv")
    assert (result.status, result.rows_loaded, result.rows_quarantined) == ("loaded", 2, 5), result.errors
    assert quarantined_lines(con) == [(5, "rater_id"), (6, None), (9, "value"), (10, "target"), (11, "rater_id")]
    assert any("multiline.csv, line 5, field rater_id" in e and "(lines 5, 11)" in e for e in result.errors)
    assert any("multiline.csv, line 6:" in e and "too many columns" in e for e in result.errors), result.errors
    assert con.execute("SELECT comment FROM ratings WHERE task_id = 't1'").fetchall() == [("first\nsecond\nthird",)]


def test_csv_lines_stay_right_past_rejected_rows_in_a_large_file(con):
    # Large enough for DuckDB to read the file in parallel blocks: rows are numbered as they stream past, and
    # the rejected rows (which DuckDB drops from the scan) shift the rows after them.
    n = 600_000
    bad = {
        2_000: "t,c1,contractor,answer_comparison,usefulness_comparison,comparison,A better,x,EXTRA\n",
        250_000: with_comment("tv", value="C better"),
        400_000: "t,c1\n",
        599_000: with_comment("t5"),  # the same unit as line 7 (t5)
    }
    rows = [CSV_HEADER.replace("value\n", "value,comment\n"), with_comment("t0", comment="two\nlines")]
    good = with_comment("t{}")  # the line of with_comment(f"t{line}"), formatted without a call per line
    rows += [bad.get(line) or good.format(line) for line in range(4, n + 1)]
    data = "".join(rows).encode()
    assert len(data) > 40 * 2**20
    result = ingest_bytes(con, data, "large.csv")
    assert (result.rows_loaded, result.rows_quarantined) == (n - 2 - 5, 5), result.errors
    assert [line for line, _ in quarantined_lines(con)] == [5, 2_000, 250_000, 400_000, 599_000]
    assert quarantined_lines(con)[2] == (250_000, "value")
    assert any("large.csv, line 5, field rater_id" in e and "(lines 5, 599000)" in e for e in result.errors)
