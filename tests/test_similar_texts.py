"""Near-duplicate search (analytics/consistency/similar_texts.py): the same pairs and cosines as the full product
of the TF-IDF matrix with itself, which it replaces (prefix filtering: Bayardo, Ma and Srikant, WWW 2007), and
identical texts compared once."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.feature_extraction.text import TfidfVectorizer  # type: ignore[import-untyped]
from sklearn.preprocessing import normalize  # type: ignore[import-untyped]

from analytics.consistency import preference_ranking as pr
from analytics.consistency import similar_texts as st


def brute_force(m: sp.csr_matrix, threshold: float) -> set[tuple[int, int]]:
    """Every pair i < j of rows with cosine >= threshold, from the full product."""
    full = (m @ m.T).toarray()
    i, j = np.nonzero(np.triu(full >= threshold, k=1))
    return set(zip(i.tolist(), j.tolist(), strict=True))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("threshold", [0.3, 0.8, 0.95])
def test_the_pairs_and_cosines_of_the_full_product(seed: int, threshold: float) -> None:
    rng = np.random.default_rng(seed)
    base = sp.random(60, 40, density=0.15, random_state=seed, format="csr")
    # near copies of some rows: the pairs the threshold is about
    copies = base[rng.integers(0, 60, 40)] + sp.random(40, 40, density=0.03, random_state=seed + 99) * 0.3
    m = normalize(sp.vstack([base, copies]).tocsr())
    m.eliminate_zeros()
    rank = rng.permutation(m.shape[1])  # any order of the terms is exact; rarest first is the fast one
    i, j, v = st.similar_pairs(m, rank, threshold)
    assert set(zip(i.tolist(), j.tolist(), strict=True)) == brute_force(m, threshold)
    full = (m @ m.T).toarray()
    assert np.allclose(v, full[i, j])


def full_product_flags(df: pd.DataFrame, threshold: float = pr.NEAR_DUPLICATE) -> list[float | None]:
    """What the rule computed before: each row's best cosine over the same contractor's rows on tasks of another
    text, from the whole matrix multiplied by itself (None: none reaches the threshold)."""
    texts = [pr.masked(t, ids) for t, ids in zip(df["justification"], df["response_ids"], strict=True)]
    m = TfidfVectorizer(lowercase=True, ngram_range=(1, 2), sublinear_tf=True).fit_transform(texts)
    full = (m @ m.T).toarray()
    best: list[float | None] = []
    for a in range(len(df)):
        ok = (
            (df["rater_id"] == df["rater_id"][a]).to_numpy()
            & (df["task_text"] != df["task_text"][a]).to_numpy()
            & (full[a] >= threshold)
        )
        best.append(float(full[a][ok].max()) if ok.any() else None)
    return best


def test_the_rule_flags_what_the_full_product_flagged() -> None:
    rnd = random.Random(3)
    words = ["".join(rnd.choices("abcdefghij", k=5)) for _ in range(300)]  # no digits: numbers are masked
    templates = [" ".join(rnd.choices(words, k=25)) for _ in range(6)]
    rows = []
    for n in range(240):
        rater = f"c{n % 4}"
        if n % 3 == 0:  # a template, sometimes with a word changed
            text = rnd.choice(templates)
            if n % 2:
                text = text.replace(text.split()[rnd.randrange(25)], rnd.choice(words), 1)
        else:
            text = " ".join(rnd.choices(words, k=25))
        task = f"t{n // 2}"  # two contractors' justifications a task
        rows.append((f"s{n}", task, rater, text, f"text of {task}" if n % 10 else "shared text", []))
    df = pd.DataFrame(
        rows, columns=["submission_id", "task_id", "rater_id", "justification", "task_text", "response_ids"]
    )
    expected = full_product_flags(df)
    found = pr.near_duplicates(df)
    assert any(expected) and any(e is None for e in expected)
    for e, f in zip(expected, found, strict=True):
        assert (e is None) == (f == "")
        if e is not None:
            assert f.startswith(f"near-duplicate (cosine {e:.2f})")


def test_identical_texts_are_compared_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A template pasted 3,000 times by one contractor is one vector: the search's size is its distinct texts."""
    seen = []
    real = st.similar_pairs

    def recording(m: sp.csr_matrix, rank: np.ndarray, threshold: float) -> tuple[np.ndarray, ...]:
        seen.append(m.shape[0])
        return real(m, rank, threshold)

    monkeypatch.setattr(st, "similar_pairs", recording)
    n = 3000
    df = pd.DataFrame(
        {
            "submission_id": [f"s{k}" for k in range(n)],
            "task_id": [f"t{k}" for k in range(n)],
            "rater_id": "c01",
            "justification": [
                "Both responses are fine and follow the instructions well."
                if k % 2
                else f"A specific reason about task {k} and its answer number {k}."
                for k in range(n)
            ],
            "task_text": [f"text {k}" for k in range(n)],
            "response_ids": [[] for _ in range(n)],
        }
    )
    out = pr.near_duplicates(df)
    # numbers are masked: the specific reasons are one text too, so two distinct texts in all
    assert seen == [2]
    assert all(o.startswith("near-duplicate (cosine 1.00)") for o in out)
    assert out[1].endswith("on task t3") and out[3].endswith("on task t1")  # the first other task of that text
