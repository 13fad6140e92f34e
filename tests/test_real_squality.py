"""SQuALITY human evaluation (nyu-mll/SQuALITY data/human-eval/all-responses.jsonl, from ../shared/real-data/).

Published figure: Wang et al. (2022), "SQuALITY: Building a Long-Document Summarization Dataset the Hard Way"
(arXiv 2205.11465, EMNLP 2022), report the inter-annotator agreement of this human evaluation. That figure is not
asserted here because no available source shows it. Searched on 2026-11-23:
- nyu-mll/SQuALITY, the whole history (newest commit dc08d4f): README.md, data/human-eval/README.md (the file's
  format only, "consult our paper and its appendix"), run_summarization.py and the scripts: no agreement
  coefficient; the repository's issues #1 and #2 are about releasing this file and the ranks of human summaries.
- The search tool: the pages corpus stores the paper's LaTeX and extracted paragraphs (SPIQA's copies of
  2205.11465v1) and abstract pages (paperswithcode, Hugging Face papers, luneresearch, arxivlens), but returns
  only a page's opening (the abstract or the introduction), never the human-evaluation section; the GEM/squality
  data card appears only as commit listings. The docs, code and issues corpora hold no page quoting the figure;
  an exact-string search of GitHub files for the bibtex key `wang2022squality` finds bibliographies only.
The closest defensible reading of "agreement of the ratings and ranks" is Krippendorff's alpha with the writers
as raters and each (question, system) summary as a unit: interval for the 0-100 ratings, ordinal for the ranks.
Checked against krippendorff 0.9.0 and, for a pair of writers, scikit-learn's Cohen's kappa, both computed here
from the raw file with pandas. When the paper's text is at hand, its figure belongs in a test here, with the
reading of its method stated.
"""

from __future__ import annotations

import json

import krippendorff
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from analytics.agreement import AgreementSpec, contract_payload
from analytics.ingest import detect_format, squality
from analytics.ingest.load import ingest_file
from tests.conftest import shared_path

FILE = ("real-data", "squality", "all-responses.jsonl")


def _reviews() -> pd.DataFrame:
    """One row per review: task, system, writer and the six values, read with pandas from the raw file."""
    rows = []
    for line in shared_path(*FILE).read_text(encoding="utf-8").splitlines():
        story = json.loads(line)
        for q, systems in story["questions"].items():
            for system, block in systems.items():
                for r in block["reviews"]:
                    rows.append(
                        {"unit": f"{story['passage-id']}-q{q}/{system}", "writer": r["worker_id"]}
                        | {k: float(v) for k, v in r.items() if k.endswith(("-rating", "-rank"))}
                    )
    return pd.DataFrame(rows)


@pytest.fixture
def payload(con):
    r = ingest_file(con, shared_path(*FILE))
    assert (r.status, r.format, r.rows_loaded, r.rows_quarantined) == ("loaded", "squality", 5400, 0)
    return contract_payload(con, AgreementSpec(n_boot=0), pairs=True)


def test_detected():
    path = shared_path(*FILE)
    assert detect_format(path.read_bytes()[:65536], path.name) == "squality"
    assert not squality.detect(b'{"task_id": "t1", "rater_id": "r1"}\n', "x.jsonl")


def test_design_is_balanced_incomplete(payload):
    dims = {d["dimension"]: d for d in payload["dimensions"]}
    assert set(dims) == {f"{p}_{k}" for p in ("correctness", "selection", "overall") for k in ("rating", "rank")}
    for d in dims.values():
        assert (d["n_units"], d["n_tasks"], d["n_raters"], d["n_ratings"]) == (300, 100, 4, 900)
    assert payload["needs_rater_ids"] == []  # the writers have ids: pair figures are computed


@pytest.mark.parametrize(
    ("dimension", "column", "level"),
    [
        ("overall_rating", "overall-rating", "interval"),
        ("correctness_rating", "correctness-rating", "interval"),
        ("selection_rating", "selection-rating", "interval"),
        ("overall_rank", "overall-rank", "ordinal"),
        ("correctness_rank", "correctness-rank", "ordinal"),
    ],
)
def test_alpha_matches_krippendorff(payload, dimension, column, level):
    df = _reviews()
    table = df.pivot(index="writer", columns="unit", values=column)
    expected = krippendorff.alpha(reliability_data=table.to_numpy(), level_of_measurement=level)
    got = next(d for d in payload["dimensions"] if d["dimension"] == dimension)
    assert got["level"] == level
    assert got["krippendorff_alpha"] == pytest.approx(expected, abs=1e-9)


def test_writer_pair_kappa_matches_scikit_learn(payload):
    """Writers 2 and 3 on the overall rank of the summaries both reviewed: Cohen's kappa (ranks as labels)."""
    df = _reviews()
    table = df.pivot(index="unit", columns="writer", values="overall-rank").dropna(subset=["2", "3"])
    expected = cohen_kappa_score(table["2"].astype(int), table["3"].astype(int))
    pair = next(
        r
        for r in payload["rater_pairs"]
        if (r["rater_a"], r["rater_b"], r["dimension"]) == ("writer_2", "writer_3", "overall_rank")
    )
    assert pair["n_units"] == len(table)
    assert pair["cohen_kappa"] == pytest.approx(expected, abs=1e-9)
    assert np.isfinite(pair["cohen_kappa"])


def test_a_review_without_writer_is_quarantined_and_the_rest_loads(con, tmp_path):
    review = {"worker_id": "2", "overall-rating": "40", "overall-rank": "1"}
    story = {
        "passage-id": "1",
        "questions": {"0": {"bart": {"response": "x", "reviews": [review, {"overall-rating": "5"}]}}},
    }
    path = tmp_path / "responses.jsonl"
    path.write_text(json.dumps(story) + "\nnot json\n", encoding="utf-8")
    r = ingest_file(con, path)
    assert r.status == "loaded" and r.rows_loaded == 2
    assert any("passage 1, question 0, bart, review 2: no worker_id" in e for e in r.errors)
    assert any("line 2: not JSON" in e for e in r.errors)
