"""Strongly connected components: Pearce's depth-first algorithm on the CPU, forward-backward
reachability and colouring on the GPU, as Slota et al.'s Multistep does it (CUDA functors in
scc.cu).

On the CPU one depth-first walk (``Run.depth_first``, the runtime's serial walk) goes from every
vertex not entered yet, in increasing order, each out-list read once, as scipy's
``connected_components(connection="strong")`` does (Pearce's algorithm, "A space-efficient
algorithm for finding strongly connected components", 2016). A vertex entered gets a rank, twice
the next index; the walk carries its low link along its list (the least rank it reaches, with the
low bit set once it drops) and gives it to the parent on the way back. A vertex left whose low link
did not drop closes its component: it and the vertices pending since it was entered (of index no
lower) are placed, their ranks twice the component's number, which counts down from the vertex
count above every open rank; the others wait in ``pending``. Indices are reused once placed, so
ranks fit 32 bits below 2**31 vertices. Labels follow from the ranks in one pass: components are
numbered by their first vertex in the input's order. On cnr-2000 (2 cores) 25 ms on csr, 32-35 on
ef, scipy 31.5-33 (``benchmarks/results/scc_cpu-2026-11-27-vm-dfs.md``).

On the GPU every vertex not yet placed belongs to a *part*, one at first; edges between parts are
never read again, since a component lies inside one part. A pass has two halves, one along the
edges and one against them. First half: *seeds* take their own ids as ``colour`` (the others
``NONE``), and a frontier of the vertices whose colour dropped pushes it on inside the part (an
atomic min), so that each vertex's colour becomes the smallest seed with a path to it (or from it,
against the edges). A vertex reached takes its colour as its new part: the vertices of one
component share their seeds. Second half: each colour's *root* (the seed that names it) pushes its
id as ``reach`` the other way inside its colour; what it reaches lies on a cycle through it, so is
its component, placed with the root as label. A single seed reaches each vertex once.

The first pass seeds one vertex, the pivot, of most in- times out-edges, which on web and social
graphs lies in the giant component: the pass places it whole in what two breadth-first searches
cost (on cnr-2000, 112,023 of 325,557 vertices). Every later pass seeds every vertex left, placing
every colour's component, and splits a chain of components into many parts (a path of 1,500
vertices in random order takes 15 passes). The first half goes against the edges when more
vertices lack out-edges than in-edges: a crawl reaches every page from its seeds, so from the
pivot most of the graph (all of it on cnr-2000), and the first half reads less backwards. Before
the first pass, vertices without in-edges or without out-edges are placed alone (trimming). The
same driver runs on the CPU too (``components(graph, StrongComponents(graph), config)``), each half
one drained advance where the edges are in memory, which is how the tests check it without a GPU.

Components are the same whatever order edges come in, so on every backend and under every budget,
and both number them by their least vertex in the input's ids. Both drivers need the in-edges (the GPU's follow
them; the CPU's refuses alike, so that a call runs on either backend or on neither): on a directed
graph the reverse graph, built with ``reverse=True``; on a symmetric graph strongly connected
components are the connected components, which ``connected_components`` finds.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from ..runtime import ALL, BATCH, Advance, Algorithm, Config, DepthFirst, Edges, Filter, Run, run
from ..runtime.functors import cpu
from ..runtime.results import ComponentsResult
from .cc import connected_components, numbered

NONE = np.uint32(0xFFFFFFFF)  # no seed: the label of a vertex no seed reaches (no vertex has this id)
PLACED = NONE  # the part of a placed vertex
FIRST = np.uint32(0xFFFFFFFE)  # the first part (no vertex has this id either: colours never equal it)


@cpu
def init(v, s):
    """Trimming: a vertex without in-edges or without out-edges is placed, its own id as label;
    the others are in the first part (true: queued), and only the pivot is a seed. ``s``: (colour,
    part, out-edges' indptr, in-edges' indptr, the pivot)."""
    colour, part, out_indptr, in_indptr, pivot = s
    trimmed = out_indptr[v + 1] == out_indptr[v] or in_indptr[v + 1] == in_indptr[v]
    colour[v] = v if trimmed or v == pivot else NONE
    part[v] = PLACED if trimmed else FIRST
    return not trimmed


@cpu
def spread(v, u, e, w, s):
    """Edge (v, u) inside a part lowers u's label to v's (what v's label names reaches u, or is
    reached from it, through v). ``s``: (labels, part)."""
    labels, part = s
    if part[u] != part[v] or labels[v] >= labels[u]:
        return False
    labels[u] = labels[v]
    return True


@cpu
def colour_part(v, s):
    """After the first half: a vertex reached takes its colour as its part; roots seed the second
    half (true: queued). ``s``: (colour, reach, part)."""
    colour, reach, part = s
    if part[v] == PLACED:
        return False
    c = colour[v]
    if c != NONE:
        part[v] = c
    reach[v] = v if c == v else NONE
    return c == v


@cpu
def reseed(v, s):
    """After the second half: what a root reached is its component, placed (``colour`` holds the
    root); every vertex left seeds the next pass (true: queued). ``s``: (colour, reach, part)."""
    colour, reach, part = s
    if part[v] == PLACED:
        return False
    if reach[v] != NONE:
        part[v] = PLACED
        return False
    colour[v] = v
    return True


@cpu
def unplaced(v, s):
    return s[0][v] != PLACED


@cpu
def choose_pivot(out_indptr, in_indptr):
    """(the vertex with the most in- times out-edges, or -1 where every vertex lacks one or the
    other; how many vertices have no out-edges; how many have no in-edges), read on the host."""
    best, best_score, sinks, sources = -1, 0, 0, 0
    for v in range(len(out_indptr) - 1):
        out_degree, in_degree = out_indptr[v + 1] - out_indptr[v], in_indptr[v + 1] - in_indptr[v]
        sinks += out_degree == 0
        sources += in_degree == 0
        if out_degree * in_degree > best_score:
            best, best_score = v, out_degree * in_degree
    return best, sinks, sources


OPEN = 0  # rank of a vertex the walk has not entered


@cpu
def enter(v, s):
    """Pearce's walk enters v: its rank is twice the next index (the low bit says it dropped).
    ``s``: (rank, pending, counts: [next index, vertices pending, next component])."""
    rank, _, counts = s
    rank[v] = counts[0] << 1
    counts[0] += 1


@cpu
def walk_root(v, s):
    if s[0][v] != OPEN:
        return False
    enter(v, s)
    return True


@cpu
def walk_start(v, s):
    """The low link the walk carries along v's list: its rank at first."""
    return np.int64(s[0][v])


