"""Medical safety files (GavinAbercrombie/medical-safety data/, read from ../shared/real-data/medical_safety/).

Published figure: Abercrombie & Rieser (2022), "Risk-graded Safety for Handling Medical Queries in
Conversational AI", AACL-IJCNLP (arXiv 2210.00572), report the crowdworkers' agreement on query seriousness and
response type. That figure is not asserted here because no available source shows it. Searched on 2026-11-23:
- GavinAbercrombie/medical-safety, the whole history (newest commit debbc98): every README version (data format
  and citation only, "for further details, statistics ... see the paper"), code/medical_safety_convai.ipynb and
  the earlier MediCheck/MediRiskCheck notebooks (classification experiments only: accuracy, precision, recall,
  F1, macro MAE), the data files. No agreement coefficient anywhere.
- dmg-illc/JUDGE-BENCH data/medical-safety/ (README.md, convert.py, data.json): no human agreement figure;
  results/regular/medical-safety.json publishes `nan` (one label per item there).
- The search tool: the pages corpus stores the paper (ar5iv.labs.arxiv.org/html/2210.00572) and its arXiv
  abstract page, but returns only a page's opening (abstract and the start of the introduction), never the
  annotation section; five phrasings there (crowdworkers' agreement, Krippendorff's alpha, Fleiss' kappa,
  seriousness labels, majority vote, expert comparison) gave that opening or unrelated pages. The docs, code and
  issues corpora hold no page quoting the figure; an exact-string search of GitHub files for the title and the
  bibtex key finds only the repository's two README versions.
What is checked instead: Concord's crowd alpha against krippendorff 0.9.0 computed here from the raw CSV with
pandas (crowd labels as rows by position, queries duplicated in the file left out as the loader does), the
pooled crowd-clinician kappa against scikit-learn, the swapped text columns and the expert codes. When the
paper's text is at hand, its figure belongs in a test here, with the reading of its method stated.
"""

from __future__ import annotations

import ast

import krippendorff
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from analytics.agreement import AgreementSpec, contract_payload, dimension_agreement
from analytics.core import rubrics
from analytics.ingest import detect_format, medical_safety
from analytics.ingest.label_lists import text_key
from analytics.ingest.load import ingest_file
from tests.conftest import shared_path

CROWD = ("real-data", "medical_safety", "medicheck-crowd.csv")
EXPERT = ("real-data", "medical_safety", "medicheck-expert.csv")


def _crowd_frame() -> pd.DataFrame:
    df = pd.read_csv(shared_path(*CROWD), dtype=str, keep_default_na=False)
    return df[~df["query"].str.strip().duplicated(keep=False)]  # a query twice in the file: neither copy is used


def _alpha(df: pd.DataFrame, columns: list[str], levels: tuple[str, ...], level: str) -> float:
    """krippendorff's alpha over the crowd label lists of `columns` (positions as raters, one unit per cell)."""
    units = [ast.literal_eval(v) for c in columns for v in df[c]]
    width = max(len(u) for u in units)
    data = np.full((width, len(units)), np.nan)
    for j, u in enumerate(units):
        for i, v in enumerate(u):
            data[i, j] = levels.index(v)
    return krippendorff.alpha(reliability_data=data, level_of_measurement=level, value_domain=list(range(len(levels))))


def test_detects_both_files_and_nothing_else():
    for parts in (CROWD, EXPERT):
        path = shared_path(*parts)
        assert detect_format(path.read_bytes()[:65536], path.name) == "medical_safety"
    assert not medical_safety.detect(b"task_id,rater_id,value\nt1,r1,3\n", "x.csv")
    assert not medical_safety.detect(b"query,answer\nq,a\n", "x.csv")


def test_crowd_file_loads_with_its_duplicates_quarantined(con):
    r = ingest_file(con, shared_path(*CROWD))
    assert r.status == "loaded" and r.format == "medical_safety"
    assert r.rows_loaded + r.rows_quarantined == r.rows_read
    reasons = [q for (q,) in con.execute("SELECT reason FROM quarantine").fetchall()]
    assert reasons and all("more than once in this file" in q for q in reasons)  # the queries the file repeats
    raters = {x for (x,) in con.execute("SELECT DISTINCT rater_id FROM ratings").fetchall()}
    assert "expert" in raters and {f"anon:crowd_{k}" for k in (1, 2, 3)} <= raters


