"""The vertex orders of the algorithms that decide by comparing neighbours (maximal independent
set, colouring), the same on both backends (their CUDA twin: priority.cuh): degrees, a graph read
as undirected, and seeded random priorities.

A vertex's priority is splitmix64's finaliser of its id in the input's numbering (the store's
``perm`` when the build relabelled or reordered) plus a key drawn from the seed. The finaliser is
a bijection of 64-bit words, so for one seed no two vertices share a priority: priorities alone
order the vertices, and since they name the input's ids, a result depends on the graph and the
seed, never on the store's vertex order, format or chunking.
"""

from __future__ import annotations

import numpy as np

from ..runtime import Algorithm, Compute, Edges, Run
from ..runtime.functors import cpu

GOLDEN = 0x9E3779B97F4A7C15  # splitmix64's increment: the key of seed s is mix(s + GOLDEN)
_MASK = (1 << 64) - 1
_C1, _C2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)


@cpu(inline="always")
def mix(z):
    """splitmix64's finaliser on a uint64 (wrapping)."""
    z = (z ^ (z >> _S30)) * _C1
    z = (z ^ (z >> _S27)) * _C2
    return z ^ (z >> _S31)


def mix_array(z: np.ndarray) -> np.ndarray:
    """``mix`` on a uint64 array, for the host (NumPy's array arithmetic wraps as the device's)."""
    z = (z ^ (z >> _S30)) * _C1
    z = (z ^ (z >> _S27)) * _C2
    return z ^ (z >> _S31)


def seed_key(seed: int | None) -> tuple[int, int]:
    """(the seed, the key it gives) for ``seed``: an integer in [0, 2**64), or None for one drawn
    from the operating system (as networkx's ``seed=None`` draws), reported so that a run can be
    repeated."""
    if seed is None:
        seed = int(np.random.SeedSequence().entropy) & _MASK
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise TypeError(f"seed must be an integer or None, got {type(seed).__name__}")
    seed = int(seed)
    if not 0 <= seed <= _MASK:
        raise ValueError(f"seed must be in [0, 2**64), got {seed}")
    return seed, int(mix_array(np.array([(seed + GOLDEN) & _MASK], np.uint64))[0])


@cpu(inline="always")
def list_entries(v, out_ptr, in_ptr, same):
    """v's neighbours as stored: its out- plus in-list (one list where ``same``, a symmetric graph's)."""
    return out_ptr[v + 1] - out_ptr[v] + (0 if same else in_ptr[v + 1] - in_ptr[v])


def undirected_lists(graph, name: str) -> tuple[str, ...]:
    """The edges that give every vertex its neighbours: a symmetric graph's lists, or a directed
    graph's out- and in-lists (its reverse); a directed graph without its reverse is refused."""
    if not graph.directed:
        return ("out",)
    if not graph.has_reverse:
        raise ValueError(
            f"{name} reads a graph as undirected: {graph.location} is directed without its reverse graph (build it with symmetrize=True, graphtier convert --symmetrize, for an undirected graph, or with reverse=True, convert --reverse, to take out- and in-edges together)"
        )
    return ("out", "in")


class Prioritised(Algorithm):
    """An algorithm over the graph read as undirected (``lists``), in the order of a seeded draw
    (``seed``, and the ``key`` it gives); ``call`` names it where a graph is refused."""

    call = ""

    def __init__(self, graph, seed: int | None):
        self.lists = undirected_lists(graph, self.call)
        self.seed, self.key = seed_key(seed)

    def edges(self, graph) -> dict[str, Edges]:
        return {name: Edges(reverse=name == "in") for name in self.lists}


def list_indptrs(run: Run) -> tuple:
    """(out-lists' indptr, in-lists' indptr, whether they are one): ``list_entries``' arguments."""
    out_ptr = run.sources["out"].indptr
    return (out_ptr, run.sources["in"].indptr, False) if "in" in run.sources else (out_ptr, out_ptr, True)


@cpu
def priority(v, s):
    """``s``: (priorities, whether they hold the input's ids already, key as int64 bits)."""
    prio, has_ids, key = s
    base = prio[v] if has_ids else np.uint64(v)
    prio[v] = mix(base + np.uint64(key))


PRIORITY = Compute("Priority", priority)


def priorities(run: Run, prio, key: int) -> None:
    """Fills ``prio`` (uint64 per vertex) with the priorities of ``key``: the input's ids are
    copied in first where the store renumbered its vertices (no device scratch: a copy in place)."""
    perm = run.graph.perm
    if perm is not None:
        if run.backend == "cuda":
            prio.set(np.ascontiguousarray(perm, np.uint64))
        else:
            prio[:] = perm
    run.compute(PRIORITY, prio, perm is not None, np.uint64(key).view(np.int64))


def priorities_of(ids: np.ndarray, seed: int) -> np.ndarray:
    """The priorities of the vertices with input ids ``ids`` under ``seed``, with NumPy: what
    ``priorities`` computes on the device, for tests and users who want the order."""
    return mix_array(np.asarray(ids).astype(np.uint64) + np.uint64(seed_key(seed)[1]))
