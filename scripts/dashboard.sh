#!/usr/bin/env bash
# Run the dashboard on the bundled demo data (generated and loaded on first start).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python -m ui.serve run app.py --browser.gatherUsageStats false "$@"
