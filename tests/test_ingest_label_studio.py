"""Label Studio JSON export (docs/formats.md, "Label Studio JSON export"; #13 part 2).

The export's shape follows Label Studio's task format (https://labelstud.io/guide/task_format: tasks with
`data`, `annotations[]` with `completed_by`, `result[]` of {from_name, to_name, type, value}, `lead_time`,
`created_at`, `ground_truth`, `was_cancelled`, and `predictions[]` with `model_version`) and its tags' result
values (choices: value.choices, rating: value.rating, number: value.number, textarea: value.text, taxonomy:
value.taxonomy, pairwise: value.selected, ranker: value.ranker). Small exports are written here; a real one is
built from Snow et al. (2008)'s RTE labels and gives the figures of the same data as canonical rows."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import shared_path

from analytics import agreement, store
from analytics.core.filters import Filters
from analytics.ingest import FORMATS, detect_format
from analytics.ingest.base import FormatOptions
from analytics.ingest.label_studio import config_scales
from analytics.ingest.load import ingest_bytes, ingest_file
from analytics.ingest.scales_file import parse_scales
from tests.cli_helpers import run_cli

CONFIG = """<View>
  <Text name="text" value="$text"/>
  <Choices name="sentiment" toName="text">
    <Choice value="Negative"/><Choice value="Neutral"/><Choice value="Positive" alias="pos"/>
  </Choices>
  <Rating name="stars" toName="text" maxRating="4"/>
  <Number name="score" toName="text" min="0" max="10"/>
  <Taxonomy name="topic" toName="text">
    <Choice value="Science"><Choice value="Biology"/><Choice value="Physics"/></Choice>
    <Choice value="Arts"/>
  </Taxonomy>
  <Pairwise name="better" toName="left,right"/>
  <TextArea name="why" toName="text"/>
  <Ranker name="order" toName="text"/>
