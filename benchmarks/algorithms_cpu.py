"""SSSP, connected components and PageRank on the CPU backend against scipy and networkx, on
cnr-2000 with seeded random weights in [1, 64).

    python benchmarks/algorithms_cpu.py [--formats csr ef] [--repeat 5] [--out DIR]

Each graphtier call is timed whole (wall seconds, as a caller sees it) after a warm-up call that
compiles the kernels; scipy's dijkstra and connected_components get the same CSR matrix, and
networkx's pagerank a DiGraph made from it beforehand (the conversion is not timed). Results are
checked against the oracles before they are timed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import networkx as nx
import numpy as np
import scipy.sparse as sp
from harness import RESULTS_DIR, machine_info, print_table, time_it, write_results
from scipy.sparse.csgraph import connected_components, dijkstra

import graphtier as gt

CNR = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "cnr-2000" / "cnr-2000-csr.npz"
SOURCE = 100000


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--formats", nargs="+", default=["csr", "ef"])
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--out", type=Path, default=RESULTS_DIR)
    args = p.parse_args()
    z = np.load(CNR)
    indptr, indices = z["indptr"].astype(np.int64), z["indices"]
    edges = np.stack([np.repeat(np.arange(len(indptr) - 1), np.diff(indptr)), indices], 1)
    w = np.random.default_rng(2000).integers(1, 64, len(edges)).astype(np.float64)
    rows = []
    with tempfile.TemporaryDirectory() as d:
        csr = gt.build(np.column_stack([edges, w]), Path(d) / "csr.gt", reverse=True, progress=False)
        graphs = {f: csr if f == "csr" else gt.recode(csr, Path(d) / f"{f}.gt", format=f) for f in args.formats}
        stored = csr.edges()
        m = sp.csr_matrix((csr.group["weights"][:].astype(np.float64), (stored[:, 0].astype(np.int64), stored[:, 1].astype(np.int64))), shape=(csr.n_vertices,) * 2)
        G = nx.from_scipy_sparse_array(m, create_using=nx.DiGraph)
        oracles = {
            "sssp": (lambda: dijkstra(m, indices=SOURCE), "scipy dijkstra"),
            "cc": (lambda: connected_components(m, directed=True, connection="weak"), "scipy connected_components"),
            "pagerank": (lambda: nx.pagerank(G, weight=None), "networkx pagerank"),
        }
        ours = {
            "sssp": lambda g: gt.sssp(g, SOURCE, device="cpu"),
            "cc": lambda g: gt.connected_components(g, device="cpu"),
            "pagerank": lambda g: gt.pagerank(g, device="cpu"),
        }
        for alg, (oracle, name) in oracles.items():
            expected = oracle()
            base = time_it(oracle, repeat=args.repeat)["median_s"]
            for fmt, g in graphs.items():
                r = ours[alg](g)
                if alg == "sssp":
                    assert np.array_equal(r.distances, expected)
                elif alg == "cc":
                    assert r.n_components == expected[0] and np.array_equal(r.labels, expected[1])
                else:
                    assert np.abs(r.ranks - np.array([expected[i] for i in range(g.n_vertices)])).sum() < 1e-9
                t = time_it(lambda g=g: ours[alg](g), repeat=args.repeat)["median_s"]
                rows.append({"algorithm": alg, "format": fmt, "graphtier_ms": round(t * 1e3, 1), "baseline": name, "baseline_ms": round(base * 1e3, 1), "speedup": round(base / t, 2)})
                print(rows[-1], flush=True)
    meta = {"command": " ".join(sys.argv), "graph": "cnr-2000, random integer weights in [1, 64), seed 2000", "timing": "wall, median after a warm-up", "machine": machine_info()}
    json_path, md_path = write_results("algorithms_cpu", rows, meta, out_dir=args.out)
    print_table(rows, ["algorithm", "format", "graphtier_ms", "baseline", "baseline_ms", "speedup"])
    print(f"\nwrote {json_path} and {md_path}")


if __name__ == "__main__":
    main()
