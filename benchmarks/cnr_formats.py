"""Bits per edge and push BFS time from 100000 for every format and two orders on cnr-2000.

    python benchmarks/cnr_formats.py

Builds a csr store of cnr-2000 (../shared/datasets) in natural and in llp order, recodes each into
every format, and records ``Graph.info()["bits_per_edge"]`` and the median of 9 push BFS kernel
times from vertex 100000 (after a warm-up call), with the ratio to csr's time in the same order.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
from harness import machine_info, write_results

import graphtier as gt

CNR = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "cnr-2000" / "cnr-2000-csr.npz"
ORDERS = ("natural", "llp")
FORMATS = ("csr", "log", "ef", "cgr")
SOURCE = 100000
REPEAT = 9


def load_cnr() -> np.ndarray:
    """cnr-2000 as (src, dst) rows."""
    z = np.load(CNR)
    src = np.repeat(np.arange(len(z["indptr"]) - 1), np.diff(z["indptr"]))
    return np.stack([src, z["indices"]], 1)


def push_bfs_ms(g: gt.Graph) -> float:
    """Median push BFS kernel time from SOURCE, in milliseconds, after one warm-up call."""
    gt.bfs(g, SOURCE, direction="push")
    return 1e3 * float(np.median([gt.bfs(g, SOURCE, direction="push").stats["seconds"] for _ in range(REPEAT)]))


def main() -> None:
    edges = load_cnr()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        base = {order: gt.build(edges, Path(tmp) / f"{order}.gt", order=order) for order in ORDERS}
        for order, csr in base.items():
            for fmt in FORMATS:
                g = csr if fmt == "csr" else gt.recode(csr, Path(tmp) / f"{order}-{fmt}.gt", format=fmt)
                bits = g.info()["bits_per_edge"]
                rows.append(
                    {
                        "graph": "cnr-2000",
                        "order": order,
                        "format": fmt,
                        **{k: round(v, 3) for k, v in bits.items()},
                        "push_bfs_ms": round(push_bfs_ms(g), 2),
                    }
                )
                print(rows[-1], flush=True)
    for row in rows:
        csr_ms = next(r["push_bfs_ms"] for r in rows if r["order"] == row["order"] and r["format"] == "csr")
        row["bfs_vs_csr"] = round(row["push_bfs_ms"] / csr_ms, 2)
    meta = {
        "command": "bits per edge and push BFS from 100000 per format and order, 1 process, 2 threads",
        "machine": machine_info(),
    }
    write_results("cnr2000-formats", rows, meta)


if __name__ == "__main__":
    main()
