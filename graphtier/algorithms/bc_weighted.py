"""Betweenness centrality over weighted shortest paths (Brandes with Dijkstra's distances, as
networkx computes it with ``weight=``), on the runtime (CUDA functors in bc_weighted.cu).

One source after another, each in three phases over the same run:
- *distances*: SSSP's near-far (this driver is an ``SSSP``, so its functors and steps are SSSP's);
- *forward*: the shortest-path DAG is the edges (v, u) with ``dist[v] + w == dist[u]`` (computed
  as SSSP computes distances, so the test is exact). ``Tighten`` counts each vertex's DAG
  in-edges; from the source, a vertex whose in-edges have all been pushed through is queued, so
  the levels follow Kahn's order and each vertex adds its path count (float64 integers, exact up
  to 2**53 in any order) to its DAG successors once it has all of its own;
- *backward*: the levels in reverse, each vertex gathering ``sigma[v] / sigma[w] * (1 + delta[w])``
  over its DAG out-edges, every successor w lying on a later level. Then ``centrality += delta``.
Each level's vertices are kept on the host. Weights must be positive (a zero weight could close a
cycle of the DAG); sums and rescaling are as the unweighted driver's (bc.py).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..runtime import ALL, Advance, Compute, Filter, Gather, Run
from ..runtime.functors import cpu
from .pagerank import everyone
from .sssp import SSSP, START

DISTANCES, FORWARD, BACKWARD = "distances", "forward", "backward"
LEVEL = "level"  # the queue a backward level is uploaded into


@cpu(inline="always")
def tight(v, u, w, dist):
    return u != v and dist[v] + np.float64(w) == dist[u]


@cpu
def tighten(v, u, e, w, s):
    """Counts u's DAG in-edges. ``s``: (dist, pending)."""
    dist, pending = s
    if dist[v] < np.inf and tight(v, u, w, dist):
        pending[u] += 1
    return False


@cpu
def begin(v, s):
    """A source's forward: one path to itself, none elsewhere, no dependency. ``s``: (sigma, delta,
    pending, source)."""
    sigma, delta, pending, source = s
    sigma[v] = 1.0 if v == source else 0.0
    delta[v] = 0.0
    pending[v] = 0
    return v == source


@cpu
def flow(v, u, e, w, s):
    """v has all its paths: it adds them to its DAG successor u, which is queued once all its DAG
    in-edges have. ``s``: (dist, sigma, pending)."""
    dist, sigma, pending = s
    if not tight(v, u, w, dist):
        return False
    sigma[u] += sigma[v]
    pending[u] -= 1
    return pending[u] == 0


@cpu
def share(v, u, e, w, s):
    """``s``: (dist, sigma, delta)."""
    dist, sigma, delta = s
    return (1.0 + delta[u]) / sigma[u] if tight(v, u, w, dist) else 0.0


@cpu
def depend(v, total, s):
    s[2][v] += s[1][v] * total


@cpu
def accumulate(v, s):
    """Each vertex the source reached takes its dependency (with ``endpoints``, one more, and the
    source one per vertex it reached). ``s``: (centrality, dist, delta, source, endpoints, reached)."""
    centrality, dist, delta, source, endpoints, reached = s
    if v == source:
        centrality[v] += endpoints * reached
    elif dist[v] < np.inf:
        centrality[v] += delta[v] + endpoints


TIGHTEN = Advance("Tighten", tighten)
BEGIN = Filter("Begin", begin, per_vertex=True)
FLOW = Advance("Flow", flow)
DEPEND = Gather("Depend", everyone, share, depend)
ACCUMULATE = Compute("Accumulate", accumulate)


class WeightedBetweenness(SSSP):
    cuda = Path(__file__).with_suffix(".cu")
    functors = (*SSSP.functors, TIGHTEN, BEGIN, FLOW, DEPEND, ACCUMULATE)
    queues = (*SSSP.queues, LEVEL)

    def __init__(self, graph, sources: np.ndarray, endpoints: bool):
        """``sources``: store indices, distinct, in the order their sums are added."""
        super().__init__(graph, int(sources[0]), True, None, predecessors=False)  # SSSP's bucket width and checks
        self.sources, self.endpoints, self.current, self.indptr = sources, endpoints, 0, graph.indptr()

    def _from(self, source: int) -> None:
        self.source, self.source_edges = source, int(self.indptr[source + 1] - self.indptr[source])

    def state(self, graph) -> dict[str, tuple]:
        n = graph.n_vertices
        return super().state(graph) | {f: (n, np.float64) for f in ("centrality", "sigma", "delta")} | {"pending": (n, np.uint32)}

    def start(self, run: Run) -> None:
        run.state["centrality"].fill(0)
        self.phase = DISTANCES
        super().start(run)

    def batch(self, run: Run) -> int:
        return super().batch(run) if self.phase == DISTANCES else 1

    def step(self, run: Run) -> None:
        s, record = run.state, run.iterations[-1]
        record["phase"], record["source"] = self.phase, self.current
        if self.phase == DISTANCES:
            if run.sizes[-1, 0] or run.count(run.queues["far"]):
                super().step(run)
                return
            self.phase, self.levels = FORWARD, []
            run.filter(BEGIN, s["sigma"], s["delta"], s["pending"], self.source, input=ALL, output=run.frontier.next)
            run.advance(TIGHTEN, s["dist"], s["pending"], input=ALL, output=run.queues[LEVEL])
            return
        if self.phase == FORWARD:
            m = int(run.sizes[-1, 0])
            if m:
                self.levels.append(np.array(run.ops.to_host(run.frontier.current.ids[:m])))
                run.advance(FLOW, s["dist"], s["sigma"], s["pending"])
                return
            self.phase = BACKWARD
        for d in range(len(self.levels) - 2, 0, -1):  # the deepest level has no successors, the source's dependency is unused
            run.gather(DEPEND, s["dist"], s["sigma"], s["delta"], edges="out", input=self._level(run, d))
        reached = sum(len(level) for level in self.levels) - 1
        run.compute(ACCUMULATE, s["centrality"], s["dist"], s["delta"], self.source, float(self.endpoints), reached)
        self.current += 1
        if self.current < len(self.sources):
            self._from(int(self.sources[self.current]))
            self.threshold, self.phase = self.delta, DISTANCES
            run.queues["far"].row.fill(0)
            run.compute(START, s["dist"], s["parent"], s["far_marks"], self.source)
            run.filter(BEGIN, s["sigma"], s["delta"], s["pending"], self.source, input=ALL, output=run.frontier.next)

    def _level(self, run: Run, d: int):
        q = run.queues[LEVEL]
        ids = self.levels[d]
        q.ids[: len(ids)] = run.xp.asarray(ids)
        q.row[0] = len(ids)
        return q

    def done(self, run: Run, sizes: np.ndarray) -> bool:
        return self.current == len(self.sources)

    def finish(self, run: Run) -> None:
        """No parents: SSSP's pass is not wanted."""

    def progress(self, run: Run) -> tuple[int, int | None, str]:
        return self.current, len(self.sources), "sources"
