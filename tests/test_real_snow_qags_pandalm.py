"""The Snow et al. 2008, QAGS and PandaLM loaders on the real files (../shared/real-data, issue #13).

Each dataset's headline figures are checked against the figure its paper published (the place is named in the
test) and against an independent implementation (krippendorff 0.9.0, scikit-learn) computed here from the raw
file with pandas. Bad-input cases use small files written into tmp_path.
"""

from __future__ import annotations

import json
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from analytics import agreement, store
from analytics.core.filters import Filters
from analytics.core.rubrics import SNOW_AFFECT
from analytics.ingest import datasets, detect_format, pandalm, qags, snow2008
from analytics.ingest.load import ingest_file
from tests.cli_helpers import run_cli
from tests.conftest import app_test, shared_path

SNOW_COLUMNS = ["annotation", "worker", "item", "response", "gold"]


def loaded(*paths: Path, **kw) -> store.duckdb.DuckDBPyConnection:
    """An in-memory store with the files loaded (each must load)."""
    con = store.open_store(":memory:")
    for p in paths:
        r = ingest_file(con, p, **kw)
        assert r.status == "loaded", r.errors
    return con


def payload(con) -> dict:
    """What `python -m analytics agreement --json --n-boot 0` prints for the store."""
    return agreement.contract_payload(con, agreement.AgreementSpec(n_boot=0, filters=Filters()), pairs=True)


def snow_tsv(task: str) -> pd.DataFrame:
    """A Snow et al. TSV read with pandas, the columns renamed."""
    d = pd.read_csv(shared_path("real-data", "snow2008", f"{task}.standardized.tsv"), sep="\t", dtype=str)
    d.columns = SNOW_COLUMNS
    return d


def majority_accuracy(labels: pd.DataFrame) -> float:
    """Accuracy of the majority of each item's labels against its gold, a tie counting half (a random pick)."""
    counts = labels.groupby(["item", "response"]).size().unstack(fill_value=0)
    gold = labels.groupby("item")["gold"].first()
    top = counts.eq(counts.max(axis=1), axis=0)
    return float((top.apply(lambda row: row.get(gold[row.name], False), axis=1) / top.sum(axis=1)).mean())


def worker_matrix(d: pd.DataFrame, value: str = "response") -> np.ndarray:
    """Workers x items, as floats (NaN where a worker did not rate an item)."""
    return (
        d.pivot_table(index="worker", columns="item", values=value, aggfunc="first")
        .apply(pd.to_numeric)
        .to_numpy(float)
    )


def store_labels(con, rubric: str) -> pd.DataFrame:
    """The loaded contractor labels with the loaded gold of their item, as Snow's columns."""
    return con.execute(
        """SELECT c.task_id AS item, c.value AS response, g.value AS gold FROM ratings c
           JOIN ratings g ON g.task_id = c.task_id AND g.rubric = c.rubric AND g.role = 'researcher'
           WHERE c.rubric = ? AND c.role = 'contractor'""",
        [rubric],
    ).df()


# --- Snow et al. 2008 ----------------------------------------------------------------------------------------


def test_snow_rte_from_the_tsv_gives_the_canonical_csv_figures_and_the_papers_majority_vote():
    """RTE straight from the TSV: pooled exact agreement 0.729125 and mean per-worker 0.8370, as
    tests/test_agreement_honest.py gets through a hand-made canonical CSV; pooled Cohen's kappa is scikit-learn's
    on every worker-gold pair. Published: Snow et al. (2008), section 4 (annotation tasks), RTE, p. 258: accuracy
    0.897 of the majority of 10 non-expert labels against the expert gold. Concord reports agreement, not majority-vote
    accuracy, so the reading checked is the paper's statistic computed on the ratings Concord stored (a tied
    vote counts half, the expected accuracy of breaking ties at random), and the same from the raw TSV."""
    d = snow_tsv("rte")
    con = loaded(shared_path("real-data", "snow2008", "rte.standardized.tsv"))
    p = payload(con)
    pooled = p["pooled"][0]
    assert pooled["rubric"] == "snow2008_rte" and pooled["n_tasks"] == 800 and pooled["n"] == 8000
    assert pooled["exact_agreement"] == pytest.approx(0.729125, abs=1e-9)
    assert pooled["cohen_kappa"] == pytest.approx(cohen_kappa_score(d["response"], d["gold"]))
    per_worker = np.mean([r["exact_agreement"] for r in p["raters"]])
    assert per_worker == pytest.approx((d["response"] == d["gold"]).groupby(d["worker"]).mean().mean())
    assert per_worker == pytest.approx(0.8370, abs=5e-4)
    among = agreement.dimension_agreement(
        con, agreement.AgreementSpec(comparison="among_contractors", n_boot=0, filters=Filters())
    ).iloc[0]
    assert among["krippendorff_alpha"] == pytest.approx(
        krippendorff.alpha(reliability_data=worker_matrix(d), level_of_measurement="nominal")
    )
    assert majority_accuracy(store_labels(con, "snow2008_rte")) == pytest.approx(0.897, abs=5e-4)
    assert majority_accuracy(d) == pytest.approx(0.897, abs=5e-4)


