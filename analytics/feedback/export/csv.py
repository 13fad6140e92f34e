"""A feedback report as CSV through the one writer (analytics.csv_out): the whole report in one file, and the listed
disagreements on their own."""

from __future__ import annotations

import pandas as pd

from analytics.core import csv_out
from analytics.feedback.report import FeedbackReport


def disagreements_csv(report: FeedbackReport) -> str:
    """The listed disagreements as CSV through the one writer (analytics.csv_out: one row per case, text that a
    spreadsheet would read as a formula prefixed with an apostrophe), each row stamped with the dataset version, seed and code version."""
    s = report.stamp
    cases = report.disagreements.assign(
        stamp_dataset_version=s["dataset_version"], stamp_seed=s["seed"], stamp_code_version=s["code_version"]
    )
    return csv_out.to_csv(cases)


CSV_SECTIONS = (
    ("agreement", "card"),
    ("effect", "effects"),
    ("rule", "rules"),
    ("alert", "alerts"),
    ("week", "weekly"),
    ("trend", "trend"),
    ("time", "durations"),
    ("disagreement", "disagreements"),
    ("followup", "followups"),
)


def to_csv(report: FeedbackReport) -> str:
    """The whole report as one CSV through the one writer (analytics.csv_out): the tables of each part one under
    the other, `section` naming the part (CSV_SECTIONS) and a column only filled where it applies; a case's
    review status is `review_status`. Every row names the contractor and carries the stamp."""
    frames = []
    for section, field in CSV_SECTIONS:
        part: pd.DataFrame = getattr(report, field)
        if len(part):
            part = part.rename(columns={"status": "review_status"}) if section == "disagreement" else part
            frames.append(part.assign(section=section))
    s = report.stamp
    body = (
        pd.concat(frames, ignore_index=True).convert_dtypes()
        if frames
        else pd.DataFrame({"section": pd.Series(dtype=str)})
    )
    body = body.assign(
        contractor=report.contractor_id,
        stamp_dataset_version=s["dataset_version"],
        stamp_seed=s["seed"],
        stamp_code_version=s["code_version"],
    )
    first = ["section", "contractor", "rubric"]
    return csv_out.to_csv(body[[*first, *[c for c in body.columns if c not in first]]])
