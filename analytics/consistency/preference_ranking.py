"""Rules of the preference-ranking rubric (seeds/003_473367030d0e3705.txt) a single submission can break.

Each response's 1-5 ratings are catalogue dimensions grouped critical and non-critical, with the document's
bands as their coarse levels (1-2 Low, 3 Medium, 4-5 High; analytics/core/rubrics.py); its rank bucket is the `rank`
dimension. A justification names the task's response ids (task_items). docs/consistency.md says what each rule
checks and the edge cases decided.
"""

from __future__ import annotations

import re

import duckdb
import numpy as np
import pandas as pd

from analytics.consistency.rule import Rule, empty_check, sql_check
from analytics.consistency.similar_texts import closest_other_task
from analytics.core import rubrics
from analytics.core.queries import Query

RUBRIC = "preference_ranking"
_RUBRIC = rubrics.RUBRICS[RUBRIC]
RANK = _RUBRIC.dimension("rank").name
CRITICAL = tuple(d.name for d in _RUBRIC.dimensions if d.group == "critical")
NON_CRITICAL = tuple(d.name for d in _RUBRIC.dimensions if d.group == "non-critical")
_SCALE = _RUBRIC.dimension(CRITICAL[0])
LOW, MEDIUM, HIGH = _SCALE.coarse_levels  # the document's bands, lowest first
# "Rank 2 ... A maximum of 2 Non-Critical Dimensions are rated 'Medium'"; Best allows none.
MAX_MEDIUM = {1: 0, 2: 2}
# "Keep justifications concise, typically 3-4 sentences, unless the responses are complex or very similar":
# one sentence short of that or two over (complex or very similar responses) is tolerated.
MIN_SENTENCES, MAX_SENTENCES = 2, 6
# Two justifications of one contractor at least this similar (cosine of TF-IDF vectors, response ids and numbers
# masked) are near-duplicates. Tested on the document's own wording (tests/test_consistency_preference_ranking.py):
# two genuinely different justifications score below 0.3, a template reused with other ids and one word changed
# above 0.9.
NEAR_DUPLICATE = 0.8

RANK_QUERY = Query(
    "preference ranking: a response's rank bucket follows from its dimension ratings",
    """WITH premise AS (
        SELECT DISTINCT r.submission_id, r.target
        FROM ratings r JOIN submissions s USING (submission_id)
        WHERE s.rubric = $rubric AND s.status = 'rated' AND r.rubric = $rubric AND r.dimension = $rank
          AND TRY_CAST(r.value AS INTEGER) = $bucket),
    dims AS (
        SELECT unnest($critical) AS dimension, true AS critical
        UNION ALL SELECT unnest($non_critical), false),
    graded AS (
        SELECT p.submission_id, p.target, d.dimension, d.critical, r.value,
               list_extract($coarse, list_position($levels, r.value)) AS band,
               list_position($critical || $non_critical, d.dimension) AS pos
        FROM premise p CROSS JOIN dims d
        LEFT JOIN ratings r
          ON r.submission_id = p.submission_id AND r.target = p.target AND r.rubric = $rubric
         AND r.dimension = d.dimension),
    per_response AS (
        SELECT submission_id, target,
               string_agg(dimension || ' ' || coalesce(value || ' (' || band || ')', 'not rated'), ', ' ORDER BY pos)
                   FILTER (WHERE critical AND band IS DISTINCT FROM $high) AS critical_not_high,
               string_agg(dimension || ' ' || value || ' (' || band || ')', ', ' ORDER BY pos)
                   FILTER (WHERE NOT critical AND band = $low) AS non_critical_low,
               count(*) FILTER (WHERE NOT critical AND band = $medium) AS n_medium,
               string_agg(dimension || ' ' || value, ', ' ORDER BY pos)
                   FILTER (WHERE NOT critical AND band = $medium) AS non_critical_medium
        FROM graded GROUP BY submission_id, target),
    broken AS (
        SELECT submission_id, target,
               'response ' || target || ' in rank ' || $bucket || ': ' || concat_ws('; ',
                   'critical not ' || $high || ': ' || critical_not_high,
                   'non-critical ' || $low || ': ' || non_critical_low,
                   CASE WHEN n_medium > $max_medium
                        THEN n_medium || ' non-critical ' || $medium || ' (at most ' || $max_medium || '): '
                             || non_critical_medium END) AS detail
        FROM per_response
        WHERE critical_not_high IS NOT NULL OR non_critical_low IS NOT NULL OR n_medium > $max_medium)
    SELECT p.submission_id, count(b.detail) > 0 AS violated,
           coalesce(string_agg(b.detail, ' | ' ORDER BY b.target), '') AS detail
    FROM (SELECT DISTINCT submission_id FROM premise) p
    LEFT JOIN broken b USING (submission_id)
    GROUP BY p.submission_id ORDER BY p.submission_id""",
    {
        "rubric": RUBRIC,
        "rank": RANK,
        "critical": list(CRITICAL),
        "non_critical": list(NON_CRITICAL),
        "levels": list(_SCALE.levels),
        "coarse": [_SCALE.coarse[lvl] for lvl in _SCALE.levels],
        "low": LOW,
        "medium": MEDIUM,
        "high": HIGH,
    },
)