def test_snow_wsd_senses_are_nominal_from_the_catalogue():
    """WSD: the catalogue declares the senses 1, 2, 3 nominal, so no --scales is needed: the workers' alpha is
    the nominal 0.9372 of tests/test_agreement_honest.py (krippendorff 0.9.0 on the raw TSV). Published: Snow et
    al. (2008), section 4, WSD: majority voting reaches 0.994 accuracy against the gold; checked on the loaded
    ratings as for RTE."""
    d = snow_tsv("wsd")
    con = loaded(shared_path("real-data", "snow2008", "wsd.standardized.tsv"))
    among = agreement.dimension_agreement(
        con, agreement.AgreementSpec(comparison="among_contractors", n_boot=0, filters=Filters())
    ).iloc[0]
    want = krippendorff.alpha(reliability_data=worker_matrix(d), level_of_measurement="nominal", value_domain=[1, 2, 3])
    assert among["level"] == "nominal" and among["krippendorff_alpha"] == pytest.approx(want)
    assert want == pytest.approx(0.9372, abs=5e-4)
    assert majority_accuracy(store_labels(con, "snow2008_wsd")) == pytest.approx(0.994, abs=5e-4)


def test_snow_temp_majority_vote_and_alpha():
    """Temporal ordering: Snow et al. (2008), section 4, temporal event ordering: 0.94 accuracy of the majority of 10 non-expert labels
    (to the two decimals published; ties count half); the workers' nominal alpha equals krippendorff's."""
    d = snow_tsv("temp")
    con = loaded(shared_path("real-data", "snow2008", "temp.standardized.tsv"))
    assert round(majority_accuracy(store_labels(con, "snow2008_temp")), 2) == 0.94
    among = agreement.dimension_agreement(
        con, agreement.AgreementSpec(comparison="among_contractors", n_boot=0, filters=Filters())
    ).iloc[0]
    assert among["krippendorff_alpha"] == pytest.approx(
        krippendorff.alpha(reliability_data=worker_matrix(d), level_of_measurement="nominal")
    )


@pytest.mark.parametrize("task", [*SNOW_AFFECT, "valence"])
def test_snow_affect_is_interval_with_the_gold_as_a_researcher(task):
    """Affective text: 0-100 (valence -100..100) declared interval in the catalogue; the workers' interval alpha
    equals krippendorff's on the raw TSV, and the gold (the expert panel's mean) is one researcher rating per
    headline. Snow et al. (2008), Table 2, report Pearson correlations (ITA), which Concord does not compute, so
    no published figure is checked here."""
    d = snow_tsv(task)
    con = loaded(shared_path("real-data", "snow2008", f"{task}.standardized.tsv"))
    among = agreement.dimension_agreement(
        con, agreement.AgreementSpec(comparison="among_contractors", n_boot=0, filters=Filters())
    ).iloc[0]
    assert among["rubric"] == "snow2008_affect" and among["dimension"] == task and among["level"] == "interval"
    want = krippendorff.alpha(reliability_data=worker_matrix(d), level_of_measurement="interval")
    assert among["krippendorff_alpha"] == pytest.approx(want)
    gold = con.execute("SELECT count(*), count(DISTINCT task_id) FROM ratings WHERE rater_id = 'gold'").fetchall()
    assert gold == [(100, 100)]


