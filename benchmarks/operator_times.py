"""Where an algorithm's GPU time goes, operator by operator: kron in GPU memory, the whole call
timed first (BFS beside it), then one more run with every operator call bracketed by CUDA events
and synchronised (which adds each launch's host time to its operator: small operators read high).

    python benchmarks/operator_times.py color [--scale 23] [--format csr] [--dir /tmp/kb]
"""

from __future__ import annotations

import argparse
import collections
import statistics
import time
import zlib
from pathlib import Path

import cupy as cp
import numpy as np
from harness import kronecker_store, write_results

import graphtier as gt
from graphtier.runtime.run import Run

CALLS = {
    "color": (lambda g: gt.greedy_color(g, seed=1, device="cuda"), lambda r: (r.n_colors, r.colors)),
    "mis": (lambda g: gt.maximal_independent_set(g, seed=1, device="cuda"), lambda r: (r.size, r.in_set)),
}
OPERATORS = ("advance", "pull", "filter", "compute", "gather")


def wall_ms(fn, repeat: int = 3) -> tuple[float, object]:
    fn()
    times = []
    for _ in range(repeat):
        cp.cuda.Device().synchronize()
        t = time.perf_counter()
        r = fn()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times), r


def per_operator(fn) -> dict[str, list]:
    """{"operator:functor": [calls, GPU ms]} over one call of ``fn``."""
    totals = collections.defaultdict(lambda: [0, 0.0])
    real = {name: getattr(Run, name) for name in OPERATORS}

    def timed(name):
        def operator(self, functor, *args, **kwargs):
            begin, end = cp.cuda.Event(), cp.cuda.Event()
            begin.record()
            real[name](self, functor, *args, **kwargs)
            end.record()
            end.synchronize()
            entry = totals[f"{name}:{functor.cuda}"]
            entry[0] += 1
            entry[1] += cp.cuda.get_elapsed_time(begin, end)

        return operator

    for name in OPERATORS:
        setattr(Run, name, timed(name))
    try:
        fn()
    finally:
        for name, f in real.items():
            setattr(Run, name, f)
    return dict(totals)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("algorithm", choices=sorted(CALLS))
    p.add_argument("--scale", type=int, default=23)
    p.add_argument("--format", default="csr")
    p.add_argument("--dir", type=Path, default=Path("/tmp"), help="where the graph is built, and found again by later runs")
    p.add_argument("--out", default=None)
    args = p.parse_args()
    g = gt.open(kronecker_store(args.scale, args.dir / f"kron{args.scale}-{args.format}.gt", args.format))
    call, answer = CALLS[args.algorithm]
    source = int(np.flatnonzero(np.diff(g.indptr()))[0])
    bfs_ms, _ = wall_ms(lambda: gt.bfs(g, source, device="cuda"))
    ms, r = wall_ms(lambda: call(g))
    its = r.stats["iterations"]
    value, per_vertex = answer(r)
    print(
        f"kron{args.scale} {args.format}: bfs wall {bfs_ms:.2f} ms; {args.algorithm} wall {ms:.1f} ms, iterations {sum(i['seconds'] for i in its) * 1e3:.1f} ms, rounds {len(its)}, answer {value}, crc32 {zlib.crc32(np.ascontiguousarray(per_vertex).tobytes())}"
    )
    rows = [{"operator": k, "calls": c, "gpu_ms": round(t, 2)} for k, (c, t) in sorted(per_operator(lambda: call(g)).items(), key=lambda kv: -kv[1][1])]
    for row in rows:
        print(f"  {row['operator']:28s} {row['calls']:6d} {row['gpu_ms']:9.1f}")
    if args.out:
        meta = {"algorithm": args.algorithm, "graph": f"kron{args.scale}", "format": args.format, "bfs_wall_ms": bfs_ms, "wall_ms": ms, "rounds": len(its), "answer": value}
        write_results(f"operator_times-{args.algorithm}", rows, meta, args.out)


if __name__ == "__main__":
    main()
