"""BFS and SSSP from a layered store's root (WolfPath: ``../shared/papers/004-wolfpath.md``).

A store built with ``order="layered"`` numbers its vertices level by level of a BFS from its root
(``partition.order.layers``), so layer i is a span of vertices and its out-edges one contiguous
run of chunks. From the root, a traversal needs no frontier: it pushes from each layer in turn,
every span known before the run starts, so the whole run is launched at once and the host reads
nothing back until it ends. Consecutive small layers share a push (one block, one launch); out of
core, as many as one round of the scheduler's sweep holds the lists of (WolfPath's layer groups
that fit the device budget), their chunks streaming in store order. Unlike the
paper's construction no edge is dropped, which keeps SSSP exact:

- BFS: one push per layer claims the next layer (every edge reaches a layer at most one deeper);
  the distances are the layering's, and the pushes find the parents.
- SSSP: one sweep over the layers relaxes each edge once. An edge that improves a vertex in or
  before the layer being pushed from (a same-level, back or cross edge: where shortest paths leave
  the layers) puts it in near-far's far queue, and near-far (``sssp.py``) carries on from there;
  none: the sweep was the whole run, with one read back. Bellman-Ford sweeps over the layers would
  also be exact, but a grid with random weights took 304 of them (12x slower than near-far, run 54).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..kernels.limits import SPANS_EDGES
from ..runtime import Run, Span, Spans
from ..runtime.functors import Advance, Combine, cpu
from .bfs import BFS, PARENT, Direction
from .sssp import SSSP


def path(graph, source: int, direction: str | None = None) -> str:
    """The path a query from ``source`` (an input id) takes: "layers" from a layered store's root,
    else "frontier", saying why where the store is layered. ``direction``: BFS's; "auto" keeps the
    frontier where its switch would pull at some layer (reading fewer edges than pushing them all)."""
    if graph.layers is None:
        return "frontier"
    if source != graph.root:
        return f"frontier (source {source} is not the layered store's root {graph.root})"
    if direction == "pull":
        return "frontier (direction='pull' reads in-edges; the layers push)"
    if direction == "auto" and (layer := first_pull(graph)) is not None:
        return f"frontier (direction='auto' pulls from layer {layer}, reading fewer edges than the layers' pushes; direction='push' follows them)"
    return "layers"


def first_pull(graph) -> int | None:
    """The first layer at which direction-optimising BFS from the root would pull (``Direction``'s
    switch fed the layers' sizes), None where it would push throughout."""
    policy = Direction(graph, "auto")
    for i, (size, edges) in enumerate(zip(np.diff(graph.layers), layer_edges(graph.layers, graph.indptr()))):
        if policy.next(int(size), int(edges)):
            return i
    return None


def layer_edges(layers: np.ndarray, indptr: np.ndarray) -> np.ndarray:
    """Each layer's out-edges (its lists are one run of the edge list)."""
    starts = indptr[layers]
    return starts[1:] - starts[:-1]


def small_layers(layers: np.ndarray, indptr: np.ndarray) -> np.ndarray:
    """Which layers have fewer than SPANS_EDGES out-edges: consecutive ones share a push (one
    block, one launch). WolfPath merges small layers to fill the GPU; here they share a launch."""
    return layer_edges(layers, indptr) < SPANS_EDGES


def push_ends(small: np.ndarray, furthest: np.ndarray | None = None) -> np.ndarray:
    """Where a push from each layer ends: a small layer's at the next large one (or the last
    layer's end), a large layer's after itself; and no further than ``furthest`` (each layer's
    last end whose lists one round of the scheduler holds), but past the layer itself."""
    large = np.append(np.flatnonzero(~small), len(small))
    after = np.arange(1, len(small) + 1)
    ends = np.where(small, large[np.searchsorted(large, np.arange(len(small)))], after)
    return ends if furthest is None else np.maximum(np.minimum(ends, furthest), after)


def round_ends(layers: np.ndarray, indptr: np.ndarray, chunk_edges: int, round_chunks: int) -> np.ndarray:
    """For each layer, the furthest end of a push from it whose lists lie in at most
    ``round_chunks`` consecutive chunks: WolfPath's layer groups that fit the device budget."""
    starts = indptr[layers]
    limit = (starts[:-1] // chunk_edges + round_chunks) * chunk_edges  # the edges such chunks end at
    return np.searchsorted(starts, limit, side="right") - 1


class Layers:
    """What a layered driver shares: the layers, the one the next push starts from, and a batch
    that launches every push left."""

    planned = True

    def _layers(self, graph) -> None:
        self.layers = graph.layers
        self.next_layer = 0

    def state(self, graph) -> dict[str, tuple]:
        return {**super().state(graph), "layers": (len(self.layers), np.int64)}

    def start(self, run: Run) -> None:
        super().start(run)
        run.state["layers"][:] = run.xp.asarray(self.layers)
        indptr = run.graph.indptr()
        if run.part is not None:  # the parts merge after every layer
            self.ends = push_ends(np.zeros(len(self.layers) - 1, bool))
        elif not run.streams("out"):
            self.ends = push_ends(small_layers(self.layers, indptr))
        else:  # streamed: a push's lists in one round of the scheduler
            source = run.sources["out"]
            self.ends = push_ends(small_layers(self.layers, indptr), round_ends(self.layers, indptr, source.chunk_edges, source.round_chunks))

    def pushes_from(self, layer: int) -> int:
        """Pushes from ``layer`` to the last layer."""
        count = 0
        while layer < len(self.ends):
            layer, count = int(self.ends[layer]), count + 1
        return count

    def batch(self, run: Run) -> int:
        return self.pushes_from(self.next_layer)

    def next_push(self, run: Run) -> Span | Spans:
        """The next push's vertices: a layer, or the small ones from it to the next large one."""
        first = self.next_layer
        end = self.next_layer = int(self.ends[first])
        if end - first == 1:
            return Span(int(self.layers[first]), int(self.layers[end]))
        return Spans(self.layers, run.state["layers"], first, end - first)

    def progress(self, run: Run) -> tuple[int, int | None, str]:
        return self.next_layer, len(self.layers) - 1, "layers"


@cpu
def visit_next(v, u, e, w, s):
    """Claim an unvisited neighbour a level past v. ``s``: (dist, parent)."""
    dist, parent = s
    if dist[u] < 0:
        dist[u] = dist[v] + 1
        parent[u] = v
        return True
    return False


VISIT_NEXT = Advance("VisitNext", visit_next, (Combine(0, "max"), PARENT), spans=True)


class LayeredBFS(Layers, BFS):
    """BFS from the root, a push per layer (or group of small layers)."""

    functors = (*BFS.functors, VISIT_NEXT)

    def __init__(self, graph):
        super().__init__(graph, graph.root, "push")
        self._layers(graph)

    def step(self, run: Run) -> None:
        run.advance(VISIT_NEXT, run.state["dist"], run.state["parent"], input=self.next_push(run))
        run.iterations[-1]["direction"] = "push"

    def done(self, run: Run, sizes: np.ndarray) -> bool:
        return self.next_layer == len(self.layers) - 1


@cpu
def sweep_relax(v, u, e, w, s):
    """``s``: (dist, layers, their count, far ids, far count row, far marks). A vertex improved in
    or before v's layer joins the far queue, once."""
    dist, layers, bounds, far, far_row, far_marks = s
    nd = dist[v] + np.float64(w)
    if nd < dist[u]:
        dist[u] = nd
        if u < layers[np.searchsorted(layers[:bounds], v, side="right")] and far_marks[u] == 0:
            far_marks[u] = 1
            far[far_row[0]] = u
            far_row[0] += 1
    return False


SWEEP_RELAX = Advance("SweepRelax", sweep_relax, spans=True)


class LayeredSSSP(Layers, SSSP):
    """SSSP from the root: one sweep over the layers relaxes every edge once, in layer order; the
    vertices it improved behind itself wait in near-far's far queue, and near-far goes on from
    them (none: the sweep was the whole run); the parents as SSSP finds them."""

    cuda = Path(__file__).with_suffix(".cu")
    functors = (*SSSP.functors, SWEEP_RELAX)

    def __init__(self, graph, weight: bool, predecessors: bool):
        super().__init__(graph, graph.vertex(graph.root), weight, None, predecessors)
        self._layers(graph)
        self.handed_on = 0  # vertices the sweep left to near-far

    def batch(self, run: Run) -> int:
        return Layers.batch(self, run) if self.planned else SSSP.batch(self, run)

    def step(self, run: Run) -> None:
        if not self.planned:
            SSSP.step(self, run)
            return
        s, far = run.state, run.queues["far"]
        run.advance(SWEEP_RELAX, s["dist"], s["layers"], len(self.layers), far.ids, far.row, s["far_marks"], input=self.next_push(run))

    def done(self, run: Run, sizes: np.ndarray) -> bool:
        if not self.planned:
            return SSSP.done(self, run, sizes)
        self.planned = False  # the sweep is over: near-far from here, from the far queue
        self.handed_on = run.count(run.queues["far"])
        return self.handed_on == 0
