"""Simulated answer-comparison submissions (docs/formats.md section 2, rubric seeds/000).

Each task pairs two answers assembled from a question's facts; what went into an answer fixes its true
absolute ratings (supported core facts -> core, claims without support -> unsupported, ...). Raters read
those through their behaviour, then follow the rubric: comparison ratings come from their own absolute
ratings (same = equal, 1 apart = better, 2+ = much better) except usefulness, which goes by how
convincingly one answer is better; an overall Good needs unsupported and core at least Neutral.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from analytics.demo import schedule
from analytics.demo.behaviours import Rater, impression, perceive, pick, to_level
from analytics.demo.content import phrases
from analytics.demo.content.answers import QUESTIONS, SUSPICIOUS, TRUSTWORTHY, Question
from analytics.rubrics import ABSOLUTE_LEVELS, ANSWER_CATEGORIES, COMPARISON_LEVELS

FORMAT = "concord.answer_comparison/v1"
N_TASKS = 1000
P_RESEARCHER = 0.15  # share of tasks a researcher also labels
P_SECOND_RESEARCHER = 0.35  # of those, share labelled by two researchers
P_ABSOLUTE = 0.35  # share of tasks with the Option tabs enabled; the rest are comparison only
MEDIAN_SECONDS = {True: 480.0, False: 240.0}  # by whether absolute ratings are asked for
CATEGORIES = tuple(name for name, _ in ANSWER_CATEGORIES)
QUICK_CATEGORIES = ("unsupported", "core", "usefulness")  # comparisons asked on comparison-only tasks
CORE_BY_COUNT = (0.0, 1.1, 2.1, 3.0, 3.9)  # supported core facts -> true core rating (seeds/000 rubric)
SIDE_BY_COUNT = (1.0, 2.6, 3.9)
EQUAL_BELOW, MUCH_FROM = 0.45, 1.4  # usefulness difference thresholds for equal / much better


@dataclass
class Option:
    """One assembled answer with its sources, true claim labels and true absolute ratings."""

    answer_id: str
    text: str
    sources: list[dict]
    claims: list[dict]
    true: dict[str, float]
    unsupported: list[str] = field(default_factory=list)
    irrelevant: list[str] = field(default_factory=list)
    n_core: int = 0
    has_side: bool = False


@dataclass
class Task:
    """One comparison task: a question, options A and B, and when and how it was labelled."""

    task_id: str
    question: Question
    options: dict[str, Option]
    week: int
    absolute: bool


def _support(trust: str) -> str:
    return {TRUSTWORTHY: "Strong support", SUSPICIOUS: "No support"}.get(trust, "Weak support")


def _span(sentence: str, words: int = 6) -> str:
    parts = sentence.rstrip(".").split()
    return " ".join(parts[:words]) + ("..." if len(parts) > words else "")


def _compose(q: Question, z: float, rng: random.Random) -> list[tuple[str, str, int | None]]:
    """Which sentences an answer of quality z uses, as (sentence, kind, source index) in answer order."""
    core = [(s, "core", i) for i, s in q.core if rng.random() < 0.2 + 0.7 * z]
    side = [(s, "side", i) for i, s in q.side if rng.random() < 0.15 + 0.6 * z]
    body = core + side
    if rng.random() < 0.5 * (1 - z) ** 1.2:
        body.insert(rng.randrange(0, len(core) + 1), (q.unsupported[0], "unsup_core", None))
    if rng.random() < 0.35 * (1 - z):
        body.insert(rng.randrange(0, len(body) + 1), (q.unsupported[1], "unsup_side", None))
    if rng.random() < 0.05 + 0.3 * (1 - z) or not body:
        body.insert(len(body) if rng.random() < 0.6 else 0, (q.irrelevant, "irrelevant", None))
    return body


def build_option(q: Question, z: float, answer_id: str, rng: random.Random) -> Option:
    """An answer of quality z (0..1) with numbered citations, citation errors and its true ratings."""
    p_cite_error = 0.25 * (1 - z)
    suspicious = next((s for s in q.sources if s[2] == SUSPICIOUS), ("Ask the community", "www.quora.com", SUSPICIOUS))
    parts, sources, claims = [], [], []
    for sentence, kind, src in _compose(q, z, rng):
        relevance = {"core": "Core", "unsup_core": "Core", "irrelevant": "Irrelevant"}.get(kind, "Side")
        support = "No support" if src is None else _support(q.sources[src][2])
        if kind == "irrelevant":
            support = "Weak support"  # common knowledge, but of no use to the asker
        cite = ""
        if src is not None and rng.random() >= p_cite_error:
            sources.append(_source(len(sources) + 1, q.sources[src], sentence))
            cite = f" [{len(sources)}]"
        elif src is None and kind != "irrelevant" and rng.random() < 0.4:
            sources.append(_source(len(sources) + 1, suspicious, sentence))
            cite = f" [{len(sources)}]"
        elif kind != "irrelevant" and (src is not None or rng.random() < 0.3):
            wrong = len(sources) + 2 if not sources or rng.random() < 0.3 else rng.randrange(1, len(sources) + 1)
            cite = f" [{wrong}]"
            claims.append({"span": f"[{wrong}]", "support": "Citation error", "relevance": None})
        parts.append(sentence + cite)
        claims.append({"span": _span(sentence), "support": support, "relevance": relevance})
    option = Option(answer_id, " ".join(parts), sources, claims, {})
    option.true = _true_ratings(claims, rng)
    option.unsupported = [c["span"] for c in claims if c["support"] == "No support"]
    option.irrelevant = [c["span"] for c in claims if c["relevance"] == "Irrelevant"]
    option.n_core = sum(c["relevance"] == "Core" and c["support"] in ("Strong support", "Weak support") for c in claims)
    option.has_side = any(c["relevance"] == "Side" and c["support"] != "No support" for c in claims)
    return option


def _source(n: int, src: tuple[str, str, str], sentence: str) -> dict:
    """A numbered source entry: the page and the snippet of it the answer drew on."""
    return {"n": n, "title": src[0], "domain": src[1], "quote": _span(sentence, 14), "trustworthiness": src[2]}


def _true_ratings(claims: list[dict], rng: random.Random) -> dict[str, float]:
    """True absolute ratings (0 = Very bad .. 4 = Very good) from what the answer contains (seeds/000)."""

    def count(rel: str, supports: tuple[str, ...]) -> int:
        return sum(c["relevance"] == rel and c["support"] in supports for c in claims)

    supported = ("Strong support", "Weak support")
    unsup_core, unsup_side = count("Core", ("No support",)), count("Side", ("No support",))
    n_irrelevant = sum(c["relevance"] == "Irrelevant" for c in claims)
    cite_errors = sum(c["support"] == "Citation error" for c in claims)
    t = {
        "unsupported": 1.0 if unsup_core else (2.4 if unsup_side else 4.0),
        "irrelevant": 2.3 if n_irrelevant else 4.0,
        "core": CORE_BY_COUNT[min(4, count("Core", supported))],
        "strong_core": CORE_BY_COUNT[min(4, count("Core", ("Strong support",)))],
        "side": SIDE_BY_COUNT[min(2, count("Side", supported))],
        "strong_side": SIDE_BY_COUNT[min(2, count("Side", ("Strong support",)))],
        "coherence": max(0.0, min(4.0, 3.6 - 0.5 * n_irrelevant - 0.2 * cite_errors + rng.gauss(0, 0.45))),
    }
    use = (
        0.5 * t["core"]
        + 0.15 * t["strong_core"]
        + 0.12 * t["side"]
        + 0.13 * t["coherence"]
        + 0.1 * t["irrelevant"]
        - 0.15 * cite_errors
    )
    if unsup_core:
        use = min(use, 1.2)  # unsupported core information: as good as nothing or worse
    elif unsup_side:
        use -= 0.4
    if t["unsupported"] < 2 or t["core"] < 2:
        use = min(use, 2.3)  # "Good" overall needs unsupported and core at least Neutral
    elif t["unsupported"] < 3 or t["core"] < 3:
        use = min(use, 3.3)  # "Very good" needs both at least Good
    t["usefulness"] = max(0.0, min(4.0, use))
    return t


def _screen(index: int, order: list[str]) -> int:
    """A comparison level index as clicked on screen, given the stored-id level index."""
    return index if order == ["A", "B"] else 4 - index


def _from_difference(d: float) -> int:
    """Comparison level index (0 = A much better .. 4 = B much better) from B minus A usefulness."""
    size = 0 if abs(d) < EQUAL_BELOW else (1 if abs(d) < MUCH_FROM else 2)
    return 2 + size if d > 0 else 2 - size


def true_comparison(task: Task) -> str:
    """The usefulness comparison a noiseless rater would give (stored ids)."""
    d = task.options["B"].true["usefulness"] - task.options["A"].true["usefulness"]
    return COMPARISON_LEVELS[_from_difference(d)]


def _perceive_option(rater: Rater, option: Option, week: int, shared: float, rng: random.Random) -> dict[str, float]:
    return {cat: perceive(rater, option.true[cat], week, rng, shared=shared) for cat in CATEGORIES}


def _absolute_levels(rater: Rater, seen: dict[str, float], rng: random.Random) -> dict[str, int]:
    levels = {cat: to_level(v, 5) for cat, v in seen.items()}
    for strong, whole in (("strong_core", "core"), ("strong_side", "side")):
        if levels[strong] > levels[whole] and rng.random() >= rater.p_violate:
            levels[strong] = levels[whole]  # strongly-supported information is part of all supported information
    needs_neutral = levels["unsupported"] < 2 or levels["core"] < 2
    if levels["usefulness"] >= 3 and needs_neutral and rng.random() >= rater.p_violate:
        levels["usefulness"] = 2  # seeds/000: a Good overall needs unsupported and core at least Neutral
        seen["usefulness"] = min(seen["usefulness"], 2.4)
    return levels


def _comparisons(
    rater: Rater,
    levels: dict[str, dict[str, int]],
    seen: dict[str, dict[str, float]],
    order: list[str],
    absolute: bool,
    week: int,
    rng: random.Random,
) -> dict[str, str]:
    """Comparison ratings as clicked on screen (A = the option shown first)."""
    asked = CATEGORIES if absolute else QUICK_CATEGORIES
    if rng.random() < rater.p_equal:
        return {cat: "Equally good" for cat in asked}
    out = {}
    for cat in asked:
        if rng.random() < rater.p_random_in(week):
            out[cat] = COMPARISON_LEVELS[rng.randrange(5)]
            continue
        if cat == "usefulness":
            d = seen["B"][cat] - seen["A"][cat]
            d_screen = (d if order == ["A", "B"] else -d) - rater.first_bias
            out[cat] = COMPARISON_LEVELS[_from_difference(d_screen)]
            continue
        diff = levels["B"][cat] - levels["A"][cat]
        if rng.random() < rater.p_violate:
            diff += rng.choice((-1, 1))
        stored = 2 + max(-2, min(2, diff))
        out[cat] = COMPARISON_LEVELS[_screen(stored, order)]
    return out


def _flagged(rater: Rater, q: Question, week: int, rng: random.Random) -> str:
    """The flag a rater ticks, or '' when they go on to rate the answers."""
    if q.flag:
        p = 1.0 if rater.role == "researcher" else 0.9 * (1 - rater.p_random_in(week))
        return q.flag if rng.random() < p else ""
    return "does_not_make_sense" if rng.random() < 0.004 + 0.03 * rater.p_random_in(week) else ""


def submission(task: Task, rater: Rater, rng: random.Random) -> dict:
    """One rater's submission for a task, as the comparisons site exports it."""
    when, week = schedule.submitted_at(task.week, rng, lag_days=2 if rater.role == "researcher" else 0)
    order = ["A", "B"] if rater.role == "researcher" or rng.random() < 0.5 else ["B", "A"]
    flag = _flagged(rater, task.question, week, rng)
    rec = {
        "format": FORMAT,
        "submission_id": f"{task.task_id}-{rater.rater_id}",
        "task_id": task.task_id,
        "rater_id": rater.rater_id,
        "role": rater.role,
        "submitted_at": when,
        "duration_s": schedule.duration(rater, MEDIAN_SECONDS[task.absolute] * (0.3 if flag else 1.0), rng),
        "task_kind": "normal",
        "question": task.question.text,
        "question_flags": {
            "does_not_make_sense": flag == "does_not_make_sense",
            "should_not_be_answered": flag == "should_not_be_answered",
        },
        "display_order": order,
    }
    if flag:
        rec["options"] = {k: _option_text(o) for k, o in task.options.items()}
        rec["comparison"] = {}
        rec["comment"] = phrases.FLAG_COMMENTS[flag] if rng.random() < 0.5 else ""
        return rec
    shared = impression(rater, week, rng)
    seen = {k: _perceive_option(rater, o, week, shared, rng) for k, o in task.options.items()}
    levels = {k: _absolute_levels(rater, seen[k], rng) for k in seen}
    rec["options"] = {k: _option_record(task, k, rater, levels[k], seen[k], week, rng) for k in task.options}
    rec["comparison"] = _comparisons(rater, levels, seen, order, task.absolute, week, rng)
    rec["comment"] = _comment(rater, task, rng)
    if rater.role == "researcher":
        rec["explanations"] = _explanations(task, rec["comparison"], rng)
    return rec


