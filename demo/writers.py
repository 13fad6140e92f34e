"""Writing the demo files: one writer per file shape (JSONL, JSON document, canonical CSV, truth)."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any


def _dumps(obj: Any) -> str:
    """Compact JSON text."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def write_jsonl(path: Path, records: list[dict]) -> Path:
    """One JSON object per line (answer comparison and instruction following exports)."""
    path.write_text("".join(_dumps(r) + "\n" for r in records), encoding="utf-8", newline="\n")
    return path


def write_json_array(path: Path, records: list[dict], indent: int | None = None) -> Path:
    """One JSON array (the preference ranking export, and the annotators' article files, indented like theirs)."""
    text = json.dumps(records, ensure_ascii=False, indent=indent, separators=None if indent else (",", ":"))
    path.write_text(text + "\n", encoding="utf-8", newline="\n")
    return path


def write_csv(path: Path, header: tuple[str, ...], rows: list[dict]) -> Path:
    """A canonical long CSV with the given columns."""
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(header), extrasaction="ignore", lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    return path


def write_truth(path: Path, truth: dict) -> Path:
    """The simulator's truth, readable by people (indented)."""
    path.write_text(json.dumps(truth, ensure_ascii=False, indent=1) + "\n", encoding="utf-8", newline="\n")
    return path


def text_once(records: list[dict], task_text: str, items: str) -> list[dict]:
    """Keep a task's text (`task_text` and each of `items`' "text") only in its first submission; the loader
    reads a task's text from its first record, and the demo stays small."""
    seen: set[str] = set()
    for rec in records:
        if rec["task_id"] in seen:
            rec.pop(task_text)
            for item in rec[items]:
                item.pop("text")
        seen.add(rec["task_id"])
    return records
