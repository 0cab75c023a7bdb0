"""Minimum spanning forest by Boruvka's rounds on the runtime (CUDA functors in mst.cu).

Edges are ordered strictly by (weight, smaller endpoint, larger endpoint), endpoints ranked by the
input's ids, so the forest is the one minimum spanning forest of that order: the same edges on
every backend, format, budget and vertex order. Every round, each component (a root, as in
connected components: the component's smallest vertex) finds its least outgoing edge in two passes:
over every edge, an atomic min of ``weight key << 32 | smaller endpoint`` (the float32 weight's
bits reordered so that unsigned order is the numbers' order, negative ones included); then among
the edges that tie with it an atomic min of ``larger endpoint << 32 | the outside endpoint``. The
edges that tie all hold that smaller endpoint, so the second pass reads only the lists of the
components' smaller endpoints, each edge there standing for itself in both directions. In the
first round every component is one vertex, whose edges that order ranks as (weight, other
endpoint) does, so one pass finds them all, and no list is read a second time.
Under a strict order the chosen edges form no cycle but the pairs of components that chose the
same edge, which only the smaller of the two records. Each recorded edge hooks the larger root
under the smaller; the root that stops being one keeps the edge (every vertex stops once at
most), so the forest is every vertex that is not a root at the end. Rounds end when no component
has an outgoing edge. A vertex whose edges all lie inside its component keeps them there (components
only merge), so each round's first pass reads only the lists of the vertices that had an outgoing
edge in the round before, once they are few (``SPARSE``); until then rounds sweep every list in
store order, which the scheduler streams faster than the same lists asked for one by one.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..partition.radix import radix_sort
from ..runtime import ALL, Advance, Algorithm, Compute, Config, Edges, Filter, Run, run
from ..runtime.functors import cpu
from ..runtime.results import MSTResult
from .cc import compress, find, init

NONE = np.uint32(0xFFFFFFFF)  # no component: a root without an outgoing edge
NO_EDGE = np.uint64(0xFFFFFFFFFFFFFFFF)
LOW = np.uint64(0xFFFFFFFF)
SIGN = np.uint64(0x80000000)
HALF = np.uint64(32)
SPARSE = 4  # a round reads only the lists of the vertices left once they are fewer than 1/SPARSE of all
LEAST, TIES, ALONE = 0, 1, 2  # choose's passes (mst.cu's): a round's two, and the first round's one


@cpu(inline="always")
def weight_key(w):
    """w's float32 bits, the sign flipped (negative numbers: every bit), so that unsigned order is
    the numbers' order; -0 is 0."""
    if w == 0:
        return SIGN
    bits = np.uint64(np.float32(w).view(np.uint32))
    return bits ^ LOW if bits & SIGN else bits | SIGN


@cpu(inline="always")
def ranked(v, rank, ranks):
    return np.uint64(rank[v]) if ranks else np.uint64(v)


@cpu
def choose(v, u, e, w, s):
    """The passes of a round (one function, so that Numba compiles one advance per format; the
    CPU's advance is serial: plain writes): over every edge, each component's least (weight key,
    smaller endpoint) over its outgoing edges, v marked as having one (``LEAST``); then, over the
    smaller endpoints' lists, among the edges equal to it, the least (larger endpoint, outside
    endpoint), for v's component and u's (``TIES``), each edge from its smaller endpoint's list
    alone: the copy in the other's adds nothing, since where it matters that endpoint is marked
    too. In the first round every component is one vertex v, whose edges (weight, smaller endpoint,
    larger endpoint) orders as (weight, u's rank) does, so one pass finds its least (``ALONE``;
    ``split_alone`` then writes it as the two passes would). ``s``: (parent, best, other, rank,
    whether ranked, the pass, outgoing marks)."""
    parent, best, other, rank, ranks, step, outgoing = s
    rv, ru = ranked(v, rank, ranks), ranked(u, rank, ranks)
    if step == TIES and rv > ru:
        return False
    a, b = parent[v], parent[u]
    if a == b:
        return False
    if step != TIES:
        best[a] = min(best[a], weight_key(w) << HALF | (ru if step == ALONE else min(rv, ru)))
        outgoing[v] = 1
        return False
    key = weight_key(w) << HALF | min(rv, ru)
    if key == best[a]:
        other[a] = min(other[a], ru << HALF | np.uint64(u))
    if key == best[b]:
        other[b] = min(other[b], ru << HALF | np.uint64(v))
    return False


@cpu
def split_alone(v, s):
    """The first round's least edge of v, (weight key, u's rank), as the two passes write it: best
    (weight key, smaller rank), other (larger rank, u). ``s``: (best, other, rank, whether ranked,
    the vertex of each rank, whether ranked)."""
    best, other, rank, ranks, vertex, _ = s
    if best[v] == NO_EDGE:
        return
    rv, ru = ranked(v, rank, ranks), best[v] & LOW
    u = vertex[ru] if ranks else ru
    best[v] = (best[v] >> HALF) << HALF | min(rv, ru)
    other[v] = max(rv, ru) << HALF | np.uint64(u)


