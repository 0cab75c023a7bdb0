"""What a Dask job adds: BFS from 32 sources over 4 Kronecker stores on the CPU, as a job on a
LocalCluster of N worker processes, against the same tasks run one after another in this process
divided by N (issue 17's target: the job within 1.3x of that).

    python benchmarks/dask_jobs.py [--scale 20] [--stores 4] [--sources 32] [--workers 2] [--repeat 3] [--out DIR]

Each worker gets cores / N Numba threads, and so does this process for the serial run, so that the
ratio measures what running N tasks at once through Dask costs rather than a different share of
the cores. Every run does the same tasks (``graphtier.dask.run_batch``, a store's sources in one
task, as ``gt.dask.map`` batches them when there are at least as many stores as workers), each
repetition from other sources (non-isolated vertices, so the job's tasks are new ones, not results
the cluster still holds), in turn: serially here, in N plain worker processes without Dask (what
running N at once costs on this machine: cores, memory bandwidth, other users), then as the job.
The task stream splits the job: ``task_s`` sums the seconds its tasks computed on the workers
(against ``serial_s``: what running side by side in a worker cost each task), and the rest of
``job_s`` is Dask's (scheduling, the frame's schema, idle workers). The job runs on two clusters:
workers started as Dask starts them (``dask-default``: MALLOC_TRIM_THRESHOLD_=65536) and with that
variable unset (``trim-unset``). Reported besides: each cluster's start and its first job (cold:
every worker compiles its kernels), which the warm runs leave out, as the serial and plain runs
leave out their first pass.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from harness import RESULTS_DIR, machine_info, print_table, write_results

# Dask's nanny starts workers with MALLOC_TRIM_THRESHOLD_=65536, which turns glibc's adaptive mmap
# threshold off: every array a query allocates is then fresh pages from the kernel. Both are timed.
SETTINGS = {"trim-unset": {"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}, "dask-default": {}}


def rows(store: str, sources: list[int]) -> int:
    """A task of the plain worker processes: the task's frame made and dropped there, as a Dask
    worker keeps it there."""
    from graphtier import Config
    from graphtier.dask import run_batch

    return len(run_batch("bfs", store, sources, config=Config(device="cpu")))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--scale", type=int, default=20)
    p.add_argument("--stores", type=int, default=4)
    p.add_argument("--sources", type=int, default=32, help="in all, spread evenly over the stores")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--out", default=str(RESULTS_DIR), help="results directory (default: benchmarks/results)")
    args = p.parse_args()
    threads = max(1, (os.cpu_count() or 1) // args.workers)
    os.environ["NUMBA_NUM_THREADS"] = str(threads)  # before numba is imported, here and in every worker

    import dask
    import numpy as np
    from distributed import Client, LocalCluster, get_task_stream, wait

    import graphtier as gt

    per_store = args.sources // args.stores
    with tempfile.TemporaryDirectory() as tmp:
        stores, nonisolated, vertices = [], [], {}
        for i in range(args.stores):
            t = time.perf_counter()
            g = gt.build(gt.generators.kronecker(args.scale, seed=i), Path(tmp) / f"kron{args.scale}-{i}.gt", symmetrize=True, drop_self_loops=True, progress=False)
            print(f"built {g} in {time.perf_counter() - t:.1f} s", file=sys.stderr)
            stores.append(g.location)
            vertices[g.location] = g.n_vertices
            nonisolated.append(np.flatnonzero(np.diff(g.indptr())))

        def sources(rep: int) -> dict[str, list[int]]:
            rng = np.random.default_rng(rep)
            return {s: sorted(int(v) for v in rng.choice(ids, per_store, replace=False)) for s, ids in zip(stores, nonisolated)}

        def serial(rep: int) -> float:
            t = time.perf_counter()
            for store, chosen in sources(rep).items():
                rows(store, chosen)
            return time.perf_counter() - t

        def plain(pool: ProcessPoolExecutor, rep: int) -> float:
            t = time.perf_counter()
            done = list(pool.map(rows, *zip(*sources(rep).items())))
            assert done == [per_store * vertices[s] for s in stores]
            return time.perf_counter() - t

        pool = ProcessPoolExecutor(args.workers, mp_context=multiprocessing.get_context("spawn"))
        with pool, contextlib.ExitStack() as stack:
            serial(args.repeat + 1)  # untimed first passes, other sources: compiling kernels
            plain(pool, args.repeat + 1)  # the pool's processes start here, before any nanny sets its environment in this process
            clusters, started = {}, {}
            for setting, environ in SETTINGS.items():  # unset first: a nanny leaves its variables in this process's environment
                t = time.perf_counter()
                with dask.config.set(environ):
                    cluster = stack.enter_context(LocalCluster(n_workers=args.workers, threads_per_worker=1, dashboard_address=":0"))
                clusters[setting] = stack.enter_context(Client(cluster, set_as_default=False))
                started[setting] = time.perf_counter() - t

            def job(client: Client, rep: int) -> tuple[float, float]:
                with get_task_stream(client) as stream:
                    t = time.perf_counter()
                    frame = gt.dask.map("bfs", stores, sources(rep), client=client, config=gt.Config(device="cpu"))
                    with client.as_current():
                        wait(frame)
                    seconds = time.perf_counter() - t
                assert frame.npartitions == args.stores
                counts = client.compute(frame.groupby(["store", "source"]).size()).result()
                assert len(counts) == args.stores * per_store and all(n == vertices[store] for (store, _), n in counts.items()), counts  # each result once
                computing = sum(s["stop"] - s["start"] for task in stream.data if str(task["key"]).startswith("graphtier-") for s in task["startstops"] if s["action"] == "compute")
                return seconds, computing

            cold = {setting: job(client, args.repeat)[0] for setting, client in clusters.items()}
            table = []
            for rep in range(args.repeat):
                serial_s, plain_s = serial(rep), plain(pool, rep)
                ideal = serial_s / args.workers
                for setting, client in clusters.items():
                    job_s, task_s = job(client, rep)
                    table.append(
                        {
                            "repetition": rep,
                            "workers_malloc": setting,
                            "serial_s": round(serial_s, 2),
                            "serial_per_worker_s": round(ideal, 2),
                            "plain_processes_s": round(plain_s, 2),
                            "job_s": round(job_s, 2),
                            "task_s": round(task_s, 2),
                            "overhead": round(job_s / ideal, 2),
                            "plain_overhead": round(plain_s / ideal, 2),
                            "job_vs_plain": round(job_s / plain_s, 2),
                            "task_slowdown": round(task_s / serial_s, 2),
                        }
                    )

    summary = {
        "graph": f"kron{args.scale}",
        "stores": args.stores,
        "sources": per_store * args.stores,
        "workers": args.workers,
        "numba_threads_per_worker": threads,
        **{f"cluster_start_s_{k}": round(v, 2) for k, v in started.items()},
        **{f"cold_job_s_{k}": round(v, 2) for k, v in cold.items()},
        **{f"median_{m}_{k}": statistics.median(r[m] for r in table if r["workers_malloc"] == k) for k in SETTINGS for m in ("overhead", "job_vs_plain", "task_slowdown")},
        "median_plain_overhead": statistics.median(r["plain_overhead"] for r in table),
        "target_overhead": 1.3,
        "load_average_at_end": os.getloadavg(),
    }
    meta = {"command": " ".join(sys.argv), "summary": summary, "machine": machine_info()}
    json_path, md_path = write_results(f"dask_jobs-kron{args.scale}-{args.workers}workers", table, meta, out_dir=args.out)
    print_table(table)
    print(summary)
    print(f"\nwrote {json_path} and {md_path}")


if __name__ == "__main__":
    main()
