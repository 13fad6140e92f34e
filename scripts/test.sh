#!/usr/bin/env bash
# Install everything the tests need, then lint and run the whole test suite (unit, AppTest, browser, Spark) on
# every core (pytest-xdist; the browser tests and the Spark tests each keep to one worker, see tests/conftest.py).
#   ./scripts/test.sh            everything (the README's test command)
#   ./scripts/test.sh --fast     the same lint and type checks, and every test but the e2e, spark and slow ones
# Further arguments go to pytest (e.g. `./scripts/test.sh tests/test_store.py -n 0`).
set -euo pipefail
cd "$(dirname "$0")/.."
MARKS=()
if [ "${1:-}" = "--fast" ]; then
  shift
  MARKS=(-m "not e2e and not spark and not slow")
fi
bash scripts/setup.sh --dev
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
E2E_REQUIRED=${E2E_REQUIRED:-1} .venv/bin/python -m pytest -q -n auto --dist loadgroup "${MARKS[@]}" "$@"
