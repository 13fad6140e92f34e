"""Rater models: the roster of contractors and researchers and how each perceives a latent true quality.

Every rater sees the true quality of an item (on a 0-4 scale, the index of a five-level scale) through
their own lens: a constant shift (leniency or severity), Gaussian noise, an occasional random click, a
pull towards whatever is shown first, a habit of calling comparisons equal, and for drifting raters
noise that grows week by week. Planted behaviours sit on a few named contractors; the rest are typical.
"""

from __future__ import annotations

import random
from collections.abc import Set
from dataclasses import asdict, dataclass

N_CONTRACTORS = 40
N_RESEARCHERS = 4
# A rater's noise splits into a part shared by a whole submission and a part of each rated item; the
# total sd is about `noise` (0.85^2 + 0.5^2 ~ 1).
SHARED_NOISE, OWN_NOISE = 0.85, 0.5

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
    p_violate: float = 0.03  # chance of breaking a rubric rule (comparison from absolute, Good needs core)
    speed: float = 1.0  # multiplies durations
    activity: float = 1.0  # relative share of tasks
    drift_from_week: int = -1  # first week (0-based) in which quality decays; -1 = never
    drift_noise: float = 0.0  # noise added per week after drift_from_week
    drift_random: float = 0.0  # random-click chance added per week after drift_from_week

    def noise_in(self, week: int) -> float:
        """Noise sd in a given week (grows for drifting raters)."""
        return self.noise + self.drift_noise * self._weeks_drifted(week)

    def p_random_in(self, week: int) -> float:
        """Chance of a random rating in a given week."""
        return min(0.9, self.p_random + self.drift_random * self._weeks_drifted(week))

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
    raters = []
    for rid in ids:
        if rid in chosen:
            raters.append(_planted(chosen[rid], rid, rng))
        else:
            raters.append(
                Rater(
                    rid,
                    "contractor",
                    "typical",
                    noise=rng.uniform(0.5, 0.75),
                    shift=rng.gauss(0, 0.15),
                    first_bias=rng.uniform(0.0, 0.15),
                    activity=rng.uniform(0.5, 1.3),
                    speed=rng.uniform(0.8, 1.2),
                )
            )
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
