"""Compression report: bits per edge for every graph, vertex order and format, with codec throughput.

    python benchmarks/compression.py [--graphs cnr-2000 kron20 urand20 grid1024]
        [--orders natural degree bfs rcm llp] [--formats csr log ef cgr] [--repeat 3] [--out DIR]

Graphs: cnr-2000 as stored (../shared/datasets, directed); the Graph500 Kronecker and GAP urand
graphs of scale 20 (seed 0), symmetrized with self-loops dropped as the other benchmarks do; and
the 1024 x 1024 4-neighbour grid (both directions of every edge already). The size is in the name:
``kron18``, ``urand16`` and ``grid256`` work too.

For each graph and order one ``csr`` store is built (``gt.build(..., order=order)``: the
renumbering and the sort happen once) and recoded into every other format (rows come out sorted,
nothing is sorted again). ``Graph.info()["bits_per_edge"]`` gives the split, in bits per edge:
payload, local index, indptr and total (everything stored: chunk headers and crc32c, indptr and
perm too, so total exceeds the sum of the other three).

Throughput is the codec alone over the store's own chunks, one thread, no Zarr and no I/O in the
timed part. Each stored chunk (crc stripped) is decoded once untimed, and its rows must re-encode
to exactly the stored bytes. Then, per chunk, the best of ``--repeat`` calls is kept of:

- encode: ``codec.encode(rows)``, sorted (src, dst) rows to the chunk's bytes (input checks included);
- decode: ``codec.decode(chunk)``, the chunk's bytes to (src, dst) rows (validation included).

Edges per second is the graph's edges over the sum of those per-chunk bests. Results go to
``benchmarks/results/compression-<date>-<host>.{json,md}`` with the machine; figures taken while
other jobs share the cores are lower bounds.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

GRAPHS = ("cnr-2000", "kron20", "urand20", "grid1024")
CNR = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "cnr-2000" / "cnr-2000-csr.npz"


def parse(name: str) -> tuple[str, int]:
    """("cnr-2000", 0) or (generator, scale or side) of a graph name such as ``kron20``."""
    if name == "cnr-2000":
        return name, 0
    for kind in ("kron", "urand", "grid"):
        if name.startswith(kind) and name[len(kind) :].isdigit():
            return kind, int(name[len(kind) :])
    raise argparse.ArgumentTypeError(f"unknown graph {name!r}; choose from {', '.join(GRAPHS)} (any scale or side)")


def load(name: str) -> tuple[np.ndarray, bool]:
    """(edges, symmetrize) of a named graph; symmetrized graphs also drop their self-loops."""
    import graphtier as gt

    kind, size = parse(name)
    if kind == "cnr-2000":
        z = np.load(CNR)
        src = np.repeat(np.arange(len(z["indptr"]) - 1), np.diff(z["indptr"]))
        return np.stack([src, z["indices"]], 1), False
    if kind == "kron":
        return gt.generators.kronecker(size, seed=0), True
    if kind == "urand":
        return gt.generators.urand(size, seed=0), True
    return gt.generators.grid(size, size), False


def throughput(g, repeat: int) -> tuple[float, float]:
    """(encode, decode) edges per second of ``g``'s codec over its own stored chunks."""
    codec = g.codec
    chunks = g.chunks()
    encode_s = decode_s = 0.0
    for c in range(chunks.n_chunks):
        (blob,) = chunks.read([c])
        rows = codec.decode(blob)  # untimed: the rows to encode, and a warm-up
        if not np.array_equal(codec.encode(rows), blob):
            raise AssertionError(f"{g.location}: chunk {c} does not re-encode to its stored bytes")
        encode_s += best_seconds(codec.encode, rows, repeat)
        decode_s += best_seconds(codec.decode, blob, repeat)
    return g.n_edges / encode_s, g.n_edges / decode_s


def best_seconds(fn, arg, repeat: int) -> float:
    """The fastest of ``repeat`` calls ``fn(arg)``, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn(arg)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    from harness import RESULTS_DIR, machine_info, publish

    import graphtier as gt
    from graphtier.codecs import FORMATS
    from graphtier.partition.order import ORDERS

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--graphs", nargs="+", default=list(GRAPHS), help="default: %(default)s")
    p.add_argument("--orders", nargs="+", default=list(ORDERS), choices=ORDERS, help="default: all")
    p.add_argument("--formats", nargs="+", default=list(FORMATS), choices=FORMATS, help="default: all")
    p.add_argument("--repeat", type=int, default=3, help="timed calls per chunk, best kept (default: 3)")
    p.add_argument("--out", default=str(RESULTS_DIR), help="results directory (default: benchmarks/results)")
    p.add_argument("--tmp", default=None, help="scratch directory for the stores (default: the system's)")
    args = p.parse_args()
    for name in args.graphs:
        try:
            parse(name)
        except argparse.ArgumentTypeError as e:
            p.error(str(e))

    started, load_before = time.perf_counter(), os.getloadavg()
    rows = []
    for name in args.graphs:
        edges, symmetrize = load(name)
        for order in args.orders:
            with tempfile.TemporaryDirectory(dir=args.tmp) as tmp:
                t = time.perf_counter()
                base = gt.build(edges, Path(tmp) / "csr.gt", symmetrize=symmetrize, drop_self_loops=symmetrize, order=order)
                build_s = time.perf_counter() - t
                for fmt in args.formats:
                    t = time.perf_counter()
                    g = base if fmt == base.format else gt.recode(base, Path(tmp) / f"{fmt}.gt", format=fmt)
                    recode_s = time.perf_counter() - t
                    bits = g.info()["bits_per_edge"]
                    t = time.perf_counter()
                    encode, decode = throughput(g, args.repeat)
                    rows.append(
                        {
                            "graph": name,
                            "vertices": g.n_vertices,
                            "edges": g.n_edges,
                            "order": order,
                            "format": fmt,
                            **{f"{part}_bpe": round(bits[part], 3) for part in ("payload", "index", "indptr", "total")},
                            "encode_Medges_s": round(encode / 1e6, 1),
                            "decode_Medges_s": round(decode / 1e6, 1),
                            "build_s": round(build_s, 1),
                            "recode_s": round(recode_s, 1),
                            "timing_s": round(time.perf_counter() - t, 1),
                        }
                    )
                    print(", ".join(f"{k} {v}" for k, v in rows[-1].items()), flush=True)
    meta = {
        "command": " ".join(sys.argv),
        "units": "*_bpe: bits per edge (Graph.info()); *_Medges_s: million edges per second; *_s: seconds",
        "throughput": (
            f"codec alone, one thread, over the store's own chunks: best of {args.repeat} calls per chunk, "
            "summed; encode = codec.encode(sorted rows) -> chunk bytes, decode = codec.decode(chunk bytes) -> rows"
        ),
        "load": "other jobs shared the machine's cores during the run: throughput figures are lower bounds",
        "build": "build_s: gt.build of the csr store with the order; recode_s: gt.recode from it (0 for csr)",
        "loadavg_1_5_15min": {"start": load_before, "end": os.getloadavg()},
        "wall_s": round(time.perf_counter() - started, 1),
        "machine": machine_info(),
    }
    publish("compression", rows, meta, out_dir=args.out)


if __name__ == "__main__":
    main()
