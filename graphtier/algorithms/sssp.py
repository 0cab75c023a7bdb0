"""Single-source shortest paths: near-far (Davidson et al.'s two-bucket delta-stepping) on the
runtime, the same driver on both backends (CUDA functors in sssp.cu).

Relaxed vertices closer than the threshold form the next frontier (the *near* pile, each queued
once); farther ones wait in the *far* queue. When the near pile empties, the threshold moves to the
closest far vertex plus ``delta``, and far vertices within it become the frontier. Distances are
float64 sums of the edges' float32 weights along a path, each relaxation computing ``dist[v] + w``
the same way, so every backend and every relaxation order reach the same fixpoint as Dijkstra in
float64 (scipy's). On a latency store (Graffix) each iteration's relaxation goes on inside the
clusters it reached (``Run.rounds``): more relaxations, the same fixpoint. Parents, when asked
for, are set once the distances are final: each reached vertex's smallest in-neighbour ``v`` with
``dist[v] + w == dist[u]`` (so they too are the same on every backend).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import StoreError
from ..runtime import ALL, BATCH, Advance, Algorithm, Compute, Config, Edges, Filter, Pull, Run, run
from ..runtime.functors import cpu
from ..runtime.results import SSSPResult

NO_PARENT = np.iinfo(np.int64).max  # before the parent pass: larger than any vertex
RESIDENT_WIDTH = 8  # edges in GPU memory are cheap to read again: buckets this much wider (fewer iterations)


@cpu
def relax(v, u, e, w, s):
    """``s``: (dist, far ids, far count row, far marks, threshold). True puts u in the near pile."""
    dist, far, far_row, far_marks, threshold = s
    nd = dist[v] + np.float64(w)
    if nd >= dist[u]:
        return False
    dist[u] = nd
    if nd < threshold:  # relaxed now: a far copy of u, if any, is dropped (no second relaxation)
        far_marks[u] = 0
        return True
    if far_marks[u] == 0:
        far_marks[u] = 1
        far[far_row[0]] = u
        far_row[0] += 1
    return False


@cpu
def near(v, s):
    """Far vertices (still marked) within the threshold become the frontier. ``s``: (dist, far
    marks, threshold)."""
    dist, far_marks, threshold = s
    if far_marks[v] != 0 and dist[v] < threshold:
        far_marks[v] = 0
        return True
    return False


@cpu
def still_far(v, s):
    """Far vertices that stay far (not already moved by ``near``). ``s``: (far marks,)."""
    return s[0][v] != 0


@cpu
def tight(v, u, e, w, s):
    """Parents: the smallest v with ``dist[v] + w == dist[u]`` over positive w, u reached. ``s``:
    (dist, parent)."""
    dist, parent = s
    if w > 0 and dist[u] < np.inf and dist[v] + np.float64(w) == dist[u] and v < parent[u]:
        parent[u] = v
    return False


@cpu
def orphan(u, s):
    """Reached, not the source, no parent yet. ``s``: (dist, parent, source)."""
    dist, parent, source = s
    return dist[u] < np.inf and u != source and parent[u] == NO_PARENT


@cpu
def tight_in(u, v, e, w, s):
    """Pull: the in-edge (v, u) is tight, with a positive weight (the first in list order is the
    smallest such v, as ``tight`` finds by pushing). ``s``: (dist, parent, source)."""
    dist = s[0]
    return w > 0 and dist[v] + np.float64(w) == dist[u]


@cpu
def set_parent(u, v, s):
    s[1][u] = v


@cpu
def zero_tight(v, u, e, w, s):
    """Parents through zero-weight edges, from vertices that have one already (so no cycle forms
    among vertices at equal distance). ``s``: (dist, parent, source)."""
    dist, parent, source = s
    if w == 0 and dist[u] < np.inf and dist[v] == dist[u] and parent[u] == NO_PARENT and (v == source or parent[v] != NO_PARENT) and v < parent[u]:
        parent[u] = v
    return False


@cpu
def copy_dist(v, s):
    """Confluence on a coalesced store: a copy takes its partner's distance where less (and is
    relaxed from). ``s``: (dist, partner)."""
    dist, partner = s
    d = dist[partner[v]]
    if d >= dist[v]:
        return False
    dist[v] = d
    return True


@cpu
def copy_parent(v, s):
    """Parents on a coalesced store: a copy with no parent of its own whose distance is its
    partner's takes the partner's (the partner's self where that is the source). ``s``: (dist,
    parent, partner, source)."""
    dist, parent, partner, source = s
    p = partner[v]
    if parent[v] == NO_PARENT and dist[v] < np.inf and dist[v] == dist[p]:
        parent[v] = p if p == source else parent[p]
    return False


@cpu
def start(v, s):
    """``s``: (dist, parent, far marks, source)."""
    dist, parent, far_marks, source = s
    dist[v] = 0.0 if v == source else np.inf
    parent[v] = NO_PARENT
    far_marks[v] = 0


RELAX = Advance("Relax", relax, rounds=True)
NEAR = Filter("Near", near)
STILL_FAR = Filter("StillFar", still_far)
TIGHT = Advance("Tight", tight)
PARENT = Pull("Parent", orphan, tight_in, set_parent)
ZERO_TIGHT = Advance("ZeroTight", zero_tight)
START = Compute("Start", start)
COPY_DIST = Filter("CopyDist", copy_dist, per_vertex=True)
COPY_PARENT = Filter("CopyParent", copy_parent)


class SSSP(Algorithm):
    cuda = Path(__file__).with_suffix(".cu")
    functors = (RELAX, NEAR, STILL_FAR, TIGHT, PARENT, ZERO_TIGHT, START, COPY_DIST, COPY_PARENT)
    queues = ("far", "far_next")
    dedup = True

    def __init__(self, graph, source: int, weight: bool, delta: float | None, predecessors: bool = True):
        """``source``: the store's index of the source (``Graph.vertex``)."""
        self.source = source
        self.predecessors = predecessors
        self.weighted = bool(weight) and graph.weighted
        facts = graph.weight_facts() if self.weighted else {}
        if self.weighted:
            refuse_weights(graph, facts, "sssp")
        mean_weight = facts.get("mean", 1.0)
        mean_degree = max(graph.n_edges / max(graph.n_vertices, 1), 1.0)
        # Davidson et al.: a bucket wide enough that a warp's worth of relaxations stays near
        self.delta = float(delta) if delta is not None else max(mean_weight * 32.0 / mean_degree, facts.get("min", 1.0), 1e-30)
        if not self.delta > 0:
            raise ValueError(f"delta must be positive, got {delta}")
        self.widen = delta is None
        self.pull_parents = predecessors and (not graph.directed or graph.has_reverse)
        self.source_edges = int(graph.indptr()[self.source + 1] - graph.indptr()[self.source])

    def edges(self, graph) -> dict[str, Edges]:
        out = {"out": Edges(weights=self.weighted)}
        if self.pull_parents:  # in-edges: the graph itself when symmetric, else its reverse
            out["in"] = Edges(reverse=True, weights=self.weighted)
        return out

    def state(self, graph) -> dict[str, tuple]:
        n = graph.n_vertices
        return {"dist": (n, np.float64), "parent": (n, np.int64), "far_marks": (n, np.uint32)}

    def start(self, run: Run) -> None:
        if self.widen and run.backend == "cuda" and not run.streams("out"):  # a relaxation repeated costs no transfer
            self.delta *= RESIDENT_WIDTH
        self.threshold = self.delta
        s = run.state
        run.compute(START, s["dist"], s["parent"], s["far_marks"], self.source)
        run.frontier.start(np.array([self.source]), self.source_edges)
        self.confluence(run, run.frontier.current)

    def confluence(self, run: Run, output) -> None:
        """A coalesced store's copies of a vertex: the least distance of the two, relaxed from."""
        if run.copies is not None:
            run.filter(COPY_DIST, run.state["dist"], run.copies.partner, input=run.copies.pairs, output=output)

    def batch(self, run: Run) -> int:
        """Relaxations of the near pile back to back (each reads the pile's size on the device: one
        emptied before the batch's end launches nothing more); a split of the far queue alone."""
        return BATCH if run.sizes[-1, 0] else 1

    def step(self, run: Run) -> None:
        s, far = run.state, run.queues["far"]
        if run.sizes[-1, 0]:  # relax the near pile
            relaxing = (s["dist"], far.ids, far.row, s["far_marks"], self.threshold)
            run.advance(RELAX, *relaxing, dedup=True)
            if run.clusters is not None:  # a latency store: its clusters touched now relax on, in rounds
                run.rounds(RELAX, *relaxing)
            self.confluence(run, run.frontier.next)
            return
        # the near pile is empty: move the threshold past the closest far vertex, and split
        far_next = run.queues["far_next"]
        ids = far.ids[: run.count(far)]
        self.threshold = float(run.xp.min(s["dist"][ids])) + self.delta
        run.filter(NEAR, s["dist"], s["far_marks"], self.threshold, input=far)
        far_next.row.fill(0)
        run.filter(STILL_FAR, s["far_marks"], input=far, output=far_next)
        run.queues["far"], run.queues["far_next"] = far_next, far

    def done(self, run: Run, sizes: np.ndarray) -> bool:
        return sizes[-1, 0] == 0 and run.count(run.queues["far"]) == 0

    def finish(self, run: Run) -> None:
        """Parents, once the distances are final: each reached vertex's first tight in-edge, pulled
        (a scan that stops there) where in-edges are at hand, else pushed over every edge; then
        (where zero-weight edges leave reached vertices without one) passes through those edges
        until none is left."""
        if not self.predecessors:
            return
        dist, parent, junk = run.state["dist"], run.state["parent"], run.queues["far_next"]
        if self.pull_parents:
            junk.sizes.fill(0)
            run.pull(PARENT, dist, parent, self.source, input=ALL, output=junk)
        else:
            run.advance(TIGHT, dist, parent, input=ALL, output=junk)
        if run.copies is not None:
            run.filter(COPY_PARENT, dist, parent, run.copies.partner, self.source, input=run.copies.pairs, output=junk)
        left = self._orphans(run)
        while left:
            run.advance(ZERO_TIGHT, dist, parent, self.source, input=ALL, output=junk)
            left, before = self._orphans(run), left
            if left == before:
                # only when the weights an in-edge carries differ from its out-edge's (a damaged store)
                raise StoreError(f"{run.graph.location}: {left} reached vertices found no parent: the weights of in-edges and out-edges disagree")

    def _orphans(self, run: Run) -> int:
        """Reached vertices but the source still without a parent."""
        xp, dist, parent = run.xp, run.state["dist"], run.state["parent"]
        return int(xp.count_nonzero(xp.isfinite(dist) & (parent == NO_PARENT))) - int(parent[self.source] == NO_PARENT)


