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
(``SHORTCUT``); the CPU colours a vertex once none of its higher neighbours is left. A list longer
than ``KEEP_FROM`` is read once, when its vertex is first tested, for its uncoloured higher
neighbours (at most ``LIMIT``), kept in a row of their own that its later tests read instead,
dropping those coloured since: otherwise one warp reads a hub's list alone, round after round.

A vertex's state is one 32-byte cell (``CELL_WORDS``: its colour, window, colours taken, count,
degree, blocker and mark), so that testing a neighbour reads one sector of memory, not one per
array. A first sweep counts each vertex's uncoloured higher neighbours (a push of +1 along every
edge to the lower end), its degree counted into its cell first. A round tests the vertices pushed
to in the round before (all, at first): the neighbour that blocked one last (its blocker) if it
still may take its colour, else a pull over the list until the first higher neighbour that may.
The others are coloured and push their colour (a bit of a 64-colour window) and -1 to their lower neighbours,
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

from ..partition.radix import radix_sort
from ..runtime import ALL, BATCH, Advance, Compute, Config, DepthFirst, Filter, Pull, Run, run
from ..runtime.functors import cpu
from ..runtime.results import ColoringResult
from .priority import PRIORITY, Prioritised, list_entries, list_indptrs, priorities

NONE = 0xFFFFFFFF  # a colour: not coloured yet; a blocker: none
FULL = np.uint64(0xFFFFFFFFFFFFFFFF)  # a window whose 64 colours are all taken
ONE = np.uint64(1)
BLOCKED, MOVED = 1, 2  # a vertex's mark within a round: a higher neighbour may take its colour; its window moved
SHORTCUT = {"cpu": False, "cuda": True}  # per backend: fewer rounds for more edges read, worth it where a round costs kernel launches
MAX_DEGREE = 0xFFFFFFFF  # degrees are 32-bit words: a larger one orders as this (only a multigraph's list can be longer)
LIMIT = 128  # the most uncoloured higher neighbours of a vertex tested: one with more likely waits anyway, and its test reads its list
KEEP_FROM = 4 * LIMIT  # a longer list is read once for its uncoloured higher neighbours, kept for later tests (a row of LIMIT + 1 words each)
# A vertex's cell, 32 bytes (coloring.cu's struct Cell): the state a test of it reads, in one
# sector of memory. The state holds cells as four 64-bit words; the CPU's functors read them as these records.
CELL = np.dtype(
    [
        ("used", np.uint64),  # its 64-colour window's colours that higher neighbours took
        ("colour", np.uint32),  # NONE: not coloured yet
        ("window", np.uint32),  # the window's first colour / 64
        ("pending", np.uint32),  # uncoloured higher neighbours
        ("degree", np.uint32),  # out- plus in-lists, at most MAX_DEGREE
        ("blocker", np.uint32),  # the neighbour that blocked it last; a long list's: its row of kept neighbours
        ("mark", np.uint32),  # BLOCKED or MOVED within a round
    ]
)
CELL_WORDS = CELL.itemsize // 8
COLOUR_WORD = CELL.fields["colour"][1] // 8  # the word that holds the colour (its low half) and the window


@cpu(inline="always")
def higher(a, b, prio, cell):
    """Whether a comes before b: more neighbours (out- plus in-lists), then a higher priority."""
    return cell[a].degree > cell[b].degree or (cell[a].degree == cell[b].degree and prio[a] > prio[b])


@cpu
def count_neighbours(v, s):
    """A fresh cell: uncoloured, its degree counted. ``s``: (out indptr, in indptr, whether both
    are the out-lists', cells)."""
    out_ptr, in_ptr, same, cell = s
    c = cell[v]
    c.used = 0
    c.colour = c.blocker = NONE
    c.window = c.pending = c.mark = 0
    c.degree = min(list_entries(v, out_ptr, in_ptr, same), MAX_DEGREE)


@cpu(inline="always")
def lowest(bits):
    """The index of the lowest set bit of a non-zero word."""
    i = 0
    while not (bits >> np.uint64(i)) & ONE:
        i += 1
    return i


