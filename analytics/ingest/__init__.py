"""Adapters, one per input format, each turning a file into canonical rows (see docs/formats.md).

Every adapter module has NAME, `detect(head, file_name) -> bool` and `parse(path, file_name, con) -> Parsed`.
Detection tries the specific formats first and canonical last.
"""

from __future__ import annotations

from types import ModuleType

from analytics.ingest import (
    answer_comparison,
    article_likert,
    canonical,
    feedback_log,
    instruction_following,
    judge_bench,
    label_studio,
    medical_safety,
    pandalm,
    preference_ranking,
    qags,
    rater_directory,
    snow2008,
    squality,
    wide,
)

# Order matters for detection: specific document formats before the generic canonical table.
ADAPTERS: tuple[ModuleType, ...] = (
    answer_comparison,
    instruction_following,
    preference_ranking,
    article_likert,
    rater_directory,
    feedback_log,
    label_studio,
    snow2008,
    qags,
    pandalm,
    medical_safety,
    squality,
    judge_bench,
    wide,  # never detected: --format wide
    canonical,
)
FORMATS: dict[str, ModuleType] = {mod.NAME: mod for mod in ADAPTERS}


def detect_format(head: bytes, file_name: str) -> str | None:
    """The first format whose adapter recognises the file's first bytes, or None."""
    for name, mod in FORMATS.items():
        if mod.detect(head, file_name):
            return name
    return None
