"""Out-of-core BFS on the GPU: graphtier's tiers against a zero-copy CSR baseline (EMOGI's method).

    python benchmarks/ooc_bfs.py [--scale 24] [--sources 4] [--formats ef cgr log] [--out DIR]

Graphs: Kronecker (BENCHMARKS.md recipe; scale 24 is 520.8 M directed edges, 2.08 GB as 32-bit
CSR) and cnr-2000 (chunks of 65,536 edges, so that budgets of a few chunks exist). The budgets
are EFG's regions, for the graph's edges: ``device_memory`` is the vertex state (with indptr and
the scheduler's chunk tables) plus a chunk budget, in bytes of stored chunks, of

- ``resident``: everything (the in-memory reference for each format);
- ``region2``: 1.1x the format's resident size, below the CSR size (the compressed graph fits),
  through the scheduler (``zero_copy="never"``; "auto" would take the resident path at once);
- ``region3-25``, ``region3-10``: 25% and 10% of the CSR size (neither fits);
- ``zero-copy``: csr with ``zero_copy="always"``, no arena: every level's lists read in place from
  mapped pinned host memory, 32 consecutive ids per warp (EMOGI's method, 4-byte edges);
- ``*-push``: ``zero-copy`` and ``region3-25`` again with top-down BFS only, as EFG and EMOGI
  ran theirs (every level reads all its frontier's edges), compared with each other.

BFS is direction-optimizing elsewhere. Its pull levels read one or two ids of each unvisited
vertex's list, so they cost a sector of host memory per vertex whichever the format; in region 3
the scheduler keeps each vertex's best-connected in-neighbour on the device (the heads) to skip
most of those reads.

The host tier holds the whole graph (pinned) before timing, as in EMOGI's and EFG's setting.
``ms`` is a single BFS that starts with an empty device cache (``Graph.evict_device``; the index
arena stays, as it would on a graph in use); ``warm_ms`` the same sources again on the cache the
previous queries left (in region 2 the whole graph is then on the device and the scheduler steps
aside; in region 3 the slots hold the chunks earlier levels copied, the rest is read in place).
``many`` runs 16 BFS from
other sources one after another on one cache. ``first_wall_ms`` is the first query's wall time,
with the store reads and validation that fill the host tier. Times are CUDA-event medians of the
level loop (copies included: kernels wait for them). The transfer floor is the format's chunk
bytes over 55 GB/s (BENCHMARKS.md's pinned host-to-device bandwidth): a BFS that reaches the
giant component needs every chunk at least once. ``pinned_gbps`` is this machine's own pinned
copy bandwidth (1 GiB cudaMemcpyAsync, median of 5). ``sweep``: every chunk copied once through
the scheduler's pipeline, for the achieved PCIe bandwidth.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from harness import RESULTS_DIR, copy_gbps, machine_info, print_table, write_results

import graphtier as gt
from graphtier.tiering.budget import parse_size
from graphtier.tiering.scheduler import fixed_bytes

CNR = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "cnr-2000" / "cnr-2000-csr.npz"
PCIE = 55e9  # bytes/s, pinned host to device, H200 (BENCHMARKS.md)
HOST = "100GiB"


def stores(name: str, edges: np.ndarray, symmetric: bool, formats: list[str], chunk_edges: int, tmp: Path) -> dict[str, gt.Graph]:
    t = time.perf_counter()
    csr = gt.build(edges, tmp / f"{name}-csr.gt", symmetrize=symmetric, drop_self_loops=symmetric, chunk_edges=chunk_edges, memory_budget="24GiB", progress=False)
    out = {"csr": csr, **{f: gt.recode(csr, tmp / f"{name}-{f}.gt", format=f) for f in formats if f != "csr"}}
    print(f"{name}: {csr.n_vertices:,} vertices, {csr.n_edges:,} edges, {len(out)} formats built in {time.perf_counter() - t:.1f} s", flush=True)
    return out


def state_bytes(g: gt.Graph) -> int:
    """What a GPU BFS charges to device_memory before any chunk (its vertex state and frontier)."""
    return gt.bfs(g, 0, device="cuda").stats["state_bytes"]


def bfs_runs(g: gt.Graph, sources: list[int], cold: bool, reference: dict, **budget) -> list[dict]:
    out = []
    for s in sources:
        if cold:
            g.evict_device()
        t = time.perf_counter()
        r = gt.bfs(g, s, device="cuda", **budget)
        wall = time.perf_counter() - t
        if not np.array_equal(r.distances, reference[s]):
            raise AssertionError(f"{g.location}: distances from {s} under {budget} differ from resident csr's")
        st = r.stats
        out.append(
            {
                "ms": st["seconds"] * 1e3,
                "wall_ms": wall * 1e3,
                "h2d": st["bytes_host_to_device"],
                "index": st["bytes_index_to_device"],
                "zc": st["bytes_zero_copy"],
                "hits": st["device_hits"],
                "rounds": st["rounds"],
                "peak": st["device_peak_bytes"],
                "levels": st["iterations"],
            }
        )
    return out


def summarize(name: str, fmt: str, region: str, direction: str, chunk_budget: int, g: gt.Graph, runs: list[dict], csr_bytes: int) -> dict:
    size = chunk_bytes(g)
    ms = float(np.median([r["ms"] for r in runs]))
    moved = float(np.median([r["h2d"] + r["zc"] for r in runs]))
    floor_ms = size / PCIE * 1e3
    return {
        "graph": name,
        "format": fmt,
        "region": region,
        "direction": direction,
        "chunk_budget_mb": round(chunk_budget / 1e6, 1),
        "graph_mb": round(size / 1e6, 1),
        "csr_mb": round(csr_bytes / 1e6, 1),
        "ms": round(ms, 2),
        "wall_ms": round(float(np.median([r["wall_ms"] for r in runs])), 2),
        "pcie_mb": round(moved / 1e6, 1),
        "floor_ms": round(floor_ms, 2),
        "vs_floor": round(ms / floor_ms, 2),
        "rounds": int(np.median([r["rounds"] for r in runs])),
        "runs": len(runs),
        "index_mb": round(float(np.median([r["index"] for r in runs])) / 1e6, 1),
    }


def sweep(g: gt.Graph, chunk_budget: int) -> dict:
    """Every chunk once through the scheduler's copy pipeline, from a warm host tier."""
    import cupy

    sched = g.source("cuda", chunk_budget=chunk_budget, host_budget=parse_size(HOST), zero_copy="never")

    def everything(out):
        out += 1

    for _ in sched.rounds(everything):  # fills the host tier
        pass
    sched.take_stats()
    g.evict_device()
    start = cupy.cuda.Event()
    start.record()
    for _ in sched.rounds(everything):
        pass
    end = cupy.cuda.Event()
    end.record()
    end.synchronize()
    seconds = cupy.cuda.get_elapsed_time(start, end) / 1e3
    moved = sched.take_stats()["bytes_host_to_device"]
    return {"graph_mb": round(moved / 1e6, 1), "ms": round(seconds * 1e3, 2), "gb_per_s": round(moved / seconds / 1e9, 1), "of_55": round(moved / seconds / PCIE, 2)}


