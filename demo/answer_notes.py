"""What raters write about answers: strengths, weaknesses, comments and researchers' explanations."""

from __future__ import annotations

import random

from demo.answer_options import Option
from demo.behaviours import Rater
from demo.content import phrases


def critique(option: Option, rng: random.Random) -> tuple[str, str]:
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


def comment(rater: Rater, options: dict[str, Option], rng: random.Random) -> str:
    """An occasional free-text comment (most submissions have none)."""
    if rater.p_random > 0.3 or rng.random() > 0.07:
        return ""
    n = max(1, len(options["A"].sources))
    return rng.choice(phrases.CONTRACTOR_COMMENTS).format(n=rng.randint(1, n))


def explanations(options: dict[str, Option], comparison: dict[str, str], rng: random.Random) -> dict[str, str]:
    """Why the researcher chose their ratings (researchers see options in stored order)."""
    a, b = options["A"], options["B"]
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
        better = "A" if a.true["coherence"] >= b.true["coherence"] else "B"
        out["coherence"] = phrases.EXPLAIN_COHERENCE.format(opt=better)
    return out


def _flaw(option: Option) -> str:
    """The worst thing about an answer, as a researcher would put it."""
    if option.unsupported:
        return phrases.FLAWS["unsupported"].format(claim=option.unsupported[0])
    if option.n_core <= 1:
        return phrases.FLAWS["thin"]
    if option.irrelevant:
        return phrases.FLAWS["irrelevant"]
    return phrases.FLAWS["side" if not option.has_side else "none"]


def _explain_usefulness(value: str, a: Option, b: Option) -> str:
    """The researcher's explanation of their usefulness comparison."""
    if value == "Equally good":
        return phrases.EXPLAIN_USEFULNESS["equal"].format(a_note=f"A {_flaw(a)}", b_note=f"B {_flaw(b)}")
    better, worse = ("A", "B") if value.startswith("A") else ("B", "A")
    good, bad = (a, b) if better == "A" else (b, a)
    merit = "core" if good.n_core > bad.n_core else ("clean" if not good.unsupported else "coherent")
    kind = "much" if "much" in value else "better"
    return phrases.EXPLAIN_USEFULNESS[kind].format(
        better=f"Option {better}", worse=f"Option {worse}", flaw=_flaw(bad), merit=phrases.MERITS[merit]
    )
