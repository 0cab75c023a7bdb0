"""The runtime's depth-first walk (``Run.depth_first``) on the CPU against a walk in Python over the
decoded edges: the order vertices are entered and left in, each one's parent and the edge it was
entered through, from every vertex or from a queue of roots; every format, lists longer than a chunk
and paths whose decoded lists outgrow the walk's stack of them; the same walk under budgets from one
chunk slot to all-resident, under every zero-copy policy; a functor that enters a vertex twice, and
weights, refused."""

from __future__ import annotations

import numpy as np
import pytest

import graphtier as gt
from graphtier.runtime import ALL, Algorithm, Config, DepthFirst, Edges, Run, run
from graphtier.runtime.functors import cpu

from .conftest import recoded

FORMATS = ["csr", "log", "ef", "cgr"]
CHUNK_EDGES = 256


@cpu
def enter(v, parent, s):
    """v is entered from ``parent`` (itself for a root): its rank in the entering order. ``s``:
    (entered, left, parent, through, counts: [entered, left], value)."""
    entered, parents, counts = s[0], s[2], s[4]
    entered[v] = counts[0]
    counts[0] += 1
    parents[v] = parent


@cpu
def walk_root(v, s):
    if s[0][v] >= 0:
        return False
    enter(v, v, s)
    return True


@cpu
def walk_start(v, s):
    """A vertex's value counts the edges read from its list and the walks that came back to it,
    starting from its entering rank times a thousand."""
    return s[0][v] * 1000


@cpu
def walk_edge(v, u, e, w, value, s):
    if s[0][u] >= 0:
        return False, value + 1
    enter(u, v, s)
    s[3][u] = e
    return True, value + 1


@cpu
def walk_back(v, u, value, s):
    """Coming back to v from u: u's parent is v, and u was left (else the parent is marked wrong)."""
    if s[2][u] != v or s[1][u] < 0:
        s[2][u] = -2
    return value + 1


@cpu
def walk_leave(v, value, s):
    """Left: its rank in the leaving order, and its value (read, then children back, in ``value``)."""
    left, counts = s[1], s[4]
    left[v] = counts[1]
    counts[1] += 1
    s[5][v] = value


@cpu
def twice(v, u, e, w, value, s):
    return True, value


KEPT = ("entered", "left", "parent", "through", "value")
ORDER = DepthFirst("Order", walk_root, walk_start, walk_edge, walk_back, walk_leave)
TWICE = DepthFirst("Twice", walk_root, walk_start, twice, walk_back, walk_leave)
SHALLOW = DepthFirst("Shallow", walk_root, walk_start, walk_edge, walk_back, walk_leave, depth=2)


class Walk(Algorithm):
    """One walk from ``roots`` in order (every vertex when None)."""

    functors = (ORDER, TWICE)
    queues = ("roots",)

    def __init__(self, roots: np.ndarray | None = None, functor: DepthFirst = ORDER, weights: bool = False):
        self.roots, self.functor, self.weights = roots, functor, weights

    def edges(self, graph) -> dict[str, Edges]:
        return {"out": Edges(weights=self.weights)}

    def state(self, graph) -> dict[str, tuple]:
        n = graph.n_vertices
        return {name: (n, np.int64) for name in KEPT} | {"counts": (2, np.int64)}

    def start(self, run: Run) -> None:
        for name in (*KEPT, "counts"):
            run.state[name].fill(-1 if name != "counts" else 0)
        if self.roots is not None:
            q = run.queues["roots"]
            q.ids[: len(self.roots)] = self.roots
            q.row[0] = len(self.roots)

    def step(self, run: Run) -> None:
        s = run.state
        run.depth_first(self.functor, s["entered"], s["left"], s["parent"], s["through"], s["counts"], s["value"], input=ALL if self.roots is None else run.queues["roots"])

    def done(self, run: Run, sizes: np.ndarray) -> bool:
        return True


class ShallowWalk(Walk):
    """A walk whose stack holds two vertices (its functor's depth)."""

    functors = (SHALLOW,)


def walked(g: gt.Graph, roots=None, **options) -> tuple[dict[str, np.ndarray], dict]:
    done = run(Walk(roots), g, Config(device="cpu", **options))
    return {k: done.state[k].copy() for k in KEPT}, done.stats()


def reference(g: gt.Graph, roots=None) -> dict[str, np.ndarray]:
    """The same walk in Python over the store's edges in list order."""
    n = g.n_vertices
    indptr, dst = g.indptr().astype(np.int64), g.edges()[:, 1].astype(np.int64)
    out = {k: np.full(n, -1, np.int64) for k in KEPT}
    counts = [0, 0]

    def enter(v, parent, e):
        out["entered"][v], out["parent"][v], out["through"][v] = counts[0], parent, e
        out["value"][v] = counts[0] * 1000 + indptr[v + 1] - indptr[v]  # its edges read, and each child's return
        counts[0] += 1

    for r in range(n) if roots is None else roots:
        if out["entered"][r] >= 0:
            continue
        enter(r, r, -1)
        stack = [[r, indptr[r]]]
        while stack:
            top = stack[-1]
            v, e = top
            if e < indptr[v + 1]:
                top[1] += 1
                u = dst[e]
                if out["entered"][u] < 0:
                    enter(u, v, e)
                    out["value"][v] += 1
                    stack.append([u, indptr[u]])
            else:
                stack.pop()
                out["left"][v] = counts[1]
                counts[1] += 1
    return out


