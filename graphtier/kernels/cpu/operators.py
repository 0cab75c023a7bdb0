"""Gunrock-style operators over encoded chunks, compiled with Numba.

Algorithms pass small ``@njit`` functors and a ``state`` tuple; each operator is compiled per
(format, functor) by Numba, so a new algorithm adds functors, never another copy of the traversal;
the compiled code is cached on disk for the next process (``jit.kernel``).
Functors see every edge as ``(src, dst, edge, weight)``: ``edge`` its position in ``adj``,
``weight`` its weight when the run loaded weights (else 1.0, a constant Numba folds away).

Chunks whose table row is ``ABSENT`` are not in memory this round; their edges are skipped (the
tiering scheduler presents each chunk in exactly one round of an iteration). A vertex set is a
queue ``frontier[:n]`` or, with ``every``, a range: ``frontier[0] .. frontier[0] + n - 1``.

- ``advance``: push through out-edges; ``functor(v, u, e, w, state)`` returning True puts ``u`` in
  the output queue (once, with ``dedup``: ``marks[u]`` is set then). A format may supply a fused
  push visitor (the registry's ``push``) that hands each id to the functor as it decodes it.
- ``drain``: ``advance`` over a whole graph in memory that pushes on from every vertex it would
  queue (a ring, once per vertex through marks) until none is left, each vertex of the set and all
  that follows from it before the next; a vertex of the set already pushed from is skipped.
- ``depth_first``: a serial walk through out-edges from each vertex of a set that ``root(v, state)``
  takes, going down to each ``u`` that ``edge`` enters (``runtime.functors.DepthFirst``); each
  vertex on the walk carries a value (``start``, updated by ``edge`` and ``back``, given to
  ``leave``). Its stack keeps each vertex's place in its list, and, for formats that decode, the
  decoded sub-list itself, so a list is decoded once per visit. It stops at a list whose chunk is
  ``ABSENT`` and carries on in a later call.
- ``rounds``: Graffix's latency rounds over a latency store's clusters, plain edge lists: each
  cluster with a vertex in ``touched`` applies ``functor(v, u, e, w, state)`` to its edges
  ``rounds`` times in a row (``e`` the edge's position in the lists); True queues ``u`` once
  (through ``marks``, as ``advance`` with ``dedup``).
- ``pull``: each vertex ``u`` of a set with ``wanted(u, state)`` scans its in-edges (the reverse
  graph) until ``parent(u, v, e, w, state)`` holds, then ``adopt(u, v, state)`` runs once and
  ``done[u]`` is set. ``pull_sidecar`` does the same with one candidate per vertex kept on the
  device (a scheduler sidecar), before any list is read.
- ``gather``: each vertex ``u`` of a set with ``wanted(u, state)`` sums ``gather(u, v, e, w,
  state)`` over its in-edges present this round, then ``apply(u, total, state)``; by lanes, one
  sum per lane ``b`` (``wanted(u, b, state)``, ``gather(u, v, e, w, b, state)``, ``apply(u, b,
  total, state)``).
- ``filter``: the vertices of a set for which ``predicate(v, state)`` holds, into a queue, in the
  set's order (evaluated in parallel where the functor says it writes only its vertex's state).
- ``compute``: ``fn(v, state)`` on every vertex of a set, in parallel.
"""

from __future__ import annotations

import functools

import numba
import numpy as np
from numba import njit, prange

from ...tiering.resident import ABSENT, CHUNK_START, PAYLOAD_START, WEIGHTS_START
from .jit import kernel as compiled

ONE = np.float32(1.0)
EVERY_EDGE = 1 << 62  # a demand cap: a push reads every out-edge of its frontier


@njit(inline="always")
def _member(frontier, i, every):
    """The set's i-th vertex: with ``every``, a range's (``frontier[0]``, its first, plus ``i``),
    else the queue's (as int64: a prange index is unsigned, and Numba would unify it with the
    queue's ids as a float)."""
    return np.int64(frontier[0]) + np.int64(i) if every else np.int64(frontier[i])


