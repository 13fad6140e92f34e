"""One definition of every input format as users see it: its fields, when to use it, and a small sample file.

The Data page shows these (its Formats section, each sample a download), the message for a file no format
recognises names the closest ones by their fields (analytics/ingest/closest.py), and tests/test_ingest_samples.py
loads every sample with its format and checks nothing is quarantined. The full reference is docs/formats.md.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Field:
    """A column or key a format reads, what it holds, and whether a file must have it."""

    name: str
    holds: str
    required: bool = True


@dataclass(frozen=True)
class Guide:
    """A format as the Data page documents it: its choice under Format, when to use it, its fields, a sample."""

    name: str  # the choice under Format (and --format on the command line)
    title: str
    when: str  # one sentence: when to use this format
    fields: tuple[Field, ...]
    file_name: str  # some formats read the annotator, task or source from the name, so the sample keeps one
    sample: str

    @property
    def required(self) -> tuple[str, ...]:
        """The names of the fields a file must have."""
        return tuple(f.name for f in self.fields if f.required)

    @property
    def mime(self) -> str:
        """The sample's media type, from its name."""
        if self.file_name.endswith((".json", ".jsonl")):
            return "application/json"
        return "text/tab-separated-values" if self.file_name.endswith(".tsv") else "text/csv"


def _lines(*records: Any) -> str:
    """Records as JSON lines."""
    return "".join(json.dumps(r) + "\n" for r in records)


def _array(*records: Any) -> str:
    """Records as one indented JSON array."""
    return json.dumps(list(records), indent=1) + "\n"


def _answer_comparison(rater: str, role: str, a: str, b: str, comparison: str) -> dict[str, Any]:
    """One answer-comparison submission rating the usefulness of two answers and comparing them."""
    return {
        "format": "concord.answer_comparison/v1",
        "submission_id": f"ac-1-{rater}",
        "task_id": "ac-1",
        "rater_id": rater,
        "role": role,
        "submitted_at": "2026-03-02T14:05:11Z",
        "duration_s": 412,
        "question": "Why is the sky blue?",
        "display_order": ["A", "B"],
        "options": {
            "A": {"answer": "Sunlight scatters off air molecules, blue light most.", "ratings": {"usefulness": a}},
            "B": {"answer": "Because it reflects the sea.", "ratings": {"usefulness": b}},
        },
        "comparison": {"usefulness": comparison},
    }


def _instruction_following(rater: str, first: int, second: int) -> dict[str, Any]:
    """One instruction-following submission: two outputs rated 1-7 and ranked."""
    return {
        "format": "concord.instruction_following/v1",
        "submission_id": f"if-1-{rater}",
        "task_id": "if-1",
        "rater_id": rater,
        "submitted_at": "2026-03-04T09:12:40Z",
        "status": "rated",
        "instruction": "Say hello in one word.",
        "outputs": [
            {"output_id": "o1", "text": "Hello.", "rating": first},
            {"output_id": "o2", "text": "Good morning to you, dear reader.", "rating": second},
        ],
        "ranking": [["o1"], ["o2"]],
    }


def _preference_ranking(rater: str, accuracy: int) -> dict[str, Any]:
    """One preference-ranking submission: two responses rated 1-5 on accuracy and ranked."""
    return {
        "format": "concord.preference_ranking/v1",
        "submission_id": f"pr-1-{rater}",
        "task_id": "pr-1",
        "rater_id": rater,
        "submitted_at": "2026-03-05T17:40:02Z",
        "prompt": "How do I find a new job?",
        "action": "rate",
        "responses": [
            {"response_id": "r1", "text": "List your skills, then ...", "rank": 1, "ratings": {"accuracy": accuracy}},
            {"response_id": "r2", "text": "Just quit.", "rank": 2, "ratings": {"accuracy": 2}},
        ],
    }


def _topic(name: str, first: int, second: int, third: int) -> dict[str, Any]:
    """One article-Likert topic: three predictions scored 1-5 and the best ones named."""
    return {
        "topic": name,
        "reference": f"The reference article on {name}.",
        "first_prediction": "First draft.",
        "second_prediction": "Second draft.",
        "third_prediction": "Third draft.",
        "best_prediction_reference": "first_prediction",
        "best_prediction_topic": "first_prediction",
        "first_prediction_likert": first,
        "second_prediction_likert": second,
        "third_prediction_likert": third,
    }


