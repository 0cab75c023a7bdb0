"""Greedy colouring in largest-degree-first order (ECL-GC's), by Jones-Plassmann with ECL-GC's
shortcut, on the runtime (CUDA functors in coloring.cu).

Vertices are ordered by degree, ties broken by seeded random priorities (``priority.py``), and
each vertex takes the smallest colour that none of its higher neighbours has: the colouring the
sequential greedy algorithm gives in that order. Plain Jones-Plassmann colours a vertex once all
its higher neighbours are coloured, and the chains of that order are long (8,227 rounds on
kron23). The shortcut colours v earlier, with its smallest free colour c, when no uncoloured
higher neighbour u can end with c: u's colour will be at least its smallest free colour now, not
one its coloured higher neighbours took, and at most its (k+1)-th free colour, k being how many
of its higher neighbours are still uncoloured. Then no higher neighbour takes c, and the colours
below c are taken already, so c is v's greedy colour; rounds fall to about the number of colours.
The tests read a tested vertex's list again each round (but where the neighbour that blocked it
last still blocks it), so only the GPU, where a round costs kernel launches, takes them
(``SHORTCUT``); the CPU colours a vertex once none of its higher neighbours is left.

A first sweep counts each vertex's uncoloured higher neighbours (a push of +1 along every edge to
the lower end); degrees are counted once into ``degree``, so that an order test reads one word per
vertex. A round tests the vertices pushed to in the round before (all, at first): the neighbour
that blocked one last (``blocker``) if it still may take its colour, else a pull over the list
until the first higher neighbour that may. The others are coloured
and push their colour (a bit of a 64-colour window, ``used``) and -1 to their lower neighbours,
which the next round tests. A vertex whose window is full moves it 64 colours on and reads its
higher neighbours' colours again (their lists only); colours beyond a vertex's window are not known
to its neighbours' tests, which then wait. Every test reads the state of the round's start, bits
are OR-ed and counts decremented, so the colours are the same whatever order edges come in, on
every backend, format and budget. Self-loops are skipped; a directed graph is read as undirected
through its reverse (out- and in-edges).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..runtime import ALL, BATCH, Advance, Algorithm, Compute, Config, Edges, Filter, Pull, Run, run
from ..runtime.functors import cpu
from ..runtime.results import ColoringResult
from .mis import undirected_lists
from .priority import PRIORITY, priorities, seed_key

NONE = np.uint32(0xFFFFFFFF)  # not coloured yet
FULL = np.uint64(0xFFFFFFFFFFFFFFFF)  # a window whose 64 colours are all taken
ONE = np.uint64(1)
BLOCKED, MOVED = 1, 2  # a vertex's mark within a round: a higher neighbour may take its colour; its window moved
SHORTCUT = {"cpu": False, "cuda": True}  # per backend: fewer rounds for more edges read, worth it where a round costs kernel launches
MAX_DEGREE = 0xFFFFFFFF  # degrees are 32-bit words: a larger one orders as this (only a multigraph's list can be longer)
LIMIT = 32  # the most uncoloured higher neighbours of a vertex tested: one with more likely waits anyway, and its test reads its list


@cpu(inline="always")
def higher(a, b, prio, degree):
    """Whether a comes before b: more neighbours (out- plus in-lists), then a higher priority."""
    return degree[a] > degree[b] or (degree[a] == degree[b] and prio[a] > prio[b])


@cpu
def count_neighbours(v, s):
    """``s``: (out indptr, in indptr, degree)."""
    out_ptr, in_ptr, degree = s
    degree[v] = min(out_ptr[v + 1] - out_ptr[v] + in_ptr[v + 1] - in_ptr[v], MAX_DEGREE)


@cpu(inline="always")
def lowest(bits):
    """The index of the lowest set bit of a non-zero word."""
    i = 0
    while not (bits >> np.uint64(i)) & ONE:
        i += 1
    return i


@cpu(inline="always")
def may_take(u, c, used, window, pending):
    """Whether uncoloured u may end with colour c: not below its smallest free colour, not taken by
    a higher neighbour, not beyond its (pending + 1)-th free one; beyond its window, unknown."""
    base = np.int64(window[u]) * 64
    if used[u] == FULL:
        return c >= base + 64
    free = ~used[u]
    if c < base + lowest(free) or (c < base + 64 and (used[u] >> np.uint64(c - base)) & ONE):
        return False
    for _ in range(pending[u]):  # drop the free colours its uncoloured higher neighbours may take
        free &= free - ONE
        if free == 0:
            return True
    return c <= base + lowest(free)


@cpu(inline="always")
def testable(v, colors, used, pending, mark):
    """Uncoloured, not yet found blocked, its window not full, with uncoloured higher neighbours
    but no more than ``LIMIT``."""
    return colors[v] == NONE and mark[v] != BLOCKED and used[v] != FULL and 0 < pending[v] <= LIMIT


@cpu(inline="always")
def first_free(v, used, window):
    return np.int64(window[v]) * 64 + lowest(~used[v])


@cpu
def still_blocked(v, s):
    """v's blocker of an earlier round, if uncoloured and still able to take v's smallest free
    colour, blocks it again without v's list being read. ``s``: (colors, used, window, pending,
    mark, blocker)."""
    colors, used, window, pending, mark, blocker = s
    u = blocker[v]
    if testable(v, colors, used, pending, mark) and u != NONE and colors[u] == NONE and may_take(u, first_free(v, used, window), used, window, pending):
        mark[v] = BLOCKED
    return False


@cpu
def unsettled(v, s):
    """``s``: (priorities, degrees, colors, used, window, pending, mark, blocker)."""
    return testable(v, s[2], s[3], s[5], s[6])


@cpu
def blocks(v, u, e, w, s):
    """An uncoloured higher neighbour u that may take v's smallest free colour."""
    prio, degree, colors, used, window, pending, _, _ = s
    if u == v or colors[u] != NONE or not higher(u, v, prio, degree):
        return False
    return may_take(u, first_free(v, used, window), used, window, pending)


