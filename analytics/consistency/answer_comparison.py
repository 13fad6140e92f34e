"""Rules of the answer-comparison rubric (seeds/000_f96e06de9b1c697e.txt) a single submission can break.

Dimension names, level order and which comparison is the overall one (not derived from the absolute ratings) come
from the catalogue (analytics/core/rubrics.py). What each rule checks, and what it leaves out, is in docs/consistency.md.
"""

from __future__ import annotations

from analytics.consistency.rule import Rule, sql_check
from analytics.core import rubrics
from analytics.core.queries import Query

RUBRIC = "answer_comparison"
_RUBRIC = rubrics.RUBRICS[RUBRIC]
COMPARISON_SUFFIX = "_comparison"
OVERALL = _RUBRIC.primary.removesuffix(COMPARISON_SUFFIX)  # "Usefulness overall", rated per option
# seeds/000: "Both 'Unsupported information' and 'Core information' should be at least ..." for Good, Very good.
BASIS = tuple(_RUBRIC.dimension(name).name for name in ("unsupported", "core"))
ABSOLUTE = _RUBRIC.dimension(OVERALL).levels  # Very bad .. Very good
COMPARISON = _RUBRIC.dimension(_RUBRIC.primary).levels  # A much better .. B much better
NEUTRAL, GOOD, VERY_GOOD = "Neutral", "Good", "Very good"
FACT_CHECKING = "fact_checking"  # task_kind of a fact-checking task ("fact-checking" is read the same)
OPTIONS = _RUBRIC.dimension(OVERALL).targets  # the options rated on their own: A and B


