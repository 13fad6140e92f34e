"""ui.tables.table on a long frame: it draws at most MAX_SHOWN rows and says so, and its download holds them all;
every table's CSV is written when its button is clicked, from the frame as it was shown."""

from __future__ import annotations

import io

import pandas as pd
from streamlit.testing.v1 import AppTest

from ui import tables


def _script() -> None:
    import pandas as pd

    from ui.tables import MAX_SHOWN, table

    table(pd.DataFrame({"task_id": [f"t{i}" for i in range(MAX_SHOWN + 7)], "n": range(MAX_SHOWN + 7)}), "cases")


def test_a_long_table_shows_its_first_rows_and_downloads_all():
    at = AppTest.from_function(_script).run()
    assert not at.exception, at.exception
    assert len(at.dataframe[0].value) == tables.MAX_SHOWN
    assert f"first {tables.MAX_SHOWN:,} of {tables.MAX_SHOWN + 7:,} rows" in at.caption[0].value
    assert at.get("download_button")[0].proto.deferred_file_id  # written on click, not on every rerun


def test_a_tables_csv_is_written_on_click_and_holds_every_row():
    long = pd.DataFrame({"task_id": [f"t{i}" for i in range(tables.MAX_SHOWN + 1)]})
    data = tables.csv_data(long)
    assert callable(data)
    rows = pd.read_csv(io.BytesIO(data()))
    assert len(rows) == tables.MAX_SHOWN + 1 and rows["task_id"].iloc[-1] == f"t{tables.MAX_SHOWN}"
    short = long.head(3).copy()
    data = tables.csv_data(short)
    assert callable(data)  # a short one too: nobody may click it
    short.loc[0, "task_id"] = "changed after it was shown"
    short["extra"] = 1
    assert data() == b"task_id\r\nt0\r\nt1\r\nt2\r\n"  # the frame as it was when the button was drawn
