"""Connected components (weakly connected on a directed graph) by hooking, as ECL-CC and Afforest
do, on the runtime (CUDA functors in cc.cu).

Every vertex starts as its own root (``parent[v] = v``); an edge (v, u) hooks the larger of their
roots under the smaller (a compare-and-swap on the GPU, where ``find`` halves paths as it goes), so
roots stay each component's smallest vertex, whatever order edges come in (and out of core,
whatever round a chunk is in). ``compress`` then points every vertex at its root.

On a symmetric graph, Afforest's sampling first: each vertex hooks its first two edges, which on
most graphs joins the giant component already; then only vertices outside the largest component
hook their remaining edges (an edge between the giant component and another vertex is also in the
other vertex's list). A directed graph hooks every edge once, in one sweep.

Out of core the sampling would read every list's head, so every chunk; the scheduler keeps those
two ids of each list on the device instead (a sidecar, ``SAMPLES``), and lists are read only for
vertices whose chunk has not been validated yet.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..runtime import ALL, Advance, Algorithm, Compute, Config, Edges, Filter, Pull, Run, Sidecar, run
from ..runtime.functors import cpu
from ..runtime.results import ComponentsResult

SAMPLE = 2  # edges per vertex hooked before the largest component is known (Afforest's neighbor rounds)
PROBES = 1024  # vertices whose roots name the largest component
NONE = np.uint64(0xFFFFFFFF)  # no id: a list with fewer than two edges in its first chunk


@cpu(inline="always")
def find(parent, x):
    """x's root, halving the path on the way (every pointer leads to a smaller vertex)."""
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


@cpu(inline="always")
def hook(parent, v, u):
    a, b = find(parent, v), find(parent, u)
    if a < b:
        parent[b] = a
    elif b < a:
        parent[a] = b


@cpu
def hook_edge(v, u, e, w, s):
    """Every edge (the CPU's advance is serial: plain writes). ``s``: (parent,)."""
    hook(s[0], v, u)
    return False


@cpu
def unsampled(u, s):
    """Whether u's first ids are not kept on the device. ``s``: (parent, indptr, how many, the
    kept samples, whether they are kept)."""
    return not s[4] or s[3][u] == _UNKNOWN


@cpu
def sample(u, v, e, w, s):
    """Hooks the first edges of u's list; then u is done."""
    parent, indptr, first = s[0], s[1], s[2]
    if e >= indptr[u] + first:
        return True
    hook(parent, u, v)
    return False


@cpu
def sample_kept(u, s):
    """Hooks u's first ids from the sidecar. ``s``: (parent, the kept samples)."""
    ids = s[1][u]
    if ids != _UNKNOWN:
        for v in (ids & _NONE, ids >> 32):
            if v != _NONE and v != u:
                hook(s[0], u, v)


@cpu
def nothing(u, v, s):
    pass


@cpu
def outside(v, s):
    """Vertices with edges outside the largest component. ``s``: (parent, its root, indptr)."""
    parent, largest, indptr = s
    return parent[v] != largest and indptr[v + 1] > indptr[v]


@cpu
def init(v, s):
    s[0][v] = v


@cpu
def compress(v, s):
    s[0][v] = find(s[0], v)


def first_ids(first: int, end: int, offsets: np.ndarray, dst: np.ndarray, indptr: np.ndarray) -> np.ndarray:
    """The sidecar's values for a chunk's lists ``first`` to ``end``: their first two ids there
    (what the sampling hooks), the first in the low half, ``NONE`` for a list with fewer here."""
    firsts, ends = offsets[first:end], offsets[first + 1 : end + 1]
    ids = np.append(dst.astype(np.uint64), [NONE, NONE])
    one = np.where(ends > firsts, ids[firsts], NONE)
    two = np.where(ends > firsts + 1, ids[firsts + 1], NONE)
    return one | (two << np.uint64(32))


SAMPLES = Sidecar("samples", np.uint64, first_ids)
_UNKNOWN, _NONE = np.uint64(SAMPLES.unknown), NONE  # as Numba constants

HOOK = Advance("Hook", hook_edge)
SAMPLED = Pull("Sample", unsampled, sample, nothing)
SAMPLED_KEPT = Compute("SampleKept", sample_kept)
OUTSIDE = Filter("Outside", outside)
INIT = Compute("Init", init)
COMPRESS = Compute("Compress", compress)