</View>"""


def _result(name: str, kind: str, value: dict) -> dict:
    return {"id": f"r-{name}", "from_name": name, "to_name": "text", "type": kind, "value": value}


def _annotation(ann_id: int, who: Any, results: list[dict], **extra: Any) -> dict:
    return {"id": ann_id, "completed_by": who, "result": results, "was_cancelled": False, "ground_truth": False,
            "created_at": "2024-03-01T10:00:00Z", "lead_time": 12.5, **extra}  # fmt: skip


def _load(tmp_path: Path, tasks: list[dict], fmt: str = "auto", **options: Any) -> tuple:
    path = tmp_path / "export.json"
    path.write_text(json.dumps(tasks))
    con = store.open_store(":memory:")
    return con, ingest_file(con, path, fmt=fmt, options=FormatOptions(**options))


def _ratings(con) -> list[tuple]:
    return con.execute(
        "SELECT task_id, rater_id, role, dimension, value FROM ratings ORDER BY task_id, rater_id, dimension"
    ).fetchall()


def test_every_rating_result_type(tmp_path):
    """choices, rating, number, taxonomy and pairwise are ratings, each from_name a dimension."""
    results = [
        _result("sentiment", "choices", {"choices": ["Neutral"]}),
        _result("stars", "rating", {"rating": 3}),
        _result("score", "number", {"number": 7.0}),
        _result("topic", "taxonomy", {"taxonomy": [["Science", "Biology"]]}),
        _result("better", "pairwise", {"selected": "right"}),
    ]
    con, r = _load(tmp_path, [{"id": 4, "data": {"text": "t"}, "annotations": [_annotation(1, 8, results)]}])
    assert r.status == "loaded" and r.format == "label_studio" and r.rows_quarantined == 0
    assert _ratings(con) == [
        ("4", "8", "contractor", "better", "B"),
        ("4", "8", "contractor", "score", "7"),
        ("4", "8", "contractor", "sentiment", "Neutral"),
        ("4", "8", "contractor", "stars", "3"),
        ("4", "8", "contractor", "topic", "Science / Biology"),
    ]
    assert {x for (x,) in con.execute("SELECT DISTINCT rubric FROM ratings").fetchall()} == {"label_studio"}


def test_textarea_is_the_comment_ranker_the_ranking_pairwise_left_is_a_shown_first(tmp_path):
    results = [
        _result("better", "pairwise", {"selected": "left"}),
        _result("why", "textarea", {"text": ["clearer", "shorter"]}),
        _result("order", "ranker", {"ranker": {"rank": ["b", "a", "c"]}}),
    ]
    con, r = _load(tmp_path, [{"id": 1, "data": {"text": "t"}, "annotations": [_annotation(5, 2, results)]}])
    assert r.rows_loaded == 1 and r.rows_quarantined == 0
    assert con.execute("SELECT value, comment FROM ratings").fetchall() == [("A", "clearer\nshorter")]
    sub = con.execute("SELECT comment, ranking, shown_first, status FROM submissions").fetchall()
    assert sub == [("clearer\nshorter", '{"order": {"rank": ["b", "a", "c"]}}', "A", "rated")]


def test_lead_time_is_the_duration_created_at_the_time(tmp_path):
    res = [_result("sentiment", "choices", {"choices": ["Positive"]})]
    con, _ = _load(tmp_path, [{"id": 1, "data": {}, "annotations": [_annotation(5, 2, res)]}])
    duration, at = con.execute("SELECT duration_s, submitted_at FROM ratings").fetchall()[0]
    assert duration == 12.5 and at.isoformat().startswith("2024-03-01")
    assert con.execute("SELECT duration_s FROM submissions").fetchall() == [(12.5,)]


def test_completed_by_as_an_id_or_a_user_object_is_the_same_rater(tmp_path):
    res = [_result("sentiment", "choices", {"choices": ["Positive"]})]
    tasks = [
        {"id": 1, "data": {}, "annotations": [_annotation(1, 7, res)]},
        {"id": 2, "data": {}, "annotations": [_annotation(2, {"id": 7, "email": "ann@example.org"}, res)]},
    ]
    con, r = _load(tmp_path, tasks)
    assert r.rows_loaded == 2 and {rater for _, rater, *_ in _ratings(con)} == {"7"}


def test_ground_truth_annotations_and_chosen_annotators_are_researchers(tmp_path):
    res = [_result("sentiment", "choices", {"choices": ["Positive"]})]
    anns = [_annotation(1, 1, res), _annotation(2, 2, res, ground_truth=True), _annotation(3, 3, res)]
    con, _ = _load(tmp_path, [{"id": 1, "data": {}, "annotations": anns}])
    assert [(rater, role) for _, rater, role, *_ in _ratings(con)] == [
        ("1", "contractor"),
        ("2", "researcher"),
        ("3", "contractor"),
    ]
    con, _ = _load(tmp_path, [{"id": 1, "data": {}, "annotations": anns}], researchers=("3",))
    assert [(rater, role) for _, rater, role, *_ in _ratings(con)] == [
        ("1", "contractor"),
        ("2", "researcher"),
        ("3", "researcher"),
    ]


def test_predictions_are_raters_only_when_included(tmp_path):
    res = [_result("sentiment", "choices", {"choices": ["Positive"]})]
    task = {"id": 1, "data": {}, "annotations": [_annotation(1, 1, res)],
            "predictions": [{"id": 9, "model_version": "bert-v2", "score": 0.9, "result": res}]}  # fmt: skip
    con, r = _load(tmp_path, [task])
    assert r.rows_loaded == 1 and [rater for _, rater, *_ in _ratings(con)] == ["1"]
    con, r = _load(tmp_path, [task], include_predictions=True)
    assert r.rows_loaded == 2
    assert [(rater, role) for _, rater, role, *_ in _ratings(con)] == [
        ("1", "contractor"),
        ("prediction:bert-v2", "contractor"),
    ]


def test_cancelled_annotations_are_skipped_submissions_their_results_kept_in_quarantine(tmp_path):
    res = [_result("sentiment", "choices", {"choices": ["Negative"]})]
    anns = [_annotation(1, 1, res), _annotation(2, 2, res, was_cancelled=True)]
    con, r = _load(tmp_path, [{"id": 3, "data": {}, "annotations": anns}])
    assert r.rows_loaded == 1 and r.rows_quarantined == 1
    assert [rater for _, rater, *_ in _ratings(con)] == ["1"]
    assert con.execute("SELECT rater_id, status FROM submissions ORDER BY 1").fetchall() == [
        ("1", "rated"),
        ("2", "skipped"),
    ]
    assert "task 3, annotation 2, field sentiment: the annotation was cancelled" in r.errors[0]
    assert con.execute("SELECT raw_value FROM quarantine").fetchall() == [("Negative",)]


def test_unknown_result_type_is_quarantined_naming_the_task_the_rest_loads(tmp_path):
    """Bad input: a result type Concord does not read (a bounding box) is kept in quarantine with its JSON."""
    box = _result("box", "rectanglelabels", {"x": 1, "y": 2, "rectanglelabels": ["Car"]})
    res = [_result("sentiment", "choices", {"choices": ["Positive"]}), box]
    con, r = _load(tmp_path, [{"id": 17, "data": {}, "annotations": [_annotation(4, 1, res)]}])
    assert r.status == "loaded" and r.rows_loaded == 1 and r.rows_quarantined == 1
    assert (
        "export.json, task 17, annotation 4, field box (type rectanglelabels): result type rectanglelabels"
        in (r.errors[0])
    )
    record, field, raw = con.execute("SELECT record, field, raw_value FROM quarantine").fetchall()[0]
    assert (record, field) == ("task 17, annotation 4", "box") and json.loads(raw)["value"]["rectanglelabels"] == [
        "Car"
    ]


def test_several_choices_or_a_missing_annotator_are_quarantined(tmp_path):
    res = [_result("sentiment", "choices", {"choices": ["Positive", "Neutral"]})]
    ok = [_result("sentiment", "choices", {"choices": ["Positive"]})]
    anns = [_annotation(1, 1, res), _annotation(2, None, ok), _annotation(3, 3, ok)]
    con, r = _load(tmp_path, [{"id": 2, "data": {}, "annotations": anns}])
    assert r.rows_loaded == 1 and r.rows_quarantined == 2
    assert any("expected exactly one choice" in e for e in r.errors)
    assert any("task 2, annotation 2, field completed_by: the annotation names no annotator" in e for e in r.errors)


def test_a_time_that_is_not_a_time_is_quarantined_with_its_reason_the_submission_kept(tmp_path):
    res = [_result("sentiment", "choices", {"choices": ["Positive"]}), _result("why", "textarea", {"text": 5})]
    anns = [_annotation(1, 1, res, created_at="yesterday"), _annotation(2, 2, res[:1])]
    con, r = _load(tmp_path, [{"id": 6, "data": {}, "annotations": anns}])
    assert r.status == "loaded" and r.rows_loaded == 1 and r.rows_quarantined == 1
    assert "task 6, annotation 1, field submitted_at: submitted_at yesterday is not a date and time" in r.errors[0]
    assert con.execute("SELECT count(*) FROM submissions").fetchall() == [(2,)]


def test_auto_detected_and_specific():
    head = json.dumps([{"id": 1, "data": {"text": "x"}, "annotations": []}]).encode()
    assert detect_format(head, "project-1.json") == "label_studio"
    canonical = b'{"task_id": "t1", "rater_id": "r1", "dimension": "d", "value": "1", "annotations": []}\n'
    assert detect_format(canonical, "ratings.jsonl") != "label_studio"
    assert not FORMATS["label_studio"].detect(b'[{"question_id": 1, "annotator1": 0}]', "pandalm.json")


def test_config_declares_each_dimensions_levels_in_order():
    """The labelling config's tags give each from_name's scale: Choices in order (an alias is what results hold),
    Rating 1..maxRating, Number min..max, Taxonomy's paths, Pairwise A/B; TextArea and Ranker none."""
    scales = {s.dimension: s for s in config_scales(CONFIG, "config.xml").scales}
    assert set(scales) == {"sentiment", "stars", "score", "topic", "better"}
    assert (scales["sentiment"].measure, scales["sentiment"].levels) == ("nominal", ("Negative", "Neutral", "pos"))
    assert (scales["stars"].measure, scales["stars"].levels) == ("ordinal", ("1", "2", "3", "4"))
    assert scales["stars"].values == (1.0, 2.0, 3.0, 4.0)
    assert (scales["score"].measure, scales["score"].levels[0], scales["score"].levels[-1]) == ("interval", "0", "10")
    assert scales["topic"].levels == ("Science", "Science / Biology", "Science / Physics", "Arts")
    assert scales["better"].levels == ("A", "B")


