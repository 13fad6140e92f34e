"""The seeded demo-data simulator: realistic inputs in every format, with planted rater behaviours.

`write_demo(out_dir, seed)` writes an eight-week labelling project: answer comparisons, instruction
following, preference ranking and article Likert files (docs/formats.md sections 2-5), a small canonical
CSV, a batch with deliberately bad rows (last, for the quarantine browser) and truth.json: which
contractor has which planted behaviour and the latent qualities the ratings were drawn from. The same
seed always gives the same bytes.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path

from analytics.demo import (
    answer_comparison,
    article_likert,
    canonical,
    instruction_following,
    preference_ranking,
    schedule,
    writers,
)
from analytics.demo.behaviours import PLANTED, Rater, roster
from analytics.rubrics import COMPARISON_FLIP

TRUTH_FILE = "truth.json"
ERRORS_FILE = "contractor_batch_with_errors.csv"
NOTES = (
    "Each JSON export carries a task's text (question, answers and sources; instruction and outputs; "
    "conversation and responses) with the first submission of that task in the file only.",
    "Contractors see answer-comparison options in a random display_order; researchers in stored order (A, B).",
    "Article annotator N is contractor cNN, or researcher rNN when N is 100 + NN (see aliases).",
    "Latent qualities are on the rating scale's own units: answer usefulness 0 (Very bad) .. 4 (Very good), "
    "instruction outputs 1-7, article predictions 1-5.",
)
# Where each planted behaviour can be seen (docs/formats.md sections); all show in answer comparison.
SHOWS_IN = {
    "careful": ("answer_comparison", "instruction_following", "preference_ranking", "article_likert"),
    "lenient": ("answer_comparison", "instruction_following", "preference_ranking", "article_likert"),
    "severe": ("answer_comparison", "instruction_following", "preference_ranking", "article_likert"),
    "always_equal": ("answer_comparison", "instruction_following", "preference_ranking"),
    "first_position": ("answer_comparison", "instruction_following", "preference_ranking", "article_likert"),
    "fast_careless": ("answer_comparison", "instruction_following", "preference_ranking", "article_likert"),
    "drifting": ("answer_comparison", "instruction_following", "preference_ranking"),
}


def write_demo(out_dir: Path, seed: int = 7, scale: float = 1.0) -> dict:
    """Write every demo file into out_dir; returns {"files": paths in load order, "truth": truth.json path}.

    `scale` multiplies the number of tasks of the three submission formats (tests load a small demo).
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    _remove_previous(out)
    raters = roster(seed)
    planned, latent, extra = _simulate(raters, seed, scale)
    files = [(_write(out / name, fmt, payload), fmt, len(payload)) for name, fmt, payload in planned]
    truth = {
        "seed": seed,
        "scale": scale,
        "generator": "analytics.demo",
        "start": schedule.START.date().isoformat(),
        "weeks": schedule.WEEKS,
        "files": [{"file": p.name, "format": fmt, "records": n} for p, fmt, n in files],
        "notes": NOTES,
        "behaviours": _behaviours(raters),
        "raters": {r.rater_id: {"role": r.role, "behaviour": r.behaviour, "params": r.params()} for r in raters},
        **extra,
        "latent": latent,
    }
    return {"files": [p for p, _, _ in files], "truth": writers.write_truth(out / TRUTH_FILE, truth)}


def _simulate(raters: list[Rater], seed: int, scale: float) -> tuple[list[tuple[str, str, list]], dict, dict]:
    """Every file to write as (name, format, records) in load order, the latent truth, and the rest of truth."""
    ac_records, ac_truth = answer_comparison.simulate(raters, seed, _scaled(answer_comparison.N_TASKS, scale))
    if_records, if_truth = instruction_following.simulate(raters, seed, _scaled(instruction_following.N_TASKS, scale))
    pr_records, pr_truth = preference_ranking.simulate(raters, seed, _scaled(preference_ranking.N_TASKS, scale))
    likert_files, likert_truth = article_likert.simulate(raters, seed)
    pilot_rows, pilot_truth = canonical.pilot(raters, seed)
    bad_rows, planted = canonical.with_errors(raters, seed)
    planned = [
        ("answer_comparison.jsonl", "answer_comparison", ac_records),
        ("instruction_following.jsonl", "instruction_following", if_records),
        ("preference_ranking.json", "preference_ranking", pr_records),
        *[(name, "article_likert", topics) for name, topics in likert_files.items()],
        ("pilot_usefulness.csv", "canonical", pilot_rows),
        (ERRORS_FILE, "canonical", bad_rows),
    ]
    latent = {
        "answer_comparison": ac_truth,
        "answer_comparison_pilot": pilot_truth,
        "instruction_following": if_truth,
        "preference_ranking": pr_truth,
        "article_likert": likert_truth["topics"],
        "article_likert_unfinished": likert_truth["unfinished"],
    }
    extra = {
        "aliases": likert_truth["annotators"],
        "researcher_agreement": _researcher_agreement(ac_records),
        "errors": {"file": ERRORS_FILE, "bad_rows": len(planted), "rows": planted},
    }
    return planned, latent, extra


def _write(path: Path, fmt: str, records: list) -> Path:
    """Write one file in the shape its format's exports have."""
    if path.suffix == ".jsonl":
        return writers.write_jsonl(path, records)
    if path.suffix == ".csv":
        return writers.write_csv(path, canonical.HEADER, records)
    return writers.write_json_array(path, records, indent=4 if fmt == "article_likert" else None)


def _scaled(n_tasks: int, scale: float) -> int:
    """A format's task count at the given scale (at least ten tasks)."""
    return max(10, round(n_tasks * scale))


def _remove_previous(out: Path) -> None:
    """Delete the files an earlier run listed in its truth.json (another seed names article files differently)."""
    old = out / TRUTH_FILE
    if not old.is_file():
        return
    try:
        names = [f["file"] for f in json.loads(old.read_text(encoding="utf-8")).get("files", [])]
    except (ValueError, AttributeError, KeyError, TypeError):
        return
    for name in names:
        p = out / Path(name).name
        if p.is_file():
            p.unlink()


def _behaviours(raters: list[Rater]) -> dict:
    """Planted behaviour -> description, raters, formats where it shows, and each rater's parameters."""
    out = {}
    for behaviour, (_, description) in PLANTED.items():
        members = [r for r in raters if r.behaviour == behaviour]
        out[behaviour] = {
            "description": description,
            "raters": [r.rater_id for r in members],
            "shows_in": list(SHOWS_IN[behaviour]),
            "params": {r.rater_id: r.params() for r in members},
        }
    return out


def _researcher_agreement(records: list[dict]) -> dict:
    """How often two researchers on the same task agree on coarse usefulness (seeds/000 says about 80%)."""
    by_task: dict[str, list[str]] = defaultdict(list)
    for r in records:
        if r["role"] == "researcher" and r["comparison"].get("usefulness"):
            v = r["comparison"]["usefulness"]
            v = COMPARISON_FLIP[v] if r["display_order"] == ["B", "A"] else v
            by_task[r["task_id"]].append(v.replace("much ", ""))
    pairs = Counter(v[0] == v[1] for v in by_task.values() if len(v) == 2)
    n = pairs[True] + pairs[False]
    return {
        "dimension": "usefulness_comparison (coarse)",
        "pairs": n,
        "agreement": round(pairs[True] / n, 3) if n else None,
        "target": 0.8,
    }
