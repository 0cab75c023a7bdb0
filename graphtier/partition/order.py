"""Vertex orderings that put neighbours on nearby ids.

Gap codes such as GCGT's CGR spend about log2(gap) bits per neighbour, so an order that keeps
neighbours close makes the stored graph smaller (and its reads more local). Every method returns
``rank`` with ``rank[old] = new``; all but ``natural``, ``degree`` and ``layered`` work on the
symmetrized, loopless graph, since locality is about adjacency in either direction. ``layered``
(WolfPath's layered tree) follows out-edges from one root: see ``layers``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

ORDERS = ("natural", "degree", "bfs", "rcm", "llp", "layered")

LLP_GAMMAS = (1.0, 1 / 4, 1 / 16, 1 / 64, 1 / 256, 0.0)
"""LLP's resolutions: from small, dense clusters (gamma 1) to the coarse communities of plain label
propagation (gamma 0). Each costs a label propagation; their order does not matter."""

_MAX_ROUNDS = 100  # label propagation rounds per gamma, an upper bound rarely reached
_SETTLED = 1e-2  # ...stopping earlier once fewer than this fraction of vertices change label
_BLOCKS = 256  # row blocks that gap_cost spreads over the threads


def vertex_order(
    indptr: np.ndarray,
    indices: np.ndarray,
    method: str,
    *,
    seed: int = 0,
    gammas: tuple[float, ...] = LLP_GAMMAS,
) -> np.ndarray:
    """The int64 permutation ``rank`` (``rank[old] = new``) of ``method`` for a directed CSR graph.

    ``seed`` and ``gammas`` matter only to ``llp``, which is deterministic for a given seed.
    """
    if method not in ORDERS:
        raise ValueError(f"unknown vertex order {method!r}: expected one of {', '.join(ORDERS)}")
    indptr = np.asarray(indptr, dtype=np.int64)
    indices = np.asarray(indices)
    n = len(indptr) - 1
    _check_csr(indptr, indices, n)
    if method == "natural":
        return np.arange(n, dtype=np.int64)
    if method == "degree":
        return degree_rank(np.diff(indptr) + np.bincount(indices, minlength=n))
    if method == "layered":
        return layers(indptr, indices, default_root(indptr, indices))[0] if n else np.zeros(0, np.int64)
    ptr, adj = _symmetrize(indptr, indices, n)
    if method == "llp":
        if not gammas or min(gammas) < 0:
            raise ValueError(f"llp needs one or more gammas >= 0, got {gammas!r}")
        return _llp(indptr, indices, ptr, adj, gammas, seed)
    order = _bfs(ptr, adj, np.arange(n)) if method == "bfs" else _cuthill_mckee(ptr, adj)[::-1]
    return invert(order)


def default_root(indptr: np.ndarray, indices: np.ndarray) -> int:
    """WolfPath's root: a vertex no edge enters (of those, the one with most out-edges, then the
    least id); where every vertex has in-edges (a symmetric graph), the one with most out-edges."""
    out = np.diff(np.asarray(indptr, np.int64))
    sources = np.flatnonzero((np.bincount(indices, minlength=len(out)) == 0) & (out > 0))
    candidates = sources if len(sources) else np.arange(len(out))
    return int(candidates[np.argmax(out[candidates])]) if len(candidates) else 0


def layers(indptr: np.ndarray, indices: np.ndarray, root: int) -> tuple[np.ndarray, np.ndarray]:
    """WolfPath's layered tree, exact: ``(rank, offsets)``, the vertices renumbered level by level
    of a BFS from ``root`` over out-edges (in the order the BFS meets them), so that layer i is the
    vertices ``offsets[i] .. offsets[i+1] - 1`` and its out-edges one contiguous edge list; the
    vertices ``root`` does not reach follow the last layer, in id order. No edge is dropped: the
    order only renumbers."""
    n = len(indptr) - 1
    if not 0 <= root < n:
        raise ValueError(f"the root must be a vertex of the graph (0 .. {n - 1}), got {root}")
    order, ends = levels(np.asarray(indptr, np.int64), indices, root)
    rest = np.ones(n, np.bool_)
    rest[order] = False
    return invert(np.concatenate([order, np.flatnonzero(rest)])), np.concatenate([[0], ends]).astype(np.int64)


def levels(ptr, adj, root):
    """BFS from ``root`` over out-edges: the vertices reached, level by level, and where each
    level ends."""
    n = len(ptr) - 1
    order, ends = np.empty(n, np.int64), np.empty(n, np.int64)
    tail, levels = _levels_from(ptr, adj, root, np.zeros(n, np.bool_), order, 0, ends)
    return order[:tail], ends[:levels]


@njit(cache=True)
def _levels_from(ptr, adj, root, seen, order, tail, ends):
    """BFS from ``root`` (unseen), appending what it reaches to ``order`` from ``tail`` on, level by
    level, each level's end into ``ends``: (the new tail, the levels)."""
    seen[root] = True
    order[tail] = root
    head, tail, levels = tail, tail + 1, 0
    while head < tail:
        end = tail
        while head < end:
            u = order[head]
            head += 1
            for j in range(ptr[u], ptr[u + 1]):
                v = adj[j]
                if not seen[v]:
                    seen[v] = True
                    order[tail] = v
                    tail += 1
        ends[levels] = end
        levels += 1
    return tail, levels