@njit(inline="always")
def _shift(chunk_edges):
    """log2 of ``chunk_edges`` where it is a power of two (the default), else -1."""
    shift = 0
    while (1 << shift) < chunk_edges:
        shift += 1
    return shift if (1 << shift) == chunk_edges else -1


@njit(inline="always")
def _segment(lo, hi, chunk_edges, shift):
    """(chunk, its first edge, the end of the list's part in it) for the list's edges ``lo:hi``;
    ``shift`` (``_shift``) spares a division per list."""
    c = lo >> shift if shift >= 0 else lo // chunk_edges
    start = c * chunk_edges
    return c, start, min(hi, start + chunk_edges)


@functools.cache
def advance_kernel(neighbors, push, functor, weighted: bool, dedup: bool):
    """``advance`` compiled for one format and functor. The step for each edge (weight, functor,
    de-duplication, append) is written in the loop: through a function taking arrays it cost 3x
    the time per edge (reference counts on every call; cnr-2000). A format's fused visitor
    (``ef``'s) serves the unweighted advances, with de-duplication through ``_first_time``."""
    fused = push is not None and not weighted
    step = _first_time(functor)

    @compiled()
    def kernel(frontier, n, every, indptr, words, weights, table, chunk_edges, state, out, marks, scratch):
        n_out = 0
        buf = scratch[0]
        shift = _shift(chunk_edges)
        for i in range(n):
            v = _member(frontier, i, every)
            lo, hi = indptr[v], indptr[v + 1]
            while lo < hi:
                c, start, end = _segment(lo, hi, chunk_edges, shift)
                if table[c, CHUNK_START] == ABSENT:  # not in memory this round
                    pass
                elif fused and dedup:
                    n_out = push(words, table, c, v, lo - start, end - start, buf, step, (state, marks), lo, out, n_out)
                elif fused:
                    n_out = push(words, table, c, v, lo - start, end - start, buf, functor, state, lo, out, n_out)
                else:
                    wbase = table[c, WEIGHTS_START] // 4 - start if weighted else 0
                    ids = neighbors(words, table, c, v, lo - start, end - start, buf)
                    for k in range(len(ids)):
                        u = ids[k]
                        if functor(v, u, lo + k, weights[wbase + lo + k] if weighted else ONE, state):
                            if dedup:
                                if marks[u]:
                                    continue
                                marks[u] = True
                            out[n_out] = u
                            n_out += 1
                lo = end
        return n_out

    return kernel


@functools.cache
def _first_time(functor):
    """``functor`` that holds for u only the first time it does while u waits (``marks``): a
    format's push visitor, which appends every id the functor accepts, then queues u once.
    Its state is ``(the functor's state, marks)``."""

    @njit(inline="always", _nrt=False)
    def step(v, u, e, w, s):
        state, marks = s
        if functor(v, u, e, w, state) and not marks[u]:
            marks[u] = True
            return True
        return False

    return step


