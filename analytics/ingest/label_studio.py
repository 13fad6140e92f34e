"""Label Studio JSON export: the list of tasks, each with `data`, `annotations` and optional `predictions`
(docs/formats.md, section "Label Studio JSON export"; https://labelstud.io/guide/task_format).

Each result's `from_name` is a dimension of the rubric RUBRIC; its annotator (`completed_by`, an id or a user
object) is the rater. Choices, rating, number and taxonomy results are ratings; a pairwise result's left/right
is A/B (left is shown first); a textarea is the annotation's comment and a ranker its ranking (submissions).
Ground-truth annotations, and annotators named in FormatOptions.researchers, are the researcher role;
`lead_time` is the duration, `created_at` the time. Cancelled annotations are kept as skipped submissions and
their results quarantined. Predictions are further raters only with FormatOptions.include_predictions.
The labelling config (FormatOptions.ls_config) declares each dimension's levels in their order.

A task whose `data` names a catalogued rubric (`rubric`) and Concord's task id (`task_id`), as a Concord labelling
plan's import does (analytics/plan/exports.py), comes home: its ratings are that rubric's under that id, each
`from_name` one of the rubric's dimensions, and the target the dimension's one target or, for a dimension rated per
answer, the item its `to_name` names (`item_A`: answer A). Any other task is the label_studio rubric's, under Label
Studio's id.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from analytics.core import rubrics
from analytics.ingest.base import FileRejected, FormatOptions, Parsed, Problem, as_json, ratings_frame
from analytics.ingest.scales_file import DeclaredScale, Scales

NAME = "label_studio"
TAKES_OPTIONS = True
RUBRIC = "label_studio"
RATING_TYPES = ("choices", "rating", "number", "taxonomy", "pairwise")
OTHER_TYPES = ("textarea", "ranker")
SIDES = {"left": "A", "right": "B"}  # the left item is the first toName, shown first
TAXONOMY_SEPARATOR = " / "
ITEM_PREFIX = "item_"  # a plan's data key (and a to_name) for an item's text: item_A is answer A
MAX_CONFIG_LEVELS = 1000  # a Number tag with a wider integer range is not declared (its values are inferred)


def detect(head: bytes, file_name: str) -> bool:
    """A JSON list whose first task has `annotations` (or `predictions`) and `data`."""
    text = head.decode("utf-8-sig", errors="replace").lstrip()
    if not text.startswith("["):
        return False
    start = text[:4096]
    return bool(re.search(r'"(annotations|predictions)"\s*:\s*\[', text)) and bool(
        re.search(r'"data"\s*:\s*\{', start) or re.search(r'"data"\s*:\s*\{', text)
    )


@dataclass(frozen=True)
class Annotation:
    """One annotation or prediction of a task, with who made it and in which role."""

    task_id: str
    rubric: str  # RUBRIC, or the catalogued rubric a plan's task names (module docstring)
    where: str  # "task 12, annotation 31", for messages
    rater_id: str
    role: str
    obj: dict[str, Any]
    submission_id: str


def parse(path: Path, file_name: str, con: duckdb.DuckDBPyConnection, options: FormatOptions) -> Parsed:
    """Candidate ratings, tasks and one submission per annotation; unreadable results quarantined."""
    tasks = _read(path, file_name)
    notes: list[str] = []
    scales = config_scales(options.ls_config, "labelling config") if options.ls_config else None
    rows: list[dict] = []
    problems: list[Problem] = []
    submissions: list[dict] = []
    task_rows: list[dict] = []
    cancelled = 0
    places: list[str] = []
    for i, task in enumerate(tasks, start=1):
        if not isinstance(task, dict):
            places.append(f"task {i}")
            problems.append(Problem(f"{file_name}, task {i}: expected a JSON object", record=f"task {i}"))
            continue
        task_id, rubric = _home(task, i)
        places.append(f"task {task_id}")
        task_rows.append({**_task(task, task_id, rubric), "place": f"task {task_id}"})  # its text is kept: it is used
        for ann in _annotations(task, task_id, rubric, file_name, options, problems):
            sub, ann_rows, ann_problems = _read_annotation(ann, file_name)
            submissions.append(sub)
            if sub["status"] == "skipped":
                cancelled += 1
                problems += [
                    Problem(
                        f"{file_name}, {ann.where}, field {r['dimension']}: the annotation was cancelled (skipped) "
                        f"in Label Studio, so its result {r['value']} is not used",
                        record=ann.where,
                        field=r["dimension"],
                        raw_value=r["value"],
                    )
                    for r in ann_rows
                ]
                continue
            rows += ann_rows
            problems += ann_problems
    if cancelled:
        notes.append(f"{file_name}: {cancelled} cancelled annotation(s) kept as skipped submissions")
    return Parsed(
        format=NAME,
        ratings=ratings_frame(rows),
        tasks=task_rows,
        submissions=submissions,
        problems=problems,
        notes=notes,
        scales=scales if scales is not None and scales.scales else None,
        record_places=places,
    )


def _read(path: Path, file_name: str) -> Iterator[Any]:
    """The export's tasks one at a time (a single task object counts as a list of one).

    The list is decoded task by task, never as one document: a 44 MB export read whole took 1 GB beside its rows
    (bench/RESULTS.md). Its nesting was bounded before (checks.check_nesting), so no task is too deep to read."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as e:
        raise FileRejected(f"{file_name}: not UTF-8 text (byte at offset {e.start}); save it as UTF-8") from e
    start = len(text) - len(text.lstrip())
    if text[start : start + 1] != "[":
        doc = _decoded(text, file_name)
        if not (isinstance(doc, dict) and "annotations" in doc):
            raise FileRejected(f"{file_name}: a Label Studio JSON export is a list of tasks, not {type(doc).__name__}")
        return iter([doc])
    return _tasks(text, start + 1, file_name)