def _label_studio_task(i: int, text: str, labels: tuple[str, str]) -> dict[str, Any]:
    """One Label Studio task annotated by users 1 and 2 with a sentiment choice."""
    return {
        "id": i,
        "data": {"text": text},
        "annotations": [
            {
                "id": 10 * i + who,
                "completed_by": who,
                "created_at": "2024-03-01T10:00:00Z",
                "lead_time": 12.5,
                "result": [
                    {"from_name": "sentiment", "to_name": "text", "type": "choices", "value": {"choices": [label]}}
                ],
            }
            for who, label in enumerate(labels, start=1)
        ],
    }


def _squality_story(passage: str) -> dict[str, Any]:
    """One SQuALITY story: a question whose two summaries two writers rated (0-100) and ranked."""

    def review(worker: str, score: int, rank: int) -> dict[str, str]:
        return {"worker_id": worker, "overall-rating": str(score), "overall-rank": str(rank)}

    return {
        "passage-id": passage,
        "questions": {
            "0": {
                "bart": {"response": "A short summary.", "reviews": [review("2", 40, 2), review("3", 35, 2)]},
                "human": {"response": "A careful summary.", "reviews": [review("2", 80, 1), review("3", 90, 1)]},
            }
        },
    }


CANONICAL = Guide(
    "canonical",
    "Ratings, one per row: CSV, Parquet or JSON lines",
    "Use it for ratings from any tool you can export as a table: one row per rater, unit and dimension.",
    (
        Field("task_id", "the unit rated"),
        Field("rater_id", "who rated it"),
        Field("dimension", "what was rated (e.g. helpfulness)"),
        Field("value", "the rating, a number or a label"),
        Field("role", "contractor (default) or researcher", False),
        Field("rubric", "the rubric the dimension belongs to", False),
        Field("target", "the option rated within the unit (A, B, an output id)", False),
        Field("submitted_at", "when, ISO 8601 (2026-03-02T14:05:11)", False),
        Field("duration_s", "seconds spent", False),
        Field("comment", "the rater's comment", False),
        Field("shown_first", "the option shown first, A or B", False),
    ),
    "ratings.csv",
    "task_id,rater_id,role,rubric,dimension,value,submitted_at\n"
    + "".join(
        f"t{t},{rater},{role},support_replies,helpfulness,{value},2026-03-0{t}T10:00:00\n"
        for t, row in enumerate(((4, 4, 5), (2, 3, 2), (5, 4, 5)), start=1)
        for (rater, role), value in zip(
            (("c01", "contractor"), ("c02", "contractor"), ("r01", "researcher")), row, strict=True
        )
    ),
)

WIDE = Guide(
    "wide",
    "The wide layout: one row per item, one column per rater",
    "Use it for an items x raters table (R's irr, spreadsheets, papers' supplementary data); it is never "
    "detected, so choose Format: wide.",
    (
        Field("id, item, unit, subject, group or task_id", "the item id, as the first column (else Item id column)"),
        Field("one column per rater", "each cell that rater's rating of the row's item; an empty cell is missing"),
    ),
    "fluency.csv",
    "item,r1,r2,r3\n1,4,4,5\n2,2,3,2\n3,5,5,5\n4,1,2,1\n5,3,3,4\n",
)

RATER_DIRECTORY = Guide(
    "rater_directory",
    "Rater directory: one row per person",
    "Use it when one person appears under several ids, or to show names, teams and active periods.",
    (
        Field("rater_id", "the person's id"),
        Field("display_name", "the name pages show"),
        Field("aliases", "the person's other ids, separated by ;", False),
        Field("team", "their team", False),
        Field("active_from", "first active day, YYYY-MM-DD", False),
        Field("active_to", "last active day, YYYY-MM-DD", False),
    ),
    "people.csv",
    "rater_id,display_name,aliases,team,active_from,active_to\n"
    "c01,Dana K.,annotator_1,north,2026-01-01,2026-12-31\n"
    "r01,Rae O.,annotator_101; researcher_1,research,,\n",
)

FEEDBACK_LOG = Guide(
    "feedback_log",
    "Feedback log: feedback given outside Concord",
    "Use it for report cards or talks given by email or in a call, so follow-ups measure what came after them.",
    (
        Field("rater_id", "the contractor who was given feedback"),
        Field("sent_at", "when: an ISO date or timestamp (UTC when it names no zone)"),
        Field("rubric", "the rubric the feedback was about (empty: every rubric they rate)", False),
        Field("note", "what was said, in a few words", False),
    ),
    "feedback_log.csv",
    "rater_id,sent_at,rubric,note\n"
    "c01,2026-03-30T10:00:00Z,answer_comparison,usefulness comparisons: read both answers in full\n"
    "c02,2026-03-31,,weekly call\n",
)

