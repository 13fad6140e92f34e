"""Answers for the answer-comparison demo, assembled from a question's facts, with their true ratings.

What goes into an answer fixes its true absolute ratings (seeds/000 rubrics): supported core facts give
the core rating, a core claim no trustworthy or neutral source supports makes unsupported Bad, irrelevant
sentences lower irrelevant and coherence, and overall usefulness weighs them, capped by the rule that a
Good overall needs unsupported and core at least Neutral.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from demo.content.answers import SUSPICIOUS, TRUSTWORTHY, Question

CORE_BY_COUNT = (0.0, 1.1, 2.1, 3.0, 3.9)  # supported core facts -> true core rating
SIDE_BY_COUNT = (1.0, 2.6, 3.9)  # supported side facts -> true side rating


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


def _support(trust: str) -> str:
    """The support a claim gets from a source of this trustworthiness (seeds/000)."""
    return {TRUSTWORTHY: "Strong support", SUSPICIOUS: "No support"}.get(trust, "Weak support")


def _span(sentence: str, words: int = 6) -> str:
    """The first words of a sentence, as highlighted in the annotation tool."""
    parts = sentence.rstrip(".").split()
    return " ".join(parts[:words]) + ("..." if len(parts) > words else "")


def _compose(q: Question, z: float, rng: random.Random) -> list[tuple[str, str, int | None]]:
    """Which sentences an answer of quality z uses, as (sentence, kind, source index) in answer order."""
    core = [(s, "core", i) for i, s in q.core if rng.random() < 0.2 + 0.7 * z]
    side = [(s, "side", i) for i, s in q.side if rng.random() < 0.15 + 0.6 * z]
    body: list[tuple[str, str, int | None]] = [*core, *side]
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
    parts: list[str] = []
    sources: list[dict] = []
    claims: list[dict] = []
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
        """How many claims have this relevance and one of these supports."""
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


def build_pair(q: Question, id_prefix: str, rng: random.Random) -> dict[str, Option]:
    """Options A and B for one task: answers of related quality (often from similar systems), never identical."""
    za = rng.random() ** 0.8
    a = build_option(q, za, f"{id_prefix}-a", rng)
    for _ in range(5):
        b = build_option(q, min(1.0, max(0.0, za + rng.gauss(0, 0.35))), f"{id_prefix}-b", rng)
        if b.text != a.text:
            break
    return {"A": a, "B": b}
