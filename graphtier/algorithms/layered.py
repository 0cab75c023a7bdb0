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

from ..runtime import Advance, Run, Span, cpu
from .bfs import BFS, VISIT
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


class Layers:
    """What a layered driver shares: the layers, which one the next iteration pushes from, and
    a batch that launches them all."""

    planned = True

    def _layers(self, graph) -> None:
        self.layers = graph.layers
        self.next_layer = 0

    def batch(self, run: Run) -> int:
        return len(self.layers) - 1 - self.next_layer

    def span(self) -> Span:
        i = self.next_layer
        self.next_layer += 1
        return Span(int(self.layers[i]), int(self.layers[i + 1]))

    def progress(self, run: Run) -> tuple[int, int | None, str]:
        return self.next_layer, len(self.layers) - 1, "layers"


class LayeredBFS(Layers, BFS):
    """BFS from the root, a push per layer."""

    def __init__(self, graph):
        super().__init__(graph, graph.root, "push")
        self._layers(graph)

    def step(self, run: Run) -> None:
        level = self.next_layer + 1
        run.advance(VISIT, run.state["dist"], run.state["parent"], level, input=self.span())
        run.iterations[-1]["direction"] = "push"

    def done(self, run: Run, sizes: np.ndarray) -> bool:
        return self.batch(run) == 0


@cpu
def sweep_relax(v, u, e, w, s):
    """``s``: (dist, the layer's end, behind: the least vertex improved in or before the layer)."""
    dist, stop, behind = s
    nd = dist[v] + np.float64(w)
    if nd < dist[u]:
        dist[u] = nd
        if u < stop and u < behind[0]:
            behind[0] = u
    return False


SWEEP_RELAX = Advance("SweepRelax", sweep_relax)


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
        span = self.span()
        run.advance(SWEEP_RELAX, run.state["dist"], span.stop, run.state["behind"], input=span)

    def done(self, run: Run, sizes: np.ndarray) -> bool:
        self.sweeps += 1
        behind = int(run.ops.to_host(run.state["behind"])[0])
        if behind == NOT_BEHIND:
            return True
        self.next_layer = int(np.searchsorted(self.layers, behind, side="right")) - 1  # the layer holding it
        run.state["behind"].fill(NOT_BEHIND)
        return False