def _option_text(option: Option) -> dict:
    return {"answer_id": option.answer_id, "answer": option.text, "sources": option.sources}


def _option_record(
    task: Task, key: str, rater: Rater, levels: dict[str, int], seen: dict[str, float], week: int, rng: random.Random
) -> dict:
    """The option tab: text and sources, plus the rater's annotations and absolute ratings when asked."""
    option = task.options[key]
    rec = _option_text(option)
    if not task.absolute:
        return rec
    careless = rater.p_random_in(week)
    rec["sources"] = [_rated_source(s, careless, rng) for s in option.sources]
    rec["claims"] = [_rated_claim(c, careless, rng) for c in option.claims]
    rec["ratings"] = {cat: ABSOLUTE_LEVELS[levels[cat]] for cat in CATEGORIES}
    better = seen["usefulness"] > 1.0 if rng.random() >= careless else rng.random() < 0.5
    rec["better_than_nothing"] = "Better than nothing" if better else "Worse than nothing"
    rec["citation_errors"] = sum(c["support"] == "Citation error" for c in rec["claims"])
    writes = 0.95 if rater.role == "researcher" else (0.5 if careless < 0.3 else 0.03)
    strengths, weaknesses = _critique(option, rng) if rng.random() < writes else ("", "")
    rec["strengths"], rec["weaknesses"] = strengths, weaknesses
    return rec


