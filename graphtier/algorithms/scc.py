"""Strongly connected components by colour propagation, as ECL-SCC does (CUDA functors in scc.cu).

Every vertex not yet placed carries two labels: ``low_in[v]``, the smallest vertex with a path to v,
and ``low_out[v]``, the smallest vertex v has a path to, both over the edges inside v's *part*. A
pass propagates them to a fixpoint: a frontier of the vertices whose labels dropped pushes
``low_in`` through their out-edges and ``low_out`` through their in-edges (an atomic min on the
GPU). Then a vertex with ``low_in[v] == low_out[v] = m`` lies on a cycle through m, so in m's
component, and every vertex of that component finds the same m: it is placed, labelled m (its
component's smallest vertex). The others take the pair of labels as their new part, since two
vertices of one component always share both, and start again from their own ids. Each pass places
at least each part's smallest vertex's component, and edges between parts are never read again,
so a chain of components splits into many parts a pass (a path of 1,500 vertices in random order
takes 16 passes; one pair of labels for all would place about one component a pass).

Before the first pass, vertices without in-edges or without out-edges are placed alone (trimming:
no cycle goes through them). The labels are a fixpoint, the same whatever order edges come in,
so the components are the same on every backend and under every budget. Needs the in-edges: on a
directed graph the reverse graph, built with ``reverse=True``; on a symmetric graph strongly
connected components are the connected components, which ``connected_components`` finds faster.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..runtime import ALL, BATCH, Advance, Algorithm, Compute, Config, Edges, Filter, Run, cpu, run
from ..runtime.results import ComponentsResult
from .cc import connected_components, numbered

PLACED = np.uint64(0xFFFFFFFFFFFFFFFF)  # the part of a placed vertex: no pair of 32-bit labels makes it
_ZERO = np.uint64(0)  # the first part (as a uint64: Numba unifies uint64 and int64 as float64)


@cpu
def init(v, s):
    """Own ids as labels, one part; trimmed: no in-edges or no out-edges. ``s``: (low_in,
    low_out, part, out-edges' indptr, in-edges' indptr)."""
    low_in, low_out, part, out_indptr, in_indptr = s
    low_in[v] = v
    low_out[v] = v
    part[v] = PLACED if out_indptr[v + 1] == out_indptr[v] or in_indptr[v + 1] == in_indptr[v] else _ZERO


@cpu
def spread(v, u, e, w, s):
    """Edge (v, u) inside a part lowers u's label to v's: ``low_in`` through out-edges (what reaches
    v reaches u), ``low_out`` through in-edges (what v reaches, u reaches). ``s``: (labels, part)."""
    labels, part = s
    if part[u] != part[v] or labels[v] >= labels[u]:
        return False
    labels[u] = labels[v]
    return True


@cpu
def settle(v, s):
    """After a pass: equal labels place v; else the pair is v's new part. ``s``: (low_in,
    low_out, part)."""
    low_in, low_out, part = s
    if part[v] == PLACED:
        return
    if low_in[v] == low_out[v]:
        part[v] = PLACED
    else:
        part[v] = (np.uint64(low_out[v]) << np.uint64(32)) | np.uint64(low_in[v])
        low_in[v] = v
        low_out[v] = v


@cpu
def unplaced(v, s):
    return s[0][v] != PLACED


INIT = Compute("Init", init)
SPREAD = Advance("Spread", spread)
SETTLE = Compute("Settle", settle)
UNPLACED = Filter("Unplaced", unplaced)


class StrongComponents(Algorithm):
    cuda = Path(__file__).with_suffix(".cu")
    functors = (INIT, SPREAD, SETTLE, UNPLACED)
    dedup = True  # a vertex whose labels dropped is queued once, whichever edges lowered them

    def __init__(self, graph):
        if not graph.has_reverse:
            raise ValueError(
                f"strongly_connected_components follows in-edges: on a directed graph it needs the reverse graph, which {graph.location} does not have (build it with reverse=True, or graphtier convert --reverse)"
            )
        self.passes = -1  # passes settled (before the first iteration, none began)
        self.settled = False  # the last iteration settled a pass and queued the vertices left

    def edges(self, graph) -> dict[str, Edges]:
        return {"out": Edges(), "in": Edges(reverse=True)}

    def state(self, graph) -> dict[str, tuple]:
        n = graph.n_vertices
        return {"low_in": (n, np.uint32), "low_out": (n, np.uint32), "part": (n, np.uint64)}

    def start(self, run: Run) -> None:
        s = run.state
        run.compute(INIT, s["low_in"], s["low_out"], s["part"], run.sources["out"].indptr, run.sources["in"].indptr)
        run.frontier.start(np.zeros(0, np.int64), 0)

    def batch(self, run: Run) -> int:
        """Propagation needs no decision until its frontier empties (iterations past that do nothing)."""
        return BATCH if run.sizes[-1, 0] else 1

    def step(self, run: Run) -> None:
        s = run.state
        self.settled = not run.sizes[-1, 0]
        if self.settled:  # a pass is over (or none began): place what it found, queue the rest
            if self.passes >= 0:
                run.compute(SETTLE, s["low_in"], s["low_out"], s["part"])
            self.passes += 1
            run.filter(UNPLACED, s["part"], input=ALL)
        else:
            run.advance(SPREAD, s["low_in"], s["part"], edges="out", dedup=True)
            run.advance(SPREAD, s["low_out"], s["part"], edges="in", dedup=True)
        run.iterations[-1]["phase"] = "settle" if self.settled else "propagate"

    def done(self, run: Run, sizes: np.ndarray) -> bool:
        return self.settled and sizes[-1, 0] == 0


def strongly_connected_components(graph, *, config: Config | None = None, **options) -> ComponentsResult:
    """The strongly connected component of every vertex, and how many there are, numbered in the
    order of each component's smallest vertex id (scipy.sparse.csgraph.connected_components with
    connection="strong" finds the same components, numbered otherwise). A directed graph needs its
    reverse graph (built with ``reverse=True``); on a symmetric graph these are its connected
    components. Execution options as every algorithm's (``runtime.Config``)."""
    if not graph.directed:
        return connected_components(graph, config=config, **options)
    alg = StrongComponents(graph)
    if graph.n_vertices == 0:
        return ComponentsResult(labels=np.zeros(0, np.int64), n_components=0, ids=graph.ids)
    done = run(alg, graph, Config.of(config, **options))
    labels = numbered(graph, done, done.state["low_in"])
    n_components = int(labels.max()) + 1
    stats = done.stats(n_components=n_components, passes=alg.passes)
    return ComponentsResult(labels=labels, n_components=n_components, stats=stats, ids=graph.ids)
