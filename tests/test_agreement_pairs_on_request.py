"""Rater pairs on request (issue 51 item 1, DESIGN.md's command line): `agreement` prints rater_pairs[] only with
`--pairs`, optionally only the pairs sharing `--min-shared N` units, so its default output grows with raters and
dimensions, not with pairs of raters."""

from __future__ import annotations

import csv
import json

import pandas as pd

from analytics import agreement, store
from analytics.cli.main import main
from analytics.core.filters import Filters

SPEC = agreement.AgreementSpec(n_boot=0, filters=Filters(rubric="answer_comparison"))


def test_the_default_payload_has_no_rater_pairs_and_says_how_to_get_them(demo_store):
    con = store.open_store(demo_store, read_only=True)
    default = agreement.contract_payload(con, SPEC)
    with_pairs = agreement.contract_payload(con, SPEC, pairs=True)
    con.close()
    assert "rater_pairs" not in default and "rater_pairs" not in default["comparison"]
    assert with_pairs["rater_pairs"] and with_pairs["min_shared"] == 1
    # the other tables are the same figures with or without the pairs
    for key in ("dimensions", "raters", "pooled", "ceiling", "needs_rater_ids"):
        assert default[key] == with_pairs[key], key
    text = agreement.contract_text(default)
    assert "Each pair of raters: not computed (add --pairs" in text


def test_min_shared_keeps_the_pairs_sharing_that_many_units(demo_store):
    con = store.open_store(demo_store, read_only=True)
    every = pd.DataFrame(agreement.contract_payload(con, SPEC, pairs=True)["rater_pairs"])
    some = pd.DataFrame(agreement.contract_payload(con, SPEC, pairs=True, min_shared=40)["rater_pairs"])
    con.close()
    want = every[every["n_units"] >= 40].reset_index(drop=True)
    assert 0 < len(some) < len(every)
    pd.testing.assert_frame_equal(some, want)


def _toy(path, raters: int) -> None:
    """20 tasks, each rated by every one of `raters` contractors and one researcher, on one 3-level dimension."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["task_id", "rater_id", "role", "rubric", "dimension", "value"])
        for t in range(20):
            w.writerow([f"t{t}", "r1", "researcher", "toy", "label", t % 3])
            for c in range(raters):
                w.writerow([f"t{t}", f"c{c:02d}", "contractor", "toy", "label", (t + (c % 4 == 0)) % 3])


def test_the_default_output_grows_with_raters_and_the_pairs_with_their_square(tmp_path, capsys):
    sizes = {}
    for raters in (6, 24):
        path = tmp_path / f"toy{raters}.csv"
        _toy(path, raters)
        assert main(["agreement", str(path), "--json", "--n-boot", "0"]) == 0
        default = json.loads(capsys.readouterr().out)
        assert main(["agreement", str(path), "--json", "--n-boot", "0", "--pairs"]) == 0
        pairs = json.loads(capsys.readouterr().out)
        assert "rater_pairs" not in default
        assert len(default["raters"]) == raters  # one row per contractor on the one dimension
        assert len(pairs["rater_pairs"]) == (raters + 1) * raters // 2  # every pair of the raters, once
        sizes[raters] = len(json.dumps(default))
    assert sizes[24] < 5 * sizes[6]  # four times the raters: about four times the output, not sixteen


def test_min_shared_needs_pairs_and_a_positive_count(tmp_path, capsys):
    path = tmp_path / "toy.csv"
    _toy(path, 3)
    assert main(["agreement", str(path), "--json", "--min-shared", "5"]) == 2
    assert "--min-shared applies to rater pairs: add --pairs" in capsys.readouterr().err
    assert main(["agreement", str(path), "--json", "--pairs", "--min-shared", "0"]) == 2
    assert "--min-shared must be 1 or more, not 0" in capsys.readouterr().err
    assert main(["agreement", str(path), "--json", "--n-boot", "0", "--pairs", "--min-shared", "21"]) == 0
    assert json.loads(capsys.readouterr().out)["rater_pairs"] == []  # 20 tasks: no pair shares 21
