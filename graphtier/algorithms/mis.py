"""Maximal independent set by ECL-MIS's rule on the runtime (CUDA functors in mis.cu): fewer
neighbours first, then seeded random priorities.

Vertices are ranked as ECL-MIS ranks them, low degrees first (a vertex with few neighbours shuts
out few, so the set grows larger, and more vertices settle in the first round), ties broken by a
seeded random priority (``priority.py``). A vertex's rank and status share one 32-bit word
(``key``), the only word a neighbour's test reads: OUT, IN, or while undecided the rank above the
lowest bit, which marks a vertex that waits this round. A round pulls over every undecided
vertex's list until the first neighbour that settles it for now: one in the set (then the vertex is
out), or an undecided one of higher rank (then it waits); an undecided vertex that finds neither
joins the set. Then every undecided vertex pulls again until the first neighbour in the set, and
is out if it finds one, as if the set had pushed its neighbours out (ECL-MIS's step: they need not
wait behind a higher neighbour to find it next round); a pull reads a lane's short list alone,
where a push reads each list by a whole warp, and the new members are mostly short lists. Every
decision rests on decisions already final (a vertex joins only when all its higher neighbours are
out), so the set is the one the sequential greedy algorithm picks in rank order, whatever order
edges come in, whichever round a chunk arrives in out of core, and however the GPU's threads
race: the same on every backend, format and budget. Self-loops are skipped; a directed graph is
read as undirected through its reverse (out- and in-edges).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..runtime import ALL, BATCH, Compute, Config, Filter, Pull, Run, run
from ..runtime.functors import cpu
from ..runtime.results import IndependentSetResult
from .priority import PRIORITY, Prioritised, list_entries, list_indptrs, priorities

OUT, IN = np.uint32(0), np.uint32(0xFFFFFFFF)  # a key's final values; between them, an undecided vertex's rank and wait bit
WAITS = np.uint32(1)
DEGREE_BITS, PRIORITY_BITS = 12, 19  # a rank's fields: degrees from 4094 up rank alike; equal ranks compare whole priorities
MAX_DEGREE = (1 << DEGREE_BITS) - 2


@cpu
def rank(v, s):
    """An undecided key: (MAX_DEGREE + 1 - degree) above the priority's top bits (never OUT or IN);
    IN for a vertex without edges, which no round need visit. ``s``: (out indptr, in indptr,
    whether both are the out-lists', priorities, keys)."""
    out_ptr, in_ptr, same, prio, key = s
    degree = list_entries(v, out_ptr, in_ptr, same)
    high = np.uint32(MAX_DEGREE + 1 - min(degree, MAX_DEGREE))
    key[v] = IN if degree == 0 else ((high << np.uint32(PRIORITY_BITS)) | np.uint32(prio[v] >> np.uint64(64 - PRIORITY_BITS))) << WAITS


@cpu(inline="always")
def decided(k):
    return k == OUT or k == IN


@cpu
def unsettled(u, s):
    """Undecided, and not yet found to wait this round. ``s``: (keys, priorities)."""
    k = s[0][u]
    return k != OUT and not k & WAITS  # IN has the bit set


@cpu
def settles(u, v, e, w, s):
    """v is in the set, or undecided and of higher rank."""
    key, prio = s
    kv, ku = key[v] >> WAITS, key[u] >> WAITS
    return v != u and (key[v] == IN or (key[v] != OUT and (kv > ku or (kv == ku and prio[v] > prio[u]))))


@cpu
def settle(u, v, s):
    key = s[0]
    key[u] = OUT if key[v] == IN else key[u] | WAITS


@cpu
def join(v, s):
    """After the pulls: an undecided vertex that met no reason to wait joins the set (True); one
    that waits stops waiting. ``s``: (keys,)."""
    key = s[0]
    k = key[v]
    if decided(k):
        return False
    if k & WAITS:
        key[v] = k ^ WAITS
        return False
    key[v] = IN
    return True


@cpu
def undecided(u, s):
    """``s``: (keys,)."""
    return not decided(s[0][u])


@cpu
def in_set(u, v, e, w, s):
    return s[0][v] == IN


@cpu
def shut_out(u, v, s):
    """A neighbour of u is in the set: u is out (no neighbour of a vertex in the set is in it)."""
    s[0][u] = OUT


@cpu
def still(v, s):
    return not decided(s[0][v])


RANK = Compute("Rank", rank)
SETTLE = Pull("Settle", unsettled, settles, settle)
JOIN = Filter("Join", join, per_vertex=True)
SHUT_OUT = Pull("ShutOut", undecided, in_set, shut_out)
STILL = Filter("Still", still, per_vertex=True)


class IndependentSet(Prioritised):
    cuda = Path(__file__).with_suffix(".cu")
    call = "maximal_independent_set"
    functors = (PRIORITY, RANK, SETTLE, JOIN, SHUT_OUT, STILL)
    queues = ("settled",)  # what the pulls settled (its order unread)

    def state(self, graph) -> dict[str, tuple]:
        n = graph.n_vertices
        return {"prio": (n, np.uint64), "key": (n, np.uint32)}

    def start(self, run: Run) -> None:
        prio = run.state["prio"]
        priorities(run, prio, self.key)
        run.compute(RANK, *list_indptrs(run), prio, run.state["key"])
        run.frontier.start(np.zeros(0, np.int64), 0)

    def step(self, run: Run) -> None:
        key, prio, settled = run.state["key"], run.state["prio"], run.queues["settled"]
        todo = ALL if len(run.iterations) == 1 else run.frontier.current
        settled.row.fill(0)
        for name in self.lists:
            run.pull(SETTLE, key, prio, edges=name, input=todo, output=settled)
        run.filter(JOIN, key, input=todo, output=settled)
        settled.row.fill(0)
        for name in self.lists:
            run.pull(SHUT_OUT, key, edges=name, input=todo, output=settled)
        run.filter(STILL, key, input=todo)

    def batch(self, run: Run) -> int:
        return BATCH


def maximal_independent_set(graph, *, seed: int | None = None, config: Config | None = None, **options) -> IndependentSetResult:
    """A maximal independent set of the graph read as undirected (self-loops ignored; isolated
    vertices are in it): ``in_set`` per vertex and ``size``. It is the set that greedy selection
    takes in ECL-MIS's order: fewer neighbours first (entries of the lists as stored, a directed
    graph's out- plus in-lists; degrees from 4094 up alike), then a higher seeded priority.

    ``seed``: the priorities' seed, an integer in [0, 2**64) (None: drawn at random, and reported
    as ``seed``); one seed gives one set, on every device, format and budget. A directed store
    needs its reverse graph. Execution options as every algorithm's (``runtime.Config``).
    """
    alg = IndependentSet(graph, seed)
    if graph.n_vertices == 0:
        return IndependentSetResult(in_set=np.zeros(0, bool), size=0, seed=alg.seed, ids=graph.ids)
    done = run(alg, graph, Config.of(config, **options))
    in_set = done.output(done.state["key"] == IN)
    size = int(in_set.sum())
    return IndependentSetResult(in_set=in_set, size=size, seed=alg.seed, stats=done.stats(size=size, seed=alg.seed), ids=graph.ids)