def _decoded(text: str, file_name: str) -> Any:
    """The whole text as one JSON value."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise FileRejected(f"{file_name}, line {e.lineno}: not valid JSON ({e.msg})") from e


def _tasks(text: str, at: int, file_name: str) -> Iterator[Any]:
    """The elements of the JSON list whose first element starts at or after `at`, decoded one at a time."""
    decoder = json.JSONDecoder()
    try:
        while True:
            at = _skip(text, at)
            if text[at : at + 1] == "]":
                if text[at + 1 :].strip():
                    raise json.JSONDecodeError("Extra data", text, _skip(text, at + 1))
                return
            task, at = decoder.raw_decode(text, at)
            yield task
            at = _skip(text, at)
            if text[at : at + 1] == ",":
                at += 1
            elif text[at : at + 1] != "]":
                raise json.JSONDecodeError("Expecting ',' delimiter", text, at)
    except json.JSONDecodeError as e:
        raise FileRejected(f"{file_name}, line {e.lineno}: not valid JSON ({e.msg})") from e


def _skip(text: str, at: int) -> int:
    """The position of the first character at or after `at` that is not white space."""
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    return at


def _home(task: dict, i: int) -> tuple[str, str]:
    """The task's id and rubric: a plan's task names both in its data (module docstring), else Label Studio's id
    (its place in the list without one) in the label_studio rubric."""
    data = got if isinstance(got := task.get("data"), dict) else {}
    own, rubric = _text(data.get("task_id")), _text(data.get("rubric"))
    if own and rubric and rubrics.get_rubric(rubric) is not None:
        return own, rubric
    return _text(task.get("id")) or str(i), RUBRIC


def _target(rubric: str, dimension: str, res: dict) -> tuple[str | None, str]:
    """A rating's target in a catalogued rubric (a plan's task): the dimension's one target, else the item its
    to_name names; None and why not. Ratings of the label_studio rubric have no target ("")."""
    known = rubrics.get_rubric(rubric)
    if rubric == RUBRIC or known is None:
        return "", ""
    if not known.has_dimension(dimension):
        names = ", ".join(d.name for d in known.dimensions)
        return None, f"rubric {rubric} has no dimension {dimension} (its dimensions: {names})"
    targets = known.dimension(dimension).targets
    if len(targets) == 1:
        return targets[0], ""
    item = (_text(res.get("to_name")) or "").removeprefix(ITEM_PREFIX)
    if item and (not targets or item in targets):
        return item, ""
    return None, (
        f"dimension {dimension} is rated per item: its to_name must name one "
        f"({', '.join(ITEM_PREFIX + t for t in targets) or ITEM_PREFIX + '<item id>'})"
    )


def _annotations(
    task: dict, task_id: str, rubric: str, file_name: str, options: FormatOptions, problems: list[Problem]
) -> list[Annotation]:
    """The task's annotations (and predictions when asked for) with their rater and role."""
    out = []
    for kind, key in (("annotation", "annotations"), ("prediction", "predictions")):
        if kind == "prediction" and not options.include_predictions:
            continue
        raw = task.get(key) or []
        if not isinstance(raw, list):
            problems.append(
                Problem(f"{file_name}, task {task_id}, field {key}: expected a list", record=f"task {task_id}")
            )
            continue
        for j, a in enumerate(raw, start=1):
            where = f"task {task_id}, {kind} {(_text(a.get('id')) if isinstance(a, dict) else None) or j}"
            if not isinstance(a, dict):
                problems.append(Problem(f"{file_name}, {where}: expected a JSON object", record=where))
                continue
            rater = (
                f"prediction:{_text(a.get('model_version')) or 'unnamed model'}"
                if kind == "prediction"
                else _annotator(a.get("completed_by"))
            )
            role = "contractor"
            if kind == "annotation":
                if rater is None:
                    problems.append(
                        Problem(
                            f"{file_name}, {where}, field completed_by: the annotation names no annotator; its "
                            "results are not used",
                            record=where,
                            field="completed_by",
                            raw_value=(as_json(a) or "")[:500],
                        )
                    )
                    continue
                if a.get("ground_truth") is True or rater in options.researchers:
                    role = "researcher"
            if rater is None:
                continue
            sub_id = f"{rubric}/{task_id}/{kind}/{_text(a.get('id')) or f'{rater}#{j}'}"
            out.append(Annotation(task_id, rubric, where, rater, role, a, sub_id))
    return out


