"""Push BFS from vertex 100000 on cnr-2000, csr against ef, per vertex order, timed interleaved.

    python benchmarks/ef_bfs.py [--rounds 15] [--orders natural,llp]

Builds each order's csr store and recodes it to ef (in a temporary directory), warms both up,
then alternates csr and ef BFS ``--rounds`` times in this one process, so that load from other
work on the machine falls on both alike. Reports the medians (and minima) of
``stats["seconds"]`` and the ef/csr ratio of the medians.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

import numpy as np
from harness import machine_info, print_table, write_results

import graphtier as gt

CNR = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "cnr-2000" / "cnr-2000-csr.npz"
SOURCE = 100000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--orders", default="natural,llp")
    args = ap.parse_args()
    z = np.load(CNR)
    edges = np.stack([np.repeat(np.arange(len(z["indptr"]) - 1), np.diff(z["indptr"])), z["indices"]], 1)
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for order in args.orders.split(","):
            csr = gt.build(edges, Path(d) / f"{order}.gt", order=order)
            graphs = {"csr": csr, "ef": gt.recode(csr, Path(d) / f"{order}-ef.gt", format="ef")}
            for g in graphs.values():
                gt.bfs(g, SOURCE, direction="push")  # load the arena and compile
            ms = {fmt: [] for fmt in graphs}
            for _ in range(args.rounds):
                for fmt, g in graphs.items():
                    ms[fmt].append(1e3 * gt.bfs(g, SOURCE, direction="push").stats["seconds"])
            med = {fmt: statistics.median(t) for fmt, t in ms.items()}
            for fmt in graphs:
                rows.append(
                    {
                        "graph": "cnr-2000",
                        "order": order,
                        "format": fmt,
                        "median_ms": round(med[fmt], 2),
                        "min_ms": round(min(ms[fmt]), 2),
                        "vs_csr": round(med[fmt] / med["csr"], 2),
                    }
                )
    print_table(rows)
    meta = {
        "command": f"python benchmarks/ef_bfs.py --rounds {args.rounds} --orders {args.orders}",
        "what": f"push BFS from {SOURCE}, default chunks, csr and ef alternated in one process; medians of stats['seconds']",
        "machine": machine_info(),
    }
    write_results("ef-bfs", rows, meta)


if __name__ == "__main__":
    main()
