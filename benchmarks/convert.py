"""Conversion throughput: a large text edge list to a store, within a memory budget.

    python benchmarks/convert.py [--edges 100000000] [--memory-budget 2GiB] [--keep]

Writes a urand edge list of ``--edges`` edges (scale chosen so ids fit 32 bits) to a scratch
directory, then times ``gt.build`` on it and reports input edges per second, sorted runs and the
process's peak resident memory.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--edges", type=float, default=100e6)
    p.add_argument("--memory-budget", default="2GiB")
    p.add_argument("--dir", default=None, help="scratch directory (default: a temporary one)")
    args = p.parse_args()

    import numpy as np
    from dask.utils import format_bytes, parse_bytes
    from harness import machine_info, print_table, write_results

    import graphtier as gt
    from graphtier.partition.export import write_text_edges

    n_edges = int(args.edges)
    scale = 24
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        text = Path(tmp) / "edges.txt"
        rng = np.random.default_rng(0)
        t = time.perf_counter()
        with open(text, "wb"):
            pass
        step = 1 << 24
        with open(text, "ab") as f:
            for i in range(0, n_edges, step):
                part = Path(tmp) / "part.txt"
                write_text_edges(part, rng.integers(0, 1 << scale, (min(step, n_edges - i), 2)))
                f.write(part.read_bytes())
        t_write = time.perf_counter() - t
        size = text.stat().st_size
        t = time.perf_counter()
        g = gt.build(text, Path(tmp) / "g.gt", memory_budget=args.memory_budget, progress=False)
        seconds = time.perf_counter() - t
        build = g.info()["build"]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    rows = [
        {
            "input_edges": n_edges,
            "text_bytes": size,
            "stored_edges": g.n_edges,
            "memory_budget": args.memory_budget,
            "sorted_runs": build["sorted_runs"],
            "seconds": round(seconds, 2),
            "M_edges_per_s": round(n_edges / seconds / 1e6, 2),
            "peak_rss": format_bytes(peak),
            "peak_rss_over_budget": round(peak / parse_bytes(args.memory_budget), 2),
        }
    ]
    meta = {"command": " ".join(sys.argv), "generate_text_seconds": t_write, "machine": machine_info()}
    json_path, md_path = write_results("convert", rows, meta)
    print_table(rows)
    print(f"\nwrote {json_path} and {md_path}")


if __name__ == "__main__":
    main()