def _annotator(who: Any) -> str | None:
    """The rater id of `completed_by`: the id itself, or a user object's id (else its email)."""
    if isinstance(who, dict):
        return _text(who.get("id")) or _text(who.get("email"))
    return _text(who)


def _read_annotation(ann: Annotation, file_name: str) -> tuple[dict, list[dict], list[Problem]]:
    """The annotation's submission, its candidate ratings and the results that cannot be read."""
    a = ann.obj
    base = {
        "task_id": ann.task_id,
        "rater_id": ann.rater_id,
        "role": ann.role,
        "rubric": ann.rubric,
        "submitted_at": _text(a.get("created_at")),
        "duration_s": _text(a.get("lead_time")),
        "submission_id": ann.submission_id,
        "record": ann.where,
    }
    rows: list[dict] = []
    problems: list[Problem] = []
    comments: list[str] = []
    ranking: dict[str, Any] = {}
    shown_first = None
    results = a.get("result") or []
    if not isinstance(results, list):
        results = []
        problems.append(Problem(f"{file_name}, {ann.where}, field result: expected a list", record=ann.where))
    for k, res in enumerate(results, start=1):
        if not isinstance(res, dict):
            problems.append(Problem(f"{file_name}, {ann.where}, result {k}: expected a JSON object", record=ann.where))
            continue
        kind = str(res.get("type") or "").lower()
        name = _text(res.get("from_name")) or f"result {k}"
        value = got if isinstance(got := res.get("value"), dict) else {}
        where = f"{file_name}, {ann.where}, field {name} (type {kind or 'missing'})"
        if kind == "textarea":
            texts = got if isinstance(got := value.get("text"), list) else [got] if isinstance(got, str) else []
            comments += [str(t) for t in texts if str(t).strip()]
        elif kind == "ranker":
            ranking[name] = value.get("ranker")
        elif kind in RATING_TYPES:
            level, why = _level(kind, value)
            if level is None:
                problems.append(_problem(f"{where}: {why}", ann.where, name, res))
                continue
            target, why = _target(ann.rubric, name, res)
            if target is None:
                problems.append(_problem(f"{where}: {why}; this result is not used", ann.where, name, res))
                continue
            if kind == "pairwise":
                shown_first = SIDES["left"]
            rows.append({**base, "dimension": name, "target": target, "value": level})
        else:
            read = ", ".join((*RATING_TYPES, *OTHER_TYPES))
            problems.append(
                _problem(
                    f"{where}: result type {kind or '(none)'} is not one Concord reads (it reads {read}); "
                    "this result is not used",
                    ann.where,
                    name,
                    res,
                )
            )
    comment = "\n".join(comments) or None
    for r in rows:
        r["comment"] = comment
    status = "skipped" if a.get("was_cancelled") is True else "rated"
    submission = {
        "submission_id": ann.submission_id,
        "task_id": ann.task_id,
        "rubric": ann.rubric,
        "rater_id": ann.rater_id,
        "role": ann.role,
        "status": status,
        "reason": "cancelled in Label Studio" if status == "skipped" else None,
        "submitted_at": _iso_time(a.get("created_at")),
        "duration_s": _number(a.get("lead_time")),
        "comment": comment,
        "ranking": ranking or None,
        "shown_first": shown_first,
        "details": {"ground_truth": a.get("ground_truth")} if a.get("ground_truth") is not None else None,
    }
    return submission, rows, problems