@functools.cache
def drain_kernel(neighbors, push, functor, weighted: bool):
    """``drain`` compiled for one format and functor: ``advance``'s loop with a ring (``queue``,
    room for every vertex that may wait) in place of the output queue, and ``seen`` (cleared)
    marking the vertices pushed from. Every chunk is in memory: no table row is ``ABSENT``. A
    format's fused visitor (``ef``'s) appends to the ring in place where the list's ids fit
    before its end (it does not wrap), so unweighted drains decode and visit in one loop."""
    fused = push is not None and not weighted
    step = _first_time(functor)

    @compiled()
    def kernel(frontier, n, every, indptr, words, weights, table, chunk_edges, state, queue, marks, seen, scratch):
        buf = scratch[0]
        shift = _shift(chunk_edges)
        room = len(queue)
        head = tail = pending = 0
        for i in range(n):
            v = _member(frontier, i, every)
            if seen[v]:  # pushed from since it was queued: nothing new to push
                continue
            while True:
                seen[v] = True
                lo, hi = indptr[v], indptr[v + 1]
                while lo < hi:
                    c, start, end = _segment(lo, hi, chunk_edges, shift)
                    if fused and tail + end - lo <= room:
                        last = push(words, table, c, v, lo - start, end - start, buf, step, (state, marks), lo, queue, tail)
                        pending += last - tail
                        tail = last if last < room else 0
                    else:
                        wbase = table[c, WEIGHTS_START] // 4 - start if weighted else 0
                        ids = neighbors(words, table, c, v, lo - start, end - start, buf)
                        for k in range(len(ids)):
                            u = ids[k]
                            if step(v, u, lo + k, weights[wbase + lo + k] if weighted else ONE, (state, marks)):
                                queue[tail] = u
                                tail = tail + 1 if tail + 1 < room else 0
                                pending += 1
                    lo = end
                if pending == 0:
                    break
                v = np.int64(queue[head])
                head = head + 1 if head + 1 < room else 0
                pending -= 1
                marks[v] = False

    return kernel


@njit(inline="always", _nrt=False)
def _every(v, u, e, w, s):
    """A push visitor's functor that keeps every id: the visitor then decodes a list into its output."""
    return True


# ``depth_first``'s stack: a row per vertex on it, the vertex, its next edge, where its sub-list at
# hand starts in ``lists`` (-1: none kept; a format read in place keeps none, finding the chunk again
# at each return to the vertex, and the others keep none that did not fit), and its value.
WALK_VERTEX, WALK_NEXT, WALK_HELD, WALK_VALUE = range(4)
WALK_COLUMNS = 4
NEXT_ROOT, DEPTH, TOP = range(3)  # ``depth_first``'s progress kept between calls (the lists' top)
WALKED = -1  # returned by a walk that is over (else the chunk it waits for)
TOO_DEEP = -2  # returned where ``edge`` entered more vertices than the stack holds (one twice)