def test_config_scales_are_declared_and_values_outside_them_quarantined(tmp_path):
    res1 = [_result("sentiment", "choices", {"choices": ["pos"]}), _result("stars", "rating", {"rating": 4})]
    res2 = [_result("sentiment", "choices", {"choices": ["Meh"]}), _result("stars", "rating", {"rating": 5})]
    tasks = [{"id": 1, "data": {}, "annotations": [_annotation(1, 1, res1), _annotation(2, 2, res2)]}]
    con, r = _load(tmp_path, tasks, ls_config=CONFIG)
    assert r.status == "loaded" and r.rows_loaded == 2 and r.rows_quarantined == 2
    dims = dict(
        con.execute(
            "SELECT dimension, levels FROM dimensions WHERE rubric = 'label_studio' AND source = 'declared'"
        ).fetchall()
    )
    assert dims["sentiment"] == ["Negative", "Neutral", "pos"] and dims["stars"] == ["1", "2", "3", "4"]
    assert con.execute("SELECT dimension, value_index FROM ratings ORDER BY 1").fetchall() == [
        ("sentiment", 2),
        ("stars", 3),
    ]


def test_without_config_the_scale_is_inferred(tmp_path):
    res = [_result("stars", "rating", {"rating": 4})]
    con, _ = _load(tmp_path, [{"id": 1, "data": {}, "annotations": [_annotation(1, 1, res)]}])
    assert con.execute("SELECT source FROM dimensions WHERE dimension = 'stars'").fetchall() == [("inferred",)]


