"""The one CSV writer (analytics.csv_out): spreadsheet formulas neutralised, numbers kept as numbers, used by the
command line's --csv (neutralised unless --raw, the JSON untouched); and ui.text.visible for ids."""

from __future__ import annotations

import csv
import io
import json
import math

import pandas as pd
import pytest

from analytics.cli.main import main
from analytics.core import csv_out
from ui.text import md_escape, visible

LINK = '=HYPERLINK("http://127.0.0.2:9/x","y")'


def _cells(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r", "\n"])
def test_every_dangerous_start_gets_an_apostrophe(start):
    text = f"{start}cmd|' /C calc'!A0"
    assert csv_out.inert(text) == "'" + text
    rows = _cells(csv_out.to_csv(pd.DataFrame({"comment": [text, "fine"]})))
    assert rows == [["comment"], ["'" + text], ["fine"]]


def test_formula_payloads_from_the_owasp_page():
    for text in (LINK, "=1+2", "+1+2", "-1+2", "@SUM(A1:A2)", "=cmd|' /C calc'!A0", "-2+3+cmd|' /C calc'!A0"):
        assert csv_out.inert(text) == "'" + text


def test_numbers_stay_numbers():
    df = pd.DataFrame(
        {
            "kappa": [-0.205, 0.5, float("nan")],
            "n": [3, -4, 0],
            "flag": [True, False, True],
            "when": pd.to_datetime(["2026-03-02", "2026-03-03", None]),
            "mixed": [-1.5, "-2", "=2"],
        }
    )
    rows = _cells(csv_out.to_csv(df))
    assert rows[0] == ["kappa", "n", "flag", "when", "mixed"]
    assert rows[1] == ["-0.205", "3", "True", "2026-03-02", "-1.5"]
    assert rows[2] == ["0.5", "-4", "False", "2026-03-03", "-2"]  # text that is a plain number stays as it is
    assert rows[3] == ["", "0", "True", "", "'=2"]
    assert float(rows[1][0]) == pytest.approx(-0.205)


@pytest.mark.parametrize("text", ["-3", "+1.5", "-0.25e-3", "-.5", "42"])
def test_plain_numbers_as_text_are_left_alone(text):
    assert csv_out.inert(text) == text


@pytest.mark.parametrize("text", ["-3-3", "-1e", "--1", "-", "+", "-inf", "-nan", "- 1"])
def test_text_that_only_looks_numeric_is_neutralised(text):
    assert csv_out.inert(text) == "'" + text


def test_missing_values_are_empty_cells():
    df = pd.DataFrame({"a": ["x", None, pd.NA], "b": [1.0, math.nan, None]}, dtype=object)
    assert _cells(csv_out.to_csv(df)) == [["a", "b"], ["x", "1.0"], ["", ""], ["", ""]]
    assert csv_out.inert(None) is None and csv_out.inert(pd.NA) is pd.NA


def test_unicode_round_trips():
    df = pd.DataFrame({"rater_id": ["ré", "評価者", "c1\u202e2c", "emoji \U0001f600"], "v": [1, 2, 3, 4]})
    data = csv_out.to_csv_bytes(df)
    back = pd.read_csv(io.BytesIO(data), encoding="utf-8")
    assert back["rater_id"].tolist() == df["rater_id"].tolist()
    assert back["v"].tolist() == [1, 2, 3, 4]


def test_column_names_categories_and_other_objects_are_neutralised():
    df = pd.DataFrame({LINK: pd.Categorical(["=a", "b"]), "list": [["=x"], "-y"], "n": [1, 2]})
    rows = _cells(csv_out.to_csv(df))
    assert rows[0] == ["'" + LINK, "list", "n"]
    assert rows[1] == ["'=a", '["=x"]', "1"]  # a list cell as JSON: it starts with '[', never a formula
    assert rows[2] == ["b", "'-y", "2"]


def test_raw_writes_cells_as_they_are():
    df = pd.DataFrame({"rater_id": [LINK]})
    assert _cells(csv_out.to_csv(df, raw=True))[1] == [LINK]
    assert _cells(csv_out.to_csv(df))[1] == ["'" + LINK]
    assert df["rater_id"].tolist() == [LINK]  # the frame itself is left alone


# --- the command line ----------------------------------------------------------------------------------------


@pytest.fixture
def hostile_pair(tmp_path):
    """A contractor whose id is a spreadsheet formula, and a researcher, on ten shared units."""
    path = tmp_path / "ratings.csv"
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["task_id", "rater_id", "role", "rubric", "dimension", "value"])
        for t in range(10):
            w.writerow([f"t{t}", LINK, "contractor", "reference", "category", 1 + t % 3])
            w.writerow([f"t{t}", "researcher_1", "researcher", "reference", "category", 1 + (t * 2) % 3])
    return str(path)