LABEL_STUDIO = Guide(
    "label_studio",
    "Label Studio JSON export",
    "Use it for a Label Studio project exported with Export > JSON (add the labelling config to declare scales).",
    (
        Field("id", "the task"),
        Field("data", "the texts shown to annotators"),
        Field("annotations", "each with completed_by (the annotator) and result (from_name is the dimension)"),
        Field("predictions", "model predictions, raters only when asked", False),
    ),
    "project.json",
    _array(
        _label_studio_task(1, "The delivery came a day early.", ("Positive", "Positive")),
        _label_studio_task(2, "It works, I suppose.", ("Neutral", "Negative")),
    ),
)

ANSWER_COMPARISON = Guide(
    "answer_comparison",
    "Answer comparison submissions, JSON or JSON lines",
    "Use it for the comparisons site's exports: two answers rated on eight categories and compared.",
    (
        Field("format", "concord.answer_comparison/v1"),
        Field("task_id", "the question"),
        Field("rater_id", "who rated"),
        Field("options", "A and B, each with its answer and ratings"),
        Field("comparison", "A much better .. B much better per category"),
        Field("display_order", "which option was shown first", False),
    ),
    "comparisons.jsonl",
    _lines(
        _answer_comparison("c01", "contractor", "Good", "Bad", "A better"),
        _answer_comparison("r01", "researcher", "Very good", "Bad", "A much better"),
    ),
)

INSTRUCTION_FOLLOWING = Guide(
    "instruction_following",
    "Instruction following submissions, JSON or JSON lines",
    "Use it for instruction-following exports: each output rated 1-7, labelled and ranked.",
    (
        Field("format", "concord.instruction_following/v1"),
        Field("task_id", "the instruction"),
        Field("rater_id", "who rated"),
        Field("outputs", "each with output_id, rating (1-7) and labels"),
        Field("ranking", "tie groups of output ids, best first", False),
    ),
    "instructions.jsonl",
    _lines(_instruction_following("c01", 6, 2), _instruction_following("c02", 7, 2)),
)

PREFERENCE_RANKING = Guide(
    "preference_ranking",
    "Preference ranking submissions, JSON or JSON lines",
    "Use it for preference-ranking exports: responses rated 1-5 on eight dimensions and ranked 1-3.",
    (
        Field("format", "concord.preference_ranking/v1"),
        Field("task_id", "the conversation"),
        Field("rater_id", "who rated"),
        Field("action", "rate, skip or reject"),
        Field("responses", "each with response_id, rank and ratings"),
    ),
    "preferences.jsonl",
    _lines(_preference_ranking("c01", 5), _preference_ranking("c02", 4)),
)

ARTICLE_LIKERT = Guide(
    "article_likert",
    "Article Likert files, one annotator's topics each",
    "Use it for the annotators' preference_json_N_completed.json files; N in the name is the annotator.",
    (
        Field("reference", "the reference article (keys the topic when there is no topic)"),
        Field("first_prediction_likert", "1-5, likewise second_ and third_; 0 is not annotated yet"),
        Field("best_prediction_reference", "the best prediction against the reference"),
        Field("best_prediction_topic", "the best prediction for the topic"),
        Field("topic", "the topic's name", False),
    ),
    "preference_json_1_completed.json",
    _array(_topic("Apollo 11", 4, 3, 2), _topic("Cricket World Cup final", 5, 2, 3)),
)

MEDICAL_SAFETY = Guide(
    "medical_safety",
    "Medical safety crowd or expert file, Abercrombie & Rieser 2022",
    "Use it for medicheck-crowd.csv or medicheck-expert.csv from GavinAbercrombie/medical-safety.",
    (
        Field("query", "the user's query (the unit)"),
        Field("query-expert", "the clinician's seriousness label (expert file: query-label-expert)"),
        Field("query-cws", "the crowd's labels as a list, e.g. ['Serious', 'Critical']"),
        Field("alexa-response, -expert, -cws", "a system's response and its labels, likewise dialogpt, reddit", False),
    ),
    "medicheck-crowd.csv",
    "query,query-expert,query-cws,alexa-response,alexa-response-expert,alexa-response-cws\n"
    "Is a headache after a fall serious?,Serious,\"['Serious', 'Critical', 'Serious']\",See a doctor today.,"
    "Recommendations,\"['Recommendations', 'Recommendations']\"\n"
    "What is the capital of Peru?,Not medical,\"['Not medical', 'Not medical']\",Lima.,Non-medical query,"
    "\"['Non-medical query']\"\n",
)