def _level(kind: str, value: dict) -> tuple[str | None, str]:
    """The result's level as text, or None and why not."""
    if kind == "choices":
        got = value.get("choices")
        if not isinstance(got, list) or len(got) != 1:
            return None, f"expected exactly one choice, found {json.dumps(got)[:200]} (agreement needs one level)"
        return _text(got[0]), "an empty choice"
    if kind in ("rating", "number"):
        got = value.get(kind)
        if isinstance(got, bool) or not isinstance(got, int | float):
            return None, f"value.{kind} {json.dumps(got)[:200]} is not a number"
        return _text(got), ""
    if kind == "taxonomy":
        got = value.get("taxonomy")
        if not isinstance(got, list) or len(got) != 1 or not isinstance(got[0], list) or not got[0]:
            return None, f"expected exactly one taxonomy path, found {json.dumps(got)[:200]}"
        return TAXONOMY_SEPARATOR.join(str(p) for p in got[0]), ""
    got = value.get("selected")
    if got not in SIDES:
        return None, f"value.selected {json.dumps(got)[:200]} is not left or right"
    return SIDES[got], ""


def _problem(reason: str, record: str, name: str, res: Any) -> Problem:
    """A result that is not used, with its JSON kept."""
    return Problem(reason, record=record, field=name, raw_value=(as_json(res) or "")[:500])


def _task(task: dict, task_id: str, rubric: str) -> dict[str, Any]:
    """The task row: its data as metadata (the texts shown to annotators)."""
    data = got if isinstance(got := task.get("data"), dict) else {}
    texts = [str(v) for v in data.values() if isinstance(v, str)]
    return {
        "task_id": task_id,
        "rubric": rubric,
        "prompt": texts[0] if texts else None,
        "context": None,
        "metadata": {"data": data} if data else None,
    }


def _text(value: Any) -> str | None:
    """A JSON scalar as text (numbers as written: 3.0 as 3), None for null or blank."""
    if value is None or isinstance(value, dict | list):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = str(value).strip()
    return text or None


def _iso_time(value: Any) -> str | None:
    """An ISO 8601 time as written, else None (the ratings keep the text, and the load says why it is refused)."""
    text = _text(value)
    try:
        return text if text and dt.datetime.fromisoformat(text.replace("Z", "+00:00")) else None
    except ValueError:
        return None


def _number(value: Any) -> float | None:
    """A JSON number, else None."""
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


# --- the labelling config: each control tag's levels -----------------------------------------------------------


def config_scales(xml_text: str, config_name: str) -> Scales:
    """Declared scales from a labelling config: Choices and Taxonomy (nominal, in the config's order), Rating
    (ordinal 1..maxRating), Number (interval, integer min..max), Pairwise (nominal A, B)."""
    try:
        root = ET.fromstring(xml_text)
    except ET.ParseError as e:
        raise FileRejected(f"{config_name}: not a readable labelling config ({e})") from e
    scales = []
    for el in root.iter():
        tag, name = el.tag.lower(), el.get("name")
        if not name:
            continue
        where = f"{config_name}: <{el.tag} name={name}>"
        if tag == "choices":
            choices = [c.get("alias") or c.get("value") for c in el.iter() if c.tag.lower() == "choice"]
            scales.append(_nominal(name, [v for v in choices if v], where))
        elif tag == "taxonomy":
            scales.append(_nominal(name, _paths(el, ()), where))
        elif tag == "pairwise":
            scales.append(_nominal(name, list(SIDES.values()), where))
        elif tag == "rating":
            top = min(_int(el.get("maxRating"), 5) or 5, MAX_CONFIG_LEVELS)
            levels = [str(n) for n in range(1, top + 1)]
            scales.append(
                DeclaredScale(RUBRIC, name, "ordinal", tuple(levels), tuple(float(v) for v in levels), where=where)
            )
        elif tag == "number":
            low, high = _int(el.get("min"), None), _int(el.get("max"), None)
            if low is not None and high is not None and 0 < high - low < MAX_CONFIG_LEVELS:
                levels = [str(n) for n in range(low, high + 1)]
                scales.append(
                    DeclaredScale(RUBRIC, name, "interval", tuple(levels), tuple(float(v) for v in levels), where=where)
                )
    return Scales(config_name, tuple(s for s in scales if s.levels))


def _nominal(name: str, levels: list[str], where: str) -> DeclaredScale:
    unique = tuple(dict.fromkeys(levels))
    return DeclaredScale(RUBRIC, name, "nominal", unique, tuple(None for _ in unique), where=where)


def _paths(el: ET.Element, prefix: tuple[str, ...]) -> list[str]:
    """Every path of a taxonomy's nested Choice tags, parents before children."""
    out = []
    for c in el:
        if c.tag.lower() != "choice" or not (c.get("alias") or c.get("value")):
            continue
        path = (*prefix, str(c.get("alias") or c.get("value")))
        out += [TAXONOMY_SEPARATOR.join(path), *_paths(c, path)]
    return out


def _int(text: str | None, default: int | None) -> int | None:
    try:
        return int(float(text)) if text is not None else default
    except (ValueError, OverflowError):
        return default
