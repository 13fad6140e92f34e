"""Anonymous raters (analytics/core/rater_ids.py): labels published without rater ids load as positions
(anon:crowd_1, ...). Figures from value counts stand; figures about one rater or one pair are left out and the
contract's needs_rater_ids says which. Expected numbers come from krippendorff 0.9.0 and scikit-learn on the same
synthetic labels."""

from __future__ import annotations

import random

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from analytics.agreement import AgreementSpec, contract_payload, contract_text
from analytics.core.rater_ids import ANONYMOUS_PREFIX, anonymous_id, is_anonymous
from analytics.ingest.load import ingest_file

LEVELS = ("a", "b", "c")


def _labels(seed: int = 7, tasks: int = 40, crowd: int = 3) -> list[tuple[str, str, str, str]]:
    """(task, rater, role, value): `crowd` labels per task that mostly follow the expert's label."""
    rng = random.Random(seed)
    out = []
    for t in range(tasks):
        truth = rng.choice(LEVELS)
        out.append((f"t{t}", "expert", "researcher", truth))
        for k in range(1, crowd + 1):
            value = truth if rng.random() < 0.7 else rng.choice(LEVELS)
            out.append((f"t{t}", anonymous_id("crowd", k), "contractor", value))
    return out


def _load(con, tmp_path, labels, rename=lambda r: r) -> None:
    lines = ["task_id,rater_id,role,rubric,dimension,target,value"]
    lines += [f"{t},{rename(r)},{role},toy,label,,{v}" for t, r, role, v in labels]
    path = tmp_path / "labels.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert ingest_file(con, path).status == "loaded"


def test_anonymous_ids_name_positions():
    assert anonymous_id("crowd", 3) == f"{ANONYMOUS_PREFIX}crowd_3"
    assert is_anonymous("anon:crowd_3") and not is_anonymous("crowd_3") and not is_anonymous(None)


def test_pair_figures_are_left_out_and_named(con, tmp_path):
    labels = _labels()
    _load(con, tmp_path, labels)
    p = contract_payload(con, AgreementSpec(n_boot=0), pairs=True)
    assert p["raters"] == []  # each anonymous contractor against the expert: a made-up person's figure
    assert p["rater_pairs"] == []  # every pair includes an anonymous position
    [entry] = p["needs_rater_ids"]
    assert (entry["rubric"], entry["dimension"], entry["n_positions"]) == ("toy", "label", 3)
    assert entry["figures"] == ["raters", "rater_pairs", "ceiling"]
    assert entry["n_ratings"] == 120

    # Value-count figures stand: alpha over all four raters equals krippendorff's on the same labels.
    [dim] = p["dimensions"]
    raters = sorted({r for _, r, _, _ in labels})
    data = np.full((len(raters), 40), np.nan)
    for t, r, _, v in labels:
        data[raters.index(r), int(t[1:])] = LEVELS.index(v)
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    assert dim["krippendorff_alpha"] == pytest.approx(expected, abs=1e-12)

    # The pooled crowd-expert figure needs no identity: every crowd label against the expert's, once.
    [pooled] = p["pooled"]
    expert = {t: v for t, r, _, v in labels if r == "expert"}
    crowd = [(v, expert[t]) for t, r, _, v in labels if r != "expert"]
    expected_kappa = cohen_kappa_score([c for c, _ in crowd], [e for _, e in crowd])
    assert pooled["cohen_kappa"] == pytest.approx(expected_kappa, abs=1e-12)


def test_named_raters_keep_their_figures(con, tmp_path):
    """The same labels under real ids: rater rows and pairs are there, and needs_rater_ids is empty."""
    _load(con, tmp_path, _labels(), rename=lambda r: r.replace(ANONYMOUS_PREFIX, ""))
    p = contract_payload(con, AgreementSpec(n_boot=0), pairs=True)
    assert {r["rater_id"] for r in p["raters"]} == {"crowd_1", "crowd_2", "crowd_3"}
    assert len(p["rater_pairs"]) == 6  # four raters
    assert p["needs_rater_ids"] == []


def test_text_form_says_why_sections_are_empty(con, tmp_path):
    """The command line's readable tables: rater sections say the anonymous raters were left out, and why."""
    _load(con, tmp_path, _labels())
    text = contract_text(contract_payload(con, AgreementSpec(n_boot=0), pairs=True))
    assert text.count("(none shown: raters without ids are left out") == 2  # each contractor, each pair
    assert "Needs rater ids: toy/label (3 anonymous positions): raters, rater_pairs, ceiling left out" in text