@functools.cache
def depth_first_kernel(neighbors, push, in_place: bool, root, start, edge, back, leave):
    """``depth_first`` compiled for one format and functor. A format read in place (csr) resumes a
    list where it is; the others decode each sub-list onto ``lists`` (a stack beside ``walk``'s,
    then one sub-list's buffer for those that do not fit, decoded again at each return), so that
    a vertex with many children is decoded once (through the format's fused visitor where it has
    one: no call per list). The value of the vertex being walked stays in a register along its
    list (through memory, a functor's per-edge update was a chain of stores and loads: 4 of 24 ms
    on cnr-2000). Returns ``WALKED``, or the chunk it waits for, ``progress`` saying where it
    stopped."""

    @compiled()
    def kernel(frontier, n, every, indptr, words, table, chunk_edges, state, walk, lists, progress):
        shift = _shift(chunk_edges)
        room = len(lists) - chunk_edges
        i, depth, top = progress[NEXT_ROOT], progress[DEPTH], progress[TOP]
        while True:
            if depth == 0:
                while i < n and depth == 0:
                    r = _member(frontier, i, every)
                    i += 1
                    if root(r, state):
                        walk[0, WALK_VERTEX], walk[0, WALK_NEXT], walk[0, WALK_HELD], walk[0, WALK_VALUE] = r, indptr[r], -1, start(r, state)
                        depth = 1
                if depth == 0:
                    progress[NEXT_ROOT], progress[DEPTH], progress[TOP] = i, 0, top
                    return WALKED
            k = depth - 1
            v, pos, held, value = walk[k, WALK_VERTEX], walk[k, WALK_NEXT], walk[k, WALK_HELD], walk[k, WALK_VALUE]
            hi = indptr[v + 1]
            end = base = pos  # no sub-list at hand: found (or decoded) again
            if held >= 0:  # the kept one holds the last edge read
                c, first, end = _segment(pos - 1, hi, chunk_edges, shift)
                base = held - max(indptr[v], first)
            down = np.int64(-1)
            while pos < hi and down < 0:
                if pos == end:
                    c, first, end = _segment(pos, hi, chunk_edges, shift)
                    if table[c, CHUNK_START] == ABSENT:
                        walk[k, WALK_NEXT], walk[k, WALK_HELD], walk[k, WALK_VALUE] = pos, held, value
                        progress[NEXT_ROOT], progress[DEPTH], progress[TOP] = i, depth, top
                        return c
                    if in_place:
                        base = table[c, PAYLOAD_START] // words.itemsize - first
                    else:
                        if held >= 0:  # its own sub-list is the stack's top: the next one takes its place
                            top = held
                        lo = max(indptr[v], first)
                        at = top if top + end - lo <= room else room
                        if push is None:
                            neighbors(words, table, c, v, lo - first, end - first, lists[at : at + end - lo])
                        else:  # the fused visitor decodes without a call per list, keeping every id
                            push(words, table, c, v, lo - first, end - first, lists, _every, 0, lo, lists, at)
                        held = at if at < room else -1
                        top = at + end - lo if held >= 0 else top
                        base = at - lo
                while pos < end:
                    if in_place:
                        u = words[base + pos]
                    else:
                        u = lists[base + pos]
                    pos += 1
                    entered, value = edge(v, u, pos - 1, ONE, value, state)
                    if entered:
                        if indptr[u + 1] == indptr[u]:  # nothing to walk: in and out at once
                            leave(u, start(u, state), state)
                            value = back(v, u, value, state)
                        else:
                            down = np.int64(u)
                            break
            if down >= 0:
                if depth == len(walk):
                    return TOO_DEEP
                walk[k, WALK_NEXT], walk[k, WALK_HELD], walk[k, WALK_VALUE] = pos, held, value
                walk[depth, WALK_VERTEX], walk[depth, WALK_NEXT], walk[depth, WALK_HELD], walk[depth, WALK_VALUE] = down, indptr[down], -1, start(down, state)
                depth += 1
            else:
                if held >= 0:
                    top = held
                leave(v, value, state)
                depth -= 1
                if depth:
                    walk[depth - 1, WALK_VALUE] = back(walk[depth - 1, WALK_VERTEX], v, walk[depth - 1, WALK_VALUE], state)

    return kernel


@functools.cache
def rounds_kernel(functor, weighted: bool):
    """``rounds`` compiled for one functor, one cluster after another (a functor writes others'
    state without atomics on the CPU); ``counts`` gets the clusters touched and the edges visited."""

    @compiled()
    def kernel(ptr, src, dst, weights, rounds, touched, state, out, marks, counts):
        n_out = 0
        for k in range(len(ptr) - 1):
            lo, hi = ptr[k], ptr[k + 1]
            hit = False
            for e in range(lo, hi):
                if touched[src[e]] or touched[dst[e]]:
                    hit = True
                    break
            if not hit:
                continue
            counts[0] += 1
            counts[1] += (hi - lo) * rounds
            for _ in range(rounds):
                for e in range(lo, hi):
                    u = dst[e]
                    if functor(src[e], u, e, weights[e] if weighted else ONE, state) and not marks[u]:
                        marks[u] = True
                        out[n_out] = u
                        n_out += 1
        return n_out

    return kernel


@functools.cache
def pull_kernel(neighbors, wanted, parent, adopt, weighted: bool):
    @compiled(parallel=True)
    def kernel(frontier, n, every, indptr, words, weights, table, chunk_edges, state, done, scratch):
        shift = _shift(chunk_edges)
        for i in prange(n):
            u = _member(frontier, i, every)
            if done[u] or not wanted(u, state):
                continue
            buf = scratch[numba.get_thread_id()]
            lo, hi = indptr[u], indptr[u + 1]
            found = False
            while lo < hi and not found:
                c, start, end = _segment(lo, hi, chunk_edges, shift)
                if table[c, CHUNK_START] != ABSENT:
                    wbase = table[c, WEIGHTS_START] // 4 + lo - start if weighted else 0
                    ids = neighbors(words, table, c, u, lo - start, end - start, buf)
                    for k in range(len(ids)):
                        v = ids[k]
                        if parent(u, v, lo + k, weights[wbase + k] if weighted else ONE, state):
                            adopt(u, v, state)
                            found = True
                            break
                lo = end
            done[u] = found

    return kernel


