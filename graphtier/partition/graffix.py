"""Graffix's graph transforms (``../shared/papers/003-graffix.md``) on a CSR in memory: the edges
they add. ``engine/approximate.py`` writes the transformed store.

Divergence: vertices in decreasing out-degree (Graffix's degree buckets) go to warps of ``warp``
consecutive ones; a vertex whose degree falls short of its warp's largest, but by less than
``threshold`` of it, is topped up to ``share`` of that degree with edges to its 2-hop neighbours,
each weighing the path it stands for (so no distance gets shorter).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


def divergence_edges(indptr: np.ndarray, indices: np.ndarray, weights: np.ndarray | None, *, threshold: float, share: float, warp: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The edges the divergence transform adds, ``(src, dst, weight)`` in the CSR's ids. A CSR
    without weights has every edge weigh 1 (the added ones 2)."""
    if not 0 <= threshold <= 1:
        raise ValueError(f"threshold is a share of a warp's largest degree, in [0, 1]; got {threshold}")
    if not 0 < share <= 1:
        raise ValueError(f"share is the degree a topped-up vertex reaches, as a share of its warp's largest, in (0, 1]; got {share}")
    if warp < 1:
        raise ValueError(f"warp is the vertices a warp holds, at least 1; got {warp}")
    indptr = np.asarray(indptr, np.int64)
    degree = np.diff(indptr)
    order = np.argsort(-degree, kind="stable")  # decreasing out-degree, ties by id
    need = np.zeros(len(degree), np.int64)
    for first in range(0, len(order), warp):
        members = order[first : first + warp]
        largest = int(degree[members[0]])
        target = math.ceil(share * largest)
        short = members[(degree[members] > 0) & (degree[members] < target) & (1 - degree[members] / max(largest, 1) < threshold)]
        need[short] = target - degree[short]
    w = np.ones(len(indices), np.float64) if weights is None else np.asarray(weights, np.float64)
    return _two_hops(indptr, np.asarray(indices, np.int64), w, need)


@njit(cache=True)
def _two_hops(indptr, indices, weights, need):
    """For each vertex v, up to ``need[v]`` 2-hop neighbours (x != v, not already a neighbour), the
    first met going through v's list and each neighbour's list in order; each weighs its path."""
    total = need.sum()
    src, dst, w = np.empty(total, np.int64), np.empty(total, np.int64), np.empty(total, np.float64)
    stamp = np.full(len(need), -1, np.int64)  # stamp[x] == v: x is v itself, a neighbour, or taken
    k = 0
    for v in range(len(need)):
        if need[v] == 0:
            continue
        stamp[v] = v
        for j in range(indptr[v], indptr[v + 1]):
            stamp[indices[j]] = v
        left = need[v]
        for j in range(indptr[v], indptr[v + 1]):
            u = indices[j]
            for i in range(indptr[u], indptr[u + 1]):
                x = indices[i]
                if stamp[x] != v:
                    stamp[x] = v
                    src[k], dst[k], w[k] = v, x, weights[j] + weights[i]
                    k += 1
                    left -= 1
                    if left == 0:
                        break
            if left == 0:
                break
    return src[:k], dst[:k], w[:k]
