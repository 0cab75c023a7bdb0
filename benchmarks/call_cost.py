"""What a call costs beyond the GPU's work (issue 16), in GPU memory: wall time per call against the
GPU time plus the copy of the results into pinned host memory, and with the results left on the
device (``output="device"``); and a first query on a fresh handle against reading the store's bytes.

    python benchmarks/call_cost.py [--scale 24] [--format csr] [--repeat 5] [--dir DIR]

The graph: the benchmarks' Kronecker graph (``harness.kronecker_store``), resident on the GPU. BFS
from a seeded source, hop-count SSSP from it (``weight=False``) and PageRank: ``gpu_ms`` the run's
CUDA-event time, ``wall_ms`` what the caller of ``gt.bfs`` sees (medians of ``--repeat`` calls after
a warm-up), ``copy_ms`` the results' bytes copied from the GPU into pinned host memory alone.
Targets: host wall at most 1.5 x (gpu + copy), device wall at most 1.2 x gpu. ``first_ms``: a BFS
on a fresh handle (the store read, validated and uploaded; kernels compiled already), against
``read_ms``, reading every file of the store (from the page cache, as a query would after the first).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from harness import RESULTS_DIR, kronecker_store, machine_info, picked, publish, timed

import graphtier as gt

CALLS = {
    "bfs": lambda g, s, **o: gt.bfs(g, s, **o),
    "sssp": lambda g, s, **o: gt.sssp(g, s, weight=False, **o),
    "pagerank": lambda g, s, **o: gt.pagerank(g, **o),
}


def copy_ms(result, repeat: int) -> float:
    """The median time to copy a result's per-vertex arrays (as left on the device) into pinned
    host memory."""
    import cupy
    import cupyx

    arrays = list(result.columns().values())
    pinned = [cupyx.empty_pinned(a.shape, a.dtype) for a in arrays]
    times = []
    for _ in range(repeat + 1):
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        for a, out in zip(arrays, pinned):
            a.get(out=out)
        end.record()
        end.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, end))
    return statistics.median(times[1:])


def read_ms(path: Path) -> float:
    """Reading every file of a store once (warm page cache)."""
    t = time.perf_counter()
    for root, _, files in os.walk(path):
        for name in files:
            with open(os.path.join(root, name), "rb") as f:
                while f.read(1 << 24):
                    pass
    return (time.perf_counter() - t) * 1e3


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--scale", type=int, default=24)
    p.add_argument("--format", default="csr")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--dir", default=tempfile.gettempdir(), help="where the graph is built, and found again by later runs")
    p.add_argument("--out", default=RESULTS_DIR)
    args = p.parse_args()
    path = Path(kronecker_store(args.scale, Path(args.dir) / f"kron{args.scale}-{args.format}.gt", args.format))
    g = gt.open(path)
    source = picked(g, 1, seed=7)[0]
    rows = []
    for name, call in CALLS.items():
        gpu_ms, host_wall, _ = timed(lambda c=call: c(g, source, device="cuda"), args.repeat)
        device_gpu_ms, device_wall, left = timed(lambda c=call: c(g, source, device="cuda", output="device"), args.repeat)
        copy = copy_ms(left, args.repeat)
        rows.append(
            {
                "algorithm": name,
                "gpu_ms": round(gpu_ms, 2),
                "copy_ms": round(copy, 2),
                "host_wall_ms": round(host_wall, 2),
                "host_ratio": round(host_wall / (gpu_ms + copy), 2),
                "device_gpu_ms": round(device_gpu_ms, 2),
                "device_wall_ms": round(device_wall, 2),
                "device_ratio": round(device_wall / device_gpu_ms, 2),
                "result_mb": round(sum(a.nbytes for a in left.columns().values()) / 1e6, 1),
            }
        )
        print(rows[-1], file=sys.stderr, flush=True)
    read = min(read_ms(path) for _ in range(3))
    t = time.perf_counter()
    first = gt.bfs(gt.open(path), source, device="cuda")
    first_ms = (time.perf_counter() - t) * 1e3
    rows.append(
        {"algorithm": "bfs, first query", "host_wall_ms": round(first_ms, 1), "read_ms": round(read, 1), "first_ratio": round(first_ms / read, 2), "gpu_ms": round(first.stats["seconds"] * 1e3, 2)}
    )
    meta = {
        "command": " ".join(sys.argv),
        "args": vars(args),
        "graph": f"kron{args.scale} {args.format}",
        "source": source,
        "n_vertices": g.n_vertices,
        "n_edges": g.n_edges,
        "machine": machine_info(),
    }
    publish("call_cost", rows, meta, out_dir=args.out)


if __name__ == "__main__":
    main()