@functools.cache
def pull_sidecar_kernel(wanted, parent, adopt):
    """``pull`` with the one candidate ``candidates[u]`` per vertex (unknown at or above the vertex
    count); the edge is not known there: ``e`` is -1 and ``w`` 1."""

    @compiled(parallel=True)
    def kernel(frontier, n, every, candidates, state, done):
        for i in prange(n):
            u = _member(frontier, i, every)
            if not done[u] and wanted(u, state):
                v = candidates[u]
                if v < len(candidates) and parent(u, v, -1, ONE, state):
                    adopt(u, v, state)
                    done[u] = True

    return kernel


@functools.cache
def gather_kernel(neighbors, wanted, gather, apply, weighted: bool):
    """``gather``: each chunk's share of a list is summed alone and the shares added in chunk
    order, so that rounds of consecutive chunks (a sweep) give the sums of one pass bit for bit."""

    @compiled(parallel=True)
    def kernel(frontier, n, every, indptr, words, weights, table, chunk_edges, state, scratch):
        shift = _shift(chunk_edges)
        for i in prange(n):
            u = _member(frontier, i, every)
            if not wanted(u, state):
                continue
            buf = scratch[numba.get_thread_id()]
            lo, hi = indptr[u], indptr[u + 1]
            total = 0.0
            while lo < hi:
                c, start, end = _segment(lo, hi, chunk_edges, shift)
                if table[c, CHUNK_START] != ABSENT:
                    wbase = table[c, WEIGHTS_START] // 4 + lo - start if weighted else 0
                    ids = neighbors(words, table, c, u, lo - start, end - start, buf)
                    share = 0.0
                    for k in range(len(ids)):
                        share += gather(u, ids[k], lo + k, weights[wbase + k] if weighted else ONE, state)
                    total += share
                lo = end
            apply(u, total, state)

    return kernel


@functools.cache
def gather_lanes_kernel(neighbors, wanted, gather, apply, weighted: bool):
    """``gather`` by lanes: a vertex's list decoded once per chunk, then each wanted lane's terms
    summed over it in list order (as the GPU's lanes do), shares added in chunk order."""

    @compiled(parallel=True)
    def kernel(frontier, n, every, indptr, words, weights, table, chunk_edges, lanes, state, scratch):
        shift = _shift(chunk_edges)
        wanted_lanes = np.zeros((len(scratch), lanes), np.int64)  # a row per thread, as the scratch
        totals = np.zeros((len(scratch), lanes))
        for i in prange(n):
            u = _member(frontier, i, every)
            t = numba.get_thread_id()
            on, sums = wanted_lanes[t], totals[t]
            count = 0
            for b in range(lanes):
                if wanted(u, b, state):
                    on[count] = b
                    sums[count] = 0.0
                    count += 1
            if count == 0:
                continue
            buf = scratch[t]
            lo, hi = indptr[u], indptr[u + 1]
            while lo < hi:
                c, start, end = _segment(lo, hi, chunk_edges, shift)
                if table[c, CHUNK_START] != ABSENT:
                    wbase = table[c, WEIGHTS_START] // 4 + lo - start if weighted else 0
                    ids = neighbors(words, table, c, u, lo - start, end - start, buf)
                    for j in range(count):
                        b, share = on[j], 0.0
                        for k in range(len(ids)):
                            share += gather(u, ids[k], lo + k, weights[wbase + k] if weighted else ONE, b, state)
                        sums[j] += share
                lo = end
            for j in range(count):
                apply(u, on[j], sums[j], state)

    return kernel


