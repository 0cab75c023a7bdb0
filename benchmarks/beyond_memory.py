"""A graph larger than the device budget and than the host budget (issue 16): BFS and PageRank
complete out of core, give the in-memory results, and take what time against the storage and
PCIe floors.

    python benchmarks/beyond_memory.py [--scale 25] [--format ef] [--device-share 0.25] [--host 0.2]
                                       [--device cuda] [--sample 100000] [--dir DIR]

Budgets are shares of the graph's CSR size (8 (n + 1) + 4 m bytes): ``device_memory`` is the
algorithm's vertex state (what its in-memory run charged) plus ``--device-share`` of it for the
graph, ``host_memory`` ``--host`` of it; both shares must leave less than the store's own size.
Each out-of-core query runs on a fresh handle, cold (the store's pages dropped from the page cache
first) then warm. Its floors: the store bytes it
read at the disk's cold bandwidth (``harness.storage_floor``), and the bytes it moved to the device
(copied or read in place) at this machine's pinned host-to-device bandwidth (``harness.copy_gbps``;
on the CPU backend, none). References: the whole graph in memory on ``--device`` (BFS distances and
PageRank's ranks must be equal, bit for bit) and the CPU backend's in-memory run, compared on
``--sample`` seeded vertices (distances equal; ranks within 1e-9 of theirs, relative, after as many
iterations). PageRank runs until the ranks' L1 change is below ``PAGERANK_L1`` (about twenty
iterations on a Kronecker graph), so that out of core it sweeps the graph more than once.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from harness import copy_gbps, csr_bytes, drop_cached, kronecker_graph, kronecker_meta, kronecker_parser, picked, publish, storage_floor

import graphtier as gt

ALGORITHMS = {
    "bfs": lambda g, source, **o: gt.bfs(g, source, **o),
    "pagerank": lambda g, source, **o: gt.pagerank(g, tol=PAGERANK_L1 / g.n_vertices, **o),
}
# networkx stops PageRank once the ranks' L1 change is below n * tol: with its tol of 1e-6 that is
# one iteration on any graph of more than 2 million vertices (the change never exceeds 2).
PAGERANK_L1 = 0.05


def values(r) -> np.ndarray:
    return r.distances if hasattr(r, "distances") else r.ranks


def agrees(r, reference, sample: np.ndarray) -> bool:
    """``r`` against the CPU backend's ``reference`` on the sampled vertices."""
    if hasattr(r, "distances"):
        return bool(np.array_equal(r.distances[sample], reference.distances[sample]))
    return r.iterations == reference.iterations and bool(np.allclose(r.ranks[sample], reference.ranks[sample], rtol=1e-9, atol=0))


def budgets(g: gt.Graph, state_bytes: int, args) -> dict:
    """``--device-share`` and ``--host`` of ``g``'s CSR size, the vertex state on top on the device."""
    csr = csr_bytes(g)
    return {"device": args.device, "device_memory": state_bytes + int(args.device_share * csr), "host_memory": int(args.host * csr)}


def warm_up(args) -> None:
    """Every kernel the timed runs use, compiled on a small graph of the same format in chunks of
    8,192 edges (streamed under the same shares), so that no timed run pays for it."""
    path = Path(args.dir) / f"kron14-{args.format}-small-chunks.gt"
    if not path.exists():
        gt.build(gt.generators.kronecker(14, seed=1), path, format=args.format, symmetrize=True, drop_self_loops=True, chunk_edges=1 << 13, progress=False)
    g = gt.open(path)
    hub = int(np.argmax(np.diff(g.indptr())))  # a source whose BFS pushes and pulls
    for name in args.algorithms:
        in_memory = ALGORITHMS[name](g, hub, device=args.device)
        ALGORITHMS[name](g, hub, **budgets(g, in_memory.stats["state_bytes"], args))
        if args.sample:
            ALGORITHMS[name](g, hub, device="cpu")