def test_snow_wordsim_gold_is_quarantined_not_rescaled():
    """Word similarity: the gold column is Miller & Charles's mean on 0-4 (e.g. 3.62), not a rating on the
    workers' 0-10 scale, so each item's gold is quarantined with that reason; the 300 worker labels load, and
    their interval alpha is krippendorff's on the raw TSV."""
    con = store.open_store(":memory:")
    r = ingest_file(con, shared_path("real-data", "snow2008", "wordsim.standardized.tsv"))
    among = agreement.dimension_agreement(
        con, agreement.AgreementSpec(comparison="among_contractors", n_boot=0, filters=Filters())
    ).iloc[0]
    want = krippendorff.alpha(reliability_data=worker_matrix(snow_tsv("wordsim")), level_of_measurement="interval")
    assert among["level"] == "interval" and among["krippendorff_alpha"] == pytest.approx(want)
    assert r.status == "loaded" and r.rows_loaded == 300 and r.rows_quarantined == 30
    assert "3.62 of item boy lad is Miller & Charles's (1991) mean similarity on 0-4" in r.errors[0]
    assert "line 2, field gold" in r.errors[0]


def test_every_dataset_entry_loads():
    """Every DATASETS entry of the three adapters is present and loads with its own format; only the word
    similarity gold and GPT-3.5's 25 'garbage' verdicts are quarantined."""
    entries = [*snow2008.DATASETS, *qags.DATASETS, *pandalm.DATASETS]
    assert len(snow2008.DATASETS) == 11 and {d.name for d in entries} <= {d.name for d in datasets.catalogue()}
    con = store.open_store(":memory:")
    for d in entries:
        path = shared_path("real-data", d.path)
        assert detect_format(path.read_bytes()[:65536], path.name) == d.format
        r = ingest_file(con, path)
        assert r.status == "loaded" and r.format == d.format, (d.name, r.errors)
        assert r.rows_quarantined == {"snow2008_wordsim": 30, "pandalm_judge_gpt35": 25}.get(d.name, 0), d.name


# --- QAGS ------------------------------------------------------------------------------------------------------


def qags_matrix(name: str) -> np.ndarray:
    """Workers x summary sentences, yes = 1, no = 0, from the raw JSONL."""
    rows = []
    for n, line in enumerate(shared_path("real-data", "qags", name).read_text().splitlines()):
        for k, s in enumerate(json.loads(line)["summary_sentences"]):
            rows += [(r["worker_id"], f"{n}/{k}", r["response"] == "yes") for r in s["responses"]]
    d = pd.DataFrame(rows, columns=["worker", "unit", "yes"])
    return d.pivot_table(index="worker", columns="unit", values="yes", aggfunc="first").to_numpy(float)


def test_qags_alpha_matches_the_paper_through_the_command_line():
    """Wang, Cho & Lewis (2020), 'Asking and Answering Questions to Evaluate the Factual Consistency of
    Summaries', ACL, where it describes its MTurk annotations: Krippendorff's alpha 0.51 on CNN/DM and 0.34 on
    XSUM (the section number is not checked here), over the three workers' yes/no per summary sentence. `python -m analytics agreement` on both files gives
    them (nominal alpha, a sentence a unit), as krippendorff 0.9.0 does on the raw JSONL. Worker ids are per file:
    cnndm:0 and xsum:0 are two raters."""
    files = [str(shared_path("real-data", "qags", f"mturk_{s}.jsonl")) for s in ("cnndm", "xsum")]
    out = run_cli("agreement", *files, "--json", "--n-boot", "0")
    assert out.returncode == 0, out.stderr
    dims = {d["rubric"]: d for d in json.loads(out.stdout)["dimensions"]}
    for source, published, units, raters in (("cnndm", 0.51, 714, 162), ("xsum", 0.34, 239, 84)):
        got = dims[f"qags_{source}"]
        want = krippendorff.alpha(reliability_data=qags_matrix(f"mturk_{source}.jsonl"), level_of_measurement="nominal")
        assert got["krippendorff_alpha"] == pytest.approx(want)
        assert round(got["krippendorff_alpha"], 2) == published
        assert (got["n_units"], got["n_raters"]) == (units, raters)
    con = loaded(*map(Path, files))
    ids = {r for (r,) in con.execute("SELECT DISTINCT rater_id FROM ratings").fetchall()}
    assert {"cnndm:0", "xsum:0"} <= ids and not any(":" not in i for i in ids)


# --- PandaLM ---------------------------------------------------------------------------------------------------