@cpu(inline="always")
def may_take(u, c, cell):
    """Whether uncoloured u may end with colour c: not below its smallest free colour, not taken by
    a higher neighbour, not beyond its (pending + 1)-th free one; beyond its window, unknown."""
    base = np.int64(cell[u].window) * 64
    used = cell[u].used
    if used == FULL:
        return c >= base + 64
    free = ~used
    if c < base + lowest(free) or (c < base + 64 and (used >> np.uint64(c - base)) & ONE):
        return False
    for _ in range(cell[u].pending):  # drop the free colours its uncoloured higher neighbours may take
        free &= free - ONE
        if free == 0:
            return True
    return c <= base + lowest(free)


@cpu(inline="always")
def testable(v, cell):
    """Uncoloured, not yet found blocked, its window not full, with uncoloured higher neighbours
    but no more than ``LIMIT``."""
    c = cell[v]
    return c.colour == NONE and c.mark != BLOCKED and c.used != FULL and 0 < c.pending <= LIMIT


@cpu(inline="always")
def long_list(v, cell):
    """More than ``KEEP_FROM`` neighbours: its uncoloured higher neighbours kept in a row once it is
    tested, whose index its ``blocker`` holds (NONE before)."""
    return cell[v].degree > KEEP_FROM


@cpu(inline="always")
def first_free(v, cell):
    return np.int64(cell[v].window) * 64 + lowest(~cell[v].used)


@cpu
def keep(v, s):
    """A tested vertex with a long list, the first time: a row of ``kept`` for its uncoloured
    higher neighbours (True: ``COLLECT`` fills it). ``s``: (cells, the rows, how many are taken,
    how many there are)."""
    cell, kept, taken, rows = s
    if not long_list(v, cell) or cell[v].blocker != NONE or not testable(v, cell) or taken[0] >= rows:
        return False
    cell[v].blocker = taken[0]
    kept[taken[0], 0] = 0
    taken[0] += 1
    return True


@cpu
def collect(v, u, e, w, s):
    """From a vertex given a row: each uncoloured higher neighbour into it, after the count in
    the row's first word (``pending`` of them, at most ``LIMIT``). ``s``: (priorities, cells, the
    rows)."""
    prio, cell, kept = s
    if u == v or cell[u].colour != NONE or not higher(u, v, prio, cell):
        return False
    r = cell[v].blocker
    k = kept[r, 0]
    kept[r, 0] = k + 1
    if k < LIMIT:
        kept[r, 1 + k] = u
    return False


@cpu
def recheck(v, s):
    """A tested vertex blocked without its list being read: by the neighbour that blocked it last,
    if uncoloured and still able to take v's smallest free colour; a long list's, by the first of
    its row that is (moved to the front, to be tried first next time; those coloured since
    dropped from the row). ``s``: (cells, the rows)."""
    cell, kept = s
    if not testable(v, cell) or cell[v].blocker == NONE:
        return False
    c = first_free(v, cell)
    if not long_list(v, cell):
        u = cell[v].blocker
        if cell[u].colour == NONE and may_take(u, c, cell):
            cell[v].mark = BLOCKED
        return False
    r = cell[v].blocker
    k = min(np.int64(kept[r, 0]), LIMIT)
    j = 0
    while j < k:
        u = kept[r, 1 + j]
        if cell[u].colour != NONE:
            k -= 1
            kept[r, 1 + j] = kept[r, 1 + k]
        elif may_take(u, c, cell):
            kept[r, 1 + j], kept[r, 1] = kept[r, 1], u
            cell[v].mark = BLOCKED
            break
        else:
            j += 1
    kept[r, 0] = k
    return False


@cpu
def unsettled(v, s):
    """Testable, its list not kept. ``s``: (priorities, cells)."""
    cell = s[1]
    return testable(v, cell) and not (long_list(v, cell) and cell[v].blocker != NONE)


@cpu
def blocks(v, u, e, w, s):
    """An uncoloured higher neighbour u that may take v's smallest free colour."""
    prio, cell = s
    if u == v or cell[u].colour != NONE or not higher(u, v, prio, cell):
        return False
    return may_take(u, first_free(v, cell), cell)


@cpu
def wait(v, u, s):
    """Blocked by u, remembered (a long list's ``blocker`` names a row)."""
    cell = s[1]
    cell[v].mark = BLOCKED
    if not long_list(v, cell):
        cell[v].blocker = u