SQUALITY = Guide(
    "squality",
    "SQuALITY human evaluation, one story a line",
    "Use it for nyu-mll/SQuALITY's data/human-eval/all-responses.jsonl.",
    (
        Field("passage-id", "the story"),
        Field("questions", "per question, per system: response and reviews (worker_id, ratings 0-100, ranks 1-3)"),
    ),
    "all-responses.jsonl",
    _lines(_squality_story("1001"), _squality_story("1002")),
)

JUDGE_BENCH = Guide(
    "judge_bench",
    "JUDGE-BENCH dataset file, one JSON object",
    "Use it for dmg-illc/JUDGE-BENCH data files: labels per instance and metric without rater ids.",
    (
        Field("dataset", "the dataset's name"),
        Field("annotations", "one entry per metric, with its labels or worst and best"),
        Field("instances", "each with id, instance and per metric individual_human_scores"),
    ),
    "toy_bench.json",
    json.dumps(
        {
            "dataset": "toy_bench",
            "annotations": [{"metric": "Fluency", "category": "graded", "worst": 1, "best": 5}],
            "instances": [
                {"id": i, "instance": text, "annotations": {"Fluency": {"individual_human_scores": scores}}}
                for i, (text, scores) in enumerate((("A clear sentence.", [5, 4, 5]), ("Sentence a it.", [1, 2, 1])))
            ],
        },
        indent=1,
    )
    + "\n",
)

SNOW2008 = Guide(
    "snow2008",
    "Snow et al. 2008 standardized TSV",
    "Use it for the TASK.standardized.tsv files of Snow et al.'s MTurk labels; the task comes from the file name.",
    (
        Field("!amt_annotation_ids", "the label's id"),
        Field("!amt_worker_ids", "the worker"),
        Field("orig_id", "the item"),
        Field("response", "the worker's label"),
        Field("gold", "the expert label"),
    ),
    "rte.standardized.tsv",
    "!amt_annotation_ids\t!amt_worker_ids\torig_id\tresponse\tgold\n"
    + "".join(f"a{i}\tw{i % 3}\t{1 + i // 3}\t{label}\t{gold}\n" for i, (label, gold) in enumerate(
        ((1, 1), (1, 1), (0, 1), (0, 0), (0, 0), (0, 0))
    )),
)  # fmt: skip

QAGS = Guide(
    "qags",
    "QAGS MTurk judgments, one summary a line",
    "Use it for W4ngatang/qags's mturk_cnndm.jsonl or mturk_xsum.jsonl; the source comes from the file name.",
    (
        Field("article", "the summarised article"),
        Field("summary_sentences", "each with sentence and responses (worker_id, response yes or no)"),
    ),
    "mturk_cnndm.jsonl",
    _lines(
        *(
            {
                "article": f"Article {n}.",
                "summary_sentences": [
                    {"sentence": f"Sentence {n}.", "responses": [{"worker_id": w, "response": r} for w, r in votes]}
                ],
            }
            for n, votes in ((1, ((0, "yes"), (1, "yes"), (2, "no"))), (2, ((0, "no"), (1, "no"), (2, "no"))))
        )
    ),
)

PANDALM = Guide(
    "pandalm",
    "PandaLM test set or an LLM judge's file",
    "Use it for WeOpenML/PandaLM's testset-v1.json (three annotators) and its judges' files, joined by idx.",
    (
        Field("idx", "the comparison"),
        Field("instruction", "the instruction", False),
        Field("response1", "the first response", False),
        Field("response2", "the second response", False),
        Field("annotator1", "0 tie, 1 or 2 the better response; likewise annotator2, annotator3"),
    ),
    "testset-v1.json",
    _array(
        *(
            {"idx": idx, "instruction": "Add 2 and 2.", "input": "", "response1": "4", "response2": "5",
             "annotator1": a, "annotator2": b, "annotator3": c}
            for idx, (a, b, c) in enumerate(((1, 1, 1), (0, 2, 2)))
        )
    ),
)  # fmt: skip

# In the order the Data page lists them: the general formats first, then the exports, then the public datasets.
GUIDES: dict[str, Guide] = {
    g.name: g
    for g in (
        CANONICAL,
        WIDE,
        RATER_DIRECTORY,
        FEEDBACK_LOG,
        LABEL_STUDIO,
        ANSWER_COMPARISON,
        INSTRUCTION_FOLLOWING,
        PREFERENCE_RANKING,
        ARTICLE_LIKERT,
        MEDICAL_SAFETY,
        SQUALITY,
        JUDGE_BENCH,
        SNOW2008,
        QAGS,
        PANDALM,
    )
}