def refuse_weights(graph, facts: dict, name: str, positive: bool = False) -> None:
    """Shortest paths need non-negative weights (``positive``: above zero): a store whose build
    recorded its least weight is checked by that; any other is read once, and the first edge that
    fails named."""
    least = facts.get("min", -1.0)
    if least > 0 or (least == 0 and not positive):
        return
    store = graph.weight_store()
    edges = graph.group["adj"]
    for c in range(store.array.cdata_shape[0]):
        (w,), _ = store.read([c])
        w = w[: min(store.chunk_edges, graph.n_edges - c * store.chunk_edges)]
        bad = np.flatnonzero(w <= 0 if positive else w < 0)
        if len(bad):
            e = c * store.chunk_edges + int(bad[0])
            src, dst = (int(x) for x in edges[e])
            if graph.perm is not None:
                src, dst = int(graph.perm[src]), int(graph.perm[dst])
            raise ValueError(f"{name} needs {'positive' if positive else 'non-negative'} weights; edge {src} -> {dst} (edge {e} of {graph.location}) weighs {w[bad[0]]}")


def sssp(graph, source: int, *, weight: bool = True, delta: float | None = None, predecessors: bool = True, config: Config | None = None, **options) -> SSSPResult:
    """Shortest-path distances (float64, inf where unreachable) and parents from ``source`` (an id
    as the input gave it; its own parent).

    ``weight``: use the stored edge weights (every edge weighs 1 when False, or when the graph has
    none); they must be non-negative. ``delta``: the near-far bucket width (default: from the mean
    weight and degree, wider on a GPU holding the whole graph); distances do not depend on it. From
    a layered store's root, one sweep over its layers first, then near-far from what the sweep
    left (``algorithms/layered.py``). ``predecessors``: find the parents (one more pass over the edges; scipy's
    ``return_predecessors``); ``parents`` is None without. Execution options as every
    algorithm's (``runtime.Config``).
    """
    from .layered import LayeredSSSP, path  # which builds on this module

    traversal = path(graph, source)
    layered = traversal == "layers"
    alg = LayeredSSSP(graph, weight, predecessors) if layered else SSSP(graph, graph.vertex(source), weight, delta, predecessors)
    done = run(alg, graph, Config.of(config, **options))
    xp, dist = done.xp, done.state["dist"]
    parents = None
    if predecessors:
        parent = xp.where(done.state["parent"] == NO_PARENT, -1, done.state["parent"])
        parent[alg.source] = alg.source
        parents = done.output(parent, references=True)
    stats = done.stats(reached=int(xp.isfinite(dist).sum()), weighted=alg.weighted, traversal=traversal, delta=alg.delta, **({"handed_on": alg.handed_on} if layered else {}))
    return SSSPResult(source=source, distances=done.output(dist), parents=parents, stats=stats, ids=graph.ids)
