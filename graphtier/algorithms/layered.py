"""BFS and SSSP from a layered store's root (WolfPath: ``../shared/papers/004-wolfpath.md``).

A store built with ``order="layered"`` numbers its vertices level by level of a BFS from its root
(``partition.order.layers``), so layer i is a span of vertices and its out-edges one contiguous
run of chunks. From the root, a traversal needs no frontier: it pushes from each layer in turn,
every span known before the run starts, so the whole run is launched at once and the host reads
nothing back until it ends (out of core, each layer's chunks stream in store order). Unlike the
paper's construction no edge is dropped, which keeps SSSP exact:

- BFS: one push per layer claims the next layer (every edge reaches a layer at most one deeper);
  the distances are the layering's, and the pushes find the parents.
- SSSP: sweeps over the layers, each edge relaxed once a sweep. An edge that improves a vertex in
  or before the layer being pushed from (a same-level, back or cross edge: Bellman-Ford's case)
  marks the least such vertex, and the next sweep starts at its layer; none marked ends it. One
  read back per sweep; on graphs whose shortest paths follow the layers, a single sweep.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..kernels.limits import SPANS_EDGES
from ..runtime import Run, Span, Spans
from ..runtime.functors import Advance, cpu  # not the package's cpu: the CPU backend's module shadows it once loaded
from .bfs import BFS, SETTLED
from .sssp import SSSP

NOT_BEHIND = np.iinfo(np.int64).max  # ``behind`` when no vertex was improved behind the sweep


def layers_from(graph, source: int) -> np.ndarray | None:
    """The store's layers where a traversal from ``source`` (an input id) can follow them: the
    store is layered and ``source`` is its root; else None."""
    return graph.layers if graph.layers is not None and source == graph.root else None


def traversal(graph, source: int, layered: bool) -> str:
    """What a result's stats say of the path a query from ``source`` took (``layered``: the
    layers), and on a layered store why not the layers."""
    if layered:
        return "layers"
    if graph.layers is None:
        return "frontier"
    if source != graph.root:
        return f"frontier (source {source} is not the layered store's root {graph.root})"
    return "frontier (direction='pull' reads in-edges; the layers push)"


def groups(layers: np.ndarray, indptr: np.ndarray, together: bool) -> np.ndarray:
    """The first layer of each push: with ``together``, consecutive layers of fewer than
    SPANS_EDGES out-edges each go in one (one block, one launch), every other layer alone; then
    the number of layers. WolfPath merges small layers to fill the GPU; here they share a launch."""
    n = len(layers) - 1
    if not together:
        return np.arange(n + 1)
    small = (indptr[layers[1:]] - indptr[layers[:-1]]) < SPANS_EDGES
    starts = np.flatnonzero(~small | np.concatenate([[True], ~small[:-1]]))  # a large layer, or the first after one
    return np.append(starts, n)


class Layers:
    """What a layered driver shares: its pushes (layer groups), which one comes next, and a batch
    that launches them all."""

    planned = True

    def _layers(self, graph) -> None:
        self.layers = graph.layers
        self.next_group = 0

    def state(self, graph) -> dict[str, tuple]:
        return {**super().state(graph), "layers": (len(self.layers), np.int64)}

    def start(self, run: Run) -> None:
        super().start(run)
        run.state["layers"][:] = run.xp.asarray(self.layers)
        together = not run.streams("out") and run.part is None
        self.groups = groups(self.layers, run.graph.indptr(), together)

    def batch(self, run: Run) -> int:
        return len(self.groups) - 1 - self.next_group

    def group(self, run: Run) -> Span | Spans:
        """The next push's vertices: a layer, or a group of small ones."""
        g = self.next_group
        self.next_group += 1
        first, end = int(self.groups[g]), int(self.groups[g + 1])
        if end - first == 1:
            return Span(int(self.layers[first]), int(self.layers[end]))
        return Spans(self.layers, run.state["layers"], first, end - first)

    def progress(self, run: Run) -> tuple[int, int | None, str]:
        return self.next_group, len(self.groups) - 1 if hasattr(self, "groups") else None, "layer groups"


@cpu
def visit_next(v, u, e, w, s):
    """Claim an unvisited neighbour a level past v. ``s``: (dist, parent)."""
    dist, parent = s
    if dist[u] < 0:
        dist[u] = dist[v] + 1
        parent[u] = v
        return True
    return False


VISIT_NEXT = Advance("VisitNext", visit_next, SETTLED, spans=True)


class LayeredBFS(Layers, BFS):
    """BFS from the root, a push per layer (or group of small layers)."""

    functors = (*BFS.functors, VISIT_NEXT)

    def __init__(self, graph):
        super().__init__(graph, graph.root, "push")
        self._layers(graph)

    def step(self, run: Run) -> None:
        run.advance(VISIT_NEXT, run.state["dist"], run.state["parent"], input=self.group(run))
        run.iterations[-1]["direction"] = "push"

    def done(self, run: Run, sizes: np.ndarray) -> bool:
        return self.batch(run) == 0


@cpu
def sweep_relax(v, u, e, w, s):
    """``s``: (dist, layers, their count, behind: the least vertex improved in or before v's layer)."""
    dist, layers, bounds, behind = s
    nd = dist[v] + np.float64(w)
    if nd < dist[u]:
        dist[u] = nd
        if u < layers[np.searchsorted(layers[:bounds], v, side="right")] and u < behind[0]:
            behind[0] = u
    return False


SWEEP_RELAX = Advance("SweepRelax", sweep_relax, spans=True)


class LayeredSSSP(Layers, SSSP):
    """SSSP from the root: sweeps over the layers until one improves nothing behind itself; the
    parents as SSSP finds them."""

    cuda = Path(__file__).with_suffix(".cu")
    functors = (*SSSP.functors, SWEEP_RELAX)

    def __init__(self, graph, weight: bool, predecessors: bool):
        super().__init__(graph, graph.root, weight, None, predecessors)
        self._layers(graph)
        self.sweeps = 0

    def state(self, graph) -> dict[str, tuple]:
        return {**super().state(graph), "behind": (1, np.int64)}

    def start(self, run: Run) -> None:
        super().start(run)
        run.state["behind"].fill(NOT_BEHIND)

    def step(self, run: Run) -> None:
        s = run.state
        run.advance(SWEEP_RELAX, s["dist"], s["layers"], len(self.layers), s["behind"], input=self.group(run))

    def done(self, run: Run, sizes: np.ndarray) -> bool:
        self.sweeps += 1
        behind = int(run.ops.to_host(run.state["behind"])[0])
        if behind == NOT_BEHIND:
            return True
        layer = int(np.searchsorted(self.layers, behind, side="right")) - 1
        self.next_group = int(np.searchsorted(self.groups, layer, side="right")) - 1  # the push holding its layer
        run.state["behind"].fill(NOT_BEHIND)
        return False
