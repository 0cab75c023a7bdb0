"""Graffix's graph transforms (``../shared/papers/003-graffix.md``) on a CSR in memory: the edges
they add. ``engine/approximate.py`` writes the transformed store.

Divergence: vertices in decreasing out-degree (Graffix's degree buckets) go to warps of ``warp``
consecutive ones; a vertex whose degree falls short of its warp's largest, but by less than
``threshold`` of it, is topped up to ``share`` of that degree with edges to its 2-hop neighbours,
each weighing the path it stands for (so no distance gets shorter).

Latency: on the graph as undirected, vertices whose local clustering coefficient is a little under
``threshold`` get edges between their neighbours (siblings) until they reach it, and vertices at
or above it get edges between their least connected neighbours; each edge weighs its 2-hop path
through the vertex, and ``limit`` caps them all. The vertices at or above the threshold then are
the clusters (each with its neighbours) that the GPU iterates in shared memory.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit, types
from numba.typed import Dict


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


class Coalesced(NamedTuple):
    """Graffix's coalescing layout: ``slot`` of each vertex, ``copies`` (per slot: the slot it
    copies: itself for a vertex, its original's for a replica, the slot count for a hole, as a
    store's ``copies`` array holds it) and the edges in
    slots, ``(src, dst, weight)``, moved and added ones included."""

    slot: np.ndarray
    copies: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    weight: np.ndarray
    levels: int
    added: int


def coalesce_layout(indptr: np.ndarray, indices: np.ndarray, weights: np.ndarray | None, *, k: int, threshold: float, symmetric: bool) -> Coalesced:
    """Vertices renumbered level by level of Graffix's BFS forest (roots in decreasing out-degree,
    levels lowered by later roots), each level starting at a multiple of ``k`` and numbered round
    robin (every parent's first unnumbered child, then every parent's second...); the holes left at
    a level's end take replicas: a vertex whose edges into one chunk (``k`` slots) of the next level
    reach at least ``threshold`` of that chunk's vertices gets a replica in a hole of its own level,
    which takes those edges and edges to the vertex's 2-hop neighbours in the chunk (weighing their
    lightest path). At most one replica a vertex; where holes are fewer than candidates, the most
    edges first. A ``symmetric`` graph stays so: an edge's other end moves to the replica too."""
    if not 1 <= k <= 32:
        raise ValueError(f"k is the slots a chunk holds, in [1, 32] (at most a warp); got {k}")
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold is the share of a chunk's vertices a vertex must reach to be replicated, in (0, 1]; got {threshold}")
    indptr, indices = np.asarray(indptr, np.int64), np.asarray(indices, np.int64)
    w = np.ones(len(indices), np.float64) if weights is None else np.asarray(weights, np.float64)
    roots = np.argsort(-np.diff(indptr), kind="stable")
    level = _forest_levels(indptr, indices, roots)
    slot, starts = _renumber(indptr, indices, level, roots, k)
    n_slots = int(starts[-1])
    rep_of, chunk_of = _replicate(indptr, indices, level, slot, starts, k, threshold)
    copies = np.full(n_slots, n_slots, np.int64)
    copies[slot] = slot
    has = rep_of >= 0
    copies[rep_of[has]] = slot[has]
    src, dst, weight, added = _coalesced_edges(indptr, indices, w, slot, rep_of, chunk_of, k, symmetric)
    return Coalesced(slot, copies, src, dst, weight, len(starts) - 1, added)


@njit(cache=True)
def _forest_levels(indptr, indices, roots):
    """Each vertex's level in the BFS forest: a BFS from every root not yet reached, in order, which
    lowers the levels of vertices an earlier root reached deeper (and goes on from them)."""
    n = len(roots)
    unreached = np.iinfo(np.int64).max
    level = np.full(n, unreached, np.int64)
    queue = np.empty(n, np.int64)
    queued = np.zeros(n, np.bool_)
    for r in roots:
        if level[r] != unreached:
            continue
        level[r] = 0
        head, size = 0, 1  # a ring of at most n: a vertex lowered while queued stays queued once
        queue[0], queued[r] = r, True
        while size:
            v = queue[head]
            head, size = (head + 1) % n, size - 1
            queued[v] = False
            for j in range(indptr[v], indptr[v + 1]):
                u = indices[j]
                if level[u] > level[v] + 1:
                    level[u] = level[v] + 1
                    if not queued[u]:
                        queue[(head + size) % n], queued[u] = u, True
                        size += 1
    return level


