"""Greedy colouring by Jones-Plassmann with largest-degree-first priorities (ECL-GC's order), on the
runtime (CUDA functors in coloring.cu).

Vertices are ordered by degree, ties broken by seeded random priorities (``priority.py``), and
each vertex takes the smallest colour that none of its higher neighbours has: the colouring the
sequential greedy algorithm gives in that order. A first sweep counts each vertex's higher
neighbours (a push of +1 along every edge to the lower end); from then on a vertex is ready when
that count drops to zero. Each iteration colours the ready vertices, which push their colour (a
bit of a 64-colour window, ``used``) and -1 to their lower neighbours; those that reach zero are
the next frontier. A vertex whose window is
full moves it 64 colours on and reads its higher neighbours' colours again (their lists only).
Bits are OR-ed and counts decremented, so the colours are the same whatever order edges come in,
on every backend, format and budget. Self-loops are skipped; a directed graph is read as
undirected through its reverse (out- and in-edges).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..runtime import ALL, BATCH, Advance, Algorithm, Config, Edges, Filter, Run, cpu, run
from ..runtime.results import ColoringResult
from .mis import undirected_lists
from .priority import PRIORITY, priorities, seed_key

NONE = np.uint32(0xFFFFFFFF)  # not coloured yet
FULL = np.uint64(0xFFFFFFFFFFFFFFFF)  # a window whose 64 colours are all taken
ONE = np.uint64(1)


@cpu(inline="always")
def higher(a, b, prio, out_ptr, in_ptr):
    """Whether a comes before b: more neighbours (out- plus in-lists), then a higher priority."""
    da = out_ptr[a + 1] - out_ptr[a] + in_ptr[a + 1] - in_ptr[a]
    db = out_ptr[b + 1] - out_ptr[b] + in_ptr[b + 1] - in_ptr[b]
    return da > db or (da == db and prio[a] > prio[b])


@cpu
def ready(v, s):
    """``s``: (pending,)."""
    return s[0][v] == 0


@cpu
def pick(v, s):
    """The smallest colour of v's window that no higher neighbour has; or, the window full, the
    next window (True: v reads its neighbours again). ``s``: (colors, used, window)."""
    colors, used, window = s
    if used[v] == FULL:
        window[v] += 1
        used[v] = 0
        return True
    c = 0
    while (used[v] >> np.uint64(c)) & ONE:
        c += 1
    colors[v] = window[v] * 64 + c
    return False


@cpu
def reread(u, v, e, w, s):
    """u's window moved: the colours of its higher neighbours in it. ``s``: (priorities, out
    indptr, in indptr, colors, used, window)."""
    prio, out_ptr, in_ptr, colors, used, window = s
    if v != u and higher(v, u, prio, out_ptr, in_ptr) and colors[v] // 64 == window[u]:
        used[u] |= ONE << np.uint64(colors[v] % 64)
    return False


@cpu
def push(v, u, e, w, s):
    """Along an edge from v to a lower neighbour u: ``delta`` to what u waits for (+1 in the first
    sweep, nothing coloured yet; -1 once v is coloured) and v's colour (u's window is still the
    first); True when u has none left to wait for. ``s``: (priorities, out indptr, in indptr,
    colors, used, pending, delta)."""
    prio, out_ptr, in_ptr, colors, used, pending, delta = s
    c = colors[v]
    if u == v or (delta < 0 and c == NONE) or not higher(v, u, prio, out_ptr, in_ptr):
        return False
    if c < 64:
        used[u] |= ONE << np.uint64(c)
    pending[u] += delta
    return delta < 0 and pending[u] == 0


READY = Filter("Ready", ready)
PICK = Filter("Pick", pick)
REREAD = Advance("Reread", reread)
PUSH = Advance("Push", push)


class Coloring(Algorithm):
    cuda = Path(__file__).with_suffix(".cu")
    functors = (PRIORITY, PUSH, READY, PICK, REREAD)

    def __init__(self, graph, seed: int | None):
        self.lists = undirected_lists(graph, "greedy_color")
        self.seed, self.key = seed_key(seed)

    def edges(self, graph) -> dict[str, Edges]:
        return {name: Edges(reverse=name == "in") for name in self.lists}

    def state(self, graph) -> dict[str, tuple]:
        n = graph.n_vertices
        return {"prio": (n, np.uint64), "used": (n, np.uint64), "colors": (n, np.uint32), "window": (n, np.uint32), "pending": (n, np.uint32)}

    def _order(self, run: Run) -> tuple:
        """The comparison's arguments: priorities and the degrees' indptrs (a symmetric graph's
        twice, which orders as once)."""
        out_ptr = run.sources["out"].indptr
        return run.state["prio"], out_ptr, run.sources["in"].indptr if "in" in run.sources else out_ptr

    def start(self, run: Run) -> None:
        s = run.state
        priorities(run, s["prio"], self.key)
        s["colors"].fill(NONE)
        for name in ("used", "window", "pending"):
            s[name].fill(0)
        run.frontier.start(np.zeros(0, np.int64), 0)
        for name in self.lists:  # a sweep that queues nothing
            run.advance(PUSH, *self._order(run), s["colors"], s["used"], s["pending"], 1, edges=name, input=ALL, output=run.frontier.current)
        run.filter(READY, s["pending"], input=ALL, output=run.frontier.current)

    def step(self, run: Run) -> None:
        s, fr = run.state, run.frontier
        run.filter(PICK, s["colors"], s["used"], s["window"])  # full windows into the next frontier
        for name in self.lists:
            run.advance(REREAD, *self._order(run), s["colors"], s["used"], s["window"], edges=name, input=fr.next, output=fr.next)
        for name in self.lists:
            run.advance(PUSH, *self._order(run), s["colors"], s["used"], s["pending"], -1, edges=name)

    def batch(self, run: Run) -> int:
        return BATCH


def greedy_color(graph, *, seed: int | None = None, config: Config | None = None, **options) -> ColoringResult:
    """A colouring of the graph read as undirected (self-loops ignored; isolated vertices get colour
    0): ``colors`` per vertex, no edge joining two of one colour, and ``n_colors``; greedy in
    largest-degree-first order (networkx's ``strategy="largest_first"``, with degrees as stored: a
    directed graph's out- plus in-degree), so at most the largest degree plus one colours.

    ``seed``: the tie-breaks' seed among equal degrees, an integer in [0, 2**64) (None: drawn at
    random, and reported as ``seed``); one seed gives one colouring, on every device, format and
    budget. A directed store needs its reverse graph. Execution options as every algorithm's
    (``runtime.Config``).
    """
    alg = Coloring(graph, seed)
    if graph.n_vertices == 0:
        return ColoringResult(colors=np.zeros(0, np.int64), n_colors=0, seed=alg.seed, ids=graph.ids)
    done = run(alg, graph, Config.of(config, **options))
    colors = done.ops.to_host(done.state["colors"])  # all coloured: counts and decrements travel along the same lists
    colors = graph.to_original(colors.astype(np.int64))
    n_colors = int(colors.max()) + 1
    return ColoringResult(colors=colors, n_colors=n_colors, seed=alg.seed, stats=done.stats(n_colors=n_colors, seed=alg.seed), ids=graph.ids)