def _rated_source(src: dict, careless: float, rng: random.Random) -> dict:
    if rng.random() < 0.04 + careless * 0.6:
        return {**src, "trustworthiness": rng.choice(("Trustworthy", "Neutral", "Suspicious"))}
    return src


def _rated_claim(claim: dict, careless: float, rng: random.Random) -> dict:
    if claim["support"] == "Citation error":
        return claim
    if rng.random() < 0.06 + careless * 0.6:
        return {**claim, "support": rng.choice(("Strong support", "Weak support", "No support"))}
    return claim


def _critique(option: Option, rng: random.Random) -> tuple[str, str]:
    """Strengths and weaknesses a rater notes about an answer."""
    good = option.true["usefulness"] >= 2.5
    strengths = rng.choice(phrases.STRENGTHS_GOOD if good else phrases.STRENGTHS_WEAK)
    if option.unsupported:
        weaknesses = phrases.WEAKNESS_UNSUPPORTED.format(claim=option.unsupported[0])
    elif option.irrelevant:
        weaknesses = phrases.WEAKNESS_IRRELEVANT.format(claim=option.irrelevant[0])
    elif option.n_core <= 1:
        weaknesses = phrases.WEAKNESS_THIN
    elif not option.has_side:
        weaknesses = phrases.WEAKNESS_NO_SIDE
    else:
        weaknesses = ""
    return strengths, weaknesses


