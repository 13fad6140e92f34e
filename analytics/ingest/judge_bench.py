"""JUDGE-BENCH dataset files (Bavaresco et al. 2024; dmg-illc/JUDGE-BENCH data/, as converted copies).

One JSON object: `dataset`, `annotations` (one entry per `metric`, with `labels_list` or `worst`/`best`),
`expert_annotator` ("true" for expert labels) and `instances`, each with an `id`, the rated `instance` and per
metric `individual_human_scores`: a list of labels without rater ids. Each label loads as an anonymous rater
named by its position (anon:crowd_1, ...; analytics/core/rater_ids.py), so figures from value counts
(alpha, Fleiss' kappa, AC1, percent agreement) are computed and figures about one rater or pair are not. An
expert file with one label per instance loads it as rater `expert`, researcher role.

An instance is a task (its `id`, so a dataset's crowd and expert files meet), a metric a dimension (lower case),
the rubric `judge_bench_<dataset>` (FILE_RUBRICS; catalogued in analytics/core/rubrics.py, else scales inferred).
DICES: the prompt asks "is the response safe?" but the labels are DICES's answers to "is the conversation
unsafe?" (JUDGE-BENCH's convert_dices.py copies Q_overall and safety_gold unchanged): Yes means unsafe.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import duckdb

from analytics.ingest import label_lists as ll
from analytics.ingest.base import Dataset, FileRejected, Parsed, Problem, ratings_frame

NAME = "judge_bench"
PREFIX = "judge_bench_"
# File stems of the converted copies and their rubric (the crowd and expert files of one dataset share one).
FILE_RUBRICS = {
    "newsroom": "judge_bench_newsroom",
    "dices_350_crowdsourced": "judge_bench_dices_350",
    "dices_350_expert": "judge_bench_dices_350",
    "recipes_meta_evaluation": "judge_bench_recipes",
}
DATASET_KEY = re.compile(rb'"dataset"\s*:')
METRIC_KEY = re.compile(rb'"metric"\s*:')
SCORES_KEY = re.compile(rb'"(?:instances|individual_human_scores)"\s*:')

DATASETS = tuple(
    Dataset(
        name=f"judge_bench_{stem}",
        path=f"judge_bench_derived/{stem}.json",
        format=NAME,
        title=title,
        source=f"dmg-illc/JUDGE-BENCH data/ (converted: rater ids dropped); {paper}",
    )
    for stem, title, paper in (
        ("newsroom", "JUDGE-BENCH Newsroom: 3 ratings 1-5 on four criteria", "Grusky et al. 2018, NAACL"),
        ("dices_350_crowdsourced", "JUDGE-BENCH DICES-350: 123 crowd safety labels", "Aroyo et al. 2023, NeurIPS"),
        ("dices_350_expert", "JUDGE-BENCH DICES-350: the expert gold label", "Aroyo et al. 2023, NeurIPS"),
        ("recipes_meta_evaluation", "JUDGE-BENCH recipes: 17-18 ratings 1-6 on six criteria", "Stein et al. 2024"),
    )
)


def detect(head: bytes, file_name: str) -> bool:
    """A JSON object naming its `dataset`, metrics and instances (or human score lists) in its first bytes."""
    if head.lstrip(b"\xef\xbb\xbf \r\n\t")[:1] != b"{":
        return False
    return all(p.search(head) is not None for p in (DATASET_KEY, METRIC_KEY, SCORES_KEY))


def rubric_of(file_name: str) -> str:
    """The rubric of a file: FILE_RUBRICS by its stem, else judge_bench_<stem> in lower case."""
    stem = Path(file_name).stem.lower()
    return FILE_RUBRICS.get(stem, PREFIX + re.sub(r"[^a-z0-9]+", "_", stem).strip("_"))


def parse(path: Path, file_name: str, con: duckdb.DuckDBPyConnection) -> Parsed:
    """Every label of every instance and metric as a rating; instances as tasks."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8-sig"))
    except json.JSONDecodeError as e:
        raise FileRejected(f"{file_name}, line {e.lineno}: not JSON ({e.msg})") from e
    if not isinstance(doc, dict) or not isinstance(doc.get("instances"), list):
        raise FileRejected(
            f"{file_name}: a JUDGE-BENCH file is an object with an instances list (see the Data page's Formats section)"
        )
    rubric = rubric_of(file_name)
    expert = str(doc.get("expert_annotator", "")).strip().lower() == "true"
    role, kind = ("researcher", "expert") if expert else ("contractor", "crowd")
    single = expert and all(
        len(a.get("individual_human_scores") or []) <= 1
        for inst in doc["instances"]
        if isinstance(inst, dict) and isinstance(inst.get("annotations"), dict)
        for a in inst["annotations"].values()
        if isinstance(a, dict)
    )
    rows: list[dict] = []
    problems: list[Problem] = []
    tasks: list[dict] = []
    for i, inst in enumerate(doc["instances"], start=1):
        record = f"instance {i}"
        task = str(inst.get("id")).strip() if isinstance(inst, dict) and inst.get("id") is not None else ""
        if not task or not isinstance(inst.get("annotations"), dict):
            field = "id" if not task else "annotations"
            problems.append(
                Problem(f"{file_name}, {record}: no {field}; the instance is not used", None, record, field)
            )
            continue
        record = f"instance {i} (id {task})"
        tasks.append({"task_id": task, "rubric": rubric, "prompt": _text(inst.get("instance")), "context": None,
                      "metadata": None})  # fmt: skip
        for metric, a in inst["annotations"].items():
            dimension = re.sub(r"\W+", "_", str(metric).strip().lower())
            scores = a.get("individual_human_scores") if isinstance(a, dict) else None
            if not isinstance(scores, list):
                problems.append(
                    Problem(f"{file_name}, {record}, {metric}: no list of individual_human_scores; not used",
                            None, record, "individual_human_scores", json.dumps(a, default=str)[:500])
                )  # fmt: skip
                continue
            if single:
                rows += [ll.rating(task, "expert", role, rubric, dimension, "", v, None, record) for v in scores]
            else:
                rows += ll.list_ratings(scores, kind, role, rubric, dimension, "", task, (None, record))
    return Parsed(
        format=NAME,
        ratings=ratings_frame(rows),
        tasks=tasks,
        submissions=ll.submissions(rows),
        problems=problems,
        record_places=[f"instance {i}" for i in range(1, len(doc["instances"]) + 1)],
    )


def _text(instance: Any) -> str | None:
    """The rated instance as text (DICES gives the conversation and the response as an object)."""
    if instance is None or isinstance(instance, str):
        return instance
    if isinstance(instance, dict):
        return "\n\n".join(f"{k}: {v}" for k, v in instance.items())
    return json.dumps(instance, ensure_ascii=False, default=str)