@cpu
def mark_end(v, s):
    """A component with an outgoing edge marks the smaller endpoint of its least one (v: a label
    the first pass wrote to, a root but for the GPU's compression, which may leave a vertex a step
    short). ``s``: (best, the vertex of each rank, whether ranked, marks)."""
    best, vertex, ranks, marked = s
    if best[v] != NO_EDGE:
        end = best[v] & LOW
        marked[vertex[end] if ranks else end] = 1


@cpu
def take_mark(v, s):
    """``s``: (marks,)."""
    if s[0][v]:
        s[0][v] = 0
        return True
    return False


@cpu
def target(v, s):
    """The component each root's least edge leads to. ``s``: (best, other, parent, target)."""
    best, other, parent, to = s
    to[v] = NONE if best[v] == NO_EDGE else parent[other[v] & LOW]


@cpu
def merge(v, s):
    """Records v's least edge (once for a pair that chose the same edge) and hooks the larger root
    under the smaller, which keeps the edge; True: an edge recorded. ``s``: (parent, target, best,
    other, forest key, forest's larger endpoint)."""
    parent, to, best, other, forest_key, forest_hi = s
    b = to[v]
    if b == NONE or (to[b] == v and b < v):
        return False
    x, y = find(parent, v), find(parent, b)
    if x > y:
        x, y = y, x
    parent[y] = x
    forest_key[y] = best[v]
    forest_hi[y] = other[v] >> HALF
    return True


CHOOSE = Advance("Choose", choose)
CHOOSE_UNIT = Advance("ChooseUnit", choose)  # every edge weighs 1: the GPU reads no weight
SPLIT_ALONE = Compute("SplitAlone", split_alone)
MARK_END = Compute("MarkEnd", mark_end)
TAKE_MARK = Filter("TakeMark", take_mark)
TARGET = Compute("Target", target)
MERGE = Filter("Merge", merge)
INIT = Compute("Init", init)  # connected components' CPU functions: compiled once for both
COMPRESS = Compute("Compress", compress)


class Boruvka(Algorithm):
    cuda = Path(__file__).with_suffix(".cu")
    functors = (CHOOSE, CHOOSE_UNIT, SPLIT_ALONE, MARK_END, TAKE_MARK, TARGET, MERGE, INIT, COMPRESS)
    queues = ("scratch", "ends")  # the passes' and merges' output (nothing read); the smaller endpoints of the components' least edges

    def __init__(self, graph, weight: bool):
        if graph.directed:
            raise ValueError(f"minimum_spanning_tree needs an undirected graph; {graph.location} is directed (build it with symmetrize=True, or graphtier convert --symmetrize)")
        self.weighted = bool(weight) and graph.weighted
        place = graph.places
        # endpoints ranked by the input's ids where the store reordered them, so that ties break alike
        self.rank = None if place is None or np.array_equal(place, np.arange(graph.n_vertices)) else place.astype(np.uint32)

    def edges(self, graph) -> dict[str, Edges]:
        return {"out": Edges(weights=self.weighted)}

    def state(self, graph) -> dict[str, tuple]:
        n = graph.n_vertices
        state = {
            "parent": (n, np.uint32),
            "best": (n, np.uint64),
            "other": (n, np.uint64),
            "target": (n, np.uint32),
            "forest_key": (n, np.uint64),
            "forest_hi": (n, np.uint32),
            "marked": (n, np.uint8),
            "outgoing": (n, np.uint8),
        }
        return state | ({"rank": (n, np.uint32), "vertex": (n, np.uint32)} if self.rank is not None else {})

    def start(self, run: Run) -> None:
        s = run.state
        none = run.xp.zeros(1, np.uint32)
        if self.rank is not None:
            s["rank"][:] = run.xp.asarray(self.rank)
            s["vertex"][:] = run.xp.asarray(np.argsort(self.rank).astype(np.uint32))
        self.ranks = (s["rank"], 1) if self.rank is not None else (none, 0)
        self.vertices = (s["vertex"], 1) if self.rank is not None else (none, 0)
        s["marked"].fill(0)
        s["outgoing"].fill(0)
        run.compute(INIT, s["parent"])
        run.frontier.start(np.zeros(0, np.int64), 0)

    def step(self, run: Run) -> None:
        """One round, its frontier the vertices with an outgoing edge in the round before (every
        vertex at first), read alone once they are few."""
        s, scratch, ends = run.state, run.queues["scratch"], run.queues["ends"]
        parent, best, other, to = s["parent"], s["best"], s["other"], s["target"]
        it = run.frontier.it
        active = run.frontier.current if it and run.sizes[it, 0] * SPARSE < run.n else ALL
        best.fill(NO_EDGE)
        other.fill(NO_EDGE)
        choose = CHOOSE if self.weighted else CHOOSE_UNIT
        run.advance(choose, parent, best, other, *self.ranks, ALONE if it == 0 else LEAST, s["outgoing"], input=active, output=scratch)
        run.filter(TAKE_MARK, s["outgoing"], input=active)  # the next round's frontier
        if it == 0:  # every component one vertex: its least edge found in one pass
            run.compute(SPLIT_ALONE, best, other, *self.ranks, *self.vertices)
        else:
            run.compute(MARK_END, best, *self.vertices, s["marked"])
            ends.row.fill(0)
            run.filter(TAKE_MARK, s["marked"], input=ALL, output=ends)
            run.advance(choose, parent, best, other, *self.ranks, TIES, s["outgoing"], input=ends, output=scratch)
        run.compute(TARGET, best, other, parent, to)
        run.filter(MERGE, parent, to, best, other, s["forest_key"], s["forest_hi"], input=ALL, output=scratch)
        run.compute(COMPRESS, parent)


