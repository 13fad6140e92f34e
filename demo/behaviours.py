"""Rater models: the roster of contractors and researchers and how each perceives a latent true quality.

Every rater sees the true quality of an item (on a 0-4 scale, the index of a five-level scale) through
their own lens: a constant shift (leniency or severity), Gaussian noise, an occasional random click, a
pull towards whatever is shown first, a habit of calling comparisons equal, and for drifting raters
noise that grows week by week. Planted behaviours sit on a few named contractors; the rest are typical, and a
few typical ones are newcomers who join in the last weeks. Six typical contractors, noisier than the rest, get a
report card on the Monday of FEEDBACK_WEEK: half of them rate like careful contractors from then on, half do not
change. That same week a clearer rubric (GUIDELINE_WEEK) lowers every contractor's noise, and they stop reading a
difference between two answers as larger than it is. Answer comparison is everyone's main project; instruction
following and preference ranking each have a smaller team (`team`).
"""

from __future__ import annotations

import random
from collections.abc import Set
from dataclasses import asdict, dataclass, replace

N_CONTRACTORS = 40
N_RESEARCHERS = 4
N_NEWCOMERS = 3  # typical contractors who join late: too few tasks with researchers to be ranked
NEWCOMER_WEEK = 6  # the week (0-based, of 8) newcomers start in
TEAM_SIZE = 14  # contractors on each smaller project: one of each planted behaviour, the rest typical
# A rater's noise splits into a part shared by a whole submission and a part of each rated item; the
# total sd is about `noise` (0.85^2 + 0.5^2 ~ 1).
SHARED_NOISE, OWN_NOISE = 0.85, 0.5
# From this week (0-based) on a clearer rubric (worked examples, and when two answers are "about the same" or "much
# better") reaches every contractor: their own noise is multiplied by the factor, and they stop reading a difference
# between two answers GUIDELINE_CONTRAST times as large as it is. Researchers wrote the rubric and do not change.
GUIDELINE_WEEK, GUIDELINE_NOISE_FACTOR, GUIDELINE_CONTRAST = 4, 0.7, 2.2
# Feedback (issue 53): on the Monday of FEEDBACK_WEEK the six most active typical contractors who were there from
# the start (the most tasks shared with researchers) get a report card; before it they are noisier than the team and
# click at random now and then. The improvers then rate like careful contractors; the others change only as the
# whole team does (the guideline).
FEEDBACK_WEEK = GUIDELINE_WEEK
N_IMPROVERS = N_NON_IMPROVERS = 3
FEEDBACK_NOISE, FEEDBACK_P_RANDOM = (1.32, 1.42), 0.11
IMPROVED_NOISE, IMPROVED_P_RANDOM = 0.4, 0.0

# Planted behaviour -> (how many contractors, what a lead would see).
PLANTED = {
    "careful": (4, "agrees closely with researchers; low noise, normal durations"),
    "lenient": (3, "absolute ratings shifted up by about one level"),
    "severe": (3, "absolute ratings shifted down by about one level"),
    "always_equal": (2, 'answers "Equally good" (ties) on most comparisons'),
    "first_position": (3, "strongly favours whichever option is shown first"),
    "fast_careless": (3, "very short durations and near-random ratings"),
    "drifting": (3, "good in the first weeks, then noise and random clicks grow week by week"),
}

# Rubric rules (analytics/consistency) a planted behaviour breaks on purpose, at the rater's p_violate or through
# the habit itself (always_equal calls comparisons equal whatever the absolute ratings); every other rater keeps
# every rule. truth.json lists them per rater under "rule_breaking".
RULE_BREAKING = {
    # always_equal also ties the two preference-ranking responses in Best when the better one is Best.
    "always_equal": ("ac_comparison_follows_absolute", "pr_rank1_needs_all_high"),
    # fast_careless also writes one-line justifications naming one response id, reused across tasks.
    "fast_careless": (
        "ac_comparison_follows_absolute",
        "if_ranking_follows_ratings",
        "pr_justification_names_ids",
        "pr_justification_length",
        "pr_boilerplate_justification",
    ),
}


