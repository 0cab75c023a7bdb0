"""BFS from many sources at once (``gt.bfs(g, sources=[...])``), as MS-BFS does (Then et al., VLDB
2015): up to 64 sources share each pass over the edges, so each chunk's trip over PCIe or from
storage serves all of them. CUDA functors in msbfs.cu.

A vertex holds three words of bits, a bit per source of the pass: ``seen`` (the sources that have
reached it), ``visit`` (those that reached it at the last level: the frontier's bits, zero
elsewhere) and ``next`` (those reaching it at this level). A level either pushes from the frontier
into its out-neighbours' ``next`` (queueing a vertex with its first bit), or pulls: every vertex
some source has not reached gathers its in-neighbours' ``visit`` bits into ``next``, stopping once
every source of the pass has reached it (queued then), and a filter queues the others that got a
bit. Then the frontier's ``visit`` is cleared and each queued vertex settles (``visit`` takes
``next``, ``seen`` takes it in). The direction switches as a one-source BFS's does (``Direction``),
on the frontier of the union of the sources.

Distances are kept on the host, from each level's queue and bits (a vertex's bits at level L are
the sources at distance L), so the device holds three words a vertex whatever the number of
sources: 64-bit words, or 32-bit ones (12 bytes a vertex, as a one-source BFS's state, and passes
of 32) where the wider words would take over half of what the narrow ones leave the chunks. The
host keeps a vertex's levels from every source of the pass side by side (``Levels``: one cache
line a vertex while levels fit a byte), so a level's writes are one line per queued vertex, and
turns them into a row per source at the end, in the input's order of ids.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit, prange
from numba.cpython.unsafe.numbers import trailing_zeros

from ..runtime import ALL, Advance, Algorithm, Compute, Config, Edges, Filter, Pull, Run, run
from ..runtime.functors import cpu  # imported on first use, after runtime.cpu (the backend) may shadow the decorator
from ..runtime.results import BFSResult
from ..runtime.run import state_of
from .bfs import Direction


@cpu
def spread(v, u, e, w, s):
    """Push: u takes the sources that reached v at the last level and have not reached u; queued
    the first time its ``next`` gets a bit. ``s``: (seen, visit, next)."""
    seen, visit, nxt = s
    bits = visit[v] & ~seen[u]
    if bits == 0 or (nxt[u] & bits) == bits:
        return False
    first = nxt[u] == 0
    nxt[u] |= bits
    return first


@cpu
def unfilled(u, s):
    """Pull: a vertex some source of the pass has not reached. ``s``: (seen, visit, next, full)."""
    seen, _, nxt, full = s
    return (seen[u] | nxt[u]) != full


@cpu
def gather_bits(u, v, e, w, s):
    """Pull: u takes its in-neighbour's frontier bits; enough once every source has reached it."""
    seen, visit, nxt, full = s
    nxt[u] |= visit[v] & ~seen[u]
    return (seen[u] | nxt[u]) == full


@cpu
def filled(u, v, s):
    """Pull: nothing more to do for a vertex every source has reached (the pull queues it)."""


@cpu
def reached(u, s):
    """After a pull: the vertices that got a bit and were not queued by it. ``s``: (seen, next, full)."""
    seen, nxt, full = s
    return nxt[u] != 0 and (seen[u] | nxt[u]) != full


@cpu
def forget(v, s):
    """The last frontier's bits, cleared (pulls read ``visit`` of any in-neighbour). ``s``: (visit,)."""
    s[0][v] = 0


@cpu
def settle(u, s):
    """A vertex reached at this level pushes on its new sources next. ``s``: (seen, visit, next)."""
    seen, visit, nxt = s
    visit[u] = nxt[u]
    seen[u] |= nxt[u]
    nxt[u] = 0


def _functors(word: str) -> dict:
    """The functors over words of one width (``word``: its CUDA type)."""
    return {
        "spread": Advance(f"Spread<{word}>", spread),
        "gather": Pull(f"GatherBits<{word}>", unfilled, gather_bits, filled),
        "reached": Filter(f"Reached<{word}>", reached, per_vertex=True),
        "forget": Compute(f"Forget<{word}>", forget),
        "settle": Compute(f"Settle<{word}>", settle),
    }


FUNCTORS = {np.uint64: _functors("u64"), np.uint32: _functors("u32")}  # the widest words the budget allows first


