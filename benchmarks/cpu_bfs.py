"""CPU BFS: graphtier (over encoded chunks) beside scipy's breadth_first_order, in the same run.

    python benchmarks/cpu_bfs.py [--threads 1] [--scale 20] [--repeat 9] [--formats csr log ef cgr]

Graphs: cnr-2000 from vertex 100000 (../shared/datasets) and a symmetrized Graph500 Kronecker
graph from its highest-degree vertex. graphtier runs push-only and direction-optimizing (the
store then holds the reverse graph), over each format's encoded chunks (stores recoded from the
csr one). Timings are medians after a warm-up call.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import numpy as np


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--threads", type=int, default=None, help="Numba threads (default: all cores)")
    p.add_argument("--scale", type=int, default=20)
    p.add_argument("--repeat", type=int, default=9)
    p.add_argument("--formats", nargs="+", default=None, help="default: every format")
    args = p.parse_args()
    if args.threads:
        os.environ["NUMBA_NUM_THREADS"] = str(args.threads)

    import scipy.sparse as sp
    from harness import machine_info, publish, time_it
    from scipy.sparse.csgraph import breadth_first_order

    import graphtier as gt
    from graphtier.codecs import FORMATS

    shared = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "cnr-2000" / "cnr-2000-csr.npz"
    graphs = []
    if shared.exists():
        z = np.load(shared)
        indptr, indices = z["indptr"], z["indices"]
        src = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
        graphs.append(("cnr-2000", np.stack([src, indices], 1), False, 100000))
    else:
        print(f"skipping cnr-2000: {shared} not found", file=sys.stderr)
    graphs.append((f"kron{args.scale}", gt.generators.kronecker(args.scale, seed=0), True, None))

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, edges, symmetric, source in graphs:
            g = gt.build(edges, Path(tmp) / f"{name}.gt", symmetrize=symmetric, drop_self_loops=symmetric, reverse=True)
            indptr = g.indptr()
            if source is None:
                source = int(np.argmax(np.diff(indptr)))
            a = sp.csr_matrix((np.ones(g.n_edges, np.int8), g.edges()[:, 1], indptr), shape=(g.n_vertices,) * 2)
            scipy_t = time_it(lambda: breadth_first_order(a, source, directed=True, return_predecessors=True), repeat=args.repeat)
            ref_reached = len(breadth_first_order(a, source, return_predecessors=False))
            for fmt in args.formats or FORMATS:
                gf = g if fmt == g.format else gt.recode(g, Path(tmp) / f"{name}-{fmt}.gt", format=fmt)
                for direction in ("push", "auto"):
                    r = gt.bfs(gf, source, direction=direction)
                    assert r.reached == ref_reached, (name, fmt, direction, r.reached, ref_reached)
                    t = time_it(lambda: gt.bfs(gf, source, direction=direction), repeat=args.repeat)
                    kernel = np.median([gt.bfs(gf, source, direction=direction).stats["seconds"] for _ in range(args.repeat)])
                    rows.append(
                        {
                            "graph": name,
                            "edges": g.n_edges,
                            "source": source,
                            "reached": r.reached,
                            "levels": r.stats["levels"],
                            "format": fmt,
                            "direction": direction,
                            "graphtier_ms": round(kernel * 1e3, 2),
                            "graphtier_call_ms": round(t["median_s"] * 1e3, 2),
                            "scipy_ms": round(scipy_t["median_s"] * 1e3, 2),
                            "speedup_vs_scipy": round(scipy_t["median_s"] / kernel, 2),
                        }
                    )
    import numba

    meta = {"command": " ".join(sys.argv), "numba_threads": numba.get_num_threads(), "machine": machine_info()}
    publish(f"cpu_bfs-{numba.get_num_threads()}threads", rows, meta)


if __name__ == "__main__":
    main()