def _comment(rater: Rater, task: Task, rng: random.Random) -> str:
    if rater.p_random > 0.3 or rng.random() > 0.07:
        return ""
    n = max(1, len(task.options["A"].sources))
    return rng.choice(phrases.CONTRACTOR_COMMENTS).format(n=rng.randint(1, n))


def _explanations(task: Task, comparison: dict[str, str], rng: random.Random) -> dict[str, str]:
    """Why the researcher chose their ratings (researchers see options in stored order)."""
    a, b = task.options["A"], task.options["B"]
    out = {"usefulness": _explain_usefulness(comparison["usefulness"], a, b)}
    for key, opt in (("A", a), ("B", b)):
        if opt.unsupported and "unsupported" not in out:
            out["unsupported"] = phrases.EXPLAIN_UNSUPPORTED.format(opt=key, claim=opt.unsupported[0])
        if opt.irrelevant and "irrelevant" not in out and rng.random() < 0.5:
            out["irrelevant"] = phrases.EXPLAIN_IRRELEVANT.format(opt=key, claim=opt.irrelevant[0])
    if abs(a.n_core - b.n_core) >= 2:
        more, n, m = ("A", a.n_core, b.n_core) if a.n_core > b.n_core else ("B", b.n_core, a.n_core)
        out["core"] = phrases.EXPLAIN_CORE.format(opt=more, n=n, m=m)
    if rng.random() < 0.2:
        opt = "A" if a.true["coherence"] >= b.true["coherence"] else "B"
        out["coherence"] = phrases.EXPLAIN_COHERENCE.format(opt=opt)
    return out