def overhead(g: gt.Graph) -> int:
    """Device bytes a scheduler holds besides chunk slots: indptr and its chunk tables."""
    return fixed_bytes(g.n_vertices, g.chunks().n_chunks)


def chunk_bytes(g: gt.Graph) -> int:
    """The graph's edges as stored: every chunk (headers, indexes, payloads)."""
    return g.resident_size() - 8 * (g.n_vertices + 1) - 40 * g.chunks().n_chunks


def bench(name: str, graphs: dict[str, gt.Graph], sources: list[int], many: list[int]) -> tuple[list[dict], list[dict]]:
    csr = graphs["csr"]
    csr_bytes = chunk_bytes(csr)
    state = state_bytes(csr) + overhead(csr)
    reference = {s: gt.bfs(csr, s, device="cuda").distances for s in sources + many}
    rows, many_rows = [], []
    host = {"host_memory": HOST}
    for fmt, g in graphs.items():
        size = chunk_bytes(g)
        regions = [("resident", None, "auto", "auto")]
        if fmt == "csr":
            regions.append(("zero-copy", 0, "always", "auto"))
        elif 1.1 * size < csr_bytes:  # the scheduler, not the resident path that "auto" would take
            regions.append(("region2", int(1.1 * size), "never", "auto"))
        regions += [("region3-25", csr_bytes // 4, "auto", "auto"), ("region3-10", csr_bytes // 10, "auto", "auto")]
        regions.append(("zero-copy-push", 0, "always", "push") if fmt == "csr" else ("region3-25-push", csr_bytes // 4, "auto", "push"))
        for region, chunk_budget, zero_copy, direction in regions:
            budget = {"direction": direction} | ({} if chunk_budget is None else {"device_memory": state + chunk_budget, "zero_copy": zero_copy, **host})
            first = bfs_runs(g, sources[:1], False, reference, **budget)  # compile, fill the host tier
            runs = bfs_runs(g, sources, True, reference, **budget)
            warm = bfs_runs(g, sources, False, reference, **budget)
            rows.append(summarize(name, fmt, region, direction, chunk_budget if chunk_budget is not None else size, g, runs, csr_bytes))
            rows[-1]["first_wall_ms"] = round(first[0]["wall_ms"], 1)
            rows[-1]["first_index_mb"] = round(first[0]["index"] / 1e6, 1)  # indexes and heads, loaded once
            rows[-1]["warm_ms"] = round(float(np.median([r["ms"] for r in warm])), 2)
            rows[-1]["warm_pcie_mb"] = round(float(np.median([r["h2d"] + r["zc"] for r in warm])) / 1e6, 1)
            levels = "; ".join(
                f"{lv['direction']} {lv['frontier']}: {lv['seconds'] * 1e3:.2f} ms, {lv['rounds']} rounds, {lv['device_hits']} hits, {lv['zero_copy_chunks']} zc, {(lv['bytes_host_to_device']) / 1e6:.0f} MB copied"
                for lv in runs[-1]["levels"]
            )
            print(rows[-1], f"\n    last run's levels: {levels}", flush=True)
            if region in ("region2", "region3-25", "zero-copy"):
                seq = bfs_runs(g, many, False, reference, **budget)
                many_rows.append(
                    {
                        "graph": name,
                        "format": fmt,
                        "region": region,
                        "first_ms": round(seq[0]["ms"], 2),
                        "rest_median_ms": round(float(np.median([r["ms"] for r in seq[1:]])), 2),
                        "first_h2d_mb": round(seq[0]["h2d"] / 1e6, 1),
                        "rest_median_h2d_mb": round(float(np.median([r["h2d"] for r in seq[1:]])) / 1e6, 1),
                        "rest_median_hits": int(np.median([r["hits"] for r in seq[1:]])),
                        "queries": len(seq),
                    }
                )
                print(many_rows[-1], flush=True)
    base = {x["direction"]: x["ms"] for x in rows if x["format"] == "csr" and x["region"].startswith("zero-copy")}
    for row in rows:  # each against zero-copy csr of its own direction; resident BFS optimizes direction
        resident = next(x["ms"] for x in rows if x["format"] == row["format"] and x["region"] == "resident")
        row["vs_zero_copy_csr"] = round(base[row["direction"]] / row["ms"], 2)
        row["vs_resident"] = round(row["ms"] / resident, 2)
        row["warm_vs_zero_copy_csr"] = round(base[row["direction"]] / row["warm_ms"], 2)
        row["warm_vs_resident"] = round(row["warm_ms"] / resident, 2)
        # region 3's second target: faster than zero-copy csr by 0.8 x (csr bytes / compressed bytes)
        row["zc_target"] = round(0.8 * row["csr_mb"] / row["graph_mb"], 2)
    return rows, many_rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--scale", type=int, default=24)
    p.add_argument("--sources", type=int, default=4)
    p.add_argument("--formats", nargs="+", default=["csr", "ef", "cgr", "log"])
    p.add_argument("--skip-cnr", action="store_true")
    p.add_argument("--out", type=Path, default=RESULTS_DIR)
    args = p.parse_args()
    rows, many_rows, sweeps = [], [], []
    pinned = round(copy_gbps(True), 1)
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        todo = []
        if CNR.exists() and not args.skip_cnr:
            z = np.load(CNR)
            edges = np.stack([np.repeat(np.arange(len(z["indptr"]) - 1), np.diff(z["indptr"])), z["indices"]], 1)
            todo.append(("cnr-2000", edges, False, 1 << 16))
        todo.append((f"kron{args.scale}", gt.generators.kronecker(args.scale, seed=0), True, 1 << 20))
        for name, edges, symmetric, chunk_edges in todo:
            graphs = stores(name, edges, symmetric, args.formats, chunk_edges, tmp)
            degree = np.diff(graphs["csr"].indptr())
            pool = np.flatnonzero(degree)
            if name == "cnr-2000":
                pool = np.array([100000] + np.random.default_rng(1).choice(pool, 40, replace=False).tolist())
            picks = np.random.default_rng(0).choice(pool[1:] if name == "cnr-2000" else pool, args.sources + 16, replace=False).tolist()
            sources = ([100000] + picks[: args.sources - 1]) if name == "cnr-2000" else picks[: args.sources]
            r, m = bench(name, graphs, sources, picks[args.sources :])
            rows += r
            many_rows += m
            sweeps.append({"graph": name, "format": "csr", **sweep(graphs["csr"], overhead(graphs["csr"]) + chunk_bytes(graphs["csr"]) // 4)})
            sweeps[-1]["of_pinned"] = round(sweeps[-1]["gb_per_s"] / pinned, 2)
            print(sweeps[-1], flush=True)
            del graphs
    machine = machine_info()
    meta = {"command": " ".join(sys.argv), "timing": __doc__, "machine": machine, "pinned_gbps": pinned, "many": many_rows, "sweeps": sweeps}
    json_path, md_path = write_results("ooc_bfs", rows, meta, out_dir=args.out)
    print_table(many_rows, list(many_rows[0]))
    print_table(sweeps, list(sweeps[0]))
    print(f"pinned host-to-device copy on this machine: {meta['pinned_gbps']} GB/s")
    print_table(
        rows,
        [
            "graph",
            "format",
            "region",
            "direction",
            "chunk_budget_mb",
            "graph_mb",
            "ms",
            "pcie_mb",
            "index_mb",
            "vs_floor",
            "vs_zero_copy_csr",
            "zc_target",
            "vs_resident",
            "warm_ms",
            "warm_vs_zero_copy_csr",
            "warm_vs_resident",
        ],
    )
    print(f"\nwrote {json_path} and {md_path}")


if __name__ == "__main__":
    main()
