"""The commands' JSON on stdout: each top-level key on its own line, each record of a top-level list on its own.

`json.dumps(indent=2)` falls back to the standard library's pure-Python encoder, which took 2.2 s of the 11 s of
`agreement --pairs` at a million tasks (22 MB); this layout is written by the C encoder and stays readable (one
record a line) and diffable."""

from __future__ import annotations

import json
from typing import Any


def json_text(payload: dict[str, Any]) -> str:
    """`payload` as JSON text: one line per top-level key, and per record of a top-level list."""
    if not payload:
        return "{}"
    parts = []
    for key, value in payload.items():
        name = json.dumps(key)
        if isinstance(value, list) and value:
            records = ",\n".join(f"    {json.dumps(item)}" for item in value)
            parts.append(f"  {name}: [\n{records}\n  ]")
        else:
            parts.append(f"  {name}: {json.dumps(value)}")
    return "{\n" + ",\n".join(parts) + "\n}"