@cpu
def lower(v, u, low, s):
    """v reaches u, open (on the walk or pending) or placed: v's low link drops to u's rank with the
    low bit set where that is lower. A placed vertex's rank is above every open one's, so it lowers
    none; no branch, since which way it goes is not predictable."""
    return min(low, np.int64(s[0][u]) | 1)


@cpu
def walk_edge(v, u, e, w, low, s):
    """An edge to a vertex not entered yet goes down to it; any other may lower v's low link."""
    if s[0][u] == OPEN:
        enter(u, s)
        return True, low
    return False, lower(v, u, low, s)


@cpu
def walk_leave(v, low, s):
    """v's low link did not drop: v and the vertices pending since it was entered (of index no
    lower) are its component, placed: their ranks become twice its number, above every open rank
    (Pearce's indices are reused once placed, and components numbered down from the vertex
    count); else v waits in ``pending`` with its low link as rank."""
    rank, pending, counts = s
    top = counts[1]
    if low & 1:
        rank[v] = low
        pending[top] = v
        counts[1] = top + 1
        return
    k, placed = top, counts[2] << 1
    while k > 0 and rank[pending[k - 1]] >= low:
        k -= 1
        rank[pending[k]] = placed
    rank[v] = placed
    counts[0] -= top - k + 1
    counts[1] = k
    counts[2] -= 1