def test_upload_and_command_line_take_the_options(tmp_path):
    res = [_result("sentiment", "choices", {"choices": ["Neutral"]})]
    data = json.dumps([{"id": 1, "data": {}, "annotations": [_annotation(1, 1, res)]}]).encode()
    con = store.open_store(":memory:")
    r = ingest_bytes(con, data, "export.json", options=FormatOptions(ls_config=CONFIG, researchers=("1",)))
    assert r.status == "loaded" and con.execute("SELECT role FROM ratings").fetchall() == [("researcher",)]
    (tmp_path / "export.json").write_bytes(data)
    (tmp_path / "config.xml").write_text(CONFIG)
    out = run_cli(
        "ingest", str(tmp_path / "export.json"), "--db", str(tmp_path / "s.db"),
        "--ls-config", str(tmp_path / "config.xml"), "--format", "label_studio", "--json", check=True,
    )  # fmt: skip
    (result,) = json.loads(out.stdout)["files"]
    assert result["status"] == "loaded" and any("declared label_studio/sentiment" in n for n in result["notes"])


# --- a real dataset through a Label Studio export --------------------------------------------------------------

RTE_CONFIG = """<View><Text name="text" value="$text"/>
<Choices name="entailment" toName="text"><Choice value="0"/><Choice value="1"/></Choices></View>"""
GOLD_USER = 1_000_000


