"""Gunrock-style operators over encoded chunks, compiled with Numba.

Algorithms pass small ``@njit`` functors; each operator is specialised per (format, functor) pair
by Numba, so a new algorithm adds functors, never another copy of the traversal.

Chunks whose table row is ``ABSENT`` are not in memory this round; their edges are skipped (the
tiering scheduler presents each chunk in exactly one round of an iteration).

- ``advance``: push from a frontier through out-edges; ``functor(v, u, state)`` returning True
  puts ``u`` in the output frontier. A format may register a fused visitor in ``PUSH_VISITORS``
  that applies the functor to each id as it decodes it.
- ``advance_pull``: for each candidate ``u``, scan its in-edges (the reverse graph);
  ``functor(u, v, state)`` returning True means "done with u" and puts ``u`` in the output.
  ``pull_heads`` does the same with one in-neighbour of each candidate alone, where the tiering
  scheduler keeps those on the device (``heads``), before ``advance_pull`` reads any list.
- ``filter``: keep the vertices for which ``predicate(v, state)`` holds.
- ``compute``: apply ``fn(v, state)`` to every vertex of a set.
"""

from __future__ import annotations

import functools

import numba
import numpy as np
from numba import njit, prange

from ...tiering.resident import ABSENT, CHUNK_START

# neighbors function -> its fused push visitor, ``visit(words, table, c, v, lo, hi, scratch,
# functor, state, out, n_out) -> n_out``: ``functor(v, u, state)`` on each destination as it is
# decoded, appending to ``out`` those it accepts, with the same results as iterating
# ``neighbors``' array. Worth it where decoding is a loop of its own (``ef``): one loop, not two.
PUSH_VISITORS: dict = {}


def advance(frontier, indptr, words, table, chunk_edges, neighbors, functor, state, out, scratch):
    """Push from ``frontier`` through out-edges: ``functor(v, u, state)`` on every edge, ``u``
    appended to ``out`` when it returns True; returns how many were. ``neighbors`` is a format's
    kernel (``formats.NEIGHBORS``); its fused visitor, where ``PUSH_VISITORS`` has one, does the
    decoding and the visiting in one loop. (A Python function, to look the visitor up; jitted
    code calls ``advance_kernel(visitor)``.)"""
    kernel = advance_kernel(PUSH_VISITORS.get(neighbors))
    return kernel(frontier, indptr, words, table, chunk_edges, neighbors, functor, state, out, scratch)


@functools.cache
def advance_kernel(visit=None):
    """``advance``'s loop, compiled with ``visit`` (a fused visitor, or None: iterate
    ``neighbors``' array) as a constant, so Numba inlines the visitor into the loop: a call per
    sub-list would copy every array argument (some 60 words) onto the stack."""

    @njit
    def kernel(frontier, indptr, words, table, chunk_edges, neighbors, functor, state, out, scratch):
        n_out = 0
        buf = scratch[0]
        for i in range(len(frontier)):
            v = frontier[i]
            lo, hi = indptr[v], indptr[v + 1]
            while lo < hi:
                c = lo // chunk_edges
                start = c * chunk_edges
                end = min(hi, start + chunk_edges)
                if table[c, CHUNK_START] == ABSENT:  # not in memory this round
                    pass
                elif visit is None:
                    for u in neighbors(words, table, c, v, lo - start, end - start, buf):
                        if functor(v, u, state):
                            out[n_out] = u
                            n_out += 1
                else:
                    n_out = visit(words, table, c, v, lo - start, end - start, buf, functor, state, out, n_out)
                lo = end
        return n_out

    return kernel


@njit(parallel=True)
def advance_pull(candidates, indptr, words, table, chunk_edges, neighbors, functor, state, done, scratch):
    """Marks ``done[i]`` for each candidate the functor finished; race-free, so it runs in parallel."""
    for i in prange(len(candidates)):
        buf = scratch[numba.get_thread_id()]
        u = candidates[i]
        lo, hi = indptr[u], indptr[u + 1]
        found = False
        while lo < hi and not found:
            c = lo // chunk_edges
            start = c * chunk_edges
            end = min(hi, start + chunk_edges)
            if table[c, CHUNK_START] != ABSENT:
                for v in neighbors(words, table, c, u, lo - start, end - start, buf):
                    if functor(u, v, state):
                        found = True
                        break
            lo = end
        done[i] = found


@njit(parallel=True)
def pull_heads(candidates, heads, functor, state, done):
    """Marks ``done[i]`` where ``functor(u, heads[u], state)`` finished candidate ``u``; heads at or
    above the vertex count are unknown (no list, or its chunk not validated yet)."""
    for i in prange(len(candidates)):
        u = candidates[i]
        v = heads[u]
        done[i] = v < len(heads) and functor(u, v, state)


@njit
def filter(vertices, predicate, state, out):
    n_out = 0
    for i in range(len(vertices)):
        if predicate(vertices[i], state):
            out[n_out] = vertices[i]
            n_out += 1
    return n_out


@njit
def compute(vertices, fn, state):
    for i in range(len(vertices)):
        fn(vertices[i], state)


@njit
def chunk_demand(vertices, indptr, chunk_edges, cap, demand):
    """Adds to ``demand[c]`` how many edges of chunk c the lists of ``vertices`` hold, counting at
    most ``cap`` edges of a list and at least one for every chunk it touches (as the GPU's
    add_demand in kernels/cuda/operators.cuh)."""
    for i in range(len(vertices)):
        lo, hi, left = indptr[vertices[i]], indptr[vertices[i] + 1], cap
        while lo < hi:
            c = lo // chunk_edges
            end = min(hi, (c + 1) * chunk_edges)
            e = min(end - lo, left)
            demand[c] += max(e, 1)
            left -= e
            lo = end


@njit
def degree_sum(vertices, indptr):
    total = 0
    for i in range(len(vertices)):
        total += indptr[vertices[i] + 1] - indptr[vertices[i]]
    return total


def scratch_for(chunk_edges: int, dtype) -> np.ndarray:
    """One decode buffer per thread, each long enough for the longest sub-list a chunk can hold."""
    return np.empty((numba.config.NUMBA_NUM_THREADS, chunk_edges), dtype)