def main() -> None:
    p = kronecker_parser(__doc__.split("\n\n")[0], scale=25)
    p.add_argument("--device-share", type=float, default=0.25, help="device_memory for the graph as a share of its CSR size, the vertex state on top (default 0.25)")
    p.add_argument("--algorithms", nargs="+", default=list(ALGORITHMS), choices=list(ALGORITHMS))
    p.add_argument("--sample", type=int, default=100_000, help="vertices compared with the CPU backend's run (0: no CPU run)")
    args = p.parse_args()
    path, g, csr, store_bytes = kronecker_graph(args)
    for_graph, host = int(args.device_share * csr), int(args.host * csr)
    if max(for_graph, host) >= store_bytes:
        sys.exit(f"the budgets for the graph ({for_graph:,} bytes on the device, {host:,} on the host) must both be below the store's {store_bytes:,} bytes")
    warm_up(args)
    floor = storage_floor(path)
    pcie = copy_gbps(True) if args.device == "cuda" else None
    (source,) = picked(g, 1, seed=11)
    sample = np.sort(np.random.default_rng(5).choice(g.n_vertices, min(args.sample, g.n_vertices), replace=False))
    rows = []
    for name in args.algorithms:
        algorithm = ALGORITHMS[name]
        t = time.perf_counter()
        in_memory = algorithm(gt.open(path), source, device=args.device)
        rows.append({"algorithm": name, "run": f"in memory ({args.device})", "wall_s": round(time.perf_counter() - t, 3), "compute_s": round(in_memory.stats["seconds"], 3)})
        cpu = None
        if args.sample:
            t = time.perf_counter()
            cpu = algorithm(gt.open(path), source, device="cpu")
            rows.append({"algorithm": name, "run": "in memory (cpu)", "wall_s": round(time.perf_counter() - t, 3), "compute_s": round(cpu.stats["seconds"], 3)})
        under = budgets(g, in_memory.stats["state_bytes"], args)
        for state in ("cold", "warm"):
            if state == "cold":
                drop_cached(path)
            t = time.perf_counter()
            r = algorithm(gt.open(path), source, **under)
            wall = time.perf_counter() - t
            s = r.stats
            moved = s["bytes_host_to_device"] + s["bytes_zero_copy"]
            storage_s = s["bytes_store_read"] / (floor["cold"]["gbps"] * 1e9)
            pcie_s = moved / (pcie * 1e9) if pcie else None
            rows.append(
                {
                    "algorithm": name,
                    "run": f"out of core, {state}",
                    "wall_s": round(wall, 3),
                    "compute_s": round(s["seconds"], 3),
                    "iterations": len(s["iterations"]),
                    "store_read_x": round(s["bytes_store_read"] / store_bytes, 2),
                    "reads_max": s["store_reads_max"],
                    "moved_gb": round(moved / 1e9, 2),
                    "storage_floor_s": round(storage_s, 3),
                    "over_storage": round(wall / storage_s, 2) if storage_s else None,
                    "pcie_floor_s": round(pcie_s, 3) if pcie_s is not None else None,
                    "over_pcie": round(wall / pcie_s, 2) if pcie_s else None,
                    "equal": bool(np.array_equal(values(r), values(in_memory))),
                    "cpu_sample": agrees(r, cpu, sample) if cpu is not None else None,
                }
            )
            print(rows[-1], file=sys.stderr, flush=True)
    meta = kronecker_meta(args, g, csr, store_bytes) | {
        "budgets": {"device_memory": f"the vertex state + {for_graph}", "host_memory": host},
        "source": source,
        "floor": floor,
        "pinned_h2d_gbps": pcie,
    }
    publish(
        "beyond_memory",
        rows,
        meta,
        out_dir=args.out,
        tag=args.tag,
        columns=[
            "algorithm",
            "run",
            "wall_s",
            "compute_s",
            "iterations",
            "store_read_x",
            "reads_max",
            "moved_gb",
            "storage_floor_s",
            "over_storage",
            "pcie_floor_s",
            "over_pcie",
            "equal",
            "cpu_sample",
        ],
    )


if __name__ == "__main__":
    main()