def _flaw(option: Option) -> str:
    if option.unsupported:
        return phrases.FLAWS["unsupported"].format(claim=option.unsupported[0])
    if option.n_core <= 1:
        return phrases.FLAWS["thin"]
    if option.irrelevant:
        return phrases.FLAWS["irrelevant"]
    return phrases.FLAWS["side" if not option.has_side else "none"]


def _explain_usefulness(value: str, a: Option, b: Option) -> str:
    if value == "Equally good":
        return phrases.EXPLAIN_USEFULNESS["equal"].format(a_note=f"A {_flaw(a)}", b_note=f"B {_flaw(b)}")
    better, worse = ("A", "B") if value.startswith("A") else ("B", "A")
    good, bad = (a, b) if better == "A" else (b, a)
    merit = "core" if good.n_core > bad.n_core else ("clean" if not good.unsupported else "coherent")
    kind = "much" if "much" in value else "better"
    return phrases.EXPLAIN_USEFULNESS[kind].format(
        better=f"Option {better}", worse=f"Option {worse}", flaw=_flaw(bad), merit=phrases.MERITS[merit]
    )


def make_tasks(rng: random.Random, n_tasks: int = N_TASKS) -> list[Task]:
    """The comparison tasks: a question and two answers of related quality, spread over the weeks."""
    normal = [q for q in QUESTIONS if not q.flag]
    flagged = [q for q in QUESTIONS if q.flag]
    tasks = []
    for t in range(n_tasks):
        q = rng.choice(flagged) if rng.random() < 0.015 else rng.choice(normal)
        za = rng.random() ** 0.8
        zb = min(1.0, max(0.0, za + rng.gauss(0, 0.35)))
        tid = f"ac-{t + 1:05d}"
        opts = {
            "A": build_option(q, za, f"ans-{t + 1:05d}-a", rng),
            "B": build_option(q, zb, f"ans-{t + 1:05d}-b", rng),
        }
        tasks.append(Task(tid, q, opts, week=t * schedule.WEEKS // n_tasks, absolute=rng.random() < P_ABSOLUTE))
    return tasks


def simulate(
    raters: list[Rater], seed: int, n_tasks: int = N_TASKS, p_researcher: float = P_RESEARCHER
) -> tuple[list[dict], dict]:
    """All submissions (contractors and researchers) and the latent truth per task."""
    rng = random.Random(f"{seed}-answer-comparison")
    contractors = [r for r in raters if r.role == "contractor"]
    researchers = [r for r in raters if r.role == "researcher"]
    records, truth = [], {}
    for task in make_tasks(rng, n_tasks):
        chosen = pick(rng, contractors, 2 if rng.random() < 0.45 else 3)
        if rng.random() < p_researcher:
            chosen += pick(rng, researchers, 2 if rng.random() < P_SECOND_RESEARCHER else 1)
        records.extend(submission(task, r, rng) for r in chosen)
        truth[task.task_id] = {
            "A": round(task.options["A"].true["usefulness"], 2),
            "B": round(task.options["B"].true["usefulness"], 2),
            "usefulness_comparison": true_comparison(task),
        }
    records.sort(key=lambda r: (r["submitted_at"], r["submission_id"]))
    return export_once(records), truth


def export_once(records: list[dict]) -> list[dict]:
    """Answer text and sources only with the first submission of each task in the file (keeps the demo small).

    Later submissions keep the answer id and, where the rater labelled sources, just their labels; the
    loader takes a task's text from its first record.
    """
    seen: set[str] = set()
    for rec in records:
        if rec["task_id"] not in seen:
            seen.add(rec["task_id"])
            continue
        for opt in rec["options"].values():
            opt.pop("answer", None)
            labels = [{"n": s["n"], "trustworthiness": s["trustworthiness"]} for s in opt.pop("sources", [])]
            if "ratings" in opt:
                opt["sources"] = labels
    return records
