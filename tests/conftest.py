"""Shared fixtures: a fresh store per test and paths to ../shared."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
sys.path.insert(0, str(ROOT))

from analytics import store  # noqa: E402


@pytest.fixture
def con(tmp_path):
    """A new, migrated store in a temp directory."""
    c = store.open_store(tmp_path / "store.duckdb")
    yield c
    c.close()


def shared_path(*parts: str) -> Path:
    """A path under ../shared, skipping the test when that folder is absent."""
    p = SHARED.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"{p} is not available (../shared is not beside the checkout)")
    return p
