"""The store: opening it, its schema, the dataset version and the one write lock (the public names below); keys,
people, the stamp and the kept (derived) tables are modules of this package."""

from analytics.store.connection import (
    DAMAGED_HINT,
    DEFAULT_DB,
    ROOT,
    StoreError,
    StoreInUse,
    damaged_message,
    db_path,
    is_damage,
    open_store,
)
from analytics.store.migrations import (
    ALL_RUBRICS,
    DIMENSION_COLUMNS,
    MIGRATIONS,
    migrate,
    save_dimensions,
    schema_version,
    sync_catalogue,
)
from analytics.store.tx import WRITE_LOCK
from analytics.store.version import (
    bump_version,
    copy_key,
    dataset_version,
    file_state,
    next_ingest_id,
    store_identity,
    table_counts,
)

__all__ = [
    "ALL_RUBRICS",
    "DAMAGED_HINT",
    "DEFAULT_DB",
    "DIMENSION_COLUMNS",
    "MIGRATIONS",
    "ROOT",
    "WRITE_LOCK",
    "StoreError",
    "StoreInUse",
    "bump_version",
    "damaged_message",
    "copy_key",
    "dataset_version",
    "file_state",
    "db_path",
    "is_damage",
    "migrate",
    "next_ingest_id",
    "open_store",
    "save_dimensions",
    "schema_version",
    "store_identity",
    "sync_catalogue",
    "table_counts",
]