def degree_rank(degree: np.ndarray) -> np.ndarray:
    """The degree order's ``rank`` from each vertex's degree (out plus in): largest first, ties
    by id."""
    return invert(np.argsort(-np.asarray(degree, np.int64), kind="stable"))


def gap_cost(indptr: np.ndarray, indices: np.ndarray, rank: np.ndarray) -> float:
    """Mean log2(|gap| + 1) bits per arc after relabelling by ``rank``: a proxy for CGR's size.

    Gaps are between consecutive sorted neighbours, the first taken from the source itself.
    """
    indptr = np.asarray(indptr, dtype=np.int64)
    n_arcs = int(indptr[-1]) if len(indptr) > 1 else 0
    if n_arcs == 0:
        return 0.0
    # Row blocks of about equal arcs, a fixed number of them: the sum is the same on any thread count.
    bounds = np.unique(np.searchsorted(indptr, np.linspace(0, n_arcs, _BLOCKS + 1), side="right") - 1)
    return _gap_bits(indptr, indices, np.asarray(rank, dtype=np.int64), bounds).sum() / n_arcs


def _check_csr(indptr: np.ndarray, indices: np.ndarray, n: int) -> None:
    if n < 0 or indptr[0] != 0 or indptr[-1] != len(indices) or np.any(np.diff(indptr) < 0):
        raise ValueError("indptr must start at 0, never decrease and end at len(indices)")
    if len(indices) and (indices.min() < 0 or indices.max() >= n):
        raise ValueError(f"indices must lie in [0, {n})")


def invert(order: np.ndarray) -> np.ndarray:
    """The ``rank`` of a vertex ``order`` (``rank[order[i]] = i``), and the order of a rank."""
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order), dtype=np.int64)
    return rank


