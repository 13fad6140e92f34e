"""A small store whose every piece of submission text is hostile: HTML, script, markdown images and links,
LaTeX and 100,000-character strings, in questions, answers, sources, comments, explanations, justifications,
rater ids, task ids, rubric and dimension names, quarantined values and file names.

Shared by the AppTest (tests/test_hostile_text.py) and the browser test (tests/e2e/test_hostile_text.py).
Every URL points at 127.0.0.2 (loopback, nothing listens), so a request that leaves shows up in a browser's
request log without reaching any real host.
"""

from __future__ import annotations

import json
from pathlib import Path

from analytics import store
from analytics.ingest.load import IngestResult, ingest_bytes

EVIL_HOST = "127.0.0.2"
HTML = f"<b>bold</b><img src=http://{EVIL_HOST}:9/x onerror=\"fetch('http://{EVIL_HOST}:9/e')\">"
SCRIPT = f"<script>fetch('http://{EVIL_HOST}:9/s')</script>"
MD_IMAGE = f"![x](http://{EVIL_HOST}:9/img.png)"
MD_LINK = f"[click](http://{EVIL_HOST}:9/link)"
LATEX = r"$\frac{1}{2}$"
HOSTILE = f"{HTML} {SCRIPT} {MD_IMAGE} {MD_LINK} {LATEX}"
LONG = "L" * 100_000

# Substrings that must never reach a markdown element unescaped: each becomes live HTML, an image, a link or
# a formula when markdown renders it.
MARKDOWN_PAYLOADS = ("<b>", "<img", "<script", "](http", "$\\frac")

# File names cannot hold '/', so theirs are relative: an <img> or markdown image would fetch from the app's
# own host; the browser test looks for an element whose src names "pwn".
FILE_STEM = "<img src=pwn.png onerror=alert(1)> ![pwn](pwn.png) [pwn](javascript:alert(1)) $x^2$"

CONTRACTOR = f"c1 {HTML}"
RESEARCHER = f"r1 {MD_IMAGE}"
LONG_RATER = "c_long_" + "R" * 100_000
TASK = f"q1 {MD_LINK} {SCRIPT}"


def _comparison(task: str, rater: str, role: str, clicked: str, text: str) -> dict:
    """An answer comparison submission whose every text field carries `text`."""
    return {
        "format": "concord.answer_comparison/v1",
        "submission_id": f"{task}-{rater}",
        "task_id": task,
        "rater_id": rater,
        "role": role,
        "submitted_at": "2026-03-02T14:05:11Z",
        "question": f"Question {text} {LONG}",
        "display_order": ["A", "B"],
        "options": {
            "A": {
                "answer": f"Answer A {text} {LONG}",
                "sources": [{"n": 1, "title": f"Title {text}", "domain": f"{EVIL_HOST}", "quote": f"Quote {text}"}],
                "ratings": {"usefulness": "Good"},
                "strengths": f"Strengths {text}",
            },
            "B": {"answer": f"Answer B {text}", "sources": [], "ratings": {"usefulness": "Bad"}},
        },
        "comparison": {"usefulness": clicked, "coherence": f"Off scale {MD_IMAGE}"},
        "comment": f"Comment {text} {LONG}",
        "explanations": {"usefulness": f"Explanation {text} {LONG}"},
        "hostile_extra_field": f"Extra {text}",
    }


def answer_comparison_file() -> bytes:
    """Contractors and a researcher disagreeing on hostile tasks (one coherence value off scale each)."""
    records = [
        _comparison(TASK, CONTRACTOR, "contractor", "A much better", HOSTILE),
        _comparison(TASK, RESEARCHER, "researcher", "B better", HOSTILE),
        _comparison(TASK, LONG_RATER, "contractor", "Equally good", HOSTILE),
        _comparison("q2", CONTRACTOR, "contractor", "A better", HOSTILE),
        _comparison("q2", RESEARCHER, "researcher", "A much better", HOSTILE),
    ]
    return ("\n".join(json.dumps(r) for r in records) + "\n").encode()


def preference_ranking_file() -> bytes:
    """A preference ranking submission with a hostile prompt, conversation, responses and justification."""
    record = {
        "format": "concord.preference_ranking/v1",
        "submission_id": "pr-1",
        "task_id": f"pr {MD_IMAGE}",
        "rater_id": CONTRACTOR,
        "prompt": f"Prompt {HOSTILE} {LONG}",
        "conversation": [{"role": "user", "text": f"Turn {HOSTILE}"}],
        "action": "rate",
        "responses": [
            {"response_id": f"r {HTML}", "text": f"Response {HOSTILE}", "rank": 1, "ratings": {"accuracy": 5}},
            {"response_id": "r2", "text": f"Response {LONG}", "rank": 2, "ratings": {"accuracy": "5 " + MD_LINK}},
        ],
        "justification": f"Justification {HOSTILE} {LONG}",
    }
    return (json.dumps(record) + "\n").encode()


def canonical_file() -> bytes:
    """Canonical CSV on an uncatalogued rubric whose rubric, dimension, values and comments are hostile."""
    rubric = f"rubric {HTML}"
    dimension = f"dim {MD_LINK}"

    def q(s: str) -> str:
        return '"' + s.replace('"', '""') + '"'

    rows = ["task_id,rater_id,role,rubric,dimension,target,value,submitted_at,comment"]
    for task in ("k1", "k2", TASK):
        for rater, role, value in ((CONTRACTOR, "contractor", "3"), (RESEARCHER, "researcher", "5")):
            rows.append(
                ",".join(
                    q(x)
                    for x in (task, rater, role, rubric, dimension, "", value, "2026-03-03 10:00", f"{HOSTILE} {LONG}")
                )
            )
    rows.append(",".join(q(x) for x in ("k9", RESEARCHER, "researcher", rubric, dimension, "", "4", MD_IMAGE, HTML)))
    return ("\n".join(rows) + "\n").encode()


def rejected_file() -> bytes:
    """A CSV detected as canonical (its header names the required columns, but only inside other text) yet
    without the required columns: the rejection message quotes the hostile header."""
    return f"![task_id rater_id](http://{EVIL_HOST}:9/dimension_value.png),{HTML},{LATEX}\n1,2,3\n".encode()


FILES = {
    f"{FILE_STEM} comparisons.jsonl": answer_comparison_file,
    f"{FILE_STEM} preferences.jsonl": preference_ranking_file,
    f"{FILE_STEM} ratings.csv": canonical_file,
}


def build_store(path: Path) -> list[IngestResult]:
    """Create the hostile store at `path`; return what each load did (all loaded, some rows quarantined)."""
    con = store.open_store(path)
    try:
        results = [ingest_bytes(con, make(), name) for name, make in FILES.items()]
    finally:
        con.close()
    return results
