"""The commands' JSON layout (analytics/cli/json_out.py): the same value as json.dumps, one record a line."""

from __future__ import annotations

import json
import math

from analytics.cli.json_out import json_text


def test_same_value_as_the_standard_encoder() -> None:
    payload = {
        "files": [{"file": "a.csv", "rows": 3, "errors": ['line 2: bad "value"\n']}, {"file": "b", "rows": 0}],
        "empty": [],
        "comparison": {"dimensions": "all raters", "nested": [1, 2]},
        "n": 4,
        "none": None,
        "text": "é ünïcode",
    }
    assert json.loads(json_text(payload)) == payload


def test_one_line_per_top_level_key_and_per_record() -> None:
    text = json_text({"rows": [{"a": 1}, {"a": 2}, {"a": 3}], "total": 3})
    lines = text.splitlines()
    assert lines == ["{", '  "rows": [', '    {"a": 1},', '    {"a": 2},', '    {"a": 3}', "  ],", '  "total": 3', "}"]


def test_nan_is_written_as_json_dumps_writes_it() -> None:
    text = json_text({"rows": [{"kappa": math.nan}]})
    assert "NaN" in text and math.isnan(json.loads(text)["rows"][0]["kappa"])


def test_empty_payload() -> None:
    assert json.loads(json_text({})) == {}
