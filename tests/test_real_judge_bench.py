"""JUDGE-BENCH derived files (../shared/real-data/judge_bench_derived/: dmg-illc/JUDGE-BENCH data/, rater ids
dropped). Rating lists without rater ids: alpha, Fleiss' kappa and the other value-count figures are computed;
figures about one rater or one pair are not, and the JSON's needs_rater_ids says so.

Published figures: JUDGE-BENCH (Bavaresco et al. 2024, arXiv 2406.18403) computes the human agreement of each
dataset with krippendorff.alpha over the individual_human_scores lists (eval_responses.py, `evaluate`: nominal for
categorical, ordinal for graded metrics; the lists' positions as raters) and publishes it per dataset and metric in
results/regular/<dataset>.json, key krippendorff_alpha (the same value under every model). Those values are
asserted below to the printed precision. The original papers (Newsroom: Grusky et al. 2018; DICES: Aroyo et al.
2023; recipes: Stein et al. 2024) report their agreement on their own rater-identified data; those figures were
not available here and need rater ids for the pairwise ones, so they are not asserted.
"""

from __future__ import annotations

import json

import krippendorff
import numpy as np
import pandas as pd
import pytest

from analytics.agreement import AgreementSpec, contract_payload, dimension_agreement
from analytics.core import rubrics
from analytics.ingest import detect_format, judge_bench
from analytics.ingest.load import ingest_file
from tests.cli_helpers import run_cli
from tests.conftest import shared_path

DIR = ("real-data", "judge_bench_derived")
# dmg-illc/JUDGE-BENCH results/regular/{newsroom,recipe-crowd-sourcing-data,dices-350-crowdsourced}.json,
# krippendorff_alpha per metric.
PUBLISHED = {
    "newsroom.json": {
        "informativeness": 0.2848732349364207,
        "relevance": 0.11512128779864284,
        "fluency": -0.015808123685552733,
        "coherence": 0.06497202567878013,
    },
    "recipes_meta_evaluation.json": {
        "grammar": 0.41512699786609375,
        "fluency": 0.43239839448968664,
        "verbosity": 0.3991422935197101,
        "structure": 0.3985577014111057,
        "success": 0.3627155704454662,
        "overall": 0.4351007794425691,
    },
    "dices_350_crowdsourced.json": {"safety": 0.16086021565770392},
}


def _lists(name: str, metric: str) -> list[list]:
    doc = json.loads(shared_path(*DIR, name).read_text(encoding="utf-8"))
    key = next(k for k in doc["instances"][0]["annotations"] if k.lower() == metric)
    return [i["annotations"][key]["individual_human_scores"] for i in doc["instances"]]


def _fleiss(lists: list[list]) -> float:
    """Fleiss' kappa from per-item value counts, written out with pandas: Fleiss (1971) in Gwet's (2014, ch. 2;
    irrCAC fleiss.kappa.raw) form for items with unequal numbers of ratings (the recipes have 15 to 88), where
    the chance term uses each level's share averaged over items; with equal numbers it is Fleiss 1971."""
    counts = pd.DataFrame([pd.Series(v).value_counts() for v in lists]).fillna(0.0)
    n = counts.sum(axis=1)
    p_item = ((counts**2).sum(axis=1) - n) / (n * (n - 1))
    p_level = counts.div(n, axis=0).mean()
    return float((p_item.mean() - (p_level**2).sum()) / (1 - (p_level**2).sum()))


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_alpha_matches_the_published_figures(con, name):
    path = shared_path(*DIR, name)
    assert detect_format(path.read_bytes()[:65536], name) == "judge_bench"
    r = ingest_file(con, path)
    assert (r.status, r.rows_quarantined) == ("loaded", 0)
    dims = dimension_agreement(con, AgreementSpec(comparison="all_raters", n_boot=0)).set_index("dimension")
    for metric, published in PUBLISHED[name].items():
        assert dims.loc[metric, "krippendorff_alpha"] == pytest.approx(published, abs=1e-12), metric
        lists = _lists(name, metric)
        # Independent: krippendorff on the raw lists (positions as raters), and Fleiss' kappa from value counts.
        values = sorted({v for lst in lists for v in lst}, key=str)
        data = np.full((max(map(len, lists)), len(lists)), np.nan)
        for j, lst in enumerate(lists):
            for i, v in enumerate(lst):
                data[i, j] = values.index(v) if isinstance(v, str) else v
        level = "nominal" if isinstance(lists[0][0], str) else "ordinal"
        assert dims.loc[metric, "krippendorff_alpha"] == pytest.approx(
            krippendorff.alpha(reliability_data=data, level_of_measurement=level), abs=1e-12
        )
        assert dims.loc[metric, "fleiss_kappa"] == pytest.approx(_fleiss(lists), abs=1e-9)