def edge_keys(lo, hi, n: int):
    """One 64-bit key an edge (lo, hi), ids below ``n`` <= 2**32: ``lo << b | hi``, b bits holding
    an id, so that the keys' order is (lo, hi)'s (NumPy or CuPy arrays alike)."""
    return lo.astype(np.uint64) << np.uint64(max(1, (int(n) - 1).bit_length())) | hi.astype(np.uint64)


def edge_order(lo, hi, n: int) -> np.ndarray:
    """The order of edges (lo, hi) by lo then hi, on the host: ``partition.radix``'s stable radix
    sort of their keys carrying each edge's place, linear in the edges unlike numpy's lexsort."""
    order = np.arange(len(lo))
    radix_sort(edge_keys(lo, hi, n), order)
    return order


def forest(done: Run, graph, alg: Boruvka) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The forest's edges, (smaller end, larger end, key) in the input's ids ordered by their ends,
    and a coalesced store's holes (no trees): picked and ordered where the run ran, so that from
    the GPU only the forest comes back (sorted there by CuPy)."""
    xp, s, n = done.xp, done.state, graph.n_vertices
    parent = s["parent"]
    kept = xp.flatnonzero(parent != xp.arange(n, dtype=parent.dtype))  # every vertex that stopped being a root keeps an edge
    key = s["forest_key"][kept]
    lo, hi = (key & LOW).astype(np.int64), s["forest_hi"][kept].astype(np.int64)
    if alg.rank is None and graph.perm is not None:  # endpoints in the store's ids: as the input numbers them
        if xp is np:
            lo, hi = graph.refs_to_original(lo), graph.refs_to_original(hi)
        else:
            references = graph.device_mapping("references")
            lo, hi = references[lo], references[hi]
    holes = 0
    if graph.copies is not None:  # a coalesced store: a replica's end is its original's; holes are no trees
        xp, key, lo, hi = np, *(done.ops.to_host(a) for a in (key, lo, hi))
        by_place = np.argsort(graph.places)
        ends = [graph.refs_to_original(by_place[x]) for x in (lo, hi)]
        lo, hi = np.minimum(*ends), np.maximum(*ends)
        holes = int(np.count_nonzero(graph.copies == n))
    order = edge_order(lo, hi, n) if xp is np else xp.argsort(edge_keys(lo, hi, n))
    return tuple(done.ops.to_host(a[order]) for a in (lo, hi, key)) + (holes,)


def weights_of(keys: np.ndarray) -> np.ndarray:
    """The float32 weights (as float64) that ``weight_key`` made these keys of."""
    keys = keys.astype(np.uint32)
    return np.where(keys & np.uint32(SIGN), keys ^ np.uint32(SIGN), ~keys).view(np.float32).astype(np.float64)


def minimum_spanning_tree(graph, *, weight: bool = True, config: Config | None = None, **options) -> MSTResult:
    """A minimum spanning forest of an undirected (symmetric) graph: its edges, each once as
    (source, destination) in the input's ids with source < destination, sorted, their weights,
    the total weight and the number of trees (isolated vertices are trees of their own).

    ``weight``: the stored edge weights (every edge weighs 1 when False, or when the graph has
    none). Ties break by the endpoints' ids, so the edges are the same on every device, format and
    budget. Unlike scipy.sparse.csgraph.minimum_spanning_tree, an edge of weight 0 is an edge.
    Self-loops are ignored. Execution options as every algorithm's (``runtime.Config``).
    """
    alg = Boruvka(graph, weight)
    n = graph.n_vertices
    if Config.of(config, **options).output == "device":
        raise ValueError("output='device' leaves per-vertex results on the GPU; a spanning forest is a list of edges, returned to the host")
    if n == 0:
        empty = np.zeros(0, np.int64)
        return MSTResult(sources=empty, destinations=empty, weights=np.zeros(0), total_weight=0.0, n_trees=0, ids=graph.ids)
    done = run(alg, graph, Config.of(config, **options))
    lo, hi, key, holes = forest(done, graph, alg)
    weights = weights_of(key >> HALF) if alg.weighted else np.ones(len(key))
    total, n_trees = float(weights.sum()), n - len(key) - holes
    stats = done.stats(n_trees=n_trees, total_weight=total, weighted=alg.weighted)
    return MSTResult(sources=lo, destinations=hi, weights=weights, total_weight=total, n_trees=n_trees, stats=stats, ids=graph.ids)
