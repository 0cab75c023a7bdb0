"""Conversion throughput: a large text edge list to a store, within a memory budget.

    python benchmarks/convert.py [--edges 100000000] [--memory-budget 2GiB] [--keep]

Writes a urand edge list of ``--edges`` edges (ids below 2**24) to a scratch directory, then runs
``graphtier convert`` on it in a child process, as a user would, and reports input edges per
second (the build alone, and the whole command), sorted runs and the child's peak resident memory.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
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
    from harness import machine_info, publish

    from graphtier.partition.export import write_text_edges
    from graphtier.tiering.budget import parse_size

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
        command = [sys.executable, "-m", "graphtier.cli", "convert", str(text), str(Path(tmp) / "g.gt")]
        command += ["--memory-budget", args.memory_budget, "--json"]
        t = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        wall = time.perf_counter() - t
        result = json.loads(done.stdout)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    rows = [
        {
            "input_edges": n_edges,
            "text_bytes": size,
            "stored_edges": result["n_edges"],
            "memory_budget": args.memory_budget,
            "sorted_runs": result["build"]["sorted_runs"],
            "build_seconds": round(result["seconds"], 2),
            "M_edges_per_s": round(n_edges / result["seconds"] / 1e6, 2),
            "command_seconds": round(wall, 2),
            "M_edges_per_s_command": round(n_edges / wall / 1e6, 2),
            "peak_rss": f"{peak / 2**30:.2f} GiB",
            "peak_rss_over_budget": round(peak / parse_size(args.memory_budget), 2),
        }
    ]
    meta = {"command": " ".join(sys.argv), "generate_text_seconds": t_write, "machine": machine_info()}
    publish(f"convert-{args.memory_budget}", rows, meta)


if __name__ == "__main__":
    main()