def test_crowd_alpha_matches_krippendorff_on_the_raw_file(con):
    """Concord's crowd-only alpha (among contractors) per dimension against krippendorff from the raw CSV."""
    ingest_file(con, shared_path(*CROWD))
    dims = dimension_agreement(con, AgreementSpec(comparison="among_contractors", n_boot=0)).set_index("dimension")
    df = _crowd_frame()
    seriousness = _alpha(df, ["query-cws"], rubrics.MEDICAL_SERIOUSNESS, "ordinal")
    responses = [f"{s}-response-cws" for s in ("alexa", "dialogpt", "reddit")]
    response_type = _alpha(df, responses, rubrics.MEDICAL_RESPONSE_TYPES, "nominal")
    assert dims.loc["seriousness", "krippendorff_alpha"] == pytest.approx(seriousness, abs=1e-9)
    assert dims.loc["response_type", "krippendorff_alpha"] == pytest.approx(response_type, abs=1e-9)
    assert dims.loc["seriousness", "level"] == "ordinal" and dims.loc["response_type", "level"] == "nominal"


def test_pooled_crowd_against_clinician_matches_scikit_learn(con):
    """Every crowd label against the clinician's label of the same unit, once: scikit-learn's Cohen's kappa."""
    ingest_file(con, shared_path(*CROWD))
    p = contract_payload(con, AgreementSpec(n_boot=0), pairs=True)
    pooled = {d["dimension"]: d for d in p["pooled"]}
    df = _crowd_frame()
    crowd, expert = [], []
    for _, row in df.iterrows():
        labels, gold = ast.literal_eval(row["query-cws"]), row["query-expert"]
        if gold:
            crowd += labels
            expert += [gold] * len(labels)
    assert pooled["seriousness"]["cohen_kappa"] == pytest.approx(cohen_kappa_score(crowd, expert), abs=1e-9)
    # Figures about one crowd worker or a pair cannot exist without worker ids: left out and named.
    assert p["raters"] == [] and all("anon:" not in r["rater_a"] + r["rater_b"] for r in p["rater_pairs"])
    named = {(e["dimension"], e["n_positions"]) for e in p["needs_rater_ids"]}
    assert ("seriousness", 12) in named and ("response_type", 6) in named


def test_labels_travel_with_the_swapped_text():
    """The crowd file's alexa-response column holds DialoGPT's text (and the reverse): each response is keyed by
    the system whose text it is, so both files give the same text (and the same clinician label) per target."""
    crowd = medical_safety.parse(shared_path(*CROWD), "medicheck-crowd.csv", None)
    expert = medical_safety.parse(shared_path(*EXPERT), "medicheck-expert.csv", None)
    texts = {(i["task_id"], i["item_id"]): i["text"] for i in expert.items if i["text"]}
    shared = [
        (i["text"], texts[(i["task_id"], i["item_id"])])
        for i in crowd.items
        if (i["task_id"], i["item_id"]) in texts and i["text"]
    ]
    assert len(shared) > 1500
    assert sum(a == b for a, b in shared) / len(shared) > 0.99

    def clinician(parsed):
        r = parsed.ratings
        r = r[(r["rater_id"] == "expert") & (r["dimension"] == "response_type")]
        return dict(zip(zip(r["task_id"], r["target"], strict=True), r["value"], strict=True))

    a, b = clinician(crowd), clinician(expert)
    both = set(a) & set(b)
    assert len(both) > 1500
    assert sum(a[k] == b[k] for k in both) / len(both) > 0.99  # the expert codes 0-3 and X mean the crowd file's labels


def test_x_means_irrelevant_or_nonsensical():
    """Every response the expert file codes X is labelled 'Irrelevant or nonsensical' in the crowd file, which
    carries the same clinician's labels as text (the reason for the mapping in medical_safety.py)."""
    e = pd.read_csv(shared_path(*EXPERT), dtype=str, keep_default_na=False)
    c = pd.read_csv(shared_path(*CROWD), dtype=str, keep_default_na=False)
    crowd_label = {}
    for system, prefix in medical_safety.CROWD_COLUMNS.items():
        for _, row in c.iterrows():
            crowd_label[(text_key("q-", row["query"]), system)] = row[f"{prefix}-expert"]
    x = [
        crowd_label.get((text_key("q-", row["query"]), system))
        for system, column in medical_safety.EXPERT_COLUMNS.items()
        for _, row in e.iterrows()
        if row[f"{column}-label-expert"].strip() == "X"
    ]
    matched = [v for v in x if v]
    assert len(matched) > 400 and set(matched) == {"Irrelevant or nonsensical"}


def test_bad_label_list_is_quarantined_with_its_line(con, tmp_path):
    path = tmp_path / "crowd.csv"
    path.write_text(
        "query,query-expert,query-cws,alexa-response,alexa-response-expert,alexa-response-cws\n"
        "Is this bad?,Serious,\"['Serious', 'Critical']\",ok,No answer,[]\n"
        "Another one?,Critical,not a list,ok,No answer,[]\n",
        encoding="utf-8",
    )
    r = ingest_file(con, path)
    assert r.status == "loaded"
    assert any("line 3, query-cws: not a list of labels" in e for e in r.errors)
    # The rest loads: the clinician's labels of both queries and the first query's crowd labels.
    n = con.execute("SELECT count(*) FROM ratings WHERE dimension = 'seriousness'").fetchall()[0][0]
    assert n == 4
