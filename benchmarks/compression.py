"""Compression report: bits per edge for every format and ordering, with codec throughput.

    python benchmarks/compression.py [--graphs cnr-2000 kron20 urand20 grid1024] [--orders ...]

For each graph and ordering it builds a csr store once, recodes it into every format (no second
sort), and reads the split from ``Graph.info()``: payload, local index, indptr and total (which
counts everything stored: headers, checksums and perm too). Encode and decode throughput are
timed on the store's own chunks with the codec alone (2 cores, numbers in edges per second).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

GRAPHS = ("cnr-2000", "kron20", "urand20", "grid1024")


def load(name: str) -> tuple[np.ndarray, bool]:
    """(edges, symmetrize) for a named graph."""
    import graphtier as gt

    if name == "cnr-2000":
        z = np.load(Path(__file__).resolve().parents[2] / "shared" / "datasets" / "cnr-2000" / "cnr-2000-csr.npz")
        src = np.repeat(np.arange(len(z["indptr"]) - 1), np.diff(z["indptr"]))
        return np.stack([src, z["indices"]], 1), False
    if name.startswith("kron"):
        return gt.generators.kronecker(int(name[4:]), seed=0), True
    if name.startswith("urand"):
        return gt.generators.urand(int(name[5:]), seed=0), True
    if name.startswith("grid"):
        return gt.generators.grid(int(name[4:])), False
    raise ValueError(f"unknown graph {name!r}; choose from {', '.join(GRAPHS)}")


def throughput(g) -> tuple[float, float]:
    """(encode, decode) edges per second of the store's codec over its own chunks."""
    adj = g.group["adj"]
    codec = g.codec
    encode = decode = 0.0
    for start in range(0, g.n_edges, g.chunk_edges):
        rows = adj[start : start + g.chunk_edges]
        t = time.perf_counter()
        blob = codec.encode(rows)
        encode += time.perf_counter() - t
        t = time.perf_counter()
        codec.decode(blob)
        decode += time.perf_counter() - t
    return g.n_edges / encode, g.n_edges / decode


def main() -> None:
    import graphtier as gt
    from graphtier.codecs import FORMATS
    from graphtier.partition.order import ORDERS
    from harness import machine_info, print_table, write_results

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--graphs", nargs="+", default=list(GRAPHS))
    p.add_argument("--orders", nargs="+", default=list(ORDERS))
    p.add_argument("--formats", nargs="+", default=list(FORMATS))
    args = p.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.graphs:
            edges, symmetrize = load(name)
            for order in args.orders:
                t = time.perf_counter()
                base = gt.build(edges, Path(tmp) / f"{name}-{order}.gt", symmetrize=symmetrize, drop_self_loops=symmetrize, order=order)
                order_seconds = time.perf_counter() - t
                for fmt in args.formats:
                    g = base if fmt == base.format else gt.recode(base, Path(tmp) / f"{name}-{order}-{fmt}.gt", format=fmt)
                    bits = g.info()["bits_per_edge"]
                    enc, dec = throughput(g)
                    rows.append(
                        {
                            "graph": name,
                            "edges": g.n_edges,
                            "order": order,
                            "order_s": round(order_seconds, 1),
                            "format": fmt,
                            **{k: round(v, 3) for k, v in bits.items()},
                            "encode_Medges_s": round(enc / 1e6, 1),
                            "decode_Medges_s": round(dec / 1e6, 1),
                        }
                    )
                    print_table(rows[-1:])
    meta = {"command": " ".join(sys.argv), "machine": machine_info()}
    json_path, md_path = write_results("compression", rows, meta)
    print_table(rows)
    print(f"\nwrote {json_path} and {md_path}")


if __name__ == "__main__":
    main()