@njit(cache=True, nogil=True)
def by_first(rank, n_vertices, labels, first) -> int:
    """After the walk: components numbered in the order of their first vertex in ``rank`` (the
    input's order) into ``labels`` (``first``: -1 for each component, in the order they were placed,
    their numbers counting down from ``n_vertices``); returns how many ``rank`` names."""
    k = 0
    for v in range(len(rank)):
        c = n_vertices - (rank[v] >> 1)
        if first[c] < 0:
            first[c] = k
            k += 1
        labels[v] = first[c]
    return k


INIT = Filter("Init", init, per_vertex=True)
SPREAD = Advance("Spread", spread)
COLOUR = Filter("Colour", colour_part, per_vertex=True)
RESEED = Filter("Reseed", reseed, per_vertex=True)
UNPLACED = Filter("Unplaced", unplaced, per_vertex=True)
PEARCE = DepthFirst("Pearce", walk_root, walk_start, walk_edge, lower, walk_leave)


class StrongComponents(Algorithm):
    cuda = Path(__file__).with_suffix(".cu")
    functors = (INIT, SPREAD, COLOUR, RESEED, UNPLACED)
    queues = ("left",)  # the vertices not placed yet (after trimming, then after each pass)
    dedup = True  # a vertex whose label dropped is queued once, whichever edges lowered it

    def __init__(self, graph):
        self.passes = 0  # passes settled
        self.pivot, sinks, sources = graph.memo("scc_pivot", lambda: choose_pivot(graph.indptr(), graph.indptr(reverse=True)))
        # the first half follows in-edges where more vertices have no out-edges than no in-edges (a
        # crawl reaches every page from its seeds: the pivot reaches most of the graph, fewer reach it)
        self.first, self.second = ("in", "out") if sinks > sources else ("out", "in")
        if self.pivot >= 0:
            first = graph.indptr(reverse=self.first == "in")
            self.pivot_edges = int(first[self.pivot + 1] - first[self.pivot])
        else:
            self.pivot_edges = 0
        self.half = "first" if self.pivot >= 0 else "second"  # the half under way (no pivot: as if a pass just ended)

    def edges(self, graph) -> dict[str, Edges]:
        return {"out": Edges(), "in": Edges(reverse=True)}

    def state(self, graph) -> dict[str, tuple]:
        n = graph.n_vertices
        return {"colour": (n, np.uint32), "reach": (n, np.uint32), "part": (n, np.uint32)}

    def start(self, run: Run) -> None:
        s = run.state
        self.left = run.queues["left"]  # the vertices a pass may place
        run.filter(INIT, s["colour"], s["part"], run.sources["out"].indptr, run.sources["in"].indptr, self.pivot, input=ALL, output=self.left)
        run.frontier.start(np.array([self.pivot] if self.pivot >= 0 else [], np.int64), self.pivot_edges)

    def batch(self, run: Run) -> int:
        """A half needs no decision until its frontier empties (iterations past that do nothing),
        and is one iteration where its advance drains."""
        return BATCH if run.sizes[-1, 0] and not run.drains(self.first if self.half == "first" else self.second) else 1

    def step(self, run: Run) -> None:
        s = run.state
        if run.sizes[-1, 0]:  # a half under way
            labels, edges = (s["colour"], self.first) if self.half == "first" else (s["reach"], self.second)
            run.advance(SPREAD, labels, s["part"], edges=edges, dedup=True, drain=True)
            phase = self.half
        elif self.half == "second":  # a pass is over (or none began): place what it found, seed every vertex left
            if self.pivot >= 0:  # else every vertex is trimmed, and no pass began
                self.passes += 1
            run.filter(RESEED, s["colour"], s["reach"], s["part"], input=self.left)
            self.left.row.fill(0)
            run.filter(UNPLACED, s["part"], input=run.frontier.next, output=self.left)
            self.half, phase = "first", "seed"
        else:  # the first half is over: colours become parts, their roots seed the second half
            run.filter(COLOUR, s["colour"], s["reach"], s["part"], input=self.left)
            self.half, phase = "second", "colour"
        run.iterations[-1]["phase"] = phase

    def done(self, run: Run, sizes: np.ndarray) -> bool:
        return run.iterations[-1]["phase"] == "seed" and sizes[-1, 0] == 0  # no vertex left to seed