def test_pandalm_annotator_kappas_match_the_paper():
    """PandaLM (Wang et al. 2023, arXiv 2306.05087v2, where it describes the test set): 'The final IAA amongst the three
    annotators, as measured by Cohen's Kappa, yields average scores of 0.85, 0.86, and 0.88'. The reading checked:
    the three pairwise kappas (annotator pairs 1-2, 2-3, 1-3), which round to those figures; each annotator's mean
    kappa with the other two (0.87, 0.86, 0.87) does not. Concord's rater_pairs equal scikit-learn's on the raw
    file; the three annotators' alpha equals krippendorff's; as researchers they form the researcher ceiling."""
    raw = pd.DataFrame(json.loads(shared_path("real-data", "pandalm", "testset-v1.json").read_text()))
    con = loaded(shared_path("real-data", "pandalm", "testset-v1.json"))
    p = payload(con)
    pairs = {(r["rater_a"], r["rater_b"]): r for r in p["rater_pairs"]}
    published = {
        ("annotator1", "annotator2"): 0.85,
        ("annotator2", "annotator3"): 0.86,
        ("annotator1", "annotator3"): 0.88,
    }
    for (a, b), figure in published.items():
        assert pairs[(a, b)]["cohen_kappa"] == pytest.approx(cohen_kappa_score(raw[a], raw[b]))
        assert round(pairs[(a, b)]["cohen_kappa"], 2) == figure
        assert pairs[(a, b)]["n_units"] == 999
    matrix = raw[list(pandalm.ANNOTATORS)].to_numpy(float).T
    alpha = krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal")
    assert p["dimensions"][0]["krippendorff_alpha"] == pytest.approx(alpha)
    assert p["ceiling"][0]["n_units"] == 999 and p["raters"] == []  # researchers only: no contractor yet


def test_pandalm_judges_join_by_idx_and_garbage_is_quarantined():
    """The GPT-3.5 judge file joins the test set by idx as rater gpt-3.5-turbo (contractor): its 'garbage'
    verdicts (25) are quarantined with their reason, 'Tie' is the annotators' 0, and its Cohen's kappa against
    annotator1 on the 974 comparisons it judged equals scikit-learn's on the raw files joined by idx."""
    test = shared_path("real-data", "pandalm", "testset-v1.json")
    judge = shared_path("real-data", "pandalm", "gpt-3.5-turbo-testset-v1.json")
    con = store.open_store(":memory:")
    assert ingest_file(con, test).status == "loaded"
    r = ingest_file(con, judge)
    assert r.status == "loaded" and r.rows_loaded == 974 and r.rows_quarantined == 25
    assert "comparison idx 114, field gpt_result: verdict 'garbage' of gpt-3.5-turbo" in r.errors[0]
    raw = pd.DataFrame(json.loads(test.read_text())).merge(pd.DataFrame(json.loads(judge.read_text())), on="idx")
    raw = raw[raw["gpt_result"] != "garbage"]
    judged = raw["gpt_result"].replace({"Tie": "0"}).astype(int)
    pairs = {(x["rater_a"], x["rater_b"]): x for x in payload(con)["rater_pairs"]}
    got = pairs[("annotator1", "gpt-3.5-turbo")]
    assert got["n_units"] == 974
    assert got["cohen_kappa"] == pytest.approx(cohen_kappa_score(raw["annotator1"], judged))
    comment = con.execute("SELECT comment FROM ratings WHERE rater_id = 'gpt-3.5-turbo' LIMIT 1").fetchall()[0][0]
    assert comment


# --- detection and bad input -----------------------------------------------------------------------------------


def test_detection_is_specific(tmp_path):
    """Each adapter claims its own files and none of the others' (nor a canonical CSV, nor a wide TSV)."""
    heads = {
        "snow2008": b"!amt_annotation_ids\t!amt_worker_ids\torig_id\tresponse\tgold\nx\tw1\t1\t1\t1\n",
        "qags": b'{"article": "A.", "summary_sentences": [{"sentence": "S.", "responses": []}]}\n',
        "pandalm": b'[{"idx": 0, "annotator1": 1, "annotator2": 1, "annotator3": 0}]',
    }
    others = [
        b"task_id,rater_id,dimension,value\nt1,r1,d,1\n",
        b"item\tr1\tr2\n1\t1\t2\n",
        b'[{"idx": 0, "text": "no verdicts"}]',
        b'{"article": "A.", "summary": "no sentences"}\n',
    ]
    mods = {"snow2008": snow2008, "qags": qags, "pandalm": pandalm}
    for name, head in heads.items():
        assert [n for n, m in mods.items() if m.detect(head, "mturk_cnndm.jsonl")] == [name]
    assert not any(m.detect(h, "f.jsonl") for m in mods.values() for h in others)