def _derived_pairs() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(absolute, comparison) dimension names whose comparison follows from the absolute ratings: every
    comparison dimension with an absolute counterpart except the primary (overall usefulness)."""
    pairs = [
        (d.name.removesuffix(COMPARISON_SUFFIX), d.name)
        for d in _RUBRIC.dimensions
        if d.is_comparison
        and d.name != _RUBRIC.primary
        and _RUBRIC.has_dimension(d.name.removesuffix(COMPARISON_SUFFIX))
    ]
    return tuple(a for a, _ in pairs), tuple(c for _, c in pairs)


def _absolute_dimensions() -> tuple[str, ...]:
    """The absolute dimensions rated on the five-level scale (Very bad .. Very good) per option."""
    return tuple(d.name for d in _RUBRIC.dimensions if not d.is_comparison and d.levels == ABSOLUTE)


DERIVED_ABSOLUTE, DERIVED_COMPARISON = _derived_pairs()

COMPARISON_QUERY = Query(
    "answer comparison: comparison ratings that follow from the two absolute ratings",
    """WITH pairs AS (SELECT unnest($absolute) AS absolute, unnest($comparison) AS comparison),
    rated AS (
        SELECT s.submission_id
        FROM submissions s LEFT JOIN tasks t ON t.task_id = s.task_id AND t.rubric = s.rubric
        WHERE s.rubric = $rubric AND s.status = 'rated'
          AND replace(lower(coalesce(s.details->>'task_kind', t.metadata->>'task_kind', '')), '-', '_') <> $kind),
    own AS (
        SELECT r.submission_id, p.absolute, p.comparison,
               min(list_position($levels, r.value)) FILTER (WHERE r.dimension = p.absolute AND r.target = 'A') AS a,
               min(list_position($levels, r.value)) FILTER (WHERE r.dimension = p.absolute AND r.target = 'B') AS b,
               min(r.value) FILTER (WHERE r.dimension = p.comparison AND r.target = 'comparison') AS given
        FROM ratings r JOIN rated USING (submission_id)
        JOIN pairs p ON r.dimension IN (p.absolute, p.comparison)
        WHERE r.rubric = $rubric
        GROUP BY r.submission_id, p.absolute, p.comparison),
    judged AS (
        SELECT *, $comparison_levels[3 + sign(b - a) * least(abs(b - a), 2)] AS expected
        FROM own WHERE a IS NOT NULL AND b IS NOT NULL AND given IS NOT NULL)
    SELECT submission_id,
           bool_or(given <> expected) AS violated,
           coalesce(string_agg(
               comparison || ': A ' || $levels[a] || ' vs B ' || $levels[b] || ' should be ''' || expected
               || ''', is ''' || given || '''', '; ' ORDER BY comparison) FILTER (WHERE given <> expected), '') AS detail
    FROM judged GROUP BY submission_id ORDER BY submission_id""",
    {
        "rubric": RUBRIC,
        "absolute": list(DERIVED_ABSOLUTE),
        "comparison": list(DERIVED_COMPARISON),
        "levels": list(ABSOLUTE),
        "comparison_levels": list(COMPARISON),
        # Fact-checking tasks compare the fact-checking, with placeholder Neutral absolute ratings (seeds/000,
        # "Fact-checking task"): their comparisons cannot follow from the absolute ratings.
        "kind": FACT_CHECKING,
    },
)


def overall_query(overall: str, at_least: str) -> Query:
    """Options rated `overall` on usefulness need unsupported and core information at least `at_least`."""
    return Query(
        f"answer comparison: an overall {overall} needs unsupported and core at least {at_least}",
        """WITH rated AS (SELECT submission_id FROM submissions WHERE rubric = $rubric AND status = 'rated'),
        options AS (
            SELECT r.submission_id, r.target,
                   bool_or(r.dimension = $overall AND r.value = $level) AS rated_level,
                   list(r.dimension || ' ' || r.value ORDER BY r.dimension) FILTER (
                       WHERE list_contains($basis, r.dimension)
                         AND coalesce(list_position($levels, r.value) < list_position($levels, $at_least), false)
                   ) AS below
            FROM ratings r JOIN rated USING (submission_id)
            WHERE r.rubric = $rubric AND list_contains($options, r.target)
              AND (r.dimension = $overall OR list_contains($basis, r.dimension))
            GROUP BY r.submission_id, r.target)
        SELECT submission_id,
               bool_or(len(coalesce(below, [])) > 0) AS violated,
               coalesce(string_agg(
                   target || ' is ' || $level || ' overall with ' || array_to_string(below, ', '), '; ' ORDER BY target
               ) FILTER (WHERE len(coalesce(below, [])) > 0), '') AS detail
        FROM options WHERE rated_level GROUP BY submission_id ORDER BY submission_id""",
        {
            "rubric": RUBRIC,
            "overall": OVERALL,
            "level": overall,
            "at_least": at_least,
            "basis": list(BASIS),
            "levels": list(ABSOLUTE),
            "options": list(OPTIONS),
        },
    )


GOOD_QUERY = overall_query(GOOD, NEUTRAL)
VERY_GOOD_QUERY = overall_query(VERY_GOOD, GOOD)

FACT_CHECKING_QUERY = Query(
    "answer comparison: absolute ratings on fact-checking tasks are Neutral",
    """WITH fact_checking AS (
        SELECT s.submission_id
        FROM submissions s LEFT JOIN tasks t ON t.task_id = s.task_id AND t.rubric = s.rubric
        WHERE s.rubric = $rubric AND s.status = 'rated'
          AND replace(lower(coalesce(s.details->>'task_kind', t.metadata->>'task_kind', '')), '-', '_') = $kind)
    SELECT r.submission_id,
           bool_or(r.value <> $neutral) AS violated,
           coalesce(string_agg(r.target || ' ' || r.dimension || ' ' || r.value, ', ' ORDER BY r.target, r.dimension)
               FILTER (WHERE r.value <> $neutral), '') AS detail
    FROM ratings r JOIN fact_checking USING (submission_id)
    WHERE r.rubric = $rubric AND list_contains($absolute, r.dimension) AND list_contains($options, r.target)
    GROUP BY r.submission_id ORDER BY r.submission_id""",
    {
        "rubric": RUBRIC,
        "kind": FACT_CHECKING,
        "neutral": NEUTRAL,
        "absolute": list(_absolute_dimensions()),
        "options": list(OPTIONS),
    },
)

FLAGGED_QUERY = Query(
    "answer comparison: a flagged question has no ratings",
    """WITH flagged AS (
        SELECT submission_id,
               len(list_filter(
                   map_values(json_transform(coalesce(details->'comparison_clicked', '{}'), '"MAP(VARCHAR, VARCHAR)"')),
                   lambda v: v IS NOT NULL)) AS clicked
        FROM submissions WHERE rubric = $rubric AND status = 'flagged'),
    stored AS (
        SELECT r.submission_id, count(*) AS n
        FROM ratings r JOIN flagged USING (submission_id) WHERE r.rubric = $rubric GROUP BY r.submission_id)
    SELECT f.submission_id,
           f.clicked > 0 OR coalesce(s.n, 0) > 0 AS violated,
           CASE WHEN f.clicked > 0 OR coalesce(s.n, 0) > 0
                THEN concat_ws(', ',
                    CASE WHEN s.n > 0 THEN s.n || ' ratings stored' END,
                    CASE WHEN f.clicked > 0 THEN f.clicked || ' comparison ratings clicked' END)
                ELSE '' END AS detail
    FROM flagged f LEFT JOIN stored s USING (submission_id) ORDER BY f.submission_id""",
    {"rubric": RUBRIC},
)


RULES = (
    Rule(
        "ac_comparison_follows_absolute",
        RUBRIC,
        'For every category except usefulness overall, compare the absolute ratings: "Neutral: Same absolute rating; '
        'Better: Absolute ratings differ by 1; Much better: Absolute ratings differ by 2 or more."',
        ("ratings.value (absolute, targets A and B)", "ratings.value (<category>_comparison)"),
        sql_check(COMPARISON_QUERY),
    ),
    Rule(
        "ac_good_needs_neutral",
        RUBRIC,
        "Usefulness overall Good: \"Both 'Unsupported information' and 'Core information' should be at least "
        'neutral for a good rating overall."',
        ("ratings.value (usefulness, unsupported, core; targets A and B)",),
        sql_check(GOOD_QUERY),
    ),
    Rule(
        "ac_very_good_needs_good",
        RUBRIC,
        "Usefulness overall Very good: \"Both 'Unsupported information' and 'Core information' should be at least "
        'good for a very good rating overall."',
        ("ratings.value (usefulness, unsupported, core; targets A and B)",),
        sql_check(VERY_GOOD_QUERY),
    ),
    Rule(
        "ac_fact_checking_neutral",
        RUBRIC,
        'Fact-checking tasks: "Absolute ratings: these should be rare; always mark them as Neutral if you see them."',
        ("submissions.details.task_kind", "tasks.metadata.task_kind", "ratings.value (absolute, targets A and B)"),
        sql_check(FACT_CHECKING_QUERY),
    ),
    Rule(
        "ac_flagged_no_ratings",
        RUBRIC,
        '"If you flag a question, you do not need to do anything else except click the submit button": a question '
        "flagged as not making sense or not to be answered has no ratings.",
        ("submissions.status", "submissions.details.comparison_clicked", "ratings (of the submission)"),
        sql_check(FLAGGED_QUERY),
    ),
)