def _symmetrize(indptr: np.ndarray, indices: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The CSR of the graph with both directions of every arc, sorted rows, no loops or duplicates."""
    ptr = _both_ways_counts(indptr, indices, n)
    id_type = np.int32 if n < 2**31 else np.int64
    both_ways = _both_ways_fill(indptr, indices, ptr, np.empty(ptr[-1], id_type))
    # The multigraph is its own transpose: rebuilt by rows in id order, each row comes out sorted.
    adj = _regroup(ptr, both_ways, np.arange(n))
    del both_ways
    sym_ptr = _dedup(ptr, adj)
    return sym_ptr, adj[: sym_ptr[-1]]


@njit(cache=True)
def _both_ways_counts(indptr, indices, n):
    ptr = np.zeros(n + 1, np.int64)
    for u in range(n):
        for j in range(indptr[u], indptr[u + 1]):
            v = indices[j]
            if v != u:
                ptr[u + 1] += 1
                ptr[v + 1] += 1
    return np.cumsum(ptr)


@njit(cache=True)
def _both_ways_fill(indptr, indices, ptr, out):
    fill = ptr[:-1].copy()
    for u in range(len(ptr) - 1):
        for j in range(indptr[u], indptr[u + 1]):
            v = indices[j]
            if v != u:
                out[fill[u]] = v
                fill[u] += 1
                out[fill[v]] = u
                fill[v] += 1
    return out


@njit(cache=True)
def _regroup(ptr, adj, rows):
    """A symmetric graph's adjacency with every row listed in the order of ``rows``."""
    out = np.empty_like(adj)
    fill = ptr[:-1].copy()
    for r in rows:
        for j in range(ptr[r], ptr[r + 1]):
            c = adj[j]
            out[fill[c]] = r
            fill[c] += 1
    return out


@njit(cache=True)
def _dedup(ptr, adj):
    """Drops repeats from sorted rows in place; returns the new row pointers."""
    out = np.zeros(len(ptr), np.int64)
    k = 0
    for r in range(len(ptr) - 1):
        last = -1
        for j in range(ptr[r], ptr[r + 1]):
            if adj[j] != last:
                last = adj[j]
                adj[k] = last
                k += 1
        out[r + 1] = k
    return out


@njit(cache=True)
def _bfs(ptr, adj, roots):
    """BFS from each root not yet reached, in turn: every component gets a contiguous range."""
    order = np.empty(len(roots), np.int64)
    ends = np.empty(len(roots), np.int64)
    seen = np.zeros(len(roots), np.bool_)
    tail = 0
    for root in roots:
        if not seen[root]:
            tail, _ = _levels_from(ptr, adj, root, seen, order, tail, ends)
    return order


def _cuthill_mckee(ptr: np.ndarray, adj: np.ndarray) -> np.ndarray:
    """BFS from least-degree roots, visiting neighbours by increasing degree (ties by id): each
    level, and with it the bandwidth, stays narrow."""
    by_degree = np.argsort(np.diff(ptr), kind="stable")
    return _bfs(ptr, _regroup(ptr, adj, by_degree), by_degree)


def _llp(
    indptr: np.ndarray,
    indices: np.ndarray,
    ptr: np.ndarray,
    adj: np.ndarray,
    gammas: tuple[float, ...],
    seed: int,
) -> np.ndarray:
    """Layered label propagation (Boldi, Rosa, Santini, Vigna, WWW 2011), combined as LAW's code
    does: clusterings from the worst gap cost to the best refine one another, each step followed
    by the best one again, so the best clustering is the most significant key.

    Ties fall back on a start order, which the finest clusters keep inside them: the natural one
    where it has locality (crawled web graphs), else reverse Cuthill-McKee. Labels are kept as
    positions in that order.
    """
    n = len(ptr) - 1
    start = _cuthill_mckee(ptr, adj)[::-1]
    if gap_cost(indptr, indices, np.arange(n)) <= gap_cost(indptr, indices, invert(start)):
        start = np.arange(n, dtype=np.int64)
    position = invert(start)

    def rank_of(label: np.ndarray) -> np.ndarray:
        return invert(np.argsort(label, kind="stable"))[position]

    seeds = np.random.SeedSequence(seed).generate_state(len(gammas))
    labels = [position[_propagate(ptr, adj, float(g), int(s))][start] for g, s in zip(gammas, seeds)]
    costs = [gap_cost(indptr, indices, rank_of(label)) for label in labels]
    best = labels[int(np.argmin(costs))]
    combined = best
    for i in np.argsort(costs, kind="stable")[::-1]:
        combined = _combine(_combine(combined, labels[i]), best)
    return rank_of(combined)


@njit(cache=True)
def _propagate(ptr, adj, gamma, seed, max_rounds=_MAX_ROUNDS, settled=_SETTLED):
    """Label propagation maximizing k - gamma * (v - k) for a label with k neighbours and volume v.

    Vertices update in a fresh random order each round, ties break at random, and a vertex is
    revisited only after a neighbour changed label.
    """
    np.random.seed(seed)
    n = len(ptr) - 1
    label = np.arange(n)
    volume = np.ones(n, np.int64)
    count = np.zeros(n, np.int64)
    seen = np.empty(np.max(ptr[1:] - ptr[:-1]) if n else 0, np.int64)
    active = np.ones(n, np.bool_)
    visit = np.arange(n)
    for _ in range(max_rounds):
        np.random.shuffle(visit)
        changed = 0
        for x in visit:
            if not active[x] or ptr[x] == ptr[x + 1]:
                continue
            active[x] = False
            current = label[x]
            volume[current] -= 1
            m = 0
            for j in range(ptr[x], ptr[x + 1]):
                lab = label[adj[j]]
                if count[lab] == 0:
                    seen[m] = lab
                    m += 1
                count[lab] += 1
            best = current
            best_value = (1 + gamma) * count[current] - gamma * volume[current]
            ties = 1
            for i in range(m):
                lab = seen[i]
                value = (1 + gamma) * count[lab] - gamma * volume[lab]
                count[lab] = 0
                if lab == current or value < best_value:
                    continue
                if value > best_value:
                    best, best_value, ties = lab, value, 1
                else:
                    ties += 1
                    if np.random.randint(0, ties) == 0:
                        best = lab
            volume[best] += 1
            if best != current:
                label[x] = best
                changed += 1
                for j in range(ptr[x], ptr[x + 1]):
                    active[adj[j]] = True
        if changed <= settled * n:
            break
    return label


@njit(cache=True)
def _combine(old, new):
    """The common refinement of two labellings (labels in ``[0, n)``), as dense labels ordered by
    the old label of the new label's source, then the new label, then the old label."""
    n = len(old)
    order = np.arange(n)
    for key in (old, new, old[new]):  # least significant first: a stable LSD radix sort
        order = _stable_by(order, key)
    combined = np.empty(n, np.int64)
    label = -1
    for i in range(n):
        a = order[i]
        if i == 0 or old[a] != old[order[i - 1]] or new[a] != new[order[i - 1]]:
            label += 1
        combined[a] = label
    return combined


@njit(cache=True)
def _stable_by(order, key):
    start = np.zeros(len(key) + 1, np.int64)
    for a in order:
        start[key[a] + 1] += 1
    start = np.cumsum(start)
    out = np.empty_like(order)
    for a in order:
        out[start[key[a]]] = a
        start[key[a]] += 1
    return out


@njit(parallel=True, cache=True)
def _gap_bits(indptr, indices, rank, bounds):
    bits = np.empty(len(bounds) - 1)
    for b in prange(len(bounds) - 1):
        bits[b] = _row_bits(indptr, indices, rank, bounds[b], bounds[b + 1])
    return bits


@njit(cache=True)
def _row_bits(indptr, indices, rank, lo, hi):
    width = 0
    for u in range(lo, hi):
        width = max(width, indptr[u + 1] - indptr[u])
    scratch = np.empty(width, np.int64)
    bits = 0.0
    for u in range(lo, hi):
        d = indptr[u + 1] - indptr[u]
        if d == 0:
            continue
        row = scratch[:d]
        for j in range(d):
            row[j] = rank[indices[indptr[u] + j]]
        row.sort()
        bits += math.log2(abs(row[0] - rank[u]) + 1)
        for j in range(1, d):
            bits += math.log2(row[j] - row[j - 1] + 1)
    return bits
