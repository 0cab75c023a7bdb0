"""Every algorithm but BFS on the CPU backend against scipy and networkx, on cnr-2000 with seeded
random weights in [1, 64): directed (with its reverse) for SSSP, CC, PageRank, SCC and
betweenness centrality, symmetrised for the spanning forest, MIS and colouring.

    python benchmarks/algorithms_cpu.py [--formats csr ef] [--algorithms ...] [--repeat 5] [--out DIR] [--tag TAG]

Each graphtier call is timed whole (wall seconds, as a caller sees it) after a warm-up call that
compiles the kernels; scipy gets the same CSR matrix and networkx a graph made from it beforehand
(the conversions are not timed). Results are checked against the baselines before they are timed.
The slow networkx baselines (spanning tree, MIS, betweenness) run once, without a warm-up, and
are stopped after ``--limit`` seconds: networkx's maximal_independent_set draws each vertex from
a list of all those still free, quadratic in the vertices, so on cnr-2000 it gives only a bound.
"""

from __future__ import annotations

import argparse
import signal
import sys
import tempfile
import time
from pathlib import Path

import networkx as nx
import numpy as np
import scipy.sparse as sp
from harness import RESULTS_DIR, machine_info, publish, time_it
from scipy.sparse.csgraph import connected_components, dijkstra

import graphtier as gt

CNR = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "cnr-2000" / "cnr-2000-csr.npz"
SOURCE = 100000
BC_SOURCES = 16  # sampled sources of betweenness centrality, the same for networkx (its seed)
SYMMETRIC = ("mst", "mis", "color")


def matrix(g: gt.Graph) -> sp.csr_matrix:
    """The stored graph with its weights, as scipy and networkx take it."""
    e = g.edges()
    return sp.csr_matrix((g.group["weights"][:].astype(np.float64), (e[:, 0].astype(np.int64), e[:, 1].astype(np.int64))), shape=(g.n_vertices,) * 2)


class Overran(Exception):
    """A baseline stopped at its time limit."""


def within(fn, seconds: int):
    """``fn()``, or ``Overran`` after ``seconds`` (networkx is Python: the alarm stops it)."""

    def stop(*_):
        raise Overran

    old = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        return fn()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    return len(np.unique(a)) == len(np.unique(b)) == len(np.unique(np.stack([a, b]), axis=1).T)


def independent_and_maximal(m: sp.csr_matrix, in_set: np.ndarray) -> bool:
    a = (m != 0).astype(np.int64)
    a.setdiag(0)
    a.eliminate_zeros()
    covered = a @ in_set.astype(np.int64)
    return not covered[in_set].any() and bool(covered[~in_set].all())


