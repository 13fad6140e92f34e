"""First start: an empty store is filled with the bundled demo data."""

from __future__ import annotations

import json
import os
from pathlib import Path

import duckdb

from analytics import store


def demo_dir() -> Path:
    """Where the demo inputs live ($CONCORD_DEMO_DIR or data/demo)."""
    return Path(os.environ.get("CONCORD_DEMO_DIR") or store.ROOT / "data" / "demo")


def store_is_empty(con: duckdb.DuckDBPyConnection) -> bool:
    """True when nothing was ever loaded into the store."""
    return con.execute("SELECT count(*) FROM ingest_log").fetchall()[0][0] == 0


def demo_files(seed: int = 7) -> list[Path]:
    """The demo input files in load order, generating them first when they are missing."""
    out = demo_dir()
    truth = out / "truth.json"
    if not truth.exists():
        from analytics.demo import write_demo

        write_demo(out, seed=seed)
    return [out / f["file"] for f in json.loads(truth.read_text())["files"]]