def test_snow_bad_rows_are_quarantined_with_their_line(tmp_path):
    """A ragged row and a gold that changes within an item are named by line; the rest loads; a file whose
    name names no task is rejected, and --format snow2008 reads a renamed-but-valid file."""
    path = tmp_path / "rte.standardized.tsv"
    path.write_text(
        "!amt_annotation_ids\t!amt_worker_ids\torig_id\tresponse\tgold\n"
        "a1\tw1\t1\t1\t1\na2\tw2\t1\t0\t0\na3\tw3\t2\t1\na4\tw1\t2\t0\t0\n"
    )
    con = store.open_store(":memory:")
    r = ingest_file(con, path)
    assert r.status == "loaded" and r.rows_loaded == 5 and r.rows_quarantined == 1
    assert any("line 4: 4 fields, expected 5" in e for e in r.errors)
    assert any("line 3, field gold: item 1 has gold 0 here but 1 on line 2" in e for e in r.errors)
    other = tmp_path / "labels.tsv"
    other.write_bytes(path.read_bytes())
    r = ingest_file(store.open_store(":memory:"), other, fmt="snow2008")
    assert r.status == "rejected" and "named TASK.standardized.tsv" in r.errors[0]


def test_qags_and_pandalm_bad_records(tmp_path):
    """QAGS: a response without worker_id is quarantined naming the line; a file not named for its source is
    rejected. PandaLM: a comparison without idx and an unknown verdict are quarantined, the rest loads."""
    q = tmp_path / "mturk_xsum.jsonl"
    good = {"article": "A", "summary_sentences": [{"sentence": "S", "responses": [{"worker_id": 1, "response": "no"}]}]}
    bad = {"article": "B", "summary_sentences": [{"sentence": "T", "responses": [
        {"worker_id": 1, "response": "yes"}, {"response": "no"}]}]}  # fmt: skip
    q.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    r = ingest_file(store.open_store(":memory:"), q)
    assert r.status == "loaded" and r.rows_loaded == 2 and r.rows_quarantined == 1
    assert "mturk_xsum.jsonl, line 2, field summary_sentences[1].responses: a response without worker_id" in r.errors[0]
    renamed = tmp_path / "judgments.jsonl"
    renamed.write_bytes(q.read_bytes())
    r = ingest_file(store.open_store(":memory:"), renamed)
    assert r.status == "rejected" and "mturk_cnndm.jsonl or mturk_xsum.jsonl" in r.errors[0]
    p = tmp_path / "testset-v1.json"
    p.write_text(json.dumps([
        {"idx": 0, "annotator1": 1, "annotator2": 2, "annotator3": 7},
        {"annotator1": 1, "annotator2": 1, "annotator3": 1},
    ]))  # fmt: skip
    r = ingest_file(store.open_store(":memory:"), p)
    assert r.status == "loaded" and r.rows_loaded == 2 and r.rows_quarantined == 2
    assert any("comparison idx 0, field annotator3: verdict 7 of annotator3" in e for e in r.errors)
    assert any("a comparison without idx is not used" in e for e in r.errors)


def test_the_data_page_loads_the_pandalm_test_set_and_a_judge(app_store, monkeypatch):
    """The Data page's Datasets section loads the PandaLM test set and then the GPT-3.5 judge with one click each
    (their format from DATASETS), and says what it loaded and quarantined."""
    monkeypatch.setenv("CONCORD_REAL_DATA", str(shared_path("real-data")))
    at = app_test("app_pages/data.py")
    assert not at.exception
    for name, loaded in (("pandalm_testset", "2,997 rows loaded"), ("pandalm_judge_gpt35", "974 rows loaded")):
        at.selectbox(key="dataset_pick").set_value(name).run()
        at.button(key="dataset_load").click().run()
        assert not at.exception
        shown = [m.value for m in [*at.success, *at.warning]]
        assert any(loaded in v for v in shown), shown
    listed = next(df.value for df in at.dataframe if "present" in df.value.columns).set_index("name")
    assert listed.loc["pandalm_testset", "loaded"] and listed.loc["pandalm_judge_gpt35", "loaded"]
