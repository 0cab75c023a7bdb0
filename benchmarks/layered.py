"""WolfPath's layered stores against graphtier's frontier runtime (issue 18), side by side in one run.

    python benchmarks/layered.py [--graphs grid2000 road2000 kron20] [--repeat 5] [--share 0.25] [--dir DIR] [--device cuda]

Each graph is built twice from the same weighted edges (seeded integer weights in [1, 64); a road's
street lengths in [32, 64)), as csr:
in natural order (the frontier runtime's store) and ``order="layered"`` from its default root.
BFS and SSSP run from that root on both: the frontier runtime (direction-optimising BFS, near-far
SSSP) on the natural store, a push per layer on the layered one; distances must be equal. Graphs: ``gridN`` (the N x N 4-neighbour grid), ``roadN``
(that grid with a seeded 30% of its streets closed, both directions: high diameter, degree about
2.8, as road networks; SSSP's sweep leaves less to near-far where shortest paths follow the layers), ``kronS`` (Graph500 Kronecker, a handful of layers: the contrast).

In GPU memory, and out of core: the layered store under ``device_memory`` = the vertex state plus
``--share`` of its chunks, chunks copied (``zero_copy="never"``), against the frontier runtime
under the same budget. ``stream_gbps``: bytes copied to the device over the run's GPU time,
beside the pinned host-to-device bandwidth measured in the same run (the paper's out-of-core
claim: layer groups stream at the copy engine's rate). Times: medians of ``--repeat`` runs after a
warm-up, ``gpu_ms`` by CUDA events (the runs' own statistics), ``wall_ms`` what a caller of the
Python function sees. Preprocessing: each store's build time and size; the layered store adds
``layers`` (and ``perm``) to the same edges, where the paper's edge lists take 8 bytes an edge.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from harness import RESULTS_DIR, machine_info, publish, timed

import graphtier as gt


def edges_of(name: str) -> tuple[np.ndarray, bool]:
    """(weighted edges, symmetric) of a graph named as ``--graphs`` takes it."""
    kind, size = re.fullmatch(r"(grid|road|kron)(\d+)", name).groups()
    size = int(size)
    rng = np.random.default_rng(size)
    low = 1
    if kind == "kron":
        e = gt.generators.kronecker(size, seed=1)
    else:
        e = gt.generators.grid(size, size)
        if kind == "road":
            e = e[e[:, 0] < e[:, 1]]  # each street once, then closed in both directions together
            e = e[rng.random(len(e)) >= 0.3]
            low = 32  # street lengths within a factor of two
    return np.column_stack([e, rng.integers(low, 64, len(e)).astype(np.float64)]), True


def build(name: str, folder: Path, order: str) -> tuple[gt.Graph, float]:
    path = folder / f"{name}-{order}.gt"
    edges, symmetric = edges_of(name)
    t = time.perf_counter()
    g = gt.build(edges, path, symmetrize=symmetric, drop_self_loops=True, order=order, overwrite=True, progress=False)
    return g, time.perf_counter() - t


def same(a, b) -> bool:
    """Equal distances (SSSP's parents break ties by the store's ids, which the orders number apart)."""
    return bool(np.array_equal(a.distances, b.distances))


def run_graph(name: str, args, pinned_gbps: float | None) -> list[dict]:
    folder = Path(args.dir)
    natural, natural_s = build(name, folder, "natural")
    layered, layered_s = build(name, folder, "layered")
    root = layered.root
    sizes = {g: sum(g.info()["bytes"][k] for k in ("total",)) for g in (natural, layered)}
    print(
        f"{name}: {layered.n_vertices:,} vertices, {layered.n_edges:,} edges, {len(layered.layers) - 1:,} layers from root {root} ({layered.layers[-1]:,} reached); built in {natural_s:.1f} s natural, {layered_s:.1f} s layered",
        file=sys.stderr,
    )
    rows = []
    for region in ("resident", "streamed"):
        for algorithm in ("bfs", "sssp"):
            call = (lambda g, **o: gt.bfs(g, root, **o)) if algorithm == "bfs" else (lambda g, **o: gt.sssp(g, root, **o))
            budget = {}
            if region == "streamed":
                state = call(layered, device=args.device).stats["state_bytes"]
                weights = algorithm == "sssp"
                slots = 3 * layered.chunk_edges * (8 if weights else 4)  # at least three chunk slots (ids and weights), as a streamed sweep needs
                budget = {"device_memory": state + max(int(args.share * layered.resident_size(weights=weights)), slots) + (8 << 20), "zero_copy": "never"}
            results = {}
            for store, g in (("frontier", natural), ("layered", layered)):
                gpu_ms, wall_ms, r = timed(lambda g=g: call(g, device=args.device, **budget), args.repeat)
                results[store] = r
                moved = r.stats["bytes_host_to_device"]
                rows.append(
                    {
                        "graph": name,
                        "region": region,
                        "algorithm": algorithm,
                        "store": store,
                        "traversal": r.stats["traversal"].split(" ")[0],
                        "iterations": len(r.stats["iterations"]),
                        "handed_on": r.stats.get("handed_on"),  # SSSP: vertices the sweep left to near-far
                        "gpu_ms": round(gpu_ms, 2),
                        "wall_ms": round(wall_ms, 2),
                        "to_device_mb": round(moved / 1e6, 1),
                        "stream_gbps": round(moved / r.stats["seconds"] / 1e9, 2) if region == "streamed" and moved else None,
                        "pinned_gbps": pinned_gbps if region == "streamed" else None,
                        "device_memory": budget.get("device_memory"),
                    }
                )
            rows[-1]["speedup_gpu"] = round(rows[-2]["gpu_ms"] / rows[-1]["gpu_ms"], 2)
            rows[-1]["speedup_wall"] = round(rows[-2]["wall_ms"] / rows[-1]["wall_ms"], 2)
            rows[-1]["equal"] = rows[-2]["equal"] = same(results["frontier"], results["layered"])
            print(rows[-1], file=sys.stderr, flush=True)
    for g, label, seconds in ((natural, "natural", natural_s), (layered, "layered", layered_s)):
        rows.append(
            {
                "graph": name,
                "region": "build",
                "store": label,
                "build_s": round(seconds, 2),
                "store_mb": round(sizes[g] / 1e6, 2),
                "layers": len(g.layers) - 1 if g.layers is not None else None,
                "wolfpath_edge_lists_mb": round(8 * g.n_edges / 1e6, 2),
            }
        )
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--graphs", nargs="+", default=["grid2000", "road2000", "kron20"])
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--share", type=float, default=0.25, help="out of core: the share of the layered store's chunks the device budget holds beside the state")
    p.add_argument("--dir", default=tempfile.gettempdir(), help="where the stores are built (made if missing)")
    p.add_argument("--out", default=RESULTS_DIR)
    p.add_argument("--device", default="cuda")
    args = p.parse_args()
    Path(args.dir).mkdir(parents=True, exist_ok=True)
    pinned = None
    if args.device == "cuda":
        from harness import copy_gbps

        pinned = round(copy_gbps(True), 2)
    rows = [row for name in args.graphs for row in run_graph(name, args, pinned)]
    columns = [
        "graph",
        "region",
        "algorithm",
        "store",
        "traversal",
        "iterations",
        "handed_on",
        "gpu_ms",
        "wall_ms",
        "speedup_gpu",
        "speedup_wall",
        "equal",
        "stream_gbps",
        "pinned_gbps",
        "build_s",
        "store_mb",
        "layers",
    ]
    publish("layered", rows, {"command": " ".join(sys.argv), "args": vars(args), "machine": machine_info()}, out_dir=args.out, columns=columns)


if __name__ == "__main__":
    main()
