"""Snow et al. (2008) standardized TSVs (docs/formats.md, Snow et al. 2008): one row per MTurk worker label.

Columns `!amt_annotation_ids, !amt_worker_ids, orig_id, response, gold`; the task is the file name's stem
(`rte.standardized.tsv` is the RTE task). Workers are contractors; the expert `gold` label, repeated on every
row of an item, is one researcher rating per item by rater `gold`. Word similarity's gold is Miller & Charles's
mean on 0-4, not a rating on the workers' 0-10 scale: it is quarantined with that reason, never rescaled.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import duckdb

from analytics.ingest import limits
from analytics.ingest.base import Dataset, FileRejected, Parsed, Problem, ratings_frame

NAME = "snow2008"
HEADER = ("!amt_annotation_ids", "!amt_worker_ids", "orig_id", "response", "gold")
GOLD_RATER = "gold"
# Task (file stem) -> (rubric, dimension); the scales are the catalogue's (analytics/core/rubrics.py).
TASKS = {
    "rte": ("snow2008_rte", "entailment"),
    "temp": ("snow2008_temp", "order"),
    "wsd": ("snow2008_wsd", "sense"),
    "wordsim": ("snow2008_wordsim", "similarity"),
    **{e: ("snow2008_affect", e) for e in ("anger", "disgust", "fear", "joy", "sadness", "surprise", "valence")},
}
# Tasks whose gold column is not a rating on the workers' scale, with the reason it is kept out.
GOLD_NOT_A_RATING = {
    "wordsim": "is Miller & Charles's (1991) mean similarity on 0-4, not a rating on the workers' 0-10 scale; "
    "kept in quarantine, not loaded as a researcher rating"
}
TASK_IN_NAME = re.compile(r"^([a-z]+)\.standardized\b", re.IGNORECASE)
SOURCE = (
    "Snow, O'Connor, Jurafsky & Ng (2008), EMNLP, D08-1027; TSVs as assembled by B. O'Connor (2019), mirrored in "
    "edwinrobots/bayesian_combination_tutorial2 all_collected_data/"
)
TITLES = {
    "rte": "recognizing textual entailment (800 items, binary)",
    "temp": "temporal ordering (462 items, binary)",
    "wsd": "word sense disambiguation (177 items, 3 senses)",
    "wordsim": "word similarity (30 pairs, 0-10)",
    "valence": "affective text: valence (100 headlines, -100..100)",
}
DATASETS = tuple(
    Dataset(
        name=f"snow2008_{task}",
        path=f"snow2008/{task}.standardized.tsv",
        format=NAME,
        title="Snow et al. 2008: " + TITLES.get(task, f"affective text: {task} (100 headlines, 0-100)"),
        source=SOURCE,
    )
    for task in TASKS
)


def _first_line(head: bytes) -> list[str]:
    """The first line's tab-separated fields, trimmed."""
    line = head.decode("utf-8-sig", errors="replace").lstrip().split("\n", 1)[0]
    return [c.strip() for c in line.rstrip("\r").split("\t")]


def detect(head: bytes, file_name: str) -> bool:
    """A tab-separated file whose header is exactly the standardized TSV's five columns."""
    return tuple(_first_line(head)) == HEADER


def task_of(file_name: str) -> str:
    """The task a file holds, from its name (`rte.standardized.tsv` -> rte); FileRejected when unknown."""
    m = TASK_IN_NAME.match(Path(file_name).name)
    if m is None or m.group(1).lower() not in TASKS:
        raise FileRejected(
            f"{file_name}: a Snow et al. 2008 file is named TASK.standardized.tsv, TASK one of "
            f"{', '.join(TASKS)}, because the task (and so its scale) is taken from the file name"
        )
    return m.group(1).lower()


def parse(path: Path, file_name: str, con: duckdb.DuckDBPyConnection) -> Parsed:
    """Worker ratings (contractor) and one gold rating per item (researcher `gold`)."""
    task = task_of(file_name)
    rubric, dimension = TASKS[task]
    text = limits.text_of(path.read_bytes())  # a record with a byte that is not UTF-8 is quarantined alone
    reader = csv.reader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE)
    header = tuple(c.strip() for c in next(reader, []))
    if header != HEADER:
        raise FileRejected(f"{file_name}, line 1: expected the columns {', '.join(HEADER)}, found {', '.join(header)}")
    rows: list[dict] = []
    problems: list[Problem] = []
    gold: dict[str, tuple[str, int]] = {}  # item -> (gold value, first line)
    places = []
    for n, fields in enumerate(reader, start=2):
        if not any(f.strip() for f in fields):
            continue
        places.append(f"line {n}")
        bad = limits.not_utf8(fields)
        if bad is not None:
            problems.append(_problem(file_name, n, None, bad, ""))
            continue
        if len(fields) != len(HEADER):
            problems.append(
                _problem(file_name, n, None, f"{len(fields)} fields, expected {len(HEADER)}", "\t".join(fields))
            )
            continue
        annotation, worker, item, response, gold_value = (f.strip() for f in fields)
        base = {"task_id": item, "rubric": rubric, "dimension": dimension, "target": "", "line": n}
        rows.append({**base, "rater_id": worker, "role": "contractor", "value": response, "record": annotation})
        if not item or not gold_value:
            continue
        if item not in gold:
            gold[item] = (gold_value, n)
        elif gold[item][0] != gold_value:
            problems.append(
                _problem(
                    file_name,
                    n,
                    "gold",
                    f"item {item} has gold {gold_value} here but {gold[item][0]} on line {gold[item][1]}; "
                    "the first is used",
                    gold_value,
                    counts=False,
                )
            )
    for item, (value, line) in gold.items():
        if task in GOLD_NOT_A_RATING:
            problems.append(
                _problem(file_name, line, "gold", f"gold {value} of item {item} {GOLD_NOT_A_RATING[task]}", value)
            )
            continue
        rows.append(
            {"task_id": item, "rater_id": GOLD_RATER, "role": "researcher", "rubric": rubric, "dimension": dimension,
             "target": "", "value": value, "line": line, "record": "gold"}
        )  # fmt: skip
    if not rows:
        raise FileRejected(f"{file_name}: a header and no labels")
    items = dict.fromkeys(r["task_id"] for r in rows if r["task_id"])
    tasks = [{"task_id": item, "rubric": rubric, "prompt": None, "context": None, "metadata": None} for item in items]
    return Parsed(format=NAME, ratings=ratings_frame(rows), tasks=tasks, problems=problems, record_places=places)


def _problem(file_name: str, line: int, field: str | None, reason: str, raw: str, counts: bool = True) -> Problem:
    """A problem on one line of the file."""
    where = f"{file_name}, line {line}" + (f", field {field}" if field else "")
    return Problem(f"{where}: {reason}", line=line, field=field, raw_value=raw[:500], counts_as_row=counts)
