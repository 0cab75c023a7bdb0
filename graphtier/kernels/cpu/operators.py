"""Gunrock-style operators over encoded chunks, compiled with Numba.

Algorithms pass small ``@njit`` functors; each operator is specialised per (format, functor) pair
by Numba, so a new algorithm adds functors, never another copy of the traversal.

- ``advance``: push from a frontier through out-edges; ``functor(v, u, state)`` returning True
  puts ``u`` in the output frontier.
- ``advance_pull``: for each candidate ``u``, scan its in-edges (the reverse graph);
  ``functor(u, v, state)`` returning True means "done with u" and puts ``u`` in the output.
- ``filter``: keep the vertices for which ``predicate(v, state)`` holds.
- ``compute``: apply ``fn(v, state)`` to every vertex of a set.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange


@njit
def advance(frontier, indptr, words, table, chunk_edges, neighbors, functor, state, out, scratch):
    n_out = 0
    for i in range(len(frontier)):
        v = frontier[i]
        lo, hi = indptr[v], indptr[v + 1]
        while lo < hi:
            c = lo // chunk_edges
            start = c * chunk_edges
            end = min(hi, start + chunk_edges)
            for u in neighbors(words, table, c, v, lo - start, end - start, scratch[0]):
                if functor(v, u, state):
                    out[n_out] = u
                    n_out += 1
            lo = end
    return n_out


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
            for v in neighbors(words, table, c, u, lo - start, end - start, buf):
                if functor(u, v, state):
                    found = True
                    break
            lo = end
        done[i] = found


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
def degree_sum(vertices, indptr):
    total = 0
    for i in range(len(vertices)):
        total += indptr[vertices[i] + 1] - indptr[vertices[i]]
    return total


def scratch_for(chunk_edges: int, dtype) -> np.ndarray:
    """One decode buffer per thread, each long enough for the longest sub-list a chunk can hold."""
    return np.empty((numba.config.NUMBA_NUM_THREADS, chunk_edges), dtype)