def rank_query(bucket: int) -> Query:
    """Submissions with a response in `bucket` whose ratings the bucket table does not allow there."""
    params = {**RANK_QUERY.params, "bucket": bucket, "max_medium": MAX_MEDIUM[bucket]}
    return Query(f"{RANK_QUERY.name} (rank {bucket})", RANK_QUERY.sql, params)


# A response called by its position ("Response 1", "response #2", "Response one") instead of its id.
POSITIONAL = re.compile(r"\bresponses?\s*#?\s*(?:[12]|one|two)\b(?![\d.,]\d)", re.IGNORECASE)

JUSTIFICATION_QUERY = Query(
    "preference ranking: justifications of rated submissions with their task's response ids",
    """SELECT s.submission_id, s.task_id, s.rater_id, coalesce(s.justification, '') AS justification,
              coalesce(t.prompt, '') || chr(10) || coalesce(t.context, '') AS task_text,
              coalesce((SELECT list(i.item_id ORDER BY i.position, i.item_id) FROM task_items i
                        WHERE i.task_id = s.task_id AND i.rubric = s.rubric), []) AS response_ids
       FROM submissions s LEFT JOIN tasks t ON t.task_id = s.task_id AND t.rubric = s.rubric
       WHERE s.rubric = $rubric AND s.status = 'rated'
       ORDER BY s.submission_id""",
    {"rubric": RUBRIC},
)