@cpu
def pick(v, s):
    """An uncoloured vertex not blocked takes its smallest free colour (True); a full window moves
    on instead (marked: v reads its neighbours again). A vertex with more than ``limit`` uncoloured
    higher neighbours is blocked untested (0: without the shortcut). ``s``: (cells, limit)."""
    cell, limit = s
    c = cell[v]
    if c.colour != NONE:
        return False
    if c.used == FULL:
        c.window += 1
        c.used = 0
        c.mark = MOVED
        return False
    blocked = c.mark == BLOCKED or c.pending > limit
    c.mark = 0
    if blocked:
        return False
    c.colour = first_free(v, cell)
    return True


@cpu
def window_moved(v, s):
    """``s``: (cells,)."""
    return s[0][v].mark == MOVED


@cpu
def touched(v, s):
    """Pushed to this round and still uncoloured, unless queued already for a moved window.
    ``s``: (cells,)."""
    c = s[0][v]
    return c.colour == NONE and c.mark != MOVED


@cpu
def reread(u, v, e, w, s):
    """u's window moved: the colours of its higher neighbours in it. ``s``: (priorities, cells)."""
    prio, cell = s
    c = cell[v].colour
    if v != u and c != NONE and higher(v, u, prio, cell) and c // 64 == cell[u].window:
        cell[u].used |= ONE << np.uint64(c % 64)
    return False


@cpu
def push(v, u, e, w, s):
    """Along an edge from v to a lower neighbour u: ``delta`` to the count of u's uncoloured higher
    neighbours (+1 in the first sweep, nothing coloured yet; -1 once v is coloured) and v's colour,
    where it is in u's window; True once v is coloured: u's test may pass now. ``s``: (priorities,
    cells, delta)."""
    prio, cell, delta = s
    c = cell[v].colour
    if u == v or not higher(v, u, prio, cell):
        return False
    if c != NONE and c // 64 == cell[u].window:
        cell[u].used |= ONE << np.uint64(c % 64)
    cell[u].pending += delta
    return delta < 0 and cell[u].colour == NONE


@cpu
def walk_each(v, s):
    return True


@cpu
def walk_nothing(v, s):
    return 0


@cpu
def note_colour(v, u, e, w, value, s):
    """The serial walk's edge: a neighbour coloured already (a higher one: the walk goes in the
    order) marks its colour as taken by v. ``s``: (colours, the vertex that last found each colour
    taken, indexed by colour)."""
    colour, taken = s
    c = colour[u]
    if c != NONE:
        taken[c] = v
    return False, value


@cpu
def no_return(v, u, value, s):
    return value


@cpu
def take_least(v, value, s):
    """v's list read: the least colour no higher neighbour took."""
    colour, taken = s
    c = 0
    while taken[c] == v:
        c += 1
    colour[v] = c


COUNT_NEIGHBOURS = Compute("CountNeighbours", count_neighbours)
KEEP = Filter("Keep", keep)
COLLECT = Advance("Collect", collect)
RECHECK = Filter("Recheck", recheck)
BLOCK_PULL = Pull("Block", unsettled, blocks, wait)
PICK = Filter("Pick", pick)
WINDOW_MOVED = Filter("WindowMoved", window_moved)
REREAD = Advance("Reread", reread)
PUSH = Advance("Push", push)
TOUCHED = Filter("Touched", touched)
GREEDY_WALK = DepthFirst("GreedyWalk", walk_each, walk_nothing, note_colour, no_return, take_least, depth=1)


