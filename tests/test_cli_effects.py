"""`python -m analytics effects` and `python -m analytics model`: the issue's JSON contract, text output, and one
clear line with exit 2 on bad input."""

from __future__ import annotations

import json
import sys

from conftest import TerminalStderr

from analytics.cli.main import main
from analytics.core.formatting import fmt_ci
from analytics.effects import contract

EFFECT_KEYS = list(contract.CONTRACT_KEYS)
EFFECTS = {"leniency", "severity", "central_tendency", "ties", "position_bias", "halo", "haste", "drift"}


def test_effects_json_contract(demo_store, capsys):
    """Every row starts with the contract's keys; every effect appears; the flags are booleans."""
    assert main(["effects", "--db", str(demo_store), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["effects"]
    assert rows and all(list(r)[: len(EFFECT_KEYS)] == EFFECT_KEYS for r in rows)
    assert {r["effect"] for r in rows} == EFFECTS
    assert all(isinstance(r["flagged"], bool) for r in rows)
    lenient = {r["rater_id"] for r in rows if r["effect"] == "leniency" and r["flagged"]}
    assert {"c03", "c15", "c17"} <= lenient  # truth.json: the demo's planted lenient contractors


def test_effects_text_and_rubric(demo_store, capsys):
    """Without --json: one line per flagged effect; --rubric keeps one rubric."""
    assert main(["effects", "--db", str(demo_store), "--rubric", "preference_ranking"]) == 0
    out = capsys.readouterr().out
    assert "flagged" in out.splitlines()[0]
    assert "answer_comparison" not in out


def test_model_json_contract(demo_store, capsys):
    """raters[] and consensus[] carry the issue's keys first."""
    assert main(["model", "--db", str(demo_store), "--rubric", "instruction_following", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    keys = ["rater_id", "rubric", "dimension", "accuracy", "accuracy_ci_low", "accuracy_ci_high", "n_tasks"]
    assert list(payload["raters"][0])[:7] == keys
    assert list(payload["consensus"][0])[:6] == ["task_id", "rubric", "dimension", "target", "label", "confidence"]
    assert {r["rubric"] for r in payload["consensus"]} == {"instruction_following"}


def test_missing_file_is_one_line_and_exit_2(tmp_path, capsys):
    """A file that does not exist: exit 2 and one line naming it, for both commands."""
    for command in ("effects", "model"):
        assert main([command, str(tmp_path / "nope.csv")]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert err == [f"no such file: {tmp_path / 'nope.csv'}"]


def test_files_alone(demo_store, capsys):
    """Files are loaded into memory and read alone (the demo's pilot file, as the demo fixture wrote it)."""
    assert main(["model", str(demo_store.parent / "inputs" / "pilot_usefulness.csv"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["consensus"]


def test_model_shows_its_progress_on_a_terminal_only(demo_store, capsys, monkeypatch):
    """A fit takes half a minute at 1M tasks: on a terminal `model` rewrites one line on stderr per dimension
    fitted, ending at 100% on a new line; piped, stderr stays empty."""
    terminal = TerminalStderr()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["model", "--db", str(demo_store), "--rubric", "instruction_following", "--json"]) == 0
    lines = terminal.getvalue().split("\r")[1:]
    assert lines[0].startswith("rater model: 1 of ") and lines[-1].endswith("(100%)\x1b[K\n")
    assert json.loads(capsys.readouterr().out)["raters"]  # the JSON on stdout is untouched
    monkeypatch.undo()
    assert main(["model", "--db", str(demo_store), "--rubric", "instruction_following", "--json"]) == 0
    assert capsys.readouterr().err == ""


def test_effects_text_gives_the_own_estimate_and_its_tasks_beside_the_shrunk_one(demo_store, capsys):
    """Each flagged line names the contractor's own estimate with its tasks, then the shrunk one with its interval
    (issue 48: the team's value is never read as the contractor's own), each figure the JSON row's."""
    assert main(["effects", "--db", str(demo_store), "--rubric", "answer_comparison", "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    lines = contract.text(found).splitlines()[1:-1]
    flagged = [r for r in found["effects"] if r["flagged"]]
    assert flagged and len(lines) == len(flagged)
    for line, r in zip(lines, flagged, strict=True):
        assert f"own estimate {fmt_ci(r['raw'], None, None)} over {r['n_tasks']} tasks" in line
        shrunk = fmt_ci(r["estimate"], r["estimate_ci_low"], r["estimate_ci_high"])
        assert f"shrunk toward the team {shrunk}" in line
