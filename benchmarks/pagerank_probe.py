"""Where a pull PageRank iteration's time goes on the GPU, in GPU memory: graphtier's gather
against cuSPARSE's SpMV and a plain CSR-vector kernel over the same CSR, in the store's vertex
order and renumbered by degree (hubs first), with the ranks read as float64 and float32.

    python benchmarks/pagerank_probe.py [--scale 23]

Times are CUDA-event medians of 10 calls after a warm-up. ``floor_ms`` is reading the CSR's
index bytes once at the device-to-device copy rate (half the bytes read + written).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np
from harness import print_table

import graphtier as gt

CSR_VECTOR = r"""
extern "C" __global__ void spmv(const long long* indptr, const unsigned* indices, const T* x, double* y, long long n) {
    // LANES lanes per row, rows taken in order by consecutive groups
    long long g = (long long)(blockIdx.x) * (blockDim.x / LANES) + threadIdx.x / LANES;
    int lane = threadIdx.x % LANES;
    for (; g < n; g += (long long)(gridDim.x) * (blockDim.x / LANES)) {
        double s = 0;
        for (long long j = indptr[g] + lane; j < indptr[g + 1]; j += LANES) s += (double)x[indices[j]];
        for (int d = LANES / 2; d > 0; d >>= 1) s += __shfl_down_sync(0xffffffff, s, d, LANES);
        if (lane == 0) y[g] = s;
    }
}
"""


def events(fn, repeat: int = 10) -> float:
    import cupy

    fn()
    times = []
    for _ in range(repeat):
        a, b = cupy.cuda.Event(), cupy.cuda.Event()
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(cupy.cuda.get_elapsed_time(a, b))
    return statistics.median(times)


def main() -> None:
    import cupy
    import cupyx.scipy.sparse as sp

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--scale", type=int, default=23)
    args = p.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as d:
        edges = gt.generators.kronecker(args.scale, seed=0)
        g = gt.build(edges, Path(d) / "csr.gt", symmetrize=True, drop_self_loops=True, memory_budget="24GiB", progress=False)
        del edges
        n, m = g.n_vertices, g.n_edges
        r = gt.pagerank(g, tol=1e-9, device="cuda")
        r = gt.pagerank(g, tol=1e-9, device="cuda")
        its = [it["seconds"] * 1e3 for it in r.stats["iterations"][1:]]
        rows.append({"kernel": "graphtier gather (whole iteration)", "order": "store", "ranks": "float64", "ms": round(statistics.median(its), 3)})
        print(rows[-1], flush=True)
        indptr = cupy.asarray(g.indptr())
        indices = cupy.asarray(g.edges()[:, 1].astype(np.uint32))
    hbm = 2 * indices.nbytes / events(lambda: cupy.copyto(cupy.empty_like(indices), indices)) / 1e6  # GB/s read+written
    floor = (indices.nbytes + indptr.nbytes) / (hbm / 2) / 1e6
    print(f"kron{args.scale}: {n:,} vertices, {m:,} edges; device-to-device {hbm:.0f} GB/s; floor {floor:.3f} ms", flush=True)

    rank = cupy.empty(n, cupy.int64)  # vertex -> its place by degree, hubs first
    rank[cupy.argsort(-(indptr[1:] - indptr[:-1]), kind="stable")] = cupy.arange(n)
    row_of = cupy.searchsorted(indptr, cupy.arange(m), side="right") - 1
    key = rank[row_of] * n + rank[indices.astype(cupy.int64)]
    del row_of
    key.sort()
    d_indices = (key % n).astype(cupy.uint32)
    d_indptr = cupy.zeros(n + 1, cupy.int64)
    d_indptr[1:] = cupy.cumsum(cupy.bincount(key // n, minlength=n))
    del key
    layouts = {"store": (indptr, indices), "degree": (d_indptr, d_indices)}
    for order, (ip, ix) in layouts.items():
        for dtype in (np.float64, np.float32):
            x = cupy.random.default_rng(0).random(n).astype(dtype)
            y = cupy.empty(n, cupy.float64)
            a = sp.csr_matrix((cupy.ones(m, dtype), ix.astype(cupy.int32), ip.astype(cupy.int32)), shape=(n, n)) if m < 2**31 else None
            if a is not None:
                ms = events(lambda a=a, x=x: a @ x)
                rows.append({"kernel": "cuSPARSE SpMV", "order": order, "ranks": np.dtype(dtype).name, "ms": round(ms, 3)})
                print(rows[-1], flush=True)
                del a
            for lanes in (4, 8, 32):
                k = cupy.RawKernel(CSR_VECTOR.replace("LANES", str(lanes)).replace("const T*", f"const {'double' if dtype == np.float64 else 'float'}*"), "spmv")
                blocks = 132 * 16
                ms = events(lambda k=k, x=x, y=y, ip=ip, ix=ix: k((blocks,), (256,), (ip, ix, x, y, cupy.int64(n))))
                rows.append({"kernel": f"CSR-vector {lanes} lanes", "order": order, "ranks": np.dtype(dtype).name, "ms": round(ms, 3)})
                print(rows[-1], flush=True)
    for r in rows:
        r["x_floor"] = round(r["ms"] / floor, 1)
    print_table(rows, ["kernel", "order", "ranks", "ms", "x_floor"])


if __name__ == "__main__":
    sys.exit(main())