def proper(m: sp.csr_matrix, colors: np.ndarray) -> bool:
    u, v = m.nonzero()
    return not (colors[u] == colors[v])[u != v].any()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--formats", nargs="+", default=["csr", "ef"])
    p.add_argument("--algorithms", nargs="+", default=["sssp", "cc", "pagerank", "scc", "mst", "mis", "color", "bc"])
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--limit", type=int, default=300, help="seconds a slow baseline may run (default 300)")
    p.add_argument("--out", type=Path, default=RESULTS_DIR)
    p.add_argument("--tag", help="appended to the results' file names")
    args = p.parse_args()
    z = np.load(CNR)
    indptr, indices = z["indptr"].astype(np.int64), z["indices"]
    edges = np.stack([np.repeat(np.arange(len(indptr) - 1), np.diff(indptr)), indices], 1)
    w = np.random.default_rng(2000).integers(1, 64, len(edges)).astype(np.float64)
    rows = []
    with tempfile.TemporaryDirectory() as d:
        stores = {}
        for kind, options in (("directed", {"reverse": True}), ("symmetric", {"symmetrize": True})):
            csr = gt.build(np.column_stack([edges, w]), Path(d) / f"{kind}-csr.gt", progress=False, **options)
            stores[kind] = {f: csr if f == "csr" else gt.recode(csr, Path(d) / f"{kind}-{f}.gt", format=f) for f in args.formats}
        m, ms = matrix(stores["directed"]["csr"]), matrix(stores["symmetric"]["csr"])
        G = nx.from_scipy_sparse_array(m, create_using=nx.DiGraph)
        Gs = nx.from_scipy_sparse_array(ms) if set(SYMMETRIC) & set(args.algorithms) else None
        n = m.shape[0]
        # algorithm: (baseline, its name, whether it is slow, graphtier's call, check of graphtier's result against the baseline's)
        cases = {
            "sssp": (lambda: dijkstra(m, indices=SOURCE), "scipy dijkstra", False, lambda g: gt.sssp(g, SOURCE, device="cpu"), lambda r, x: np.array_equal(r.distances, x)),
            "cc": (
                lambda: connected_components(m, directed=True, connection="weak"),
                "scipy connected_components",
                False,
                lambda g: gt.connected_components(g, device="cpu"),
                lambda r, x: r.n_components == x[0] and np.array_equal(r.labels, x[1]),
            ),
            "pagerank": (
                lambda: nx.pagerank(G, weight=None),
                "networkx pagerank",
                False,
                lambda g: gt.pagerank(g, device="cpu"),
                lambda r, x: np.abs(r.ranks - np.array([x[i] for i in range(n)])).sum() < 1e-9,
            ),
            "scc": (
                lambda: connected_components(m, directed=True, connection="strong"),
                "scipy connected_components (strong)",
                False,
                lambda g: gt.strongly_connected_components(g, device="cpu"),
                lambda r, x: r.n_components == x[0] and same_partition(r.labels, x[1]),
            ),
            "mst": (
                lambda: nx.minimum_spanning_tree(Gs).size(weight="weight"),
                "networkx minimum_spanning_tree",
                True,
                lambda g: gt.minimum_spanning_tree(g, device="cpu"),
                lambda r, x: abs(r.total_weight - x) <= 1e-9 * x,
            ),
            "mis": (
                lambda: nx.maximal_independent_set(Gs, seed=1),
                "networkx maximal_independent_set",
                True,
                lambda g: gt.maximal_independent_set(g, seed=1, device="cpu"),
                lambda r, x: independent_and_maximal(ms, r.in_set),
            ),
            "color": (
                lambda: nx.greedy_color(Gs, strategy="largest_first"),
                "networkx greedy_color (largest_first)",
                False,
                lambda g: gt.greedy_color(g, seed=1, device="cpu"),
                lambda r, x: proper(ms, r.colors),
            ),
            "bc": (
                lambda: nx.betweenness_centrality(G, k=BC_SOURCES, seed=7),
                f"networkx betweenness_centrality (k={BC_SOURCES})",
                True,
                lambda g: gt.betweenness_centrality(g, k=BC_SOURCES, seed=7, device="cpu"),
                lambda r, x: np.allclose(r.centrality, np.array([x[i] for i in range(n)]), rtol=1e-9, atol=0),
            ),
        }
        for alg in args.algorithms:
            baseline, name, slow, ours, agrees = cases[alg]
            start = time.perf_counter()
            try:
                expected = within(baseline, args.limit) if slow else baseline()
                base = time.perf_counter() - start if slow else time_it(baseline, repeat=args.repeat)["median_s"]
            except Overran:
                expected, base = None, None
            for fmt, g in stores["symmetric" if alg in SYMMETRIC else "directed"].items():
                r = ours(g)
                assert agrees(r, expected), f"{alg} {fmt}: differs from {name}"
                t = time_it(lambda g=g: ours(g), repeat=args.repeat)["median_s"]
                if base is None:  # the bound: the baseline ran longer than the limit
                    rows.append(
                        {"algorithm": alg, "format": fmt, "graphtier_ms": round(t * 1e3, 1), "baseline": name, "baseline_ms": f"> {args.limit * 1e3:.0f}", "speedup": f"> {args.limit / t:.0f}"}
                    )
                else:
                    rows.append({"algorithm": alg, "format": fmt, "graphtier_ms": round(t * 1e3, 1), "baseline": name, "baseline_ms": round(base * 1e3, 1), "speedup": round(base / t, 2)})
                print(rows[-1], flush=True)
    meta = {
        "command": " ".join(sys.argv),
        "graph": "cnr-2000 (directed with its reverse; symmetrised for mst, mis, color), random integer weights in [1, 64), seed 2000",
        "timing": "wall, median after a warm-up",
        "machine": machine_info(),
    }
    publish("algorithms_cpu", rows, meta, out_dir=args.out, tag=args.tag, columns=["algorithm", "format", "graphtier_ms", "baseline", "baseline_ms", "speedup"])


if __name__ == "__main__":
    main()
