"""The store's one writer at a time: the lock every write transaction holds while it writes."""

from __future__ import annotations

import threading

# One writer at a time in this process. The dashboard's sessions write through cursors of one connection, and
# DuckDB's optimistic transactions would make concurrent writers fail each other ("Transaction conflict": a note
# saved during an upload, two uploads at once); every write transaction takes this lock, so writes queue instead.
WRITE_LOCK = threading.RLock()
