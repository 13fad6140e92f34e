#!/usr/bin/env bash
# Refresh the README's screenshots (docs/overview.png, docs/agreement.png, docs/feedback.png, docs/disagreements.png, docs/feedback_sent.png, docs/consistency.png, docs/raters.png): the browser
# test of a lead's review takes them on a fresh demo store once each page has finished loading. Not part of the
# normal test run, which writes its screenshots to tests/artifacts/ only.
set -euo pipefail
cd "$(dirname "$0")/.."
CONCORD_README_SCREENSHOTS=1 .venv/bin/python -m pytest -q tests/e2e/test_lead_review.py tests/e2e/test_consistency_page.py tests/e2e/test_raters_page.py
