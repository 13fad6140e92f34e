"""`python -m analytics agreement`: the JSON keys DESIGN.md promises, values, files vs store, bad input."""

from __future__ import annotations

import csv
import json
import subprocess
import sys

import pytest
from conftest import ROOT, TerminalStderr, shared_path

from analytics.cli.main import main

DIM_KEYS = {
    "rubric",
    "dimension",
    "level",
    "n_units",
    "n_raters",
    "n_ratings",
    "percent_agreement",
    "krippendorff_alpha",
    "fleiss_kappa",
    "gwet_ac1",
}
RATER_KEYS = {
    "rater_id",
    "rubric",
    "dimension",
    "n",
    "exact_agreement",
    "coarse_agreement",
    "cohen_kappa",
    "weighted_kappa",
    "ci95",
}
COLS = ["task_id", "rater_id", "role", "rubric", "dimension", "value"]


def _write(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(COLS)
        w.writerows(rows)
    return str(path)


@pytest.fixture
def kripp(tmp_path):
    """Krippendorff (2011) C-F data (4 coders, 12 units, missing values) as a canonical CSV."""
    with open(shared_path("reference", "krippendorff2011_CDEF_4coders_12units_missing.csv"), newline="") as f:
        r = csv.reader(f)
        head = next(r)
        rows = [
            [line[0], rater, "contractor", "reference", "score", v]
            for line in r
            for rater, v in zip(head[1:], line[1:], strict=True)
            if v.strip()
        ]
    return _write(tmp_path / "kripp.csv", rows)


@pytest.fixture
def paired(tmp_path):
    """SAS PROC FREQ 3x3 table (statsmodels TestUnweightedCohens) as contractor/researcher pairs, in two files."""
    table = [[0, 4, 1], [0, 8, 0], [0, 1, 5]]
    contractor, researcher, t = [], [], 0
    for i, row in enumerate(table):
        for j, n in enumerate(row):
            for _ in range(n):
                t += 1
                contractor.append([f"u{t}", "contractor_1", "contractor", "reference", "category", i + 1])
                researcher.append([f"u{t}", "researcher_1", "researcher", "reference", "category", j + 1])
    return _write(tmp_path / "contractor.csv", contractor), _write(tmp_path / "researcher.csv", researcher)


def _run(capsys, *args) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_json_has_every_contract_key_and_the_published_alpha(kripp, capsys):
    """dimensions[] keys of DESIGN.md; Krippendorff (2011) section D: ordinal alpha 0.815."""
    code, out, _ = _run(capsys, "agreement", kripp, "--level", "ordinal", "--json")
    assert code == 0
    payload = json.loads(out)
    dim = payload["dimensions"][0]
    assert DIM_KEYS <= set(dim)
    assert dim["krippendorff_alpha"] == pytest.approx(0.815, abs=0.0005)
    assert dim["n_units"] == 11 and dim["n_raters"] == 4 and dim["n_ratings"] == 41
    assert dim["level"] == "ordinal"
    assert dim["krippendorff_alpha_ci_low"] < dim["krippendorff_alpha"] <= dim["krippendorff_alpha_ci_high"]
    # no researcher in the file: each contractor is listed with no shared unit, values null (never 0)
    assert {r["rater_id"] for r in payload["raters"]} == {"coder_A", "coder_B", "coder_C", "coder_D"}
    for r in payload["raters"]:
        assert RATER_KEYS <= set(r)
        assert r["n"] == 0 and r["cohen_kappa"] is None and r["ci95"] == [None, None]
        assert "no unit shared with a researcher" in r["notes"]


def test_level_override_changes_the_metric(kripp, capsys):
    """Krippendorff (2011) sections C and E: nominal 0.743, interval 0.849 from the same file."""
    alphas = {}
    for level in ("nominal", "interval"):
        _, out, _ = _run(capsys, "agreement", kripp, "--level", level, "--json", "--n-boot", "0")
        alphas[level] = json.loads(out)["dimensions"][0]["krippendorff_alpha"]
    assert alphas["nominal"] == pytest.approx(0.743, abs=0.0005)
    assert alphas["interval"] == pytest.approx(0.849, abs=0.0005)


def test_researcher_labels_from_a_second_file(paired, capsys):
    """SAS 3x3 (statsmodels TestUnweightedCohens): kappa 0.4842, exact 13/19, ci95 around the kappa."""
    code, out, _ = _run(capsys, "agreement", *paired, "--json")
    assert code == 0
    payload = json.loads(out)
    (rater,) = payload["raters"]
    assert RATER_KEYS <= set(rater)
    assert rater["rater_id"] == "contractor_1" and rater["n"] == 19
    assert rater["cohen_kappa"] == pytest.approx(0.4842, abs=0.00005)
    assert rater["exact_agreement"] == pytest.approx(13 / 19)
    assert rater["weighted_kappa"] == pytest.approx(0.4701, abs=0.00005)  # ordinal scale: linear weights (SAS)
    lo, hi = rater["ci95"]
    assert lo < rater["cohen_kappa"] < hi and rater["ci95_of"] == "cohen_kappa"
    assert DIM_KEYS <= set(payload["dimensions"][0]) and payload["dimensions"][0]["n_raters"] == 2


def test_store_gives_the_same_numbers_as_the_files(paired, tmp_path, capsys):
    """No file given: the store (--db) is used, and the same ratings give the same JSON."""
    db = str(tmp_path / "store.duckdb")
    assert main(["ingest", *paired, "--db", db, "--json"]) == 0
    capsys.readouterr()
    _, from_files, _ = _run(capsys, "agreement", *paired, "--json")
    code, from_store, _ = _run(capsys, "agreement", "--db", db, "--json")
    assert code == 0
    assert json.loads(from_store) == json.loads(from_files)


def test_readable_table_without_json(paired, capsys):
    """Without --json: a table per section, with the kappa and its interval."""
    code, out, _ = _run(capsys, "agreement", *paired)
    assert code == 0
    assert "Agreement among all raters, per dimension" in out
    assert "Each contractor against researcher labels" in out
    assert "contractor_1" in out and "0.484 [" in out


def test_progress_on_a_terminal_only_names_each_table(paired, capsys, monkeypatch):
    """Half a minute at 1M tasks: on a terminal one stderr line is rewritten as each table starts, ending at 100%
    on a new line; stdout is the same as piped, and piped stderr stays empty."""
    terminal = TerminalStderr()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["agreement", *map(str, paired), "--json", "--pairs"]) == 0
    shown = capsys.readouterr().out
    lines = terminal.getvalue().split("\r")[1:]
    assert [line.split(" (")[0] for line in lines] == [
        "agreement: agreement among all raters per dimension and among researchers",
        "agreement: each contractor against researchers",
        "agreement: all contractors against researchers",
        "agreement: each pair of raters",
        "agreement: done",
    ]
    assert lines[-1].endswith("(100%)\x1b[K\n")
    monkeypatch.undo()
    code, piped, err = _run(capsys, "agreement", *map(str, paired), "--json", "--pairs")
    assert code == 0 and err == ""
    drop = lambda text: {k: v for k, v in json.loads(text).items() if k != "stamp"}  # noqa: E731
    assert drop(piped) == drop(shown)


