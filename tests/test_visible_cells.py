"""ui.text.visible_cells: the same cells as `visible` applied to each (issue #50's speed: a table repeats a few dozen
ids over thousands of rows, so each distinct text is made visible once)."""

from __future__ import annotations

import pandas as pd

from ui.text import visible, visible_cells


def _each(cells: pd.Series) -> pd.Series:
    """The per-cell rule it stands for."""
    return cells.map(lambda v: visible(v) if isinstance(v, str) else v)


def test_hidden_characters_are_shown_in_every_cell_and_other_cells_stay():
    cells = pd.Series(["c1", "c1\u202e2c", None, 3, "c1\u202e2c", "r\u200b1", float("nan")] * 500, dtype=object)
    got = visible_cells(cells)
    pd.testing.assert_series_equal(got, _each(cells))
    assert got.iloc[1] == "c1⟨U+202E⟩2c"


def test_a_column_without_hidden_characters_is_returned_as_is():
    cells = pd.Series(["c1", "c2", "r1"] * 1000, dtype=object)
    assert visible_cells(cells) is cells


def test_unhashable_cells_are_made_visible_one_by_one():
    cells = pd.Series([["c1"], "c\u202e1", {"a": 1}], dtype=object)
    pd.testing.assert_series_equal(visible_cells(cells), _each(cells))