@njit(cache=True)
def _renumber(indptr, indices, level, roots, k):
    """(slot of each vertex, each level's first slot and the end): level 0 in root order, each
    next level from the next multiple of k, round robin over its parents' lists (every parent's
    first neighbour of the level not yet numbered, then every parent's second...)."""
    n = len(level)
    top = level.max() if n else 0
    sizes = np.bincount(level, minlength=top + 1) if n else np.zeros(1, np.int64)
    slot = np.full(n, -1, np.int64)
    starts = np.zeros(top + 2, np.int64)
    by_slot = np.empty(n, np.int64)  # the vertex in each slot taken so far, holes skipped
    taken = 0
    for r in roots:
        if level[r] == 0:
            slot[r] = taken
            by_slot[taken] = r
            taken += 1
    nxt = taken
    first = 0
    for i in range(top):
        nxt = (nxt + k - 1) // k * k
        starts[i + 1] = nxt
        last = taken
        active = np.empty(last - first, np.int64)  # parents with a j-th neighbour still to look at
        m = 0
        for p in range(first, last):
            if indptr[by_slot[p]] < indptr[by_slot[p] + 1]:
                active[m] = by_slot[p]
                m += 1
        j = 0
        while m:
            kept = 0
            for a in range(m):
                v = active[a]
                u = indices[indptr[v] + j]
                if level[u] == i + 1 and slot[u] < 0:
                    slot[u] = nxt
                    by_slot[taken] = u
                    taken += 1
                    nxt += 1
                if indptr[v] + j + 1 < indptr[v + 1]:
                    active[kept] = v
                    kept += 1
            m, j = kept, j + 1
        if taken - last < sizes[i + 1]:  # every vertex of a level has a parent in the one before; else number the rest
            for u in range(n):
                if level[u] == i + 1 and slot[u] < 0:
                    slot[u] = nxt
                    by_slot[taken] = u
                    taken += 1
                    nxt += 1
        first = last
    starts[top + 1] = nxt
    return slot, starts


@njit(cache=True)
def _replicate(indptr, indices, level, slot, starts, k, threshold):
    """(each vertex's replica slot or -1, the chunk whose edges move to it): per level with holes,
    candidates (vertex, chunk of the next level) most edges first, into the holes."""
    n = len(level)
    rep_of = np.full(n, -1, np.int64)
    chunk_of = np.full(n, -1, np.int64)
    levels = len(starts) - 1
    ends = starts[:-1].copy()  # each level's first hole (its last vertex's slot + 1)
    at = np.empty(starts[-1], np.int64)  # the vertex in each slot
    for v in range(n):
        ends[level[v]] = max(ends[level[v]], slot[v] + 1)
        at[slot[v]] = v
    for i in range(levels - 1):
        if ends[i] == starts[i + 1]:
            continue
        vs, cs, counts = [0], [0], [0]  # typed by a first entry, dropped below
        for p in range(starts[i], ends[i]):
            v = at[p]
            chunks = np.empty(indptr[v + 1] - indptr[v], np.int64)
            m = 0
            for j in range(indptr[v], indptr[v + 1]):
                u = indices[j]
                if level[u] == i + 1:
                    chunks[m] = slot[u] // k
                    m += 1
            chunks = np.sort(chunks[:m])
            a = 0
            while a < m:
                b = a
                while b < m and chunks[b] == chunks[a]:
                    b += 1
                c = chunks[a]
                if b - a >= threshold * (min((c + 1) * k, ends[i + 1]) - c * k):
                    vs.append(v)
                    cs.append(c)
                    counts.append(b - a)
                a = b
        cand_v, cand_c, cand_n = np.array(vs[1:]), np.array(cs[1:]), np.array(counts[1:])
        place = ends[i]
        for t in np.argsort(-cand_n, kind="mergesort"):  # most edges first, then as met (slot order)
            v = cand_v[t]
            if rep_of[v] < 0:
                rep_of[v] = place
                chunk_of[v] = cand_c[t]
                place += 1
                if place == starts[i + 1]:
                    break
    return rep_of, chunk_of


