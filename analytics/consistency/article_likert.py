"""Rules of the article Likert rubric (seeds/004_036f9224cbaf4c66.txt) a single submission can break or show.

A topic's three Likert scores are the `likert` dimension with the prediction as target; a score of 0, the
document's "not yet annotated", is stored as no rating and leaves the topic incomplete (analytics/ingest/
article_likert.py), so only rated topics (every slot filled) are checked. The two best predictions are
dimensions with target `task` and the prediction's name as value. docs/consistency.md says what each rule checks.
"""

from __future__ import annotations

from analytics.consistency.rule import Rule, sql_check
from analytics.core import rubrics
from analytics.core.queries import Query

RUBRIC = "article_likert"
_RUBRIC = rubrics.RUBRICS[RUBRIC]
LIKERT = _RUBRIC.primary
BEST = tuple(d.name for d in _RUBRIC.dimensions if d.group == "best")  # best_prediction_reference, _topic

BEST_IS_HIGHEST_QUERY = Query(
    "article Likert: each best prediction has the highest Likert score",
    """WITH rated AS (SELECT submission_id FROM submissions WHERE rubric = $rubric AND status = 'rated'),
    scores AS (
        SELECT r.submission_id, r.target AS prediction, TRY_CAST(r.value AS INTEGER) AS score
        FROM ratings r JOIN rated USING (submission_id)
        WHERE r.rubric = $rubric AND r.dimension = $likert),
    top AS (SELECT submission_id, max(score) AS top FROM scores GROUP BY submission_id),
    best AS (
        SELECT r.submission_id, r.dimension, r.value AS prediction
        FROM ratings r JOIN rated USING (submission_id)
        WHERE r.rubric = $rubric AND r.dimension IN (SELECT unnest($best))),
    judged AS (
        SELECT b.submission_id, b.dimension, b.prediction, s.score, t.top,
               (SELECT string_agg(o.prediction, ', ' ORDER BY list_position($predictions, o.prediction))
                FROM scores o WHERE o.submission_id = b.submission_id AND o.score = t.top) AS highest
        FROM best b JOIN top t USING (submission_id)
        LEFT JOIN scores s ON s.submission_id = b.submission_id AND s.prediction = b.prediction)
    SELECT submission_id,
           bool_or(score IS DISTINCT FROM top) AS violated,
           coalesce(string_agg(dimension || ' ' || prediction || ' (Likert ' || coalesce(score::VARCHAR, 'none')
                               || ') is not the highest: ' || highest || ' (Likert ' || top || ')', '; '
                               ORDER BY list_position($best, dimension))
                        FILTER (WHERE score IS DISTINCT FROM top), '') AS detail
    FROM judged GROUP BY submission_id ORDER BY submission_id""",
    {
        "rubric": RUBRIC,
        "likert": LIKERT,
        "best": list(BEST),
        "predictions": list(_RUBRIC.dimension(LIKERT).targets),
    },
)

REFERENCE_EQUALS_TOPIC_QUERY = Query(
    "article Likert: best prediction by reference equals best prediction by topic",
    """WITH best AS (
        SELECT r.submission_id,
               min(r.value) FILTER (WHERE r.dimension = $reference) AS by_reference,
               min(r.value) FILTER (WHERE r.dimension = $topic) AS by_topic
        FROM ratings r JOIN submissions s USING (submission_id)
        WHERE s.rubric = $rubric AND s.status = 'rated' AND r.rubric = $rubric
          AND r.dimension IN ($reference, $topic)
        GROUP BY r.submission_id)
    SELECT submission_id, by_reference = by_topic AS violated,
           CASE WHEN by_reference = by_topic THEN 'both best predictions are ' || by_reference ELSE '' END AS detail
    FROM best WHERE by_reference IS NOT NULL AND by_topic IS NOT NULL
    ORDER BY submission_id""",
    {"rubric": RUBRIC, "reference": BEST[0], "topic": BEST[1]},
)


RULES = (
    Rule(
        "al_best_is_highest",
        RUBRIC,
        '"choose the prediction that you think is the best representation" (best_prediction_reference and '
        "best_prediction_topic each) is one of the predictions with the highest Likert score.",
        ("ratings.value (likert, per prediction)", "ratings.value (best_prediction_reference, best_prediction_topic)"),
        sql_check(BEST_IS_HIGHEST_QUERY),
    ),
    Rule(
        "al_reference_equals_topic",
        RUBRIC,
        'Reported, never flagged: how often best_prediction_reference equals best_prediction_topic ("after defining '
        'these it feels they are the same"); here "violated" means the two are equal.',
        ("ratings.value (best_prediction_reference, best_prediction_topic)",),
        sql_check(REFERENCE_EQUALS_TOPIC_QUERY),
        flags=False,
    ),
)
