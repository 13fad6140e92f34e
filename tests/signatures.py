"""The one check that two decodings of task signatures (analytics/agreement/signatures.py) agree, for the tests of
the pairing's several forms."""

from __future__ import annotations

import numpy as np


def assert_same_signatures(got: dict, want: dict) -> None:
    """Two decodings hold the same groups, in the same order, with the same task signatures, tasks and units."""
    assert list(got) == list(want)
    for key, sig in want.items():
        assert np.array_equal(got[key].cells, sig.cells), key
        assert np.array_equal(got[key].n_tasks, sig.n_tasks), key
        assert got[key].n_units == sig.n_units, key
