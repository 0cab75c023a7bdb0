"""BFS from many sources at once (``gt.bfs(g, sources=[...])``), as MS-BFS does (Then et al., VLDB
2015): up to 64 sources share each pass over the edges, so each chunk's trip over PCIe or from
storage serves all of them. CUDA functors in msbfs.cu.

A vertex holds three words of bits, a bit per source of the pass: ``seen`` (the sources that have
reached it), ``visit`` (those that reached it at the last level: what it pushes on) and ``next``
(those reaching it at this level). A level pushes from the frontier (the vertices whose ``visit``
is not empty) into ``next`` and queues a vertex the first time its ``next`` gets a bit; then each
queued vertex settles: ``visit`` takes ``next``, ``seen`` takes it in. Distances per source are
written on the host from each level's queue and bits (a vertex's bits at level L are the sources
at distance L), so the device holds three words a vertex whatever the number of sources: 64-bit
words, or 32-bit ones (12 bytes a vertex, as a one-source BFS's state, and passes of 32) where
the wider words would take over half of what the narrow ones leave the chunks. Pushes only: a pull that stops early needs every
source's bit, and the runtime's pull stops at the first.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit, prange

from ..runtime import Advance, Algorithm, Compute, Config, Run, cpu, run
from ..runtime.results import BFSResult
from ..runtime.run import state_of

CUDA_WORDS = {np.uint64: "u64", np.uint32: "u32"}  # a vertex's words: the widest the budget allows first


@cpu
def spread(v, u, e, w, s):
    """u takes the sources that reached v at the last level and have not reached u; queued the
    first time its ``next`` gets a bit. ``s``: (seen, visit, next)."""
    seen, visit, nxt = s
    bits = visit[v] & ~seen[u]
    if bits == 0 or (nxt[u] & bits) == bits:
        return False
    first = nxt[u] == 0
    nxt[u] |= bits
    return first


@cpu
def settle(u, s):
    """A vertex reached at this level pushes on its new sources next. ``s``: (seen, visit, next)."""
    seen, visit, nxt = s
    visit[u] = nxt[u]
    seen[u] |= nxt[u]
    nxt[u] = 0


SPREAD = {w: Advance(f"Spread<{t}>", spread) for w, t in CUDA_WORDS.items()}
SETTLE = {w: Compute(f"Settle<{t}>", settle) for w, t in CUDA_WORDS.items()}


class ManySources(Algorithm):
    cuda = Path(__file__).with_suffix(".cu")
    functors = (*SPREAD.values(), *SETTLE.values())

    def __init__(self, graph, sources: np.ndarray, dist: np.ndarray | None, word: type = np.uint64):
        """``sources``: store indices (repeats allowed), as many as ``word`` has bits; ``dist``:
        their rows of distances, filled in level by level (-1 where never reached)."""
        self.word = word
        self.vertices, where = np.unique(sources, return_inverse=True)
        self.masks = np.zeros(len(self.vertices), word)
        np.bitwise_or.at(self.masks, where, np.left_shift(word(1), np.arange(len(sources), dtype=word)))
        indptr = graph.indptr()
        self.frontier_edges = int((indptr[self.vertices + 1] - indptr[self.vertices]).sum())
        self.dist = dist

    def state(self, graph) -> dict[str, tuple]:
        return dict.fromkeys(("seen", "visit", "next"), (graph.n_vertices, self.word))

    def start(self, run: Run) -> None:
        for name in ("seen", "visit", "next"):
            run.state[name].fill(0)
        ids, masks = (run.xp.asarray(a) for a in (self.vertices, self.masks))
        run.state["seen"][ids] = masks
        run.state["visit"][ids] = masks
        run.frontier.start(self.vertices, self.frontier_edges)
        _write_level(self.dist, self.vertices, self.masks, 0)

    def step(self, run: Run) -> None:
        s, frontier = run.state, run.frontier
        if frontier.it:  # the frontier: the vertices reached at the last level, with their new sources
            m = int(run.sizes[-1, 0])
            ids = frontier.current.ids[:m]
            _write_level(self.dist, run.ops.to_host(ids).astype(np.int64), run.ops.to_host(s["visit"][ids]), frontier.it)
        run.advance(SPREAD[self.word], s["seen"], s["visit"], s["next"])
        run.compute(SETTLE[self.word], s["seen"], s["visit"], s["next"], input=frontier.next)


@njit(parallel=True, nogil=True, cache=True)
def _write_level(dist: np.ndarray, ids: np.ndarray, bits: np.ndarray, level: int) -> None:
    """``dist[s, ids[i]] = level`` for every source s whose bit is set in ``bits[i]``."""
    one = bits.dtype.type(1)
    for i in prange(len(ids)):
        b, s = bits[i], 0
        while b:
            if b & one:
                dist[s, ids[i]] = level
            b >>= one
            s += 1


def bfs_many(graph, sources: list, config: Config) -> list[BFSResult]:
    """One ``BFSResult`` per source, in order (distances only: parents would take 8 bytes a vertex
    for each source), from passes of 64 sources (32 where the budget is short). Each result's
    ``stats`` are its pass's."""
    if config.devices is not None:
        raise ValueError("bfs from many sources does not run split over several devices yet")
    ids = np.array([graph.vertex(int(s)) for s in sources], np.int64)
    word = pass_word(graph, config)
    size = 8 * np.dtype(word).itemsize
    results = []
    for first in range(0, len(ids), size):
        batch = ids[first : first + size]
        dist = np.full((len(batch), graph.n_vertices), -1, np.int32)
        done = run(ManySources(graph, batch, dist, word), graph, config)
        for it, row in zip(done.iterations, done.sizes):
            it["edges"] = int(row[1])
        stats = done.stats(levels=len(done.iterations), sources=len(batch), reached=int((dist >= 0).sum()))
        results += [BFSResult(source=s, distances=graph.to_original(d), parents=None, stats=stats, ids=graph.ids) for s, d in zip(sources[first : first + size], dist)]
    return results


def pass_word(graph, config: Config) -> type:
    """64-bit words (half the passes) unless their extra 12 bytes a vertex would take over half of
    what 32-bit words leave the chunks."""
    device, _ = config.budgets(config.backend())
    wide, narrow = (state_of(ManySources(graph, np.zeros(1, np.int64), None, w), graph, config.backend())[1] for w in CUDA_WORDS)
    return np.uint64 if 2 * (wide - narrow) <= device - narrow else np.uint32