def hubs(n: int, seed: int) -> np.ndarray:
    """A few hubs with lists longer than a chunk, a sparse random rest, and vertices with no edges."""
    rng = np.random.default_rng(seed)
    hub = np.repeat(rng.choice(n, 4, replace=False), 3 * CHUNK_EDGES)
    sparse = rng.integers(0, n - 20, (3 * n, 2))
    return np.concatenate([np.column_stack([hub, rng.integers(0, n, len(hub))]), sparse])


GRAPHS = {
    "kron": lambda: gt.generators.kronecker(9, edge_factor=4, seed=5),
    "dense": lambda: np.random.default_rng(7).integers(0, 300, (12_000, 2)),  # decoded lists along a path outgrow the walk's stack of them
    "hubs": lambda: hubs(2_000, 8),
    "chain": lambda: np.column_stack([np.arange(1_500), np.arange(1, 1_501)])[np.random.default_rng(9).permutation(1_500)],  # one path 1,501 deep
}


@pytest.fixture(scope="module")
def stores(tmp_path_factory) -> dict[str, dict[str, gt.Graph]]:
    out = {}
    for name, make in GRAPHS.items():
        d = tmp_path_factory.mktemp(name)
        csr = gt.build(make(), d / "csr.gt", chunk_edges=CHUNK_EDGES, progress=False)
        out[name] = recoded(csr, d, FORMATS)
    return out


def assert_same(got: dict, expected: dict, what) -> None:
    for k, values in expected.items():
        np.testing.assert_array_equal(got[k], values, err_msg=f"{what}: {k}")


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_walks_as_the_reference(stores, fmt):
    for name, graphs in stores.items():
        g = graphs[fmt]
        assert_same(walked(g)[0], reference(g), (name, fmt))
        roots = np.random.default_rng(1).permutation(g.n_vertices)[: g.n_vertices // 3]
        assert_same(walked(g, roots)[0], reference(g, roots), (name, fmt, "roots"))


@pytest.mark.parametrize(("name", "fmt"), [("kron", "csr"), ("kron", "cgr"), ("dense", "csr"), ("dense", "ef"), ("hubs", "ef")])
def test_same_walk_under_every_budget(stores, name, fmt):
    """From one chunk slot to all-resident, under every zero-copy policy: the walk waits for each
    chunk it needs and finds the same order."""
    g = stores[name][fmt]
    expected, resident = walked(g)
    chunks = g.chunks()
    slot = max(h.total_bytes for h in chunks.headers(range(chunks.n_chunks))) + 64
    fixed = 64 * g.n_vertices + 64 * chunks.n_chunks + sum(h.payload_start + 8 for h in chunks.headers(range(chunks.n_chunks)))
    for k, zero_copy in ((1, "never"), (1, "auto"), (2, "always"), (chunks.n_chunks, "auto")):
        budget = {"device_memory": resident["state_bytes"] + fixed + 2 * k * slot, "host_memory": 2 * k * slot, "zero_copy": zero_copy}
        got, stats = walked(g, **budget)
        assert_same(got, expected, (name, fmt, budget))
        assert stats["device_peak_bytes"] <= budget["device_memory"]
        if k == 1:
            assert stats["host_misses"] > 0  # streamed indeed


def test_a_vertex_entered_twice_and_weights_are_refused(stores, tmp_path):
    g = stores["kron"]["csr"]
    with pytest.raises(ValueError, match="entered more vertices at once than the walk holds"):
        run(Walk(functor=TWICE), g, Config(device="cpu"))
    weighted = gt.build(np.array([[0, 1, 2.0], [1, 0, 3.0]]), tmp_path / "w.gt", progress=False)
    with pytest.raises(ValueError, match="reads no weights"):
        run(Walk(weights=True), weighted, Config(device="cpu"))


@pytest.mark.parametrize("fmt", ["csr", "ef"])
def test_a_walk_deeper_than_its_depth_is_refused(stores, tmp_path, fmt):
    """A functor's depth sizes the walk's stack (and ef's decoded lists): going deeper is an error,
    never a write past it; a walk that stays within it (a star into a vertex with a self-loop:
    two vertices at most on the walk) walks as the reference."""
    with pytest.raises(ValueError, match=r"more vertices at once than the walk holds \(2:"):
        run(ShallowWalk(functor=SHALLOW), stores["chain"][fmt], Config(device="cpu"))
    star = gt.build(np.column_stack([np.arange(301), np.full(301, 300)]), tmp_path / "csr.gt", chunk_edges=CHUNK_EDGES, progress=False)
    g = star if fmt == "csr" else gt.recode(star, tmp_path / f"{fmt}.gt", format=fmt)
    done = run(ShallowWalk(functor=SHALLOW), g, Config(device="cpu"))
    assert_same({k: done.state[k] for k in KEPT}, reference(g), ("star", fmt))
