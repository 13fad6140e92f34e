"""Rules of the instruction-following rubric (seeds/002_3b314b218f9d5567.txt) a single submission can break.

The output labels a rule governs are catalogue dimensions (analytics/core/rubrics.py); "Not applicable" is their missing
value, so the loader stores no rating for it and a stored rating is a yes/no label given. The instruction labels
are the rater's own (submissions.details.instruction_labels). docs/consistency.md says what each rule checks.
"""

from __future__ import annotations

from analytics.consistency.rule import Rule, sql_check
from analytics.core import rubrics
from analytics.core.queries import Query

RUBRIC = "instruction_following"
_RUBRIC = rubrics.RUBRICS[RUBRIC]
RATING = _RUBRIC.primary  # the 1-7 rating of each output
RANK = _RUBRIC.dimension("rank").name  # each output's tie group, 1 = best


def _instruction_label(name: str) -> str:
    """An instruction label's key in details.instruction_labels (KeyError when the catalogue lacks it)."""
    if name not in rubrics.INSTRUCTION_LABELS:
        raise KeyError(f"no instruction label {name!r}")
    return name


def only_where_query(output_label: str, instruction_label: str) -> Query:
    """Submissions whose rater said the instruction is not `instruction_label` must give no `output_label`."""
    return Query(
        f"instruction following: {output_label} labelled only where the instruction is {instruction_label}",
        """WITH premise AS (
            SELECT submission_id FROM submissions
            WHERE rubric = $rubric AND status = 'rated'
              AND TRY_CAST(details->'instruction_labels'->>$instruction_label AS BOOLEAN) = false)
        SELECT p.submission_id,
               count(r.value) > 0 AS violated,
               CASE WHEN count(r.value) > 0
                    THEN $output_label || ' labelled on ' || string_agg(r.target || ' ' || r.value, ', ' ORDER BY r.target)
                         || ' though the instruction is marked not ' || $instruction_label
                    ELSE '' END AS detail
        FROM premise p
        LEFT JOIN ratings r
          ON r.submission_id = p.submission_id AND r.rubric = $rubric AND r.dimension = $output_label
        GROUP BY p.submission_id ORDER BY p.submission_id""",
        {"rubric": RUBRIC, "output_label": output_label, "instruction_label": instruction_label},
    )


HALLUCINATION_QUERY = only_where_query(_RUBRIC.dimension("hallucination").name, _instruction_label("closed_domain"))
CONSTRAINT_QUERY = only_where_query(
    _RUBRIC.dimension("follows_constraint").name, _instruction_label("explicit_constraint")
)

RANKING_QUERY = Query(
    "instruction following: the ranking agrees with the 1-7 ratings",
    """WITH outputs AS (
        SELECT r.submission_id, r.target,
               min(TRY_CAST(r.value AS INTEGER)) FILTER (WHERE r.dimension = $rating) AS rating,
               min(TRY_CAST(r.value AS INTEGER)) FILTER (WHERE r.dimension = $rank) AS rank
        FROM ratings r JOIN submissions s USING (submission_id)
        WHERE s.rubric = $rubric AND s.status = 'rated' AND r.rubric = $rubric AND r.dimension IN ($rating, $rank)
        GROUP BY r.submission_id, r.target),
    both_given AS (SELECT * FROM outputs WHERE rating IS NOT NULL AND rank IS NOT NULL),
    checked AS (SELECT submission_id FROM both_given GROUP BY submission_id HAVING count(DISTINCT rating) > 1),
    inverted AS (
        SELECT hi.submission_id,
               string_agg(hi.target || ' rated ' || hi.rating || ' is ranked ' || hi.rank || ', below '
                          || lo.target || ' rated ' || lo.rating || ' ranked ' || lo.rank,
                          '; ' ORDER BY hi.target, lo.target) AS detail
        FROM both_given hi JOIN both_given lo
          ON lo.submission_id = hi.submission_id AND hi.rating > lo.rating AND hi.rank > lo.rank
        GROUP BY hi.submission_id)
    SELECT c.submission_id, i.detail IS NOT NULL AS violated, coalesce(i.detail, '') AS detail
    FROM checked c LEFT JOIN inverted i USING (submission_id) ORDER BY c.submission_id""",
    {"rubric": RUBRIC, "rating": RATING, "rank": RANK},
)


RULES = (
    Rule(
        "if_hallucination_closed_domain",
        RUBRIC,
        'Hallucinations (yes/no): "Only applies if the instruction is closed domain."',
        ("submissions.details.instruction_labels.closed_domain", "ratings.value (hallucination)"),
        sql_check(HALLUCINATION_QUERY),
    ),
    Rule(
        "if_constraint_needs_constraint",
        RUBRIC,
        'Output follows explicit constraint in the instruction (yes/no): "Only applies if the instruction contains an '
        'explicit constraint."',
        ("submissions.details.instruction_labels.explicit_constraint", "ratings.value (follows_constraint)"),
        sql_check(CONSTRAINT_QUERY),
    ),
    Rule(
        "if_ranking_follows_ratings",
        RUBRIC,
        '"Rank them from best to worst, including ties" agreeing with the 1-7 ratings ("how good ... is the output"): '
        "a higher-rated output is never ranked below a lower-rated one.",
        ("ratings.value (rating)", "ratings.value (rank, from submissions.ranking)"),
        sql_check(RANKING_QUERY),
    ),
)