@dataclass(frozen=True)
class Rater:
    """One rater's identity and the parameters of their rating behaviour."""

    rater_id: str
    role: str
    behaviour: str
    noise: float  # sd of perception noise, in levels of a five-point scale
    shift: float = 0.0  # added to every absolute perception (leniency > 0, severity < 0)
    p_random: float = 0.02  # chance that a rating is a uniformly random level
    p_equal: float = 0.0  # chance of calling a comparison equal regardless of the answers
    first_bias: float = 0.05  # pull towards the option shown first, in levels of usefulness difference
    p_violate: float = 0.03  # chance of breaking a rubric rule the rater breaks (RULE_BREAKING; strong <= whole)
    speed: float = 1.0  # multiplies durations
    activity: float = 1.0  # relative share of tasks
    drift_from_week: int = -1  # first week (0-based) in which quality decays; -1 = never
    drift_noise: float = 0.0  # noise added per week after drift_from_week
    drift_random: float = 0.0  # random-click chance added per week after drift_from_week
    joined_week: int = 0  # first week (0-based) the rater works in; newcomers join late
    feedback_week: int = -1  # week (0-based) on whose Monday the rater got a report card; -1 = never
    noise_after: float | None = None  # own noise from feedback_week on; None = unchanged
    p_random_after: float | None = None  # random-click chance from feedback_week on; None = unchanged

    def breaks(self, rule_id: str) -> bool:
        """Whether the rater breaks this rubric rule on purpose (RULE_BREAKING)."""
        return rule_id in RULE_BREAKING.get(self.behaviour, ())

    def active_in(self, week: int) -> bool:
        """Whether the rater works in a given week (the pilot week, -1, counts as the first)."""
        return max(week, 0) >= self.joined_week

    def noise_in(self, week: int) -> float:
        """Noise sd in a given week: the rater's own (changed after feedback; a contractor's lower from
        GUIDELINE_WEEK on), plus a drifting rater's growth."""
        own = self.noise_after if self.noise_after is not None and self._after_feedback(week) else self.noise
        if self.role == "contractor" and week >= GUIDELINE_WEEK:
            own *= GUIDELINE_NOISE_FACTOR
        return own + self.drift_noise * self._weeks_drifted(week)

    def contrast_in(self, week: int) -> float:
        """How many times its size the rater reads a difference between two answers in a given week."""
        return GUIDELINE_CONTRAST if self.role == "contractor" and week < GUIDELINE_WEEK else 1.0

    def p_random_in(self, week: int) -> float:
        """Chance of a random rating in a given week."""
        own = self.p_random_after if self.p_random_after is not None and self._after_feedback(week) else self.p_random
        return min(0.9, own + self.drift_random * self._weeks_drifted(week))

    def _after_feedback(self, week: int) -> bool:
        """Whether `week` is in or after the week the rater got feedback."""
        return 0 <= self.feedback_week <= week

    def _weeks_drifted(self, week: int) -> int:
        """How many weeks of decay a drifting rater has had by `week`."""
        return max(0, week - self.drift_from_week + 1) if self.drift_from_week >= 0 else 0

    def params(self) -> dict:
        """The behaviour parameters for truth.json."""
        d = asdict(self)
        for k in ("rater_id", "role", "behaviour"):
            d.pop(k)
        return {k: round(v, 3) if isinstance(v, float) else v for k, v in d.items()}


def _planted(behaviour: str, rid: str, rng: random.Random) -> Rater:
    """A contractor with one planted behaviour and its parameters."""
    if behaviour == "careful":
        return Rater(rid, "contractor", behaviour, noise=0.38, p_random=0.0, p_violate=0.01, speed=1.2)
    if behaviour == "lenient":
        return Rater(rid, "contractor", behaviour, noise=0.55, shift=rng.uniform(0.9, 1.1), activity=1.3)
    if behaviour == "severe":
        return Rater(rid, "contractor", behaviour, noise=0.55, shift=-rng.uniform(0.9, 1.1), activity=1.3)
    if behaviour == "always_equal":
        return Rater(rid, "contractor", behaviour, noise=0.6, p_equal=0.85, activity=1.3)
    if behaviour == "first_position":
        return Rater(rid, "contractor", behaviour, noise=0.6, first_bias=1.6, activity=1.3)
    if behaviour == "fast_careless":
        return Rater(rid, "contractor", behaviour, noise=1.2, p_random=0.7, p_violate=0.3, speed=0.12, activity=1.3)
    if behaviour == "drifting":
        return Rater(
            rid,
            "contractor",
            behaviour,
            noise=0.4,
            p_random=0.0,
            activity=1.3,
            drift_from_week=3,
            drift_noise=0.3,
            drift_random=0.12,
        )
    raise ValueError(f"unknown behaviour {behaviour!r}")


def roster(seed: int) -> list[Rater]:
    """Contractors c01..c40 (planted behaviours on randomly chosen ones) and researchers r01..r04."""
    rng = random.Random(f"{seed}-roster")
    ids = [f"c{i:02d}" for i in range(1, N_CONTRACTORS + 1)]
    order = ids[:]
    rng.shuffle(order)
    chosen: dict[str, str] = {}
    for behaviour, (count, _) in PLANTED.items():
        for _ in range(count):
            chosen[order.pop()] = behaviour
    newcomers = {order.pop() for _ in range(N_NEWCOMERS)}
    raters = []
    for rid in ids:
        if rid in chosen:
            raters.append(_planted(chosen[rid], rid, rng))
        elif rid in newcomers:
            raters.append(
                Rater(
                    rid,
                    "contractor",
                    "typical",
                    noise=rng.uniform(0.6, 0.8),
                    shift=rng.gauss(0, 0.15),
                    first_bias=rng.uniform(0.0, 0.15),
                    speed=rng.uniform(1.0, 1.4),
                    joined_week=NEWCOMER_WEEK,
                )
            )
        else:
            raters.append(
                Rater(
                    rid,
                    "contractor",
                    "typical",
                    noise=rng.uniform(0.5, 0.75),
                    shift=rng.gauss(0, 0.15),
                    first_bias=rng.uniform(0.0, 0.15),
                    activity=rng.uniform(0.85, 1.3),
                    speed=rng.uniform(0.8, 1.2),
                )
            )
    raters = _give_feedback(raters, random.Random(f"{seed}-feedback"))
    for i in range(1, N_RESEARCHERS + 1):
        raters.append(
            Rater(
                f"r{i:02d}",
                "researcher",
                "researcher",
                noise=0.38,
                p_random=0.0,
                p_violate=0.01,
                first_bias=0.0,
                speed=1.3,
            )
        )
    return raters


