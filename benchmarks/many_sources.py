"""BFS from many sources at once against one source (issue 16: 64 sources on kron24 at 25% of the
CSR size in at most 4x the time of one), side by side in one run.

    python benchmarks/many_sources.py [--scale 24] [--sources 64] [--budget 0.25] [--check 4] [--dir DIR]

One Graph500 Kronecker graph (symmetrized, self-loops dropped) as ef and as csr. For each store,
in GPU memory (``resident``) and under ``device_memory`` at ``--budget`` of the CSR size (host tier
unlimited, ``zero_copy="auto"``): single-source BFS (``gt.bfs(g, s)``, direction-optimizing) from
``--check`` of the sources, then ``gt.bfs(g, sources=...)`` from all of them (MS-BFS, direction-
optimizing too, 64 or 32 sources a pass), twice, the second timed. ``one_ms``: the single-source median;
``many_ms``: the passes' time summed; ``ratio``: many over one (the target: at most 4);
``serial_ms``: ``one_ms`` times the sources, what running them one by one would cost. GPU times
are CUDA-event time of the runtime's loop; ``*_wall_ms`` what the caller waited. Each checked
source's distances from the many-source run equal its single-source BFS's.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from harness import RESULTS_DIR, csr_bytes, kronecker_store, machine_info, picked, publish

import graphtier as gt


def timed(call) -> tuple[object, float]:
    t = time.perf_counter()
    result = call()
    return result, (time.perf_counter() - t) * 1e3


def measure(g: gt.Graph, sources: list[int], check: int, device: str, options: dict) -> dict:
    gt.bfs(g, sources[-1], device=device, **options)  # kernels compiled, the graph loaded: not timed
    singles = [timed(lambda s=s: gt.bfs(g, s, device=device, **options)) for s in sources[:check]]
    gt.bfs(g, sources=sources, device=device, **options)  # kernels compiled, tiers as a second query finds them
    many, wall = timed(lambda: gt.bfs(g, sources=sources, device=device, **options))
    passes = list({id(r.stats): r.stats for r in many}.values())
    one = statistics.median(r.stats["seconds"] for r, _ in singles) * 1e3
    many_ms = sum(p["seconds"] for p in passes) * 1e3
    return {
        "one_ms": round(one, 2),
        "one_wall_ms": round(statistics.median(w for _, w in singles), 1),
        "many_ms": round(many_ms, 2),
        "many_wall_ms": round(wall, 1),
        "ratio": round(many_ms / one, 2),
        "serial_ms": round(one * len(sources), 1),
        "passes": len(passes),
        "levels": sum(p["levels"] for p in passes),
        "to_device_mb": round(sum(p["bytes_host_to_device"] for p in passes) / 1e6, 1),
        "zero_copy_mb": round(sum(p["bytes_zero_copy"] for p in passes) / 1e6, 1),
        "equal": all(np.array_equal(r.distances, m.distances) for (r, _), m in zip(singles, many)),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=24)
    ap.add_argument("--sources", type=int, default=64)
    ap.add_argument("--budget", type=float, default=0.25, help="device_memory as a share of the CSR size")
    ap.add_argument("--check", type=int, default=4, help="sources also run one by one (timed, and checked)")
    ap.add_argument("--formats", nargs="+", default=["ef", "csr"])
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--dir", default="/tmp/many-sources")
    ap.add_argument("--out", default=str(RESULTS_DIR))
    args = ap.parse_args()
    Path(args.dir).mkdir(parents=True, exist_ok=True)
    rows = []
    for fmt in args.formats:
        g = gt.open(kronecker_store(args.scale, Path(args.dir) / f"kron{args.scale}-{fmt}.gt", fmt))
        sources = picked(g, args.sources, 16)
        csr = csr_bytes(g)
        for budget, options in (("resident", {}), (f"{args.budget:.0%} of CSR", {"device_memory": int(args.budget * csr), "zero_copy": "auto"})):
            rows.append({"format": fmt, "budget": budget, "sources": args.sources} | measure(g, sources, args.check, args.device, options))
            print(rows[-1], file=sys.stderr, flush=True)
    publish("many_sources", rows, {"command": " ".join(["many_sources.py", *sys.argv[1:]]), "args": vars(args), "machine": machine_info()}, args.out)


if __name__ == "__main__":
    main()