def _justifications(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Every rated submission's justification, task, rater and response ids."""
    df = JUSTIFICATION_QUERY.df(con)
    df["response_ids"] = df["response_ids"].map(lambda ids: [str(i) for i in ids] if ids is not None else [])
    return df


def _mentions(text: str, rid: str) -> bool:
    """Whether the text names the response id as a whole token."""
    return re.search(rf"(?<![\w]){re.escape(rid)}(?![\w])", text) is not None


def names_ids_problem(text: str, response_ids: list[str]) -> str:
    """What is wrong with how the justification names the responses ('' when nothing is)."""
    if not text.strip():
        return "no justification"
    problems = []
    positional = sorted({m.group(0) for m in POSITIONAL.finditer(text)})
    if positional:
        problems.append("calls a response " + ", ".join(f'"{p}"' for p in positional))
    missing = [rid for rid in response_ids if not _mentions(text, rid)]
    if missing:
        problems.append("does not name response " + ", ".join(missing))
    return "; ".join(problems)


# Quoted evidence is one unit of its sentence: straight and curly double quotes.
_QUOTED = re.compile(r'"[^"]*"|“[^”]*”')
# Abbreviations whose full stop ends no sentence.
_ABBREVIATION = re.compile(r"\b(?:e\.g|i\.e|etc|vs|cf|approx|Mr|Mrs|Ms|Dr)\.", re.IGNORECASE)
# A sentence ends at . ! ? (one or more) followed by white space or the end of the text.
_SENTENCE_END = re.compile(r"[.!?]+(?=\s|$)")


def sentence_count(text: str) -> int:
    """How many sentences the text has: quoted evidence counts as a word, abbreviations end nothing, and a piece
    without a letter or digit is no sentence."""
    text = _ABBREVIATION.sub("abbr", _QUOTED.sub("quote", text))
    return sum(1 for piece in _SENTENCE_END.split(text) if re.search(r"\w", piece))


def _check_names_ids(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """pr_justification_names_ids on every rated submission."""
    df = _justifications(con)
    if df.empty:
        return empty_check()
    detail = [names_ids_problem(t, ids) for t, ids in zip(df["justification"], df["response_ids"], strict=True)]
    return _result(df["submission_id"], detail)


def _check_length(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """pr_justification_length on every rated submission."""
    df = _justifications(con)
    if df.empty:
        return empty_check()
    detail = []
    for text in df["justification"]:
        n = sentence_count(text)
        ok = MIN_SENTENCES <= n <= MAX_SENTENCES
        detail.append("" if ok else f"{n} sentences (typically 3-4; {MIN_SENTENCES}-{MAX_SENTENCES} tolerated)")
    return _result(df["submission_id"], detail)


def masked(text: str, response_ids: list[str]) -> str:
    """The justification with its task's response ids and any number masked, so a template with other ids is
    the same text."""
    for rid in sorted(response_ids, key=len, reverse=True):
        text = re.sub(rf"(?<![\w]){re.escape(rid)}(?![\w])", " RESPONSEID ", text)
    return re.sub(r"\d+", " NUMBER ", text)


def near_duplicates(df: pd.DataFrame, threshold: float = NEAR_DUPLICATE) -> list[str]:
    """For each row (submission_id, task_id, rater_id, justification, task_text, response_ids), the other task of
    the same rater whose justification is a near-duplicate of it ('' when none): cosine similarity of TF-IDF
    vectors fitted on all rows, compared within each rater only (analytics/consistency/similar_texts.py, in time
    bounded by the texts sharing a rare term), and never between tasks with the same text."""
    out = [""] * len(df)
    texts = [masked(t, ids) for t, ids in zip(df["justification"], df["response_ids"], strict=True)]
    has_words = np.array([re.search(r"[^\W\d_]", t) is not None for t in texts])
    if not has_words.any():
        return out
    # Imported here: scikit-learn takes about a second to import, and every page that lists the rubric rules
    # imports this module without fitting anything.
    from sklearn.feature_extraction.text import TfidfVectorizer  # type: ignore[import-untyped]

    vectorizer = TfidfVectorizer(lowercase=True, ngram_range=(1, 2), sublinear_tf=True)
    matrix = vectorizer.fit_transform([t if w else "" for t, w in zip(texts, has_words, strict=True)]).tocsr()
    rank = np.argsort(np.argsort(-vectorizer.idf_, kind="stable"), kind="stable")  # 0: the rarest term
    tasks = df["task_id"].astype(str).to_numpy()
    # Two tasks with the same text (the same conversation) may get the same reasons: a task is named by its text.
    text = df["task_text"].astype(object)
    same = (
        ("text:" + text.where(text.notna(), ""))
        .where(text.notna(), "id:" + pd.Series(tasks, index=text.index))
        .tolist()
    )
    for rows in df.groupby("rater_id", sort=False).indices.values():
        idx = np.asarray(rows)[has_words[rows]]
        if len(idx) < 2:
            continue
        found = closest_other_task(matrix[idx], [texts[k] for k in idx], [same[k] for k in idx], rank, threshold)
        for a, (v, b) in found.items():
            out[idx[a]] = f"near-duplicate (cosine {v:.2f}) of this contractor's justification on task {tasks[idx[b]]}"
    return out


def _check_boilerplate(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """pr_boilerplate_justification on every rated submission with a justification."""
    df = _justifications(con)
    df = df[df["justification"].str.strip() != ""].reset_index(drop=True)
    if df.empty:
        return empty_check()
    return _result(df["submission_id"], near_duplicates(df))


def _result(submission_ids: pd.Series, detail: list[str]) -> pd.DataFrame:
    """CHECK_COLUMNS from each submission's detail ('' = kept the rule)."""
    return pd.DataFrame(
        {
            "submission_id": submission_ids.astype(str).to_numpy(),
            "violated": [bool(d) for d in detail],
            "detail": detail,
        }
    )


RULES = (
    Rule(
        "pr_rank1_needs_all_high",
        RUBRIC,
        'Rank 1 (Best): "All critical and non-critical dimensions must be rated High" (High = 4-5).',
        ("ratings.value (rank)", "ratings.value (critical and non-critical dimensions)"),
        sql_check(rank_query(1)),
    ),
    Rule(
        "pr_rank2_needs_critical_high",
        RUBRIC,
        'Rank 2: "All critical dimensions must be rated High" and "A maximum of 2 Non-Critical Dimensions are rated '
        'Medium" (the others High).',
        ("ratings.value (rank)", "ratings.value (critical and non-critical dimensions)"),
        sql_check(rank_query(2)),
    ),
    Rule(
        "pr_justification_names_ids",
        RUBRIC,
        "Justification: \"Avoid referring to responses as 'Response 1' or 'Response 2.' Always use the unique "
        'response IDs."',
        ("submissions.justification", "task_items.item_id (response ids)"),
        _check_names_ids,
    ),
    Rule(
        "pr_justification_length",
        RUBRIC,
        'Justification: "Keep justifications concise, typically 3-4 sentences, unless the responses are complex or '
        f'very similar" ({MIN_SENTENCES}-{MAX_SENTENCES} sentences tolerated).',
        ("submissions.justification",),
        _check_length,
    ),
    Rule(
        "pr_boilerplate_justification",
        RUBRIC,
        '"You should avoid writing justifications that could apply to multiple tasks": no near-duplicate of the same '
        f"contractor's justification on another task (TF-IDF cosine >= {NEAR_DUPLICATE}).",
        ("submissions.justification", "submissions.rater_id", "tasks.prompt", "tasks.context"),
        _check_boilerplate,
    ),
)
