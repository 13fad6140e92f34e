"""Pairs of texts whose TF-IDF vectors reach a cosine threshold, in time bounded by the pairs that share a rare
term rather than by the square of the texts (the boilerplate rule of the preference-ranking rubric).

Multiplying a contractor's whole TF-IDF matrix by itself compares every pair of their justifications: on the demo
copied to a million tasks (bench/documents_store.py) it had not finished after 6 minutes, and a load re-checks the
rubric whole. Two steps keep it bounded:
- identical texts are one vector: a template pasted a thousand times is compared once;
- prefix filtering (Bayardo, Ma and Srikant, "Scaling up all pairs similarity search", WWW 2007): with each
  vector's terms ordered rarest first, a vector's prefix is the shortest run of its terms whose remainder has norm
  below the threshold. Two unit vectors with cosine >= t share a term of the first one's prefix (the remainder
  alone contributes less than t), so only pairs sharing a prefix term are candidates, and each candidate's cosine is
  computed exactly. The answer is the same as the full product's.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

CHUNK_PAIRS = 200_000  # candidate pairs whose cosines are computed at a time (bounds memory)


def prefixes(matrix: sp.csr_matrix, rank: np.ndarray, threshold: float) -> sp.csr_matrix:
    """The indicator of each row's prefix: its terms in `rank` order (rarest first) until the norm of the rest
    falls below `threshold` (rows are L2-normalised and non-negative)."""
    m = matrix.tocsr()
    rows = np.repeat(np.arange(m.shape[0]), np.diff(m.indptr))
    order = np.lexsort((rank[m.indices], rows))  # within each row, rarest term first
    cols, sq = m.indices[order], m.data[order] ** 2
    # the squared norm of each term and every term after it in its row
    total = np.bincount(rows, weights=m.data**2, minlength=m.shape[0])
    before = np.cumsum(sq) - sq - np.repeat(np.cumsum(total) - total, np.diff(m.indptr))
    rest = total[rows] - before  # from this term to the row's end
    keep = rest >= threshold**2  # a term belongs to the prefix while what starts with it still reaches t
    return sp.csr_matrix((np.ones(keep.sum()), (rows[keep], cols[keep])), shape=m.shape)


def similar_pairs(matrix: sp.csr_matrix, rank: np.ndarray, threshold: float) -> tuple[np.ndarray, ...]:
    """Every pair (i < j) of rows of `matrix` (L2-normalised, non-negative) with cosine >= `threshold`: arrays i,
    j and the cosine. `rank` orders the columns (0 = rarest term)."""
    m = matrix.tocsr()
    candidates = (prefixes(m, rank, threshold) @ (m != 0).astype(np.float64).T).tocoo()
    both = candidates.row != candidates.col
    i, j = candidates.row[both], candidates.col[both]
    i, j = np.minimum(i, j), np.maximum(i, j)
    if len(i):
        pairs = np.unique(np.stack([i, j], axis=1), axis=0)
        i, j = pairs[:, 0], pairs[:, 1]
    cosines = np.empty(len(i))
    for start in range(0, len(i), CHUNK_PAIRS):
        a, b = i[start : start + CHUNK_PAIRS], j[start : start + CHUNK_PAIRS]
        cosines[start : start + CHUNK_PAIRS] = np.asarray(m[a].multiply(m[b]).sum(axis=1)).ravel()
    close = cosines >= threshold
    return i[close], j[close], cosines[close]


def closest_other_task(
    matrix: sp.csr_matrix, texts: list[str], tasks: list[str], rank: np.ndarray, threshold: float
) -> dict[int, tuple[float, int]]:
    """For each row (one contractor's justifications: their TF-IDF rows, texts and tasks, each task named by its
    text so that two tasks of one text are one), the row of the most similar other justification (cosine >=
    threshold) on another task: {row: (cosine, other row)}. Ties go to the text first written; identical texts
    are one vector, compared once."""
    n = len(texts)
    _, first, group = np.unique(np.array(texts, dtype=object), return_index=True, return_inverse=True)
    group = group.ravel()
    task = pd.factorize(pd.Series(tasks, dtype=object))[0]
    # Per text, its first row and the first row on a task of another text than that one's (-1: none): one of
    # the two is on a task of another text than any row's.
    second = np.full(len(first), n)
    other = np.flatnonzero(task != task[first[group]])
    np.minimum.at(second, group[other], other)
    second[second == n] = -1
    i, j, v = similar_pairs(matrix[first], rank, threshold)
    texts_n = len(first)
    edges = pd.DataFrame(
        {
            "group": np.concatenate([np.arange(texts_n), i, j]),
            "near": np.concatenate([np.arange(texts_n), j, i]),
            "cosine": np.concatenate([np.ones(texts_n), v, v]),
        }
    )
    rows = pd.DataFrame({"row": np.arange(n), "group": group, "task": task})
    m = rows.merge(edges, on="group")
    one, two = first[m["near"].to_numpy()], second[m["near"].to_numpy()]
    other_row = np.where(task[one] != m["task"].to_numpy(), one, two)
    m = m.assign(other=other_row, first=one)
    m = m[m["other"] >= 0]
    m = m[task[m["other"].to_numpy()] != m["task"].to_numpy()]
    best = m.sort_values(["row", "cosine", "first"], ascending=[True, False, True]).drop_duplicates("row")
    return {
        int(r): (min(float(c), 1.0), int(o)) for r, c, o in zip(best["row"], best["cosine"], best["other"], strict=True)
    }