@njit(cache=True)
def _coalesced_edges(indptr, indices, weights, slot, rep_of, chunk_of, k, symmetric):
    """Every edge in slots, an end moved to its replica where the replica took the edges into the
    other end's chunk (the source's end; a symmetric graph's both), then the replicas' 2-hop edges
    into their chunk (both ways when ``symmetric``); (src, dst, weight, edges added)."""
    n = len(slot)
    m = len(indices)
    src, dst, w = np.empty(m, np.int64), np.empty(m, np.int64), np.empty(m, np.float64)
    for v in range(n):
        for j in range(indptr[v], indptr[v + 1]):
            u = indices[j]
            s, d = slot[v], slot[u]
            if rep_of[v] >= 0 and chunk_of[v] == d // k:
                s = rep_of[v]
            if symmetric and rep_of[u] >= 0 and chunk_of[u] == slot[v] // k:
                d = rep_of[u]
            src[j], dst[j], w[j] = s, d, weights[j]
    best = np.full(n, np.inf)  # per 2-hop target: its lightest path
    stamp = np.full(n, -1, np.int64)
    a_src, a_dst, a_w = [], [], []
    for v in range(n):
        if rep_of[v] < 0:
            continue
        c = chunk_of[v]
        for j in range(indptr[v], indptr[v + 1]):
            stamp[indices[j]] = v  # already a neighbour: no shortcut to it
        stamp[v] = v
        found = []
        for j in range(indptr[v], indptr[v + 1]):
            u = indices[j]
            for i in range(indptr[u], indptr[u + 1]):
                x = indices[i]
                if slot[x] // k != c or stamp[x] == v:
                    continue
                if stamp[x] != -2 - v:
                    stamp[x] = -2 - v
                    best[x] = np.inf
                    found.append(x)
                best[x] = min(best[x], weights[j] + weights[i])
        for x in found:
            a_src.append(rep_of[v])
            a_dst.append(slot[x])
            a_w.append(best[x])
            if symmetric:
                a_src.append(slot[x])
                a_dst.append(rep_of[v])
                a_w.append(best[x])
    added = len(a_src)
    if added:
        src = np.concatenate((src, np.array(a_src)))
        dst = np.concatenate((dst, np.array(a_dst)))
        w = np.concatenate((w, np.array(a_w)))
    return src, dst, w, added // (2 if symmetric else 1)


class Clustered(NamedTuple):
    """Graffix's latency transform: the sibling edges it adds, ``(src, dst, weight)`` with each
    pair both ways (``pairs`` of them), and the ``centres`` of the clusters in the graph with them
    (vertices at or above the threshold, ascending)."""

    src: np.ndarray
    dst: np.ndarray
    weight: np.ndarray
    pairs: int
    centres: np.ndarray


