"""GPU BFS per format on kron23 and cnr-2000, with the graph resident in GPU memory.

    python benchmarks/gpu_bfs.py [--scale 23] [--sources 8] [--repeat 3] [--formats csr log ef cgr] [--out DIR]

kron23 follows ../shared/BENCHMARKS.md: Graph500 Kronecker, edge factor 16, symmetrized, self-loops
and duplicates removed. Stores are built in csr and recoded into every other format. Times are
CUDA-event medians over every (source, repeat) after a warm-up BFS, from sources drawn among the
vertices with edges (seeded). Each format's distances are checked against csr's on the GPU and,
for the first source, csr's against the CPU backend. ``push`` rows are push-only BFS: with csr,
the plain warp-per-vertex baseline that BENCHMARKS.md measured at 13.1 ms on kron23 (H200).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from harness import RESULTS_DIR, machine_info, publish

import graphtier as gt
from graphtier.kernels.formats import FORMATS

CNR = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "cnr-2000" / "cnr-2000-csr.npz"


def stores(name: str, edges: np.ndarray, symmetric: bool, formats: list[str], tmp: Path) -> dict[str, gt.Graph]:
    t = time.perf_counter()
    csr = gt.build(edges, tmp / f"{name}-csr.gt", symmetrize=symmetric, drop_self_loops=symmetric, memory_budget="24GiB")
    out = {f: csr if f == "csr" else gt.recode(csr, tmp / f"{name}-{f}.gt", format=f) for f in formats}
    print(f"{name}: {csr.n_vertices:,} vertices, {csr.n_edges:,} edges, built in {time.perf_counter() - t:.1f} s", flush=True)
    return out


def run(name: str, graphs: dict[str, gt.Graph], sources: list[int], repeat: int) -> list[dict]:
    rows = []
    reference = {}
    for fmt, g in graphs.items():
        default, *others = FORMATS[fmt].decoders
        runs = [(default, "auto")] + [(default, "push")] * (fmt == "csr" and not g.directed) + [(d, "auto") for d in others]
        for decoder, direction in runs:
            gt.bfs(g, sources[0], device="cuda", direction=direction, decoder=decoder)  # compile, upload, warm up
            seconds, edges = [], []
            for s in sources:
                for _ in range(repeat):
                    r = gt.bfs(g, s, device="cuda", direction=direction, decoder=decoder)
                    seconds.append(r.stats["seconds"])
                    edges.append(r.stats["edges_traversed"])
                if s not in reference:
                    reference[s] = r.distances
                elif not np.array_equal(reference[s], r.distances):
                    raise AssertionError(f"{name} {fmt} {decoder} {direction}: distances from {s} differ from csr's")
            ms = float(np.median(seconds)) * 1e3
            levels = ", ".join(f"{lvl['direction']} {lvl['frontier']}: {lvl['seconds'] * 1e6:.0f}" for lvl in r.stats["iterations"])
            print(f"  {name} {fmt} {decoder} {direction}, last run's levels (frontier: host us): {levels}")
            rows.append(
                {
                    "graph": name,
                    "format": fmt,
                    "decoder": decoder,
                    "direction": direction,
                    "ms": round(ms, 3),
                    "gteps": round(float(np.median(edges)) / ms / 1e6, 2),
                    "device_bytes_per_edge": round(g.on_device().nbytes / g.n_edges, 3),
                    "levels": r.stats["levels"],
                    "reached": r.stats["reached"],
                    "sources": len(sources),
                    "runs": len(seconds),
                }
            )
            print(rows[-1], flush=True)
    cpu = gt.bfs(graphs["csr"], sources[0], device="cpu")
    if not np.array_equal(cpu.distances, reference[sources[0]]):
        raise AssertionError(f"{name}: GPU distances from {sources[0]} differ from the CPU backend's")
    for row in rows:
        base = next(x["ms"] for x in rows if x["format"] == "csr" and x["direction"] == row["direction"])
        row["vs_csr"] = round(base / row["ms"], 2)
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--scale", type=int, default=23)
    p.add_argument("--sources", type=int, default=8)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--formats", nargs="+", default=list(FORMATS))
    p.add_argument("--out", type=Path, default=RESULTS_DIR)
    args = p.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        if CNR.exists():
            z = np.load(CNR)
            edges = np.stack([np.repeat(np.arange(len(z["indptr"]) - 1), np.diff(z["indptr"])), z["indices"]], 1)
            rows += run("cnr-2000", stores("cnr-2000", edges, False, args.formats, tmp), [100000], args.repeat * args.sources)
        else:
            print(f"skipping cnr-2000: {CNR} not found", file=sys.stderr)
        graphs = stores(f"kron{args.scale}", gt.generators.kronecker(args.scale, seed=0), True, args.formats, tmp)
        degree = np.diff(graphs["csr"].indptr())
        sources = np.random.default_rng(0).choice(np.flatnonzero(degree), args.sources, replace=False).tolist()
        rows += run(f"kron{args.scale}", graphs, sources, args.repeat)
    machine = machine_info()
    meta = {"command": " ".join(sys.argv), "timing": "CUDA events around the level loop, median over sources x repeats", "machine": machine}
    publish("gpu_bfs", rows, meta, out_dir=args.out, columns=["graph", "format", "decoder", "direction", "ms", "gteps", "vs_csr", "device_bytes_per_edge", "levels", "reached", "runs"])


if __name__ == "__main__":
    main()
