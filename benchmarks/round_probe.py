"""Where an out-of-core iteration's time goes on the GPU: each kernel's time (CUDA events around
every launch), and the scheduler's copy and compute windows round by round (its own events).

    python benchmarks/round_probe.py [--scale 23] [--share 0.25] [--formats csr ef]

PageRank (unweighted) under ``device_memory`` = its vertex state plus ``share`` of the csr graph's
chunk bytes (host memory holds the graph), then SSSP (weights in [1, 64)) from one source in GPU
memory and zero-copy. For PageRank's fourth iteration it prints each round's copy (``copy``) and
compute (``compute``) window, in ms from the iteration's first event: a compute window that
outlasts its kernels waited for something else. Timing every launch adds an event pair to each,
so the totals here run a little above an untimed query's.
"""

from __future__ import annotations

import argparse
import collections
import tempfile
from pathlib import Path

import numpy as np
from algorithms_gpu import weighted_kronecker

import graphtier as gt
from graphtier.runtime import cuda as runtime_cuda
from graphtier.tiering import scheduler
from graphtier.tiering.scheduler import fixed_bytes


class Recorder:
    """Events around every kernel launch while ``on``, and the scheduler's windows per iteration."""

    def __init__(self):
        self.on, self.launches, self.windows = False, [], []
        launch, take_stats = runtime_cuda.CudaOperators._launch, scheduler.Scheduler.take_stats
        recorder = self

        def timed_launch(ops, kernel, *params, **shape):
            if not recorder.on:
                return launch(ops, kernel, *params, **shape)
            import cupy

            a, b = cupy.cuda.Event(), cupy.cuda.Event()
            a.record()
            launch(ops, kernel, *params, **shape)
            b.record()
            recorder.launches.append((kernel, a, b))

        def windows(sched):
            sched.memory.synchronize()
            for it in sched.iterations:
                if it["_marks"]:
                    t0 = it["_marks"][0][1]
                    recorder.windows.append([(key.split("_")[0], sched.memory.seconds(t0, a) * 1e3, sched.memory.seconds(t0, b) * 1e3) for key, a, b in it["_marks"]])
            return take_stats(sched)

        runtime_cuda.CudaOperators._launch = timed_launch
        scheduler.Scheduler.take_stats = windows

    def record(self, fn):
        self.launches.clear()
        self.windows.clear()
        self.on = True
        try:
            return fn()
        finally:
            self.on = False

    def kernels(self) -> list[tuple[str, int, float, float]]:
        """(kernel, launches, total ms, longest ms), longest total first."""
        import cupy

        cupy.cuda.runtime.deviceSynchronize()
        totals = collections.defaultdict(lambda: [0, 0.0, 0.0])
        for name, a, b in self.launches:
            ms = cupy.cuda.get_elapsed_time(a, b)
            t = totals[name]
            t[0], t[1], t[2] = t[0] + 1, t[1] + ms, max(t[2], ms)
        return sorted(((n, c, t, m) for n, (c, t, m) in totals.items()), key=lambda r: -r[2])


def report(title: str, recorder: Recorder) -> None:
    print(title)
    for name, count, total, longest in recorder.kernels():
        print(f"  {name[:90]:90s} launches {count:5d}  total {total:8.3f} ms  longest {longest:7.3f} ms")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--scale", type=int, default=23)
    p.add_argument("--share", type=float, default=0.25)
    p.add_argument("--formats", nargs="+", default=["csr", "ef"])
    args = p.parse_args()
    recorder = Recorder()
    with tempfile.TemporaryDirectory() as d:
        csr, graphs = weighted_kronecker(args.scale, Path(d), args.formats)
        csr_bytes = sum(h.total_bytes for h in csr.chunks().headers(range(csr.chunks().n_chunks)))
        for fmt, g in graphs.items():
            state = gt.pagerank(g, tol=1e-9, device="cuda").stats["state_bytes"]
            query = lambda g=g, state=state: gt.pagerank(g, tol=1e-9, device="cuda", device_memory=state + int(args.share * csr_bytes) + (64 << 20), host_memory="100GiB")
            query()
            r = recorder.record(query)
            its = r.stats["iterations"]
            report(f"pagerank {fmt} at {args.share:.0%} of csr: {r.stats['seconds'] * 1e3:.1f} ms, iterations (ms) {[round(i['seconds'] * 1e3, 2) for i in its]}", recorder)
            it = its[min(3, len(its) - 1)]
            print(f"  iteration {min(3, len(its) - 1)}: {it['rounds']} rounds, {it['bytes_host_to_device'] / 1e6:.0f} MB copied; windows (start, end, ms):")
            for kind, a, b in recorder.windows[min(3, len(recorder.windows) - 1)]:
                print(f"    {kind:8s} {a:8.3f} {b:8.3f} {b - a:7.3f}")
        degree = np.diff(csr.indptr())
        source = int(np.random.default_rng(1).choice(np.flatnonzero(degree)))
        state = gt.sssp(csr, source, device="cuda").stats["state_bytes"]
        zero_copy = {"device_memory": state + fixed_bytes(csr.n_vertices, csr.chunks().n_chunks), "host_memory": "100GiB", "zero_copy": "always"}
        for region, budget in (("in GPU memory", {}), ("zero-copy", zero_copy)):
            query = lambda budget=budget: gt.sssp(csr, source, device="cuda", **budget)
            query()
            r = recorder.record(query)
            report(f"sssp csr {region}: {r.stats['seconds'] * 1e3:.1f} ms, {len(r.stats['iterations'])} iterations", recorder)


if __name__ == "__main__":
    main()
