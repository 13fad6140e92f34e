#!/usr/bin/env bash
# Install everything the tests need, then lint and run the whole test suite (unit, AppTest, browser).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --dev
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
E2E_REQUIRED=${E2E_REQUIRED:-1} .venv/bin/python -m pytest -q "$@"
