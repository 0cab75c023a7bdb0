"""Strongly connected components on the CPU (Pearce's algorithm over the runtime's depth-first walk)
against scipy's (Pearce's too) on cnr-2000, csr and ef stores with the reverse graph, calls taken in
turns after a warm-up (compiled kernels, open handles): the median of each, and the partition
checked against scipy's.

    PYTHONPATH=. python benchmarks/scc_cpu.py --dir /tmp/scc-stores --runs 15

scipy gets a float64 matrix, which it takes as it is (another dtype it converts on every call).
``--unfused`` also times ef with its walk decoding each list through the format's plain decoder (a
call per list) instead of its fused visitor (taken out of the registry for those calls).
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

import graphtier as gt
from graphtier.kernels.formats import FORMATS

CNR = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "cnr-2000" / "cnr-2000-csr.npz"


def stores(directory: Path) -> dict[str, gt.Graph]:
    """cnr-2000 as csr and ef stores with the reverse graph, built in ``directory`` the first time."""
    csr, ef = directory / "cnr-csr.gt", directory / "cnr-ef.gt"
    if not csr.exists():
        z = np.load(CNR)
        indptr, indices = z["indptr"].astype(np.int64), z["indices"]
        src = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
        gt.build(np.stack([src, indices.astype(np.int64)], axis=1), csr, reverse=True, progress=False)
    if not ef.exists():
        gt.recode(gt.open(csr), ef, format="ef")
    return {"csr": gt.open(csr), "ef": gt.open(ef)}


def same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    pairs = np.unique(np.stack([a, b], axis=1), axis=0)
    return len(pairs) == len(np.unique(a)) == len(np.unique(b))


def unfused(g: gt.Graph):
    """SCC on ``g`` (ef) with no fused visitor in the registry for the call."""
    fused = FORMATS["ef"]
    FORMATS["ef"] = dataclasses.replace(fused, push=None)
    try:
        return gt.strongly_connected_components(g, device="cpu")
    finally:
        FORMATS["ef"] = fused


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dir", type=Path, default=Path("/tmp/scc-stores"))
    p.add_argument("--runs", type=int, default=15)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--unfused", action="store_true", help="also time ef's walk without the fused visitor")
    args = p.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    graphs = stores(args.dir)
    g = graphs["csr"]
    indptr = g.indptr().astype(np.int64)
    dst = g.edges()[:, 1]
    a = sp.csr_matrix((np.ones(len(dst)), dst, indptr), shape=(g.n_vertices,) * 2)
    n, expected = connected_components(a, directed=True, connection="strong")
    calls = {"scipy": lambda: connected_components(a, directed=True, connection="strong")}
    calls |= {f: (lambda h=h: gt.strongly_connected_components(h, device="cpu")) for f, h in graphs.items()}
    if args.unfused:
        calls["ef-unfused"] = lambda: unfused(graphs["ef"])
    for f, h in graphs.items():
        r = gt.strongly_connected_components(h, device="cpu")
        assert r.n_components == n and same_partition(r.labels, expected), f"{f}: not scipy's partition"
    for _ in range(args.warmup):
        for call in calls.values():
            call()
    times = {name: [] for name in calls}
    for _ in range(args.runs):
        for name, call in calls.items():
            t = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - t)
    for name, ts in times.items():
        print(f"{name:10s} median {1e3 * statistics.median(ts):6.1f} ms  min {1e3 * min(ts):6.1f}  max {1e3 * max(ts):6.1f}  ({len(ts)} runs)")
    print(f"components {n}; same partition as scipy on csr and ef")


if __name__ == "__main__":
    main()
