"""Maximal independent set by random priorities, as Luby's algorithm and ECL-MIS decide, on the
runtime (CUDA functors in mis.cu).

Each vertex gets a seeded random priority (``priority.py``). A round pulls over every undecided
vertex's list until the first neighbour that settles it for now: one in the set (then the vertex
is out), or an undecided one of higher priority (then it waits); an undecided vertex that finds
neither joins the set, and pushes its neighbours out (ECL-MIS: they need not find it themselves,
behind a neighbour that waits). Every decision rests on decisions already final (a vertex joins
only when all its higher neighbours are out), so the set is the one the sequential greedy
algorithm picks in priority order, whatever order edges come in, whichever round a chunk arrives
in out of core, and however the GPU's threads race: the same on every backend, format and budget.
Self-loops are skipped; a directed graph is read as undirected through its reverse (out- and
in-edges).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..runtime import ALL, BATCH, Advance, Algorithm, Config, Edges, Filter, Pull, Run, run
from ..runtime.functors import cpu
from ..runtime.results import IndependentSetResult
from .priority import PRIORITY, priorities, seed_key

UNDECIDED, IN, OUT, WAITING = 0, 1, 2, 3  # WAITING: undecided, a higher undecided neighbour found this round


@cpu
def undecided(u, s):
    """``s``: (status, priorities)."""
    return s[0][u] == UNDECIDED


@cpu
def settles(u, v, e, w, s):
    """v is in the set, or undecided and of higher priority."""
    status, prio = s
    return v != u and (status[v] == IN or (status[v] != OUT and prio[v] > prio[u]))


@cpu
def settle(u, v, s):
    s[0][u] = OUT if s[0][v] == IN else WAITING


@cpu
def join(v, s):
    """After the pulls: an undecided vertex that met no reason to wait joins the set (True: it
    pushes its neighbours out); one that waits is undecided again. ``s``: (status,)."""
    status = s[0]
    if status[v] == UNDECIDED:
        status[v] = IN
        return True
    if status[v] == WAITING:
        status[v] = UNDECIDED
    return False


@cpu
def exclude(v, u, e, w, s):
    """v joined: its neighbour u is out (no neighbour of a vertex in the set is in it)."""
    if u != v:
        s[0][u] = OUT
    return False


@cpu
def still(v, s):
    return s[0][v] == UNDECIDED


SETTLE = Pull("Settle", undecided, settles, settle)
JOIN = Filter("Join", join)
EXCLUDE = Advance("Exclude", exclude)
STILL = Filter("Still", still)


class IndependentSet(Algorithm):
    cuda = Path(__file__).with_suffix(".cu")
    functors = (PRIORITY, SETTLE, JOIN, EXCLUDE, STILL)
    queues = ("joined",)  # this round's new members (and before them, what the pulls settled)

    def __init__(self, graph, seed: int | None):
        self.lists = undirected_lists(graph, "maximal_independent_set")
        self.seed, self.key = seed_key(seed)

    def edges(self, graph) -> dict[str, Edges]:
        return {name: Edges(reverse=name == "in") for name in self.lists}

    def state(self, graph) -> dict[str, tuple]:
        n = graph.n_vertices
        return {"prio": (n, np.uint64), "status": (n, np.uint8)}

    def start(self, run: Run) -> None:
        priorities(run, run.state["prio"], self.key)
        run.state["status"].fill(UNDECIDED)
        run.frontier.start(np.zeros(0, np.int64), 0)

    def step(self, run: Run) -> None:
        status, prio, joined = run.state["status"], run.state["prio"], run.queues["joined"]
        todo = ALL if len(run.iterations) == 1 else run.frontier.current
        joined.row.fill(0)
        for name in self.lists:
            run.pull(SETTLE, status, prio, edges=name, input=todo, output=joined)
        joined.row.fill(0)
        run.filter(JOIN, status, input=todo, output=joined)
        for name in self.lists:
            run.advance(EXCLUDE, status, edges=name, input=joined, output=joined)
        run.filter(STILL, status, input=todo)

    def batch(self, run: Run) -> int:
        return BATCH


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


def maximal_independent_set(graph, *, seed: int | None = None, config: Config | None = None, **options) -> IndependentSetResult:
    """A maximal independent set of the graph read as undirected (self-loops ignored; isolated
    vertices are in it): ``in_set`` per vertex and ``size``.

    ``seed``: the priorities' seed, an integer in [0, 2**64) (None: drawn at random, and reported
    as ``seed``); one seed gives one set, on every device, format and budget. A directed store
    needs its reverse graph. Execution options as every algorithm's (``runtime.Config``).
    """
    alg = IndependentSet(graph, seed)
    if graph.n_vertices == 0:
        return IndependentSetResult(in_set=np.zeros(0, bool), size=0, seed=alg.seed, ids=graph.ids)
    done = run(alg, graph, Config.of(config, **options))
    in_set = done.output(done.state["status"] == IN)
    size = int(in_set.sum())
    return IndependentSetResult(in_set=in_set, size=size, seed=alg.seed, stats=done.stats(size=size, seed=alg.seed), ids=graph.ids)