def _give_feedback(raters: list[Rater], rng: random.Random) -> list[Rater]:
    """The roster with the feedback recipients' parameters: the most active typical contractors there from the
    start, by activity alternately an improver and a non-improver, all noisier before the feedback."""
    typical = [r for r in raters if r.behaviour == "typical" and r.joined_week == 0]
    chosen = sorted(typical, key=lambda r: (-r.activity, r.rater_id))[: N_IMPROVERS + N_NON_IMPROVERS]
    changed = {}
    for i, r in enumerate(chosen):
        improves = i % 2 == 0
        changed[r.rater_id] = replace(
            r,
            noise=rng.uniform(*FEEDBACK_NOISE),
            p_random=FEEDBACK_P_RANDOM,
            feedback_week=FEEDBACK_WEEK,
            noise_after=IMPROVED_NOISE if improves else None,
            p_random_after=IMPROVED_P_RANDOM if improves else None,
        )
    return [changed.get(r.rater_id, r) for r in raters]


def feedback_recipients(raters: list[Rater]) -> tuple[list[str], list[str]]:
    """The ids of the contractors who got feedback: (improvers, non-improvers)."""
    got = [r for r in raters if r.feedback_week >= 0]
    return sorted(r.rater_id for r in got if r.noise_after is not None), sorted(
        r.rater_id for r in got if r.noise_after is None
    )


def team(raters: list[Rater], project: str, seed: int) -> list[Rater]:
    """The contractors working on a smaller project: one of each planted behaviour, then typical contractors
    who were there from the start, TEAM_SIZE in all (newcomers work on the main project only)."""
    rng = random.Random(f"{seed}-team-{project}")
    chosen: list[Rater] = []
    for behaviour in PLANTED:
        chosen.append(rng.choice([r for r in raters if r.behaviour == behaviour]))
    typical = [r for r in raters if r.behaviour == "typical" and r.joined_week == 0]
    chosen += rng.sample(typical, TEAM_SIZE - len(chosen))
    return sorted(chosen, key=lambda r: r.rater_id)


def perceive(
    rater: Rater, true: float, week: int, rng: random.Random, scale: float = 1.0, shared: float = 0.0
) -> float:
    """A rater's continuous reading of a true value (on a 0-4 scale times `scale`), before rounding.

    `shared` is the rater's error common to everything they rate in one submission (see `impression`);
    the item's own error is smaller, so side-by-side differences are judged more reliably than levels.
    """
    if rng.random() < rater.p_random_in(week):
        return rng.uniform(-0.49, 4.49) * scale
    return true + (rater.shift + shared + rng.gauss(0, OWN_NOISE * rater.noise_in(week))) * scale


def to_level(x: float, n_levels: int) -> int:
    """Round a continuous reading to a level index 0..n_levels-1."""
    return max(0, min(n_levels - 1, int(round(x))))


def impression(rater: Rater, week: int, rng: random.Random) -> float:
    """A rater's error shared by all their ratings in one submission (their reading of the task as a whole)."""
    return rng.gauss(0, SHARED_NOISE * rater.noise_in(week))


def staff(
    rng: random.Random,
    contractors: list[Rater],
    researchers: list[Rater],
    week: int,
    calibration: tuple[float, int, float],
    p_three: float,
) -> list[Rater]:
    """Who labels one task. `calibration` is (share of tasks, contractors on each, chance of a second
    researcher): researchers label that share of tasks, and each such calibration task also goes to that many
    contractors, so every regular contractor shares enough tasks with researchers to be ranked; any other task
    goes to two contractors (three with chance p_three). Only contractors who have joined by `week` are picked."""
    share, n_contractors, p_second = calibration
    pool = [r for r in contractors if r.active_in(week)]
    if rng.random() < share:
        return pick(rng, pool, n_contractors) + pick(rng, researchers, 2 if rng.random() < p_second else 1)
    return pick(rng, pool, 3 if rng.random() < p_three else 2)


def pick(rng: random.Random, raters: list[Rater], k: int, exclude: Set[str] = frozenset()) -> list[Rater]:
    """k distinct raters drawn with probability proportional to their activity."""
    pool = [r for r in raters if r.rater_id not in exclude]
    chosen: list[Rater] = []
    for _ in range(min(k, len(pool))):
        total = sum(r.activity for r in pool)
        x = rng.uniform(0, total)
        for r in pool:
            x -= r.activity
            if x <= 0:
                break
        chosen.append(r)
        pool.remove(r)
    return chosen