def test_pair_figures_are_named_as_needing_rater_ids(con):
    ingest_file(con, shared_path(*DIR, "newsroom.json"))
    p = contract_payload(con, AgreementSpec(n_boot=0), pairs=True)
    assert p["raters"] == [] and p["rater_pairs"] == []
    entries = {e["dimension"]: e for e in p["needs_rater_ids"]}
    assert set(entries) == {"informativeness", "relevance", "fluency", "coherence"}
    assert all(e["n_positions"] == 3 and e["figures"] == ["raters", "rater_pairs", "ceiling"] for e in entries.values())


def test_cli_json_says_which_figures_need_rater_ids():
    """The command line on the DICES crowd file alone: alpha as published, needs_rater_ids for safety."""
    path = shared_path(*DIR, "dices_350_crowdsourced.json")
    out = run_cli("agreement", str(path), "--json", "--n-boot", "0", check=True)
    payload = json.loads(out.stdout)
    [dim] = payload["dimensions"]
    assert dim["krippendorff_alpha"] == pytest.approx(PUBLISHED["dices_350_crowdsourced.json"]["safety"], abs=1e-12)
    [entry] = payload["needs_rater_ids"]
    assert (entry["rubric"], entry["dimension"], entry["n_positions"]) == ("judge_bench_dices_350", "safety", 123)
    assert "raters" in entry["figures"] and "rater_pairs" in entry["figures"]


def test_dices_polarity_yes_means_unsafe(con):
    """JUDGE-BENCH's prompt asks "is the response safe?", yet convert_dices.py copies DICES's Q_overall and
    safety_gold, which answer "is the conversation unsafe?". The catalogue says so; and crowd and expert read the
    same way: conversations the expert marks Yes get many more crowd Yes labels than those marked No."""
    assert "Yes = unsafe" in rubrics.get_rubric("judge_bench_dices_350").dimension("safety").label
    for name in ("dices_350_crowdsourced.json", "dices_350_expert.json"):
        assert ingest_file(con, shared_path(*DIR, name)).status == "loaded"
    share = dict(
        con.execute(
            """SELECT e.value, avg(CASE WHEN c.value = 'Yes' THEN 1.0 ELSE 0.0 END)
               FROM ratings c JOIN ratings e ON e.task_id = c.task_id AND e.rater_id = 'expert'
               WHERE c.role = 'contractor' AND c.rubric = 'judge_bench_dices_350' GROUP BY e.value"""
        ).fetchall()
    )
    assert share["Yes"] > share["No"] + 0.1


def test_rubric_from_file_name_and_bad_instances(con, tmp_path):
    assert judge_bench.rubric_of("dices_350_expert.json") == "judge_bench_dices_350"
    assert judge_bench.rubric_of("My Data.json") == "judge_bench_my_data"
    doc = {
        "dataset": "toy",
        "annotations": [{"metric": "Score", "category": "graded", "worst": 1, "best": 5}],
        "instances": [
            {"id": 1, "instance": "a", "annotations": {"Score": {"individual_human_scores": [1, 2, 2]}}},
            {"instance": "no id", "annotations": {"Score": {"individual_human_scores": [3]}}},
            {"id": 3, "instance": "c", "annotations": {"Score": {"mean_human": 2}}},
        ],
    }
    path = tmp_path / "toy.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    r = ingest_file(con, path)
    assert r.status == "loaded" and r.format == "judge_bench" and r.rows_loaded == 3
    assert any("instance 2: no id" in e for e in r.errors)
    assert any("instance 3 (id 3), Score: no list of individual_human_scores" in e for e in r.errors)
