"""ui.tables.table on a long frame: it draws at most MAX_SHOWN rows and says so, and its download holds them all."""

from __future__ import annotations

import io

import pandas as pd
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import AppTest

from ui import tables


def _script() -> None:
    import pandas as pd

    from ui.tables import MAX_SHOWN, table

    table(pd.DataFrame({"task_id": [f"t{i}" for i in range(MAX_SHOWN + 7)], "n": range(MAX_SHOWN + 7)}), "cases")


def test_a_long_table_shows_its_first_rows_and_downloads_all(monkeypatch):
    offered: list[bytes] = []
    original = MemoryMediaFileStorage.load_and_get_id

    def record(self, data, mimetype, kind, filename=None):
        offered.append(data)
        return original(self, data, mimetype, kind, filename)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", record)
    at = AppTest.from_function(_script).run()
    assert not at.exception, at.exception
    assert len(at.dataframe[0].value) == tables.MAX_SHOWN
    assert f"first {tables.MAX_SHOWN:,} of {tables.MAX_SHOWN + 7:,} rows" in at.caption[0].value
    rows = pd.read_csv(io.BytesIO(offered[-1]))
    assert len(rows) == tables.MAX_SHOWN + 7 and rows["task_id"].iloc[-1] == f"t{tables.MAX_SHOWN + 6}"