def test_undefined_values_are_null_with_a_reason(tmp_path, capsys):
    """Everyone chose the same level: Fleiss' kappa and alpha are null in the JSON, with notes, never 0."""
    rows = [[f"t{u}", f"r{j}", "contractor", "same", "d", "yes"] for u in range(3) for j in range(3)]
    _, out, _ = _run(capsys, "agreement", _write(tmp_path / "same.csv", rows), "--json", "--n-boot", "0")
    dim = json.loads(out)["dimensions"][0]
    assert dim["fleiss_kappa"] is None and dim["krippendorff_alpha"] is None
    assert dim["percent_agreement"] == pytest.approx(1.0)
    assert "0/0" in dim["notes"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["agreement", "no/such/file.csv", "--json"], "no such file: no/such/file.csv"),
        (["agreement", "--db", "{tmp}/missing.duckdb", "--json"], "does not exist yet"),
    ],
)
def test_bad_input_exits_2_with_one_line(args, message, tmp_path, capsys):
    """A missing file or store: exit code 2 and one line saying what is wrong."""
    code, out, err = _run(capsys, *[a.replace("{tmp}", str(tmp_path)) for a in args])
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err


def test_unreadable_file_and_empty_selection_exit_2(tmp_path, capsys):
    """A file no adapter can read, and a rubric with no ratings: exit 2 with one clear line."""
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n")
    code, _, err = _run(capsys, "agreement", str(bad), "--json")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "bad.csv" in err
    good = _write(tmp_path / "good.csv", [["t1", "r1", "contractor", "x", "d", "1"]])
    code, _, err = _run(capsys, "agreement", good, "--rubric", "other", "--json")
    assert code == 2 and err.strip() == "no ratings to compare for rubric other"