def _rte() -> list[dict]:
    with open(shared_path("real-data", "snow2008", "rte.standardized.tsv"), newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def _rte_export(rows: list[dict]) -> tuple[list[dict], dict[str, int]]:
    """The RTE labels as a Label Studio export: a task per item, an annotation per worker label (workers get
    integer user ids as Label Studio's are; every other one is written as a user object), and the gold label as a
    ground-truth annotation. Returns the tasks and the worker -> user id map."""
    users: dict[str, int] = {}
    tasks: dict[str, dict] = {}
    for r in rows:
        uid = users.setdefault(r["!amt_worker_ids"], len(users) + 1)
        task = tasks.setdefault(r["orig_id"], {"id": int(r["orig_id"]), "data": {"text": r["orig_id"]},
                                               "annotations": []})  # fmt: skip
        who: Any = uid if uid % 2 else {"id": uid, "email": f"{r['!amt_worker_ids']}@example.org"}
        res = [_result("entailment", "choices", {"choices": [r["response"]]})]
        task["annotations"].append(_annotation(len(task["annotations"]) + 1, who, res))
    for r in rows:
        task = tasks[r["orig_id"]]
        if not any(a["ground_truth"] for a in task["annotations"]):
            res = [_result("entailment", "choices", {"choices": [r["gold"]]})]
            task["annotations"].append(_annotation(0, GOLD_USER, res, ground_truth=True))
    return list(tasks.values()), users


def _figures(payload: dict, names: dict[str, str] | None = None) -> dict:
    """The payload's figures without the names of rubric and dimension (raters renamed by `names`)."""
    names = names or {}
    drop = {"rubric", "dimension"}
    return {
        "dimensions": [{k: v for k, v in d.items() if k not in drop} for d in payload["dimensions"]],
        "pooled": [{k: v for k, v in d.items() if k not in drop} for d in payload.get("pooled", [])],
        "raters": sorted(
            (
                {**{k: v for k, v in d.items() if k not in drop}, "rater_id": names.get(d["rater_id"], d["rater_id"])}
                for d in payload["raters"]
            ),
            key=lambda d: d["rater_id"],
        ),  # fmt: skip
    }


def test_snow2008_rte_as_a_label_studio_export_gives_the_canonical_figures(tmp_path):
    """Snow et al. (2008) RTE (../shared/real-data/snow2008/rte.standardized.tsv: 800 items, 10 worker labels each,
    the expert gold label as ground truth): every agreement figure of the Label Studio export (with its labelling
    config) equals that of the same labels as canonical rows with the same scale declared."""
    rows = _rte()
    tasks, users = _rte_export(rows)
    con, r = _load(tmp_path, tasks, ls_config=RTE_CONFIG)
    assert r.status == "loaded" and r.rows_quarantined == 0 and r.rows_loaded == len(rows) + 800
    from_ls = agreement.contract_payload(
        con, agreement.AgreementSpec(level="nominal", n_boot=0, filters=Filters(rubric="label_studio"))
    )

    path = tmp_path / "rte.csv"
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["task_id", "rater_id", "role", "rubric", "dimension", "value"])
        gold: dict[str, str] = {}
        for x in rows:
            w.writerow([x["orig_id"], users[x["!amt_worker_ids"]], "contractor", "label_studio", "entailment",
                        x["response"]])  # fmt: skip
            gold.setdefault(x["orig_id"], x["gold"])
        for item, value in gold.items():
            w.writerow([item, GOLD_USER, "researcher", "label_studio", "entailment", value])
    scales = parse_scales(json.dumps({"scales": [{"rubric": "label_studio", "dimension": "entailment",
                                                  "level": "nominal", "levels": ["0", "1"]}]}), "rte.json")  # fmt: skip
    con2 = store.open_store(":memory:")
    assert ingest_file(con2, path, scales=scales).rows_quarantined == 0
    from_csv = agreement.contract_payload(
        con2, agreement.AgreementSpec(level="nominal", n_boot=0, filters=Filters(rubric="label_studio"))
    )
    assert from_ls == from_csv
    (dim,) = from_ls["dimensions"]
    assert dim["n_units"] == 800 and dim["n_ratings"] == len(rows) + 800
    assert len(from_ls["raters"]) == len(users)


def test_snow2008_rte_as_a_label_studio_export_gives_the_snow2008_loaders_figures(tmp_path):
    """The same export against the snow2008 adapter on the file itself (workers by their MTurk ids, gold as the
    researcher `gold`): every figure is equal once the rater ids are mapped."""
    if "snow2008" not in FORMATS:
        pytest.skip("no snow2008 adapter in analytics/ingest/ yet")
    rows = _rte()
    tasks, users = _rte_export(rows)
    con, _ = _load(tmp_path, tasks, ls_config=RTE_CONFIG)
    from_ls = agreement.contract_payload(
        con, agreement.AgreementSpec(level="nominal", n_boot=0, filters=Filters(rubric="label_studio"))
    )
    con2 = store.open_store(":memory:")
    r = ingest_file(con2, shared_path("real-data", "snow2008", "rte.standardized.tsv"), fmt="snow2008")
    assert r.status == "loaded", r.errors
    rubric = con2.execute("SELECT DISTINCT rubric FROM ratings").fetchall()[0][0]
    from_adapter = agreement.contract_payload(
        con2, agreement.AgreementSpec(level="nominal", n_boot=0, filters=Filters(rubric=rubric))
    )
    names = {str(uid): worker for worker, uid in users.items()} | {str(GOLD_USER): "gold"}
    assert _figures(from_ls, names) == _figures(from_adapter)