FILTER_BLOCK = 1 << 14  # vertices a thread compacts at a time


@functools.cache
def filter_kernel(predicate, parallel: bool):
    """``filter`` in the set's order: one vertex after another, or, where the predicate writes only
    its own vertex's state (``Filter.per_vertex``), in parallel: the predicate once per vertex into
    a mask, then each block's kept vertices at their block's offset."""

    @compiled()
    def in_turn(frontier, n, every, state, out):
        n_out = 0
        for i in range(n):
            v = _member(frontier, i, every)
            if predicate(v, state):
                out[n_out] = v
                n_out += 1
        return n_out

    @compiled(parallel=True)
    def at_once(frontier, n, every, state, out):
        keep = np.empty(n, np.bool_)
        for i in prange(n):
            keep[i] = predicate(_member(frontier, i, every), state)
        blocks = (n + FILTER_BLOCK - 1) // FILTER_BLOCK
        offsets = np.zeros(blocks + 1, np.int64)
        for b in prange(blocks):
            offsets[b + 1] = np.count_nonzero(keep[b * FILTER_BLOCK : min(n, (b + 1) * FILTER_BLOCK)])
        offsets = np.cumsum(offsets)
        for b in prange(blocks):
            o = offsets[b]
            for i in range(b * FILTER_BLOCK, min(n, (b + 1) * FILTER_BLOCK)):
                if keep[i]:
                    out[o] = _member(frontier, i, every)
                    o += 1
        return offsets[blocks]

    return at_once if parallel else in_turn


@functools.cache
def compute_kernel(fn, parallel: bool = True):
    """``fn`` on every vertex of a set; ``parallel=False`` for a handful (waking the threads for a
    few vertices cost milliseconds between two other parallel kernels on a 2-core machine)."""

    @compiled(parallel=parallel)
    def kernel(frontier, n, every, state):
        for i in prange(n):
            fn(_member(frontier, i, every), state)

    return kernel


@njit(inline="always")
def _list_demand(lo, hi, cap, chunk_edges, demand):
    """Adds to ``demand[c]`` the edges of chunk c among positions ``lo:hi`` (one list), counting at
    most ``cap`` of them and at least one for every chunk the list touches (as add_demand in
    kernels/cuda/operators.cuh)."""
    while lo < hi:
        c = lo // chunk_edges
        end = min(hi, (c + 1) * chunk_edges)
        e = min(end - lo, cap)
        demand[c] += max(e, 1)
        cap -= e
        lo = end


@njit(cache=True)
def chunk_demand(frontier, n, every, indptr, chunk_edges, cap, demand):
    """The demand of a vertex set's lists (``_list_demand``)."""
    for i in range(n):
        v = _member(frontier, i, every)
        _list_demand(indptr[v], indptr[v + 1], cap, chunk_edges, demand)


@functools.cache
def wanted_demand_kernel(wanted):
    """The demand of the lists of the vertices of a set with ``wanted(u, state)``."""

    @compiled()
    def kernel(frontier, n, every, indptr, chunk_edges, cap, state, demand):
        for i in range(n):
            u = _member(frontier, i, every)
            if wanted(u, state):
                _list_demand(indptr[u], indptr[u + 1], cap, chunk_edges, demand)

    return kernel


@njit(cache=True)
def any_bits(frontier, n, every, words):
    """The OR of ``words`` over a vertex set."""
    bits = words.dtype.type(0)
    for i in range(n):
        bits |= words[_member(frontier, i, every)]
    return bits


@njit(cache=True)
def degree_sum(frontier, n, every, indptr):
    total = 0
    for i in range(n):
        v = _member(frontier, i, every)
        total += indptr[v + 1] - indptr[v]
    return total


def scratch_for(chunk_edges: int, dtype) -> np.ndarray:
    """One decode buffer per thread, each long enough for the longest sub-list a chunk can hold."""
    return np.empty((numba.config.NUMBA_NUM_THREADS, chunk_edges), dtype)
