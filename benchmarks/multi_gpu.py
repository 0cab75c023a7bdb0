"""Several GPUs of one host (issue 19), side by side in one run.

    python benchmarks/multi_gpu.py split [--scale 25] [--budget 0.25] [--gpus 1 2 4] [--sources 3]
    python benchmarks/multi_gpu.py dask [--scale 23] [--stores 8] [--sources 8] [--gpus 1 2 4]

``split``: one Graph500 Kronecker graph (symmetrized, self-loops dropped) stored as ef, split over
1, 2 and 4 GPUs (``devices=``), every GPU under the same budget (a share of the graph's CSR size:
``--budget`` for BFS, ``--pagerank-budget`` for PageRank, whose state is 48 bytes a vertex), BFS
from ``--sources`` sources and PageRank. Each call starts a process per GPU that reads its part
from the store (the page cache, after the first), so one GPU runs as ``devices=(0,)``: the same
path, a process and a cold host tier (a part of one merges nothing: its run is the one a call in
the caller's process makes). Each count runs ``first``, which starts the processes and
fills their tiers from the store, then ``--again`` calls that find them kept and warm (the median
reported; the results of the others let go, as a caller's would be). ``gpu_ms`` is the slowest
part's CUDA-event time (``part_merge_ms`` of it merging across the parts), ``wall_ms`` what the
caller waited (``part_start_s``: a first call's seconds from launching its parts until each had
imported graphtier, joined the others and opened the store). Every result is checked against one
GPU's (the same call): BFS distances equal, PageRank bit for bit; speedups against it too.

``dask``: BFS from ``--sources`` sources of each of ``--stores`` Kronecker stores (csr) and
PageRank of each, as ``gt.dask.map`` jobs on ``gt.dask.gpu_cluster(n)`` for each n of ``--gpus``
(one worker per GPU, a task per store; the nanny's MALLOC_TRIM_THRESHOLD_ unset, as the README
advises); a warm-up job of each algorithm on each cluster first (every worker loads its kernels),
then the median of ``--repeat`` jobs, each until every partition is computed on the workers (the
frames stay there until the next job: collecting 8 x 8 BFS results of kron23 would time the
client). ``task_s``: the seconds the job's tasks computed, summed over the workers.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from harness import RESULTS_DIR, csr_bytes, kronecker_store, machine_info, picked, publish

import graphtier as gt


def split(args) -> list[dict]:
    g = gt.open(kronecker_store(args.scale, Path(args.dir) / f"kron{args.scale}-ef.gt", "ef"))
    csr = csr_bytes(g)
    sources = picked(g, args.sources, 1)
    print(f"kron{args.scale}: {g.n_vertices:,} vertices, {g.n_edges:,} edges; ef chunks {sum(g.chunk_sizes()):,} bytes; CSR {csr:,} bytes", file=sys.stderr)
    warm_up(gt.open(kronecker_store(18, Path(args.dir) / "kron18-ef.gt", "ef")), args)
    rows = []
    for name, call, share in (("bfs", lambda s, **o: gt.bfs(g, s, **o), args.budget), ("pagerank", lambda s, **o: gt.pagerank(g, **o), args.pagerank_budget)):
        budget = {"device_memory": int(share * csr), "zero_copy": "auto"}
        for source in sources if name == "bfs" else [None]:
            reference, baseline = {}, {}  # for each kind of call: one GPU's first result, and its median row
            for n in args.gpus:
                for when in ("first", "again"):  # processes started and tiers filled; then kept, warm (the median of --again calls)
                    calls = []
                    for _ in range(1 if when == "first" else args.again):
                        t = time.perf_counter()
                        r = call(source, device=args.device, devices=tuple(range(n)), **budget)
                        calls.append({"call": when} | _row(name, source, n, r, time.perf_counter() - t) | {"device_memory": budget["device_memory"], "calls": 1 if when == "first" else args.again})
                        one = reference.setdefault(when, r)
                        calls[-1]["equal_to_one_gpu"] = bool(np.array_equal(r.distances, one.distances) if name == "bfs" else np.array_equal(r.ranks, one.ranks))
                        del r, one  # let go before the next call, as a caller would (its slab serves the next)
                    row = sorted(calls, key=lambda c: c["wall_ms"])[len(calls) // 2]
                    base = baseline.setdefault(when, row)
                    rows.append(
                        row
                        | {
                            "equal_to_one_gpu": all(c["equal_to_one_gpu"] for c in calls),
                            "speedup_gpu": round(base["gpu_ms"] / row["gpu_ms"], 2),
                            "speedup_wall": round(base["wall_ms"] / row["wall_ms"], 2),
                        }
                    )
                    print(rows[-1], file=sys.stderr, flush=True)
    return rows


def warm_up(tiny: gt.Graph, args) -> None:
    """Kernels compiled, and what the parts compile with Numba cached on disk, before any timing:
    the benchmark's calls on a small graph, streamed (its vertex state and half its chunks)."""
    from graphtier.algorithms.bfs import BFS
    from graphtier.runtime.run import state_of

    source = picked(tiny, 1, 0)[0]
    state = state_of(BFS(tiny, source, "auto"), tiny, args.device, split=True)[1]
    gt.bfs(tiny, source, device=args.device, devices=(0,), device_memory=state + sum(tiny.chunk_sizes()) // 2, zero_copy="auto")
    gt.pagerank(tiny, device=args.device, devices=(0,))


def _row(name: str, source, gpus: int, r, wall: float) -> dict:
    parts = r.stats.get("parts", [r.stats])
    return {
        "algorithm": name,
        "source": source,
        "gpus": gpus,
        "gpu_ms": round(r.stats["seconds"] * 1e3, 1),
        "wall_ms": round(wall * 1e3, 1),
        "store_read_mb": round(r.stats["bytes_store_read"] / 1e6, 1),
        "to_device_mb": round(r.stats["bytes_host_to_device"] / 1e6, 1),
        "zero_copy_mb": round(r.stats["bytes_zero_copy"] / 1e6, 1),
        "part_gpu_ms": [round(p["seconds"] * 1e3, 1) for p in parts],
        "part_call_ms": [round(p.get("call_seconds", 0) * 1e3, 1) for p in parts],  # the part's whole call; the rest of wall_ms is starting and returning
        "part_merge_ms": [round(sum(i.get("merge_seconds", 0) for i in p["iterations"]) * 1e3, 1) for p in parts],  # of gpu_ms: the merges across the parts
        "part_start_s": [{k: round(v, 2) for k, v in p["start_seconds"].items()} for p in parts if "start_seconds" in p],  # a first call: seconds from launch to imported, joined, opened
    }


def dask_jobs(args) -> list[dict]:
    import dask
    from distributed import Client, get_task_stream, wait

    paths = [Path(args.dir) / f"kron{args.scale}-{i}.gt" for i in range(args.stores)]
    with ProcessPoolExecutor(min(4, args.stores)) as pool:
        stores = list(pool.map(kronecker_store, [args.scale] * args.stores, paths, ["csr"] * args.stores, range(args.stores)))
    sources = {s: picked(gt.open(s), args.sources, 2) for s in stores}
    config = gt.Config(device=args.device)
    untrimmed = {"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}  # as the README advises
    rows = []
    for n in args.gpus:
        t = time.perf_counter()
        with dask.config.set(untrimmed), gt.dask.gpu_cluster(n, local_directory=tempfile.mkdtemp()) as cluster, Client(cluster) as client:
            started = time.perf_counter() - t
            for name in ("bfs", "pagerank"):  # every worker loads each algorithm's kernels before any timing
                wait(gt.dask.map(name, stores[:n], {s: sources[s][:1] for s in stores[:n]} if name == "bfs" else None, config=config, client=client, batch=1))
            for name in ("bfs", "pagerank"):
                times, computing, timelines = [], [], []
                for _ in range(args.repeat):
                    with get_task_stream(client) as stream:
                        t, began = time.perf_counter(), time.time()
                        frame = gt.dask.map(name, stores, sources if name == "bfs" else None, config=config, client=client)
                        mapped = time.time()
                        wait(frame)
                        times.append(time.perf_counter() - t)
                        ended = time.time()
                    assert frame.npartitions == args.stores
                    del frame  # its partitions freed on the workers before the next job
                    spans = [(task["worker"], s["start"], s["stop"]) for task in stream.data if str(task["key"]).startswith("graphtier-") for s in task["startstops"] if s["action"] == "compute"]
                    computing.append(sum(b - a for _, a, b in spans))
                    timelines.append(
                        _per_worker(spans)
                        + [
                            {
                                "map_returned_s": round(mapped - began, 2),
                                "first_task_s": round(min(a for _, a, _ in spans) - began, 2),
                                "last_task_s": round(max(b for _, _, b in spans) - began, 2),
                                "job_s": round(ended - began, 2),
                            }
                        ]
                    )
                rows.append(
                    {
                        "algorithm": name,
                        "gpus": n,
                        "stores": args.stores,
                        "sources_per_store": args.sources if name == "bfs" else None,
                        "job_s": round(statistics.median(times), 2),
                        "jobs_s": [round(x, 2) for x in times],
                        "task_s": round(statistics.median(computing), 2),
                        "cluster_start_s": round(started, 1),
                        "workers": timelines,
                    }
                )
                print(rows[-1], file=sys.stderr, flush=True)
    one = {r["algorithm"]: r["job_s"] for r in rows if r["gpus"] == 1}
    for r in rows:
        r["speedup"] = round(one[r["algorithm"]] / r["job_s"], 2) if r["algorithm"] in one else None
    return rows


def _per_worker(spans: list[tuple]) -> list[dict]:
    """Each worker's share of a job: tasks, seconds computing, and its first start and last stop
    from the job's first start (an idle worker or a late one shows here, not in the sums)."""
    t0 = min(a for _, a, _ in spans)
    out = []
    for worker in sorted({w for w, _, _ in spans}):
        mine = [(a, b) for w, a, b in spans if w == worker]
        out.append({"tasks": len(mine), "compute_s": round(sum(b - a for a, b in mine), 2), "first_s": round(min(a for a, _ in mine) - t0, 2), "last_s": round(max(b for _, b in mine) - t0, 2)})
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("mode", choices=["split", "dask"])
    p.add_argument("--scale", type=int)
    p.add_argument("--budget", type=float, default=0.25, help="split: each GPU's device_memory, as a share of the graph's CSR size")
    p.add_argument("--pagerank-budget", type=float, default=0.6, help="split: PageRank's, which keeps six floats per vertex")
    p.add_argument("--gpus", type=int, nargs="+", default=[1, 2, 4])
    p.add_argument("--sources", type=int, default=None)
    p.add_argument("--again", type=int, default=5, help="split: kept calls after the first, their median reported")
    p.add_argument("--stores", type=int, default=8)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--dir", default=tempfile.gettempdir(), help="where the graphs are built, and found again by later runs")
    p.add_argument("--out", default=RESULTS_DIR)
    p.add_argument("--device", default="cuda", help="cpu: the same runs with simulated devices (a check of this script)")
    args = p.parse_args()
    Path(args.dir).mkdir(parents=True, exist_ok=True)
    args.scale = args.scale or (25 if args.mode == "split" else 23)
    args.sources = args.sources or (3 if args.mode == "split" else 8)
    rows = split(args) if args.mode == "split" else dask_jobs(args)
    publish(f"multi_gpu-{args.mode}", rows, {"command": " ".join(sys.argv), "args": vars(args), "machine": machine_info()}, out_dir=args.out)


if __name__ == "__main__":
    main()