class ManySources(Algorithm):
    cuda = Path(__file__).with_suffix(".cu")
    functors = tuple(f for by_name in FUNCTORS.values() for f in by_name.values())

    def __init__(self, graph, sources: np.ndarray, word: type = np.uint64, direction: str = "auto"):
        """``sources``: store indices (repeats allowed), as many as ``word`` has bits."""
        self.word, self.f = word, FUNCTORS[word]
        self.vertices, where = np.unique(sources, return_inverse=True)
        self.masks = np.zeros(len(self.vertices), word)
        np.bitwise_or.at(self.masks, where, np.left_shift(word(1), np.arange(len(sources), dtype=word)))
        self.full = np.bitwise_or.reduce(self.masks) if len(sources) else word(0)
        self.indptr = graph.indptr()
        self.frontier_edges = int((self.indptr[self.vertices + 1] - self.indptr[self.vertices]).sum())
        self.direction = Direction(graph, direction)

    def edges(self, graph) -> dict[str, Edges]:
        return {"out": Edges(), "in": Edges(reverse=True)} if self.direction.pulls else {"out": Edges()}

    def state(self, graph) -> dict[str, tuple]:
        return dict.fromkeys(("seen", "visit", "next"), (graph.n_vertices, self.word))

    def start(self, run: Run) -> None:
        for name in ("seen", "visit", "next"):
            run.state[name].fill(0)
        ids, masks = (run.xp.asarray(a) for a in (self.vertices, self.masks))
        run.state["seen"][ids] = masks
        run.state["visit"][ids] = masks
        run.frontier.start(self.vertices, self.frontier_edges)
        self.levels = Levels(len(self.indptr) - 1, 8 * np.dtype(self.word).itemsize)
        self.levels.write(self.vertices, self.masks, 0, self.indptr)

    def step(self, run: Run) -> None:
        s, frontier, f = run.state, run.frontier, self.f
        m, edges = int(run.sizes[-1, 0]), self.frontier_edges
        if frontier.it:  # the frontier: the vertices reached at the last level, with their new sources
            ids = frontier.current.ids[:m]
            bits = s["next"][:m]  # all zero between levels: room for the frontier's bits, no allocation
            run.xp.take(s["visit"], ids, out=bits)
            edges = self.levels.write(run.ops.to_host(ids), run.ops.to_host(bits), frontier.it, self.indptr)
            bits.fill(0)
        pulling = self.direction.next(m, edges)
        if pulling:
            run.pull(f["gather"], s["seen"], s["visit"], s["next"], self.full, input=ALL)
            run.filter(f["reached"], s["seen"], s["next"], self.full, input=ALL)
        else:
            run.advance(f["spread"], s["seen"], s["visit"], s["next"])
        run.compute(f["forget"], s["visit"], input=frontier.current)
        run.compute(f["settle"], s["seen"], s["visit"], s["next"], input=frontier.next)
        run.iterations[-1]["direction"] = "pull" if pulling else "push"


class Levels:
    """Each vertex's level from each source of a pass, side by side: ``level + 1`` (0: not
    reached) in bytes, widened when a level outgrows them; ``reached``: the (vertex, source) pairs
    written."""

    def __init__(self, n_vertices: int, width: int):
        self.a = np.zeros((n_vertices, width), np.uint8)
        self.reached = 0

    def write(self, ids: np.ndarray, bits: np.ndarray, level: int, indptr: np.ndarray) -> int:
        """Level ``level`` for each source whose bit ``bits[i]`` has at ``ids[i]``; the out-edges
        of ``ids`` (what the direction switch weighs)."""
        if level + 1 > np.iinfo(self.a.dtype).max:
            self.a = self.a.astype(np.uint16 if self.a.dtype == np.uint8 else np.uint32)
        edges, written = _write_level(self.a, ids, bits, level + 1, indptr)
        self.reached += written
        return edges

    def distances(self, out: np.ndarray, order: np.ndarray | None) -> None:
        """``out[s]``: source s's distances (-1 where not reached), the vertices in ``order``
        (store indices; None: the store's own)."""
        _distances(self.a, np.empty(0, np.int64) if order is None else order, out)


@njit(parallel=True, nogil=True, cache=True)
def _write_level(levels: np.ndarray, ids: np.ndarray, bits: np.ndarray, mark: int, indptr: np.ndarray) -> tuple[int, int]:
    """(the out-edges of ``ids``, the bits written)."""
    one, edges, written = bits.dtype.type(1), 0, 0
    for i in prange(len(ids)):
        v, b = ids[i], bits[i]
        while b:  # over the set bits alone: a test per bit mispredicted half the time
            levels[v, trailing_zeros(b)] = mark
            b &= b - one
            written += 1
        edges += indptr[v + 1] - indptr[v]
    return edges, written


@njit(parallel=True, nogil=True, cache=True)
def _distances(levels: np.ndarray, order: np.ndarray, out: np.ndarray) -> None:
    block, n = 4096, out.shape[1]  # a block's lines of levels stay in cache while each row is written
    for b in prange((n + block - 1) // block):
        lo, hi = b * block, min(n, (b + 1) * block)
        for s in range(out.shape[0]):
            for i in range(lo, hi):
                out[s, i] = np.int32(levels[order[i] if len(order) else i, s]) - 1


def bfs_many(graph, sources: list, direction: str, config: Config) -> list[BFSResult]:
    """One ``BFSResult`` per source, in order (distances only: parents would take 8 bytes a vertex
    for each source), from passes of 64 sources (32 where the budget is short). Each result's
    ``stats`` are its pass's; their distances are rows of one array (one allocation, written in
    parallel), which any result kept keeps whole."""
    if config.devices is not None:
        raise ValueError("bfs from many sources does not run split over several devices yet")
    ids = np.array([graph.vertex(int(s)) for s in sources], np.int64)
    word = pass_word(graph, config)
    size = 8 * np.dtype(word).itemsize
    dist = np.empty((len(ids), graph.n_vertices), np.int32)  # the results' rows
    results = []
    for first in range(0, len(ids), size):
        batch, rows = ids[first : first + size], dist[first : first + size]
        done = run(algorithm := ManySources(graph, batch, word, direction), graph, config)
        algorithm.levels.distances(rows, graph.original_order)
        stats = done.stats(levels=len(done.iterations), sources=len(batch), reached=algorithm.levels.reached)
        results += [BFSResult(source=s, distances=d, parents=None, stats=stats, ids=graph.ids) for s, d in zip(sources[first : first + size], rows)]
    return results


def pass_word(graph, config: Config) -> type:
    """64-bit words (half the passes) unless their extra 12 bytes a vertex would take over half of
    what 32-bit words leave the chunks."""
    device, _ = config.budgets(config.backend())
    wide, narrow = (state_of(ManySources(graph, np.zeros(1, np.int64), w), graph, config.backend())[1] for w in FUNCTORS)
    return np.uint64 if 2 * (wide - narrow) <= device - narrow else np.uint32