def latency_edges(indptr: np.ndarray, indices: np.ndarray, weights: np.ndarray | None, *, threshold: float, slack: float, limit: float, size: int) -> Clustered:
    """Graffix's latency transform on a CSR (``weights`` None: every edge weighs 1), on the graph
    as undirected (an edge either way joins two vertices; its weight the lighter way's). A
    vertex's clustering coefficient is ``2 t / (d (d - 1))`` (t: edges among its d neighbours;
    0 below two). Only vertices with 2 to ``size`` neighbours take part (a cluster is held in a
    block's shared memory). In decreasing coefficient (ties by id), each vertex within ``slack``
    under ``threshold`` gets the fewest sibling edges that lift it to the threshold (none if they
    would pass the cap), pairs with the most common neighbours (besides it) first; then each vertex
    at or above it gets, for each of its neighbours with the fewest edges to the other neighbours,
    one edge to the least connected sibling it lacks. Siblings are found in the input's
    neighbourhoods, counting the edges added before. An added edge weighs its path through the
    vertex; at most ``limit`` of the CSR's edges are added (two a pair)."""
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold is a clustering coefficient, in (0, 1]; got {threshold}")
    if not 0 <= slack <= threshold:
        raise ValueError(f"slack is how far under the threshold a vertex gets edges, in [0, threshold]; got {slack}")
    if not 0 <= limit <= 1:
        raise ValueError(f"limit is the share of the graph's edges that may be added, in [0, 1]; got {limit}")
    if size < 2:
        raise ValueError(f"size is the most neighbours a cluster's centre has, at least 2; got {size}")
    indptr = np.asarray(indptr, np.int64)
    n = len(indptr) - 1
    src = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    w = np.ones(len(indices), np.float64) if weights is None else np.asarray(weights, np.float64)
    uptr, unb, uw = _undirected(n, src, np.asarray(indices, np.int64), w)
    cc, degree = _clustering(uptr, unb)
    fits = (degree >= 2) & (degree <= size)
    by_cc = np.lexsort((np.arange(n), -cc))  # decreasing coefficient, ties by id
    near = by_cc[(fits & (cc < threshold) & (cc >= threshold - slack))[by_cc]]
    above = by_cc[(fits & (cc >= threshold))[by_cc]]
    added = Dict.empty(key_type=types.int64, value_type=types.float64)
    a, b, aw = _siblings(uptr, unb, uw, near, above, threshold, int(limit * len(indices)) // 2, added)
    cc, degree = _clustering(*_with_pairs(uptr, unb, a, b))
    centres = np.flatnonzero((degree >= 2) & (degree <= size) & (cc >= threshold))
    return Clustered(np.concatenate([a, b]), np.concatenate([b, a]), np.concatenate([aw, aw]), len(a), centres)


def _undirected(n: int, src: np.ndarray, dst: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The simple undirected graph of the edges: (indptr, sorted neighbours, each pair's least weight)."""
    keep = src != dst
    key = np.concatenate([src[keep] * n + dst[keep], dst[keep] * n + src[keep]])
    order = np.argsort(key, kind="stable")
    key = key[order]
    first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if len(key) else np.zeros(0, np.int64)
    w = np.minimum.reduceat(np.concatenate([w[keep], w[keep]])[order], first) if len(key) else np.zeros(0)
    key = key[first]
    return np.concatenate([[0], np.cumsum(np.bincount(key // n, minlength=n))]), key % n, w


def _with_pairs(indptr: np.ndarray, indices: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A simple undirected CSR with the pairs (a, b) added (none there already), still sorted."""
    n = len(indptr) - 1
    key = np.sort(np.concatenate([a * n + b, b * n + a]))
    old = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr)) * n + indices
    merged = np.insert(old, np.searchsorted(old, key), key)
    return np.concatenate([[0], np.cumsum(np.bincount(merged // n, minlength=n))]), merged % n


def _clustering(indptr: np.ndarray, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each vertex's local clustering coefficient in a simple undirected CSR, and its degree."""
    degree = np.diff(indptr)
    src = np.repeat(np.arange(len(degree)), degree)
    up = (degree[src] < degree[indices]) | ((degree[src] == degree[indices]) & (src < indices))  # rising in (degree, id)
    t = _triangles(np.concatenate([[0], np.cumsum(np.bincount(src[up], minlength=len(degree)))]), indices[up])
    pairs = degree * (degree - 1)
    return np.where(pairs > 0, 2 * t / np.maximum(pairs, 1), 0.0), degree


@njit(cache=True)
def _triangles(indptr, indices):
    """Per vertex, the triangles through it, in a CSR of the edges that rise in (degree, id)
    order: each found once, from its lowest vertex (a vertex's list holds fewer than sqrt(2E))."""
    n = len(indptr) - 1
    t = np.zeros(n, np.int64)
    mark = np.full(n, -1, np.int64)
    for v in range(n):
        for j in range(indptr[v], indptr[v + 1]):
            mark[indices[j]] = v
        for j in range(indptr[v], indptr[v + 1]):
            u = indices[j]
            for i in range(indptr[u], indptr[u + 1]):
                if mark[indices[i]] == v:
                    t[v] += 1
                    t[u] += 1
                    t[indices[i]] += 1
    return t


@njit(cache=True)
def _adjacent(indptr, indices, added, a, b):
    """Whether a and b are joined, in the sorted CSR or by an edge added (``added``: a * n + b, a < b)."""
    lo, hi = indptr[a], indptr[a + 1]
    at = lo + np.searchsorted(indices[lo:hi], b)
    return (at < hi and indices[at] == b) or min(a, b) * (len(indptr) - 1) + max(a, b) in added


@njit(cache=True)
def _common(indptr, indices, a, b, v):
    """The neighbours a and b share, v aside: the shorter list's looked up in the longer (a hub's
    list is not walked)."""
    if indptr[a + 1] - indptr[a] > indptr[b + 1] - indptr[b]:
        a, b = b, a
    lo, hi = indptr[b], indptr[b + 1]
    c = 0
    for i in range(indptr[a], indptr[a + 1]):
        x = indices[i]
        at = lo + np.searchsorted(indices[lo:hi], x)
        c += at < hi and indices[at] == x and x != v
    return c


@njit(cache=True)
def _siblings(indptr, indices, weights, near, above, threshold, budget, added):
    """The sibling edges (a, b, weight) of ``latency_edges``, at most ``budget`` pairs; ``added``
    collects them."""
    n = len(indptr) - 1
    a_out, b_out, w_out = [0], [0], [0.0]  # typed by a first entry, dropped below
    for v in near:
        lo, d = indptr[v], indptr[v + 1] - indptr[v]
        pa, pb, score = [0], [0], [0]
        have = 0
        for i in range(d):
            for j in range(i + 1, d):
                if _adjacent(indptr, indices, added, indices[lo + i], indices[lo + j]):
                    have += 1
                else:
                    pa.append(i)
                    pb.append(j)
                    score.append(_common(indptr, indices, indices[lo + i], indices[lo + j], v))
        need = 0
        while 2.0 * (have + need) / (d * (d - 1)) < threshold:
            need += 1
        if need == 0 or need > budget:
            continue
        pa, pb, score = np.array(pa[1:]), np.array(pb[1:]), np.array(score[1:])
        for k in np.argsort(-score, kind="mergesort")[:need]:  # most common neighbours first, then in list order
            x, y = indices[lo + pa[k]], indices[lo + pb[k]]
            added[min(x, y) * n + max(x, y)] = weights[lo + pa[k]] + weights[lo + pb[k]]
            a_out.append(x)
            b_out.append(y)
            w_out.append(weights[lo + pa[k]] + weights[lo + pb[k]])
        budget -= need
    for v in above:
        lo, d = indptr[v], indptr[v + 1] - indptr[v]
        local = np.zeros(d, np.int64)  # each neighbour's edges to the other neighbours
        for i in range(d):
            for j in range(i + 1, d):
                if _adjacent(indptr, indices, added, indices[lo + i], indices[lo + j]):
                    local[i] += 1
                    local[j] += 1
        fewest = local.min()
        if fewest == d - 1:
            continue  # a clique already
        for i in range(d):
            if local[i] != fewest or budget == 0:
                continue
            best = -1
            for j in range(d):
                if j != i and not _adjacent(indptr, indices, added, indices[lo + i], indices[lo + j]) and (best < 0 or local[j] < local[best]):
                    best = j
            x, y = indices[lo + i], indices[lo + best]
            added[min(x, y) * n + max(x, y)] = weights[lo + i] + weights[lo + best]
            a_out.append(x)
            b_out.append(y)
            w_out.append(weights[lo + i] + weights[lo + best])
            local[i] += 1
            local[best] += 1
            budget -= 1
    return np.array(a_out[1:]), np.array(b_out[1:]), np.array(w_out[1:])


class Clusters(NamedTuple):
    """The latency transform's clusters as plain edge lists: cluster k's edges are ``src[ptr[k] :
    ptr[k + 1]]`` to ``dst[...]``, weighing ``weight[...]`` (float32; 1 where the graph has no
    weights), in increasing (src, dst)."""

    ptr: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    weight: np.ndarray


def cluster_edges(centres: np.ndarray, src: np.ndarray, dst: np.ndarray, weights: np.ndarray | None, n: int) -> Clusters:
    """Each centre's cluster, the centre and its neighbours (either way: the transform reads the
    graph as undirected), as the edges ``(src, dst)`` with both ends in it: each pair once (the
    least weight of duplicates), no self-loops. A cluster of m vertices tries its m * m pairs
    against the sorted edges, so the work is bounded by the clusters' sizes, not by the degrees of
    the hubs they touch."""
    src, dst = np.asarray(src, np.int64), np.asarray(dst, np.int64)
    w = np.ones(len(src), np.float32) if weights is None else np.asarray(weights, np.float32)
    keep = src != dst
    key = src[keep] * n + dst[keep]
    order = np.argsort(key, kind="stable")
    key, w = key[order], w[keep][order]
    if len(key):
        first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
        key, w = key[first], np.minimum.reduceat(w, first)
    centres = np.asarray(centres, np.int64)
    k = len(centres)
    s, d = key // n, key % n
    at_s, at_d = np.searchsorted(centres, s), np.searchsorted(centres, d)
    is_s = (at_s < k) & (centres[np.minimum(at_s, max(k - 1, 0))] == s) if k else np.zeros(len(s), np.bool_)
    is_d = (at_d < k) & (centres[np.minimum(at_d, max(k - 1, 0))] == d) if k else np.zeros(len(d), np.bool_)
    members = np.unique(np.concatenate([np.arange(k) * n + centres, at_s[is_s] * n + d[is_s], at_d[is_d] * n + s[is_d]]))
    cluster, vertex = members // n, members % n
    counts = np.bincount(cluster, minlength=k)
    starts = np.concatenate([[0], np.cumsum(counts)])
    reps = counts[cluster]  # each member paired with every member of its cluster
    pair_cluster = np.repeat(cluster, reps)
    offset = np.arange(int(reps.sum())) - np.repeat(np.cumsum(reps) - reps, reps)
    a, b = np.repeat(vertex, reps), vertex[np.repeat(starts[cluster], reps) + offset]
    at = np.searchsorted(key, a * n + b)
    hit = at < len(key)
    hit[hit] = key[at[hit]] == a[hit] * n + b[hit]
    ptr = np.concatenate([[0], np.cumsum(np.bincount(pair_cluster[hit], minlength=k))]).astype(np.int64)
    return Clusters(ptr, a[hit], b[hit], w[at[hit]].astype(np.float32))
