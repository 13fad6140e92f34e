"""The real-dataset registry (analytics/ingest/datasets.py), the `datasets` command and the Data page's Datasets
section: every listed file exists in ../shared/real-data, a present dataset loads with one click, and the
listing says what is loaded."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from analytics import agreement, store
from analytics.cli.main import main
from analytics.core.formatting import fmt
from analytics.ingest import datasets
from tests.conftest import SHARED, app_test, shared_path

TOY = datasets.Dataset(name="toy", path="toy/toy_ratings.csv", format="canonical", title="Toy", source="this test")


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """A real-data folder holding one canonical file, listed as the only dataset."""
    folder = tmp_path / "real"
    (folder / "toy").mkdir(parents=True)
    rows = [(f"t{t}", r, "contractor", str(1 + (t + i) % 3)) for t in range(8) for i, r in enumerate(["a", "b"])]
    pd.DataFrame(rows, columns=["task_id", "rater_id", "role", "value"]).assign(
        rubric="toy", dimension="quality"
    ).to_csv(folder / TOY.path, index=False)
    monkeypatch.setenv("CONCORD_REAL_DATA", str(folder))
    monkeypatch.setattr(datasets, "catalogue", lambda: (TOY,))
    return folder


def test_every_listed_dataset_is_a_file_of_the_shared_real_data():
    shared_path("real-data")
    missing = [d.path for d in datasets.catalogue() if not (SHARED / "real-data" / d.path).is_file()]
    assert not missing, missing
    names = [d.name for d in datasets.catalogue()]
    assert len(names) == len(set(names)), "dataset names are unique"


def test_the_command_lists_datasets_and_what_is_loaded(toy, tmp_path, capsys):
    db = str(tmp_path / "s.duckdb")
    assert main(["datasets", "--db", db, "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["datasets"]
    assert (row["name"], row["format"], row["loaded"], row["present"]) == ("toy", "canonical", False, True)
    assert main(["ingest", str(toy / TOY.path), "--db", db, "--json"]) == 0
    capsys.readouterr()
    assert main(["datasets", "--db", db, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["datasets"][0]["loaded"] is True
    assert main(["datasets", "--db", db]) == 0
    assert "toy: loaded (canonical)" in capsys.readouterr().out


def test_the_data_page_loads_a_dataset_with_one_click(toy, app_store):
    at = app_test("app_pages/data.py")
    assert not at.exception
    assert at.selectbox(key="dataset_pick").value == "toy"
    at.button(key="dataset_load").click().run()
    assert not at.exception
    assert any("toy\\_ratings" in s.value and "16 rows loaded" in s.value for s in at.success), [
        s.value for s in at.success
    ]
    listed = next(df.value for df in at.dataframe if "present" in df.value.columns)
    assert listed.set_index("name").loc["toy", "loaded"]


@pytest.fixture
def fresh_store(tmp_path, monkeypatch):
    """An empty store for the app (a demo plan with no files, so the first start loads nothing), and the real
    datasets read from ../shared/real-data."""
    monkeypatch.setenv("CONCORD_REAL_DATA", str(SHARED / "real-data"))
    db = tmp_path / "fresh.duckdb"
    monkeypatch.setenv("CONCORD_DB", str(db))
    no_demo = tmp_path / "no-demo"
    no_demo.mkdir()
    (no_demo / "truth.json").write_text('{"files": []}', encoding="utf-8")
    monkeypatch.setenv("CONCORD_DEMO_DIR", str(no_demo))
    return db


def _cli_dimensions(path, capsys) -> dict:
    """`python -m analytics agreement FILE --json --n-boot 0` (run in this process): its dimensions by (rubric,
    dimension)."""
    capsys.readouterr()
    assert main(["agreement", str(path), "--json", "--n-boot", "0"]) == 0
    return {(d["rubric"], d["dimension"]): d for d in json.loads(capsys.readouterr().out)["dimensions"]}


@pytest.mark.parametrize("dataset", datasets.catalogue(), ids=lambda d: d.name)
def test_every_dataset_loads_from_the_data_page_and_gives_the_command_lines_figures(dataset, fresh_store, capsys):
    """Each registered real dataset, loaded with one click on the Data page into a fresh store (no demo data),
    loads without an error, is listed as loaded, and the store it made gives the same headline figures as the
    command line on the same file: per rubric dimension, agreement among all raters (the command line's
    `dimensions`): n_units, n_ratings and Krippendorff's alpha, through analytics.agreement.dimension_agreement
    (the per-dimension rows agreement_report builds for the Agreement page's table; the page itself offers
    comparisons by role, not all raters). Point estimates only (n_boot=0 on both sides): intervals do not change
    them, and the bootstrap of a 201-level scale (Snow valence) would make this slow. The command line runs in this
    process (main()), which saves a Python start per dataset."""
    path, db = shared_path("real-data", dataset.path), fresh_store

    at = app_test("app_pages/data.py")
    assert not at.exception and not at.error
    at.selectbox(key="dataset_pick").select(dataset.name)
    at.button(key="dataset_load").click().run()
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    shown = [m.value for m in [*at.success, *at.warning] if "rows loaded" in m.value]
    assert len(shown) == 1 and f"({dataset.format}): loaded" in shown[0], shown
    listed = next(df.value for df in at.dataframe if "present" in df.value.columns).set_index("name")
    assert listed.loc[dataset.name, "loaded"] and listed["loaded"].sum() == 1

    con = store.open_store(db)
    try:
        n = con.execute("SELECT count(*) FROM ratings").fetchall()[0][0]
        dims = agreement.dimension_agreement(con, agreement.AgreementSpec(comparison="all_raters", n_boot=0))
    finally:
        con.close()
    assert n > 0 and f"{n:,} rows loaded" in shown[0]

    cli = _cli_dimensions(path, capsys)
    assert set(cli) == set(zip(dims["rubric"], dims["dimension"], strict=True))
    for row in dims.to_dict("records"):
        want = cli[(row["rubric"], row["dimension"])]
        assert (row["n_units"], row["n_ratings"]) == (want["n_units"], want["n_ratings"]), row["dimension"]
        if want["krippendorff_alpha"] is None:  # one rater per unit (an expert or judge file alone): no alpha
            assert pd.isna(row["krippendorff_alpha"])
        else:
            assert row["krippendorff_alpha"] == pytest.approx(want["krippendorff_alpha"], abs=1e-12)


def test_the_agreement_page_shows_the_command_lines_alpha_for_a_dataset_loaded_from_the_data_page(fresh_store, capsys):
    """QAGS XSum (every MTurk worker a contractor, so agreement among contractors is agreement among all raters),
    loaded with one click into a fresh store: the Agreement page's per-dimension table shows the command line's
    Krippendorff's alpha at the page's three decimals (ui.agreement_view.with_interval), with its interval."""
    qags = next(d for d in datasets.catalogue() if d.name == "qags_xsum")
    path = shared_path("real-data", qags.path)

    at = app_test("app_pages/data.py")
    at.selectbox(key="dataset_pick").select(qags.name)
    at.button(key="dataset_load").click().run()
    assert not at.exception and not at.error
    at.switch_page("app_pages/agreement.py").run()
    at.selectbox(key="agr_comparison").select("among_contractors").run()
    at.toggle(key="agr_every_coefficient").set_value(True).run()  # the wide table, every coefficient (issue #50)
    assert not at.exception and not at.error, [e.value for e in at.error]

    (want,) = _cli_dimensions(path, capsys).values()
    table = next(df.value for df in at.dataframe if "Krippendorff's alpha" in df.value.columns)
    (shown,) = table["Krippendorff's alpha"]
    assert shown.startswith(f"{fmt(want['krippendorff_alpha'], 3)} ["), shown  # 0.342 on this file
