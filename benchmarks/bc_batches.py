"""Betweenness centrality's batch widths on the GPU, beside one BFS, on one Kronecker graph (csr, or
``--format``, in GPU memory): ``k=64`` sampled sources (seed 0) at each width, the same bits at every width.

    python benchmarks/bc_batches.py SCALE WIDTH [WIDTH ...] [--format ef]

Times are medians of CUDA events around the whole call (what a caller waits for), after a warm-up;
``forward`` and ``backward`` sum the iterations of each phase; each forward iteration's time is
followed by its direction (pu: push, pl: pull)."""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

import graphtier as gt

MARKS = {"push": "pu", "pull": "pl"}


def timed(fn, repeat: int) -> tuple[float, object]:
    import cupy

    fn()
    ms, result = [], None
    for _ in range(repeat):
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        result = fn()
        end.record()
        end.synchronize()
        ms.append(cupy.cuda.get_elapsed_time(start, end))
    return statistics.median(ms), result


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("scale", type=int)
    p.add_argument("widths", type=int, nargs="+")
    p.add_argument("--format", default="csr")
    args = p.parse_args()
    scale, widths = args.scale, args.widths
    with tempfile.TemporaryDirectory() as d:
        t = time.perf_counter()
        g = gt.build(gt.generators.kronecker(scale, seed=0), Path(d) / "g.gt", format=args.format, symmetrize=True, drop_self_loops=True, memory_budget="24GiB", progress=False)
        print(f"kron{scale} {args.format} built {time.perf_counter() - t:.1f}s", flush=True)
        source = int(np.flatnonzero(np.diff(g.indptr()))[7])
        ms, _ = timed(lambda: gt.bfs(g, source, device="cuda"), 3)
        print(f"bfs ms {ms:.3f}", flush=True)
        first = None
        for w in widths:
            ms, r = timed(lambda w=w: gt.betweenness_centrality(g, k=64, seed=0, batch=w, device="cuda"), 2 if w < 8 else 3)
            its = r.stats["iterations"]
            phase = {p: 1e3 * sum(i["seconds"] for i in its if i.get("phase") == p) for p in ("forward", "backward")}
            same = None if first is None else bool(np.array_equal(first, r.centrality))
            first = r.centrality if first is None else first
            print(
                f"bc k=64 batch {w}: ms {ms:.1f} iterations {len(its)} forward {phase['forward']:.1f} backward {phase['backward']:.1f} state_gb {r.stats['state_bytes'] / 1e9:.2f} same_bits {same}",
                flush=True,
            )
            print("  iteration ms", [f"{i['seconds'] * 1e3:.1f}{MARKS.get(i.get('direction'), '')}" for i in its], flush=True)
            print("  frontier", [i["frontier"] for i in its if i.get("phase") == "forward"], flush=True)


if __name__ == "__main__":
    main()