@cpu
def wait(v, u, s):
    s[6][v] = BLOCKED
    s[7][v] = u


@cpu
def pick(v, s):
    """An uncoloured vertex not blocked takes its smallest free colour (True); a full window moves
    on instead (marked: v reads its neighbours again). A vertex with more than ``limit`` uncoloured
    higher neighbours is blocked untested (0: without the shortcut). ``s``: (colors, used, window, mark, pending, limit)."""
    colors, used, window, mark, pending, limit = s
    if colors[v] != NONE:
        return False
    if used[v] == FULL:
        window[v] += 1
        used[v] = 0
        mark[v] = MOVED
        return False
    blocked = mark[v] == BLOCKED or pending[v] > limit
    mark[v] = 0
    if blocked:
        return False
    colors[v] = first_free(v, used, window)
    return True


@cpu
def window_moved(v, s):
    """``s``: (mark,)."""
    return s[0][v] == MOVED


@cpu
def touched(v, s):
    """Pushed to this round and still uncoloured, unless queued already for a moved window.
    ``s``: (colors, mark)."""
    return s[0][v] == NONE and s[1][v] != MOVED


@cpu
def reread(u, v, e, w, s):
    """u's window moved: the colours of its higher neighbours in it. ``s``: (priorities, degrees,
    colors, used, window)."""
    prio, degree, colors, used, window = s
    if v != u and colors[v] != NONE and higher(v, u, prio, degree) and colors[v] // 64 == window[u]:
        used[u] |= ONE << np.uint64(colors[v] % 64)
    return False


@cpu
def push(v, u, e, w, s):
    """Along an edge from v to a lower neighbour u: ``delta`` to the count of u's uncoloured higher
    neighbours (+1 in the first sweep, nothing coloured yet; -1 once v is coloured) and v's colour,
    where it is in u's window; True once v is coloured: u's test may pass now. ``s``: (priorities,
    degrees, colors, used, window, pending, delta)."""
    prio, degree, colors, used, window, pending, delta = s
    c = colors[v]
    if u == v or not higher(v, u, prio, degree):
        return False
    if c != NONE and c // 64 == window[u]:
        used[u] |= ONE << np.uint64(c % 64)
    pending[u] += delta
    return delta < 0 and colors[u] == NONE


COUNT_NEIGHBOURS = Compute("CountNeighbours", count_neighbours)
STILL_BLOCKED = Filter("StillBlocked", still_blocked)
BLOCK = Pull("Block", unsettled, blocks, wait)
PICK = Filter("Pick", pick)
WINDOW_MOVED = Filter("WindowMoved", window_moved)
REREAD = Advance("Reread", reread)
PUSH = Advance("Push", push)
TOUCHED = Filter("Touched", touched)