class Components(Algorithm):
    cuda = Path(__file__).with_suffix(".cu")
    functors = (HOOK, SAMPLED, SAMPLED_KEPT, OUTSIDE, INIT, COMPRESS)
    queues = ("scratch",)

    def __init__(self, graph):
        self.phases = ["sample", "rest"] if not graph.directed else ["sweep"]

    def edges(self, graph) -> dict[str, Edges]:
        return {"out": Edges(sidecars=(SAMPLES,) if not graph.directed else ())}

    def state(self, graph) -> dict[str, tuple]:
        return {"parent": (graph.n_vertices, np.uint32)}

    def start(self, run: Run) -> None:
        run.compute(INIT, run.state["parent"])
        run.frontier.start(np.zeros(0, np.int64), 0)

    def step(self, run: Run) -> None:
        parent, phase = run.state["parent"], self.phases[len(run.iterations) - 1]
        run.iterations[-1]["phase"] = phase
        if phase == "sweep":
            run.advance(HOOK, parent, input=ALL, output=run.queues["scratch"])
        elif phase == "sample":  # lists read where the samples are not kept yet (their chunks come now), then the kept ones
            out = run.sources["out"]
            kept = out.sidecar(SAMPLES.name)
            samples = kept if kept is not None else run.xp.zeros(1, np.uint64)
            run.pull(SAMPLED, parent, out.indptr, SAMPLE, samples, kept is not None, edges="out", input=ALL, output=run.queues["scratch"])
            if kept is not None:
                run.compute(SAMPLED_KEPT, parent, kept)
        else:
            run.compute(COMPRESS, parent)
            largest = self._largest(run, parent)
            rest = run.queues["scratch"]
            rest.row.fill(0)
            run.filter(OUTSIDE, parent, largest, run.sources["out"].indptr, input=ALL, output=rest)
            run.advance(HOOK, parent, input=rest, output=run.frontier.next)
        run.compute(COMPRESS, parent)

    def done(self, run: Run, sizes: np.ndarray) -> bool:
        return len(run.iterations) == len(self.phases)

    @staticmethod
    def _largest(run: Run, parent) -> int:
        """The root of the largest component, as Afforest estimates it: the most frequent root among
        ``PROBES`` vertices (drawn with a fixed seed; any choice gives the same labels, a good one
        leaves the fewest vertices to hook)."""
        probes = np.random.default_rng(0).integers(0, run.n, min(PROBES, run.n))
        roots = run.ops.to_host(parent[run.xp.asarray(probes)])
        values, counts = np.unique(roots, return_counts=True)
        return int(values[np.argmax(counts)])


@cpu
def ranked(roots, labels):
    """Each root's rank among the roots into ``labels``, in one pass (a root is its component's
    smallest vertex, so its label is set before any other vertex's); returns how many roots."""
    k = 0
    for v in range(len(roots)):
        if roots[v] == v:
            labels[v] = k
            k += 1
        else:
            labels[v] = labels[roots[v]]
    return k


def numbered(graph, done: Run, roots) -> tuple[np.ndarray, int]:
    """Component labels (int64, in the input's order) from ``roots``, each component's smallest
    vertex in the store's ids (where the run left them): components numbered in the order of their
    smallest vertex in the input's ids, as scipy numbers weakly connected ones; and how many (known
    where they were numbered, not read back from the labels)."""
    if graph.perm is None:  # the smallest vertex is the same in both: rank the roots where they are
        if done.backend == "cpu":  # one pass, where a sort took 6 ms on cnr-2000
            labels = np.empty(len(roots), np.int64)
            return labels, ranked(roots, labels)
        found, labels = done.xp.unique(roots, return_inverse=True)
        return done.output(labels.astype(np.int64).ravel()), len(found)
    # the smallest vertex in the input's ids: the first of each root in the input's order
    ordered = done.output(roots)  # where the result goes
    xp = done.xp if done.config.output == "device" else np
    _, first, labels = xp.unique(ordered, return_index=True, return_inverse=True)
    rank = xp.empty(len(first), np.int64)
    rank[xp.argsort(first)] = xp.arange(len(first))
    return rank[labels].ravel(), len(first)


def connected_components(graph, *, config: Config | None = None, **options) -> ComponentsResult:
    """The component of every vertex (weakly connected components on a directed graph), numbered
    as scipy.sparse.csgraph.connected_components numbers them, and how many there are.
    Execution options as every algorithm's (``runtime.Config``)."""
    if graph.n_vertices == 0:
        return ComponentsResult(labels=np.zeros(0, np.int64), n_components=0, ids=graph.ids)
    done = run(Components(graph), graph, Config.of(config, **options))
    labels, n_components = numbered(graph, done, done.state["parent"])
    return ComponentsResult(labels=labels, n_components=n_components, stats=done.stats(n_components=n_components), ids=graph.ids)