def test_bad_level_is_refused(kripp, capsys):
    """--level outside nominal|ordinal|interval|ratio: argparse's exit code 2."""
    with pytest.raises(SystemExit) as e:
        main(["agreement", kripp, "--level", "cardinal"])
    assert e.value.code == 2
    assert "cardinal" in capsys.readouterr().err


def test_module_runs_and_keeps_heavy_imports_off_the_page_path(kripp):
    """`python -m analytics agreement` end to end; analytics.agreement imports no sklearn/statsmodels/scipy."""
    out = subprocess.run(
        [sys.executable, "-m", "analytics", "agreement", kripp, "--json", "--n-boot", "50"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["n_boot"] == 50
    probe = "import sys, analytics.agreement; print(sorted(m for m in ('sklearn', 'statsmodels', 'scipy', 'streamlit') if m in sys.modules))"
    res = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[]"


def test_differences_between_payloads_name_where_and_allow_only_rounding():
    from analytics.agreement.contract import differences

    a = {"dimensions": [{"alpha": 0.5, "n": 3, "ci": [0.1, float("nan")]}]}
    assert differences(a, {"dimensions": [{"alpha": 0.5 + 1e-12, "n": 3, "ci": [0.1, float("nan")]}]}) == []
    assert differences(a, {"dimensions": [{"alpha": 0.5001, "n": 3, "ci": [0.1, None]}]}) == [
        ".dimensions[0].alpha: 0.5 vs 0.5001",
        ".dimensions[0].ci[1]: nan vs None",
    ]
    assert differences(a, {"dimensions": []}) == [".dimensions: 1 vs 0 items"]


def test_files_fill_only_the_kept_table_the_agreement_reads(tmp_path, capsys):
    """`agreement FILE` fills only reference_tasks of the per-task kept tables (refresh.only(*refresh.AGREEMENT)) and
    gives the JSON of a store whose every kept table is filled: several targets, raters and researchers."""
    import numpy as np

    from analytics import store
    from analytics.ingest.load import ingest_file
    from analytics.store.derived import refresh

    rng = np.random.default_rng(3)
    lines = ["task_id,rater_id,role,rubric,dimension,target,value"]
    for t in range(60):
        raters = [f"c{i}" for i in rng.choice(6, 3, replace=False)] + ["r1", "r2"][: 1 + t % 2]
        for r in raters:
            role = "researcher" if r.startswith("r") else "contractor"
            for dim in ("clarity", "accuracy"):
                for target in ("A", "B"):
                    lines.append(f"t{t},{r},{role},study,{dim},{target},{int(rng.integers(1, 6))}")
    path = tmp_path / "ratings.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    db = str(tmp_path / "store.duckdb")
    assert main(["ingest", str(path), "--db", db, "--json"]) == 0
    capsys.readouterr()
    _, from_files, _ = _run(capsys, "agreement", str(path), "--json", "--n-boot", "200")
    _, from_store, _ = _run(capsys, "agreement", "--db", db, "--json", "--n-boot", "200")
    assert json.loads(from_files) == json.loads(from_store)

    con = store.open_store(":memory:")
    with refresh.only(*refresh.AGREEMENT):
        assert ingest_file(con, path).status == "loaded"
    tables = ("reference_tasks", "contractor_tasks", "rater_tasks")
    counts = {t: con.execute(f"SELECT count(*) FROM {t}").fetchall()[0][0] for t in tables}
    assert counts["reference_tasks"] > 0 and counts["contractor_tasks"] == counts["rater_tasks"] == 0
    full = store.open_store(":memory:")  # outside the block every kept table fills
    assert ingest_file(full, path).status == "loaded"
    assert all(full.execute(f"SELECT count(*) FROM {t}").fetchall()[0][0] > 0 for t in tables)
