"""First start: an empty store is filled with the bundled demo data."""

from __future__ import annotations

import datetime as dt
import json
import os
from dataclasses import dataclass
from pathlib import Path

import duckdb

from analytics import store
from analytics.core.queries import Query
from analytics.effects import markers
from analytics.ingest.load import IngestResult
from analytics.store import feedback_log, people


@dataclass(frozen=True)
class DemoFile:
    """One demo input in load order, its format (truth.json files[]), and the date its load gives records that
    carry none (article Likert)."""

    path: Path
    undated_at: dt.datetime | None = None
    format: str = ""


def demo_dir() -> Path:
    """Where the demo inputs live ($CONCORD_DEMO_DIR or data/demo)."""
    return Path(os.environ.get("CONCORD_DEMO_DIR") or store.ROOT / "data" / "demo")


STORE_IS_EMPTY = Query("store_is_empty", "SELECT NOT EXISTS (SELECT 1 FROM ingest_log)")


def store_is_empty(con: duckdb.DuckDBPyConnection) -> bool:
    """True when nothing was ever loaded into the store."""
    return bool(STORE_IS_EMPTY.rows(con)[0][0])


def demo_plan(seed: int = 7, out: Path | None = None) -> list[DemoFile]:
    """The demo inputs in load order with their load dates (truth.json files[]), generating them first when
    they are missing."""
    out = out or demo_dir()
    truth = out / "truth.json"
    if not truth.exists():
        from demo import write_demo

        write_demo(out, seed=seed)
    return [
        DemoFile(out / f["file"], _utc(f["submitted_at"]) if f.get("submitted_at") else None, f.get("format", ""))
        for f in json.loads(truth.read_text())["files"]
    ]


STATUS_WORDS = {"loaded": "loaded", "already_loaded": "already loaded", "rejected": "rejected"}


def holds(demo: DemoFile) -> tuple[str, str]:
    """What one row of a demo file is, singular and plural: a person in the directory, a feedback event in the
    feedback log, a rating elsewhere."""
    if demo.format == people.FORMAT:
        return ("person", "people")
    return ("feedback event", "feedback events") if demo.format == feedback_log.FORMAT else ("rating", "ratings")


def progress_text(demo: DemoFile, result: IngestResult) -> str:
    """The first start's progress line for one demo file: its name, what its load did and how many of what it
    holds ("raters.csv: loaded, 44 people")."""
    if result.status != "loaded":
        return f"{demo.path.name}: {STATUS_WORDS.get(result.status, result.status)}, nothing changed"
    one, many = holds(demo)
    text = f"{demo.path.name}: loaded, {_count(result.rows_loaded, one, many)}"
    if result.rows_quarantined:
        text += f", {_count(result.rows_quarantined, 'row', 'rows')} set aside in quarantine"
    return text


def _count(n: int, one: str, many: str) -> str:
    """A number with its noun ("1 person", "2,000 ratings")."""
    return f"{n:,} {one if n == 1 else many}"


def add_demo_markers(con: duckdb.DuckDBPyConnection, out: Path | None = None) -> int:
    """Add the demo's guideline-change markers (truth.json guideline_markers) to a store its files were loaded into,
    skipping one already there with the same date and note; how many were added."""
    have = {(str(m.marked_on)[:10], m.note) for m in markers.markers(con).itertuples()}
    added = 0
    for m in json.loads(((out or demo_dir()) / "truth.json").read_text()).get("guideline_markers", []):
        if (m["marked_on"], m["note"].strip()) not in have:
            markers.add_marker(con, dt.date.fromisoformat(m["marked_on"]), m["note"], m.get("rubric"), author="demo")
            added += 1
    return added


def demo_files(seed: int = 7) -> list[Path]:
    """The demo input files in load order, generating them first when they are missing."""
    return [f.path for f in demo_plan(seed)]


def _utc(text: str) -> dt.datetime:
    """An ISO 8601 time from truth.json ('Z' for UTC) as a datetime in UTC."""
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(dt.UTC)