class Coloring(Algorithm):
    cuda = Path(__file__).with_suffix(".cu")
    functors = (PRIORITY, COUNT_NEIGHBOURS, PUSH, STILL_BLOCKED, BLOCK, PICK, WINDOW_MOVED, REREAD, TOUCHED)
    queues = ("picked", "touched")  # this round's coloured vertices (before them, the blocked ones), and their lower neighbours
    dedup = True  # a vertex pushed to by many is tested once

    def __init__(self, graph, seed: int | None):
        self.lists = undirected_lists(graph, "greedy_color")
        self.seed, self.key = seed_key(seed)

    def edges(self, graph) -> dict[str, Edges]:
        return {name: Edges(reverse=name == "in") for name in self.lists}

    def state(self, graph) -> dict[str, tuple]:
        n = graph.n_vertices
        return {
            "prio": (n, np.uint64),
            "degree": (n, np.uint32),
            "used": (n, np.uint64),
            "colors": (n, np.uint32),
            "window": (n, np.uint32),
            "pending": (n, np.uint32),
            "mark": (n, np.uint8),
            "blocker": (n, np.uint32),
        }

    def _order(self, run: Run) -> tuple:
        """The comparison's arguments."""
        return run.state["prio"], run.state["degree"]

    def start(self, run: Run) -> None:
        s = run.state
        priorities(run, s["prio"], self.key)
        out_ptr = run.sources["out"].indptr  # a symmetric graph's twice, which orders as once
        run.compute(COUNT_NEIGHBOURS, out_ptr, run.sources["in"].indptr if "in" in run.sources else out_ptr, s["degree"])
        s["colors"].fill(NONE)
        s["blocker"].fill(NONE)
        for name in ("used", "window", "pending", "mark"):
            s[name].fill(0)
        run.frontier.start(np.zeros(0, np.int64), 0)
        for name in self.lists:  # a sweep that queues nothing
            run.advance(PUSH, *self._order(run), s["colors"], s["used"], s["window"], s["pending"], 1, edges=name, input=ALL, output=run.frontier.current)

    def step(self, run: Run) -> None:
        """Test the vertices whose own colours or higher neighbours changed last round (all at
        first); the highest uncoloured vertex is always among them, so a round colours at least it."""
        s, fr, q = run.state, run.frontier, run.queues
        todo = ALL if len(run.iterations) == 1 else fr.current
        colouring = (s["colors"], s["used"], s["window"])
        q["picked"].row.fill(0)
        limit = LIMIT if SHORTCUT[run.backend] else 0
        if limit:
            run.filter(STILL_BLOCKED, *colouring, s["pending"], s["mark"], s["blocker"], input=todo, output=q["picked"])
        for name in self.lists if limit else ():
            run.pull(BLOCK, *self._order(run), *colouring, s["pending"], s["mark"], s["blocker"], edges=name, input=todo, output=q["picked"])
        q["picked"].row.fill(0)
        run.filter(PICK, *colouring, s["mark"], s["pending"], limit, input=todo, output=q["picked"])
        run.filter(WINDOW_MOVED, s["mark"], input=todo)  # tested again next round, after reading their new windows
        for name in self.lists:
            run.advance(REREAD, *self._order(run), *colouring, edges=name, input=fr.next, output=q["touched"])
        q["touched"].row.fill(0)
        for name in self.lists:
            run.advance(PUSH, *self._order(run), *colouring, s["pending"], -1, edges=name, input=q["picked"], output=q["touched"], dedup=True)
        run.filter(TOUCHED, s["colors"], s["mark"], input=q["touched"])

    def batch(self, run: Run) -> int:
        return BATCH


def greedy_color(graph, *, seed: int | None = None, config: Config | None = None, **options) -> ColoringResult:
    """A colouring of the graph read as undirected (self-loops ignored; isolated vertices get colour
    0): ``colors`` per vertex, no edge joining two of one colour, and ``n_colors``; greedy in
    largest-degree-first order (networkx's ``strategy="largest_first"``, with degrees as stored: a
    directed graph's out- plus in-degree, at most 2**32 - 1), so at most the largest degree plus one colours.

    ``seed``: the tie-breaks' seed among equal degrees, an integer in [0, 2**64) (None: drawn at
    random, and reported as ``seed``); one seed gives one colouring, on every device, format and
    budget. A directed store needs its reverse graph. Execution options as every algorithm's
    (``runtime.Config``).
    """
    alg = Coloring(graph, seed)
    if graph.n_vertices == 0:
        return ColoringResult(colors=np.zeros(0, np.int64), n_colors=0, seed=alg.seed, ids=graph.ids)
    done = run(alg, graph, Config.of(config, **options))
    colors = done.output(done.state["colors"].astype(np.int64))  # all coloured: counts and decrements travel along the same lists
    n_colors = int(colors.max()) + 1
    return ColoringResult(colors=colors, n_colors=n_colors, seed=alg.seed, stats=done.stats(n_colors=n_colors, seed=alg.seed), ids=graph.ids)