class Coloring(Prioritised):
    """Jones-Plassmann's rounds; where the CPU holds a symmetric graph whole, the sequential greedy
    algorithm itself instead (``serial``): vertices in the order (sorted by radix passes) each take
    the least colour their higher neighbours left, through a walk that enters no vertex
    (``Run.depth_first``), each list read once against twice and filters every round. Out of core
    the walk's order would wait for a chunk at nearly every vertex, so rounds run there."""

    cuda = Path(__file__).with_suffix(".cu")
    call = "greedy_color"
    functors = (PRIORITY, COUNT_NEIGHBOURS, PUSH, KEEP, COLLECT, RECHECK, BLOCK_PULL, PICK, WINDOW_MOVED, REREAD, TOUCHED, GREEDY_WALK)
    queues = ("picked", "touched")  # this round's coloured vertices (before them, the blocked ones), and their lower neighbours (serial: the order)
    dedup = True  # a vertex pushed to by many is tested once

    def state(self, graph) -> dict[str, tuple]:
        n = graph.n_vertices
        rows = graph.memo("coloring_long_lists", lambda: long_lists(graph))
        return {"prio": (n, np.uint64), "cell": ((n, CELL_WORDS), np.uint64), "kept": ((rows, LIMIT + 1), np.uint32), "rows_taken": (1, np.uint32)}

    def start(self, run: Run) -> None:
        s = run.state
        priorities(run, s["prio"], self.key)
        run.compute(COUNT_NEIGHBOURS, *list_indptrs(run), cells(run))
        s["rows_taken"].fill(0)
        run.frontier.start(np.zeros(0, np.int64), 0)
        self.serial = self.lists == ("out",) and run.drains("out")
        if self.serial:
            order = run.queues["touched"]
            order.ids[:] = np.arange(run.n)
            radix_sort(~s["prio"], order.ids)  # highest priority first, then stably
            radix_sort(MAX_DEGREE - cells(run)["degree"][order.ids].astype(np.uint64), order.ids)  # most neighbours first
            order.row[0] = run.n
            return
        for name in self.lists:  # a sweep that queues nothing
            run.advance(PUSH, s["prio"], cells(run), 1, edges=name, input=ALL, output=run.frontier.current)

    def step(self, run: Run) -> None:
        """Test the vertices whose own colours or higher neighbours changed last round (all at
        first); the highest uncoloured vertex is always among them, so a round colours at least it."""
        s, prio, cell, fr, q = run.state, run.state["prio"], cells(run), run.frontier, run.queues
        if self.serial:  # colours on their own, 4 bytes a vertex, where a cell is 32: the walk's reads of them mostly hit the cache
            colour, taken = run.array("colour", run.n, np.uint32), run.array("taken", run.n, np.uint32)  # colours stay below the vertex count
            colour.fill(NONE)
            taken.fill(NONE)
            run.depth_first(GREEDY_WALK, colour, taken, input=q["touched"])
            cell["colour"] = colour
            return
        todo = ALL if len(run.iterations) == 1 else fr.current
        limit = LIMIT if SHORTCUT[run.backend] else 0
        q["picked"].row.fill(0)
        if limit:  # long lists read for their rows, then the blockers tried and the rows read, then the other lists
            kept = s["kept"]
            run.filter(KEEP, cell, kept, s["rows_taken"], len(kept), input=todo, output=q["picked"])
            for name in self.lists:
                run.advance(COLLECT, prio, cell, kept, edges=name, input=q["picked"], output=q["touched"])
            q["picked"].row.fill(0)
            run.filter(RECHECK, cell, kept, input=todo, output=q["picked"])
        for name in self.lists if limit else ():
            run.pull(BLOCK_PULL, prio, cell, edges=name, input=todo, output=q["picked"])
        q["picked"].row.fill(0)
        run.filter(PICK, cell, limit, input=todo, output=q["picked"])
        run.filter(WINDOW_MOVED, cell, input=todo)  # tested again next round, after reading their new windows
        for name in self.lists:
            run.advance(REREAD, prio, cell, edges=name, input=fr.next, output=q["touched"])
        q["touched"].row.fill(0)
        for name in self.lists:
            run.advance(PUSH, prio, cell, -1, edges=name, input=q["picked"], output=q["touched"], dedup=True)
        run.filter(TOUCHED, cell, input=q["touched"])

    def batch(self, run: Run) -> int:
        return 1 if self.serial else BATCH

    def done(self, run: Run, sizes: np.ndarray) -> bool:
        return self.serial or super().done(run, sizes)


def long_lists(graph) -> int:
    """The vertices with more than ``KEEP_FROM`` neighbours as stored: the most rows kept."""
    entries = np.diff(graph.indptr())
    if graph.directed:
        entries += np.diff(graph.indptr(reverse=True))
    return int(np.count_nonzero(entries > KEEP_FROM))


def cells(run: Run):
    """The cells as the backend's functors take them: words on the GPU, records on the CPU."""
    words = run.state["cell"]
    return words if run.backend == "cuda" else words.view(CELL)[:, 0]


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
    colors = done.output((done.state["cell"][:, COLOUR_WORD] & 0xFFFFFFFF).astype(np.int64))  # all coloured: counts and decrements travel along the same lists
    n_colors = int(colors.max()) + 1
    return ColoringResult(colors=colors, n_colors=n_colors, seed=alg.seed, stats=done.stats(n_colors=n_colors, seed=alg.seed), ids=graph.ids)
