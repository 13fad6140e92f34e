"""Real public rating datasets Concord reads (../shared/real-data/, or the folder in CONCORD_REAL_DATA).

Each adapter that reads one lists its files in a module-level `DATASETS` tuple of `Dataset`; this module collects
them, finds which are present on this machine and which are loaded in a store (by file name in the ingest log).
The files are never copied into the repository.
"""

from __future__ import annotations

import os
from pathlib import Path

import duckdb

from analytics import store
from analytics.core.queries import Query
from analytics.ingest import FORMATS
from analytics.ingest.base import Dataset


def real_data_dir() -> Path:
    """The real-data folder: $CONCORD_REAL_DATA, else ../shared/real-data beside the checkout."""
    return Path(os.environ.get("CONCORD_REAL_DATA") or store.ROOT.parent / "shared" / "real-data")


def catalogue() -> tuple[Dataset, ...]:
    """Every dataset some adapter reads, in adapter order."""
    return tuple(d for mod in FORMATS.values() for d in getattr(mod, "DATASETS", ()))


def file_of(d: Dataset) -> Path:
    """Where a dataset's file is on this machine (it may be absent)."""
    return real_data_dir() / d.path


LOADED_FILE_NAMES = Query("loaded_file_names", "SELECT file_name FROM ingest_log")


def listing(con: duckdb.DuckDBPyConnection | None = None) -> list[dict]:
    """Each dataset as {"name", "path", "format", "title", "source", "present", "loaded"} (loaded: a file of that
    name is in the store's ingest log; False without a store)."""
    loaded = set()
    if con is not None:
        loaded = {n for (n,) in LOADED_FILE_NAMES.rows(con)}
    return [
        {
            "name": d.name,
            "path": str(file_of(d)),
            "format": d.format,
            "title": d.title,
            "source": d.source,
            "present": file_of(d).is_file(),
            "loaded": Path(d.path).name in loaded,
        }
        for d in catalogue()
    ]