class DepthFirstComponents(Algorithm):
    """Pearce's serial algorithm on the CPU: one depth-first walk from every vertex in turn, each
    list read once."""

    functors = (PEARCE,)

    def state(self, graph) -> dict[str, tuple]:
        n = graph.n_vertices
        return {"rank": (n, np.uint32 if n < 2**31 else np.uint64), "pending": (n, graph.id_dtype), "counts": (3, np.int64)}

    def start(self, run: Run) -> None:
        run.state["rank"].fill(OPEN)
        run.state["counts"][:] = 1, 0, run.n

    def step(self, run: Run) -> None:
        s = run.state
        run.depth_first(PEARCE, s["rank"], s["pending"], s["counts"])

    def done(self, run: Run, sizes: np.ndarray) -> bool:
        return True


def driver(graph, backend: str) -> Algorithm:
    """The driver a run on ``backend`` takes: Pearce's walk on the CPU, forward-backward passes on
    the GPU. Both refuse a directed graph without its reverse graph, which the GPU's follow, so that
    a call runs on either backend or on neither."""
    if not graph.has_reverse:
        raise ValueError(
            f"strongly_connected_components follows in-edges: on a directed graph it needs the reverse graph, which {graph.location} does not have (build it with reverse=True, or graphtier convert --reverse)"
        )
    return DepthFirstComponents() if backend == "cpu" else StrongComponents(graph)


def strongly_connected_components(graph, *, config: Config | None = None, **options) -> ComponentsResult:
    """The strongly connected component of every vertex, and how many there are, numbered in the
    order of each component's smallest vertex id (scipy.sparse.csgraph.connected_components with
    connection="strong" finds the same components, numbered otherwise). A directed graph needs its
    reverse graph (built with ``reverse=True``); on a symmetric graph these are its connected
    components. Execution options as every algorithm's (``runtime.Config``)."""
    if not graph.directed:
        return connected_components(graph, config=config, **options)
    config = Config.of(config, **options)
    return components(graph, driver(graph, config.backend()), config)


def components(graph, alg: Algorithm, config: Config) -> ComponentsResult:
    """``alg`` (either driver, on either backend) run on a directed graph, its labels numbered."""
    if graph.n_vertices == 0:
        return ComponentsResult(labels=np.zeros(0, np.int64), n_components=0, ids=graph.ids)
    done = run(alg, graph, config)
    if isinstance(alg, DepthFirstComponents):  # components numbered by their first vertex in the input's order
        rank = done.output(done.state["rank"])  # a coalesced store's originals alone
        labels = np.empty(len(rank), np.int64)
        n_components = by_first(rank, graph.n_vertices, labels, np.full(graph.n_vertices - int(done.state["counts"][2]), -1, np.int64))
        return ComponentsResult(labels=labels, n_components=n_components, stats=done.stats(n_components=n_components), ids=graph.ids)
    colour = done.state["colour"]
    if alg.pivot >= 0:  # the pivot's component is labelled by the pivot: by its least vertex, as the others
        pivots = colour == alg.pivot
        colour[pivots] = int(done.xp.argmax(pivots))
    labels, n_components = numbered(graph, done, colour)
    stats = done.stats(n_components=n_components, passes=alg.passes)
    return ComponentsResult(labels=labels, n_components=n_components, stats=stats, ids=graph.ids)