def test_cli_csv_writes_the_raters_neutralised_and_leaves_the_json_alone(hostile_pair, tmp_path, capsys):
    out = tmp_path / "raters.csv"
    assert main(["agreement", hostile_pair, "--json", "--csv", str(out), "--n-boot", "50"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert [r["rater_id"] for r in payload["raters"]] == [LINK]  # the JSON is never altered
    frame = pd.read_csv(out, keep_default_na=False)
    assert frame["rater_id"].tolist() == ["'" + LINK]
    rater = payload["raters"][0]
    for col in ("cohen_kappa", "cohen_kappa_ci_low", "cohen_kappa_ci_high", "exact_agreement", "n"):
        assert pd.api.types.is_numeric_dtype(frame[col]), col
        assert frame[col].iloc[0] == pytest.approx(rater[col])
    assert "ci95" not in frame.columns  # the pair is the two _ci_ columns


def test_cli_csv_raw_and_its_misuse(hostile_pair, tmp_path, capsys):
    out = tmp_path / "raw.csv"
    assert main(["agreement", hostile_pair, "--csv", str(out), "--raw", "--n-boot", "0"]) == 0
    assert pd.read_csv(out)["rater_id"].tolist() == [LINK]
    assert "Each contractor against researcher labels" in capsys.readouterr().out  # readable tables as before
    assert main(["agreement", hostile_pair, "--raw"]) == 2
    assert "--csv" in capsys.readouterr().err
    assert main(["agreement", hostile_pair, "--csv", str(tmp_path / "no" / "such" / "dir.csv"), "--n-boot", "0"]) == 2
    assert "cannot write" in capsys.readouterr().err


# --- ids shown on pages ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "char", ["\u202e", "\u202a", "\u2066", "\u2069", "\u200e", "\u200f", "\x00", "\x1b", "\x7f", "\x85", "\u200b"]
)
def test_visible_names_every_hidden_character(char):
    shown = visible(f"c1{char}2c")
    assert shown == f"c1⟨U+{ord(char):04X}⟩2c"
    assert char not in shown


def test_visible_leaves_ordinary_text_alone_and_keeps_what_it_is_told():
    assert visible("Rater ré 評価者 😀 <b>") == "Rater ré 評価者 😀 <b>"
    assert visible("a\nb\tc") == "a⟨U+000A⟩b⟨U+0009⟩c"
    assert visible("a\nb\u202e", keep="\n") == "a\nb⟨U+202E⟩"
    assert visible(12) == "12"


def test_md_escape_shows_hidden_characters_too():
    shown = md_escape("c1\u202e2c\nnext")
    assert "\u202e" not in shown and "U\\+202E" in shown and "\nnext" in shown


LIST_QUERY = "SELECT range(2000) AS l, {'a': [1, 2], 'b': '=x'} AS s, MAP {'k': [1.5]} AS m, [DATE '2026-01-02'] AS d"


@pytest.mark.parametrize("raw", [False, True])
def test_list_struct_and_map_cells_are_written_in_full_as_json(raw):
    """Protection: csv_out.cell_text writes nested cells as JSON; str() of a DuckDB list (a numpy array) gave
    numpy's summary `[   0    1    2 ... 1997 1998 1999]`, in the Explore page's CSV."""
    import duckdb

    frame = duckdb.sql(LIST_QUERY).df()
    rows = _cells(csv_out.to_csv(frame, raw=raw))
    assert rows[0] == ["l", "s", "m", "d"]
    cells = [json.loads(c) for c in rows[1]]
    assert cells == [list(range(2000)), {"a": [1, 2], "b": "=x"}, {"k": [1.5]}, ["2026-01-02T00:00:00"]]
