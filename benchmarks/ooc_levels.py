"""Where an out-of-core BFS spends its time, level by level, under each zero-copy policy.

    python benchmarks/ooc_levels.py [--scale 24] [--format ef] [--share 0.1 ...] [--sources 3]

Builds a Kronecker graph (BENCHMARKS.md recipe) in one format, fills the host tier, then for
``zero_copy`` in auto, always and never runs BFS from each source on a cold device cache
(``Graph.evict_device``) and again on the cache it left (warm), under a chunk budget of each
``share`` of the graph's 32-bit CSR size (one that holds the whole graph: resident, the scheduler
steps aside). Prints, per level: direction, frontier, CUDA-event ms, rounds,
device hits, chunks read in place, MB copied, and the scheduler's transfer and compute ms (events
on its copy and compute streams).
"""

from __future__ import annotations

import argparse
import itertools
import tempfile
from pathlib import Path

import numpy as np

import graphtier as gt


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--scale", type=int, default=24)
    p.add_argument("--format", default="ef")
    p.add_argument("--share", type=float, nargs="+", default=[0.1])
    p.add_argument("--sources", type=int, default=3)
    p.add_argument("--modes", nargs="+", default=["auto", "always", "never"])
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as d:
        csr = gt.build(gt.generators.kronecker(args.scale, seed=0), Path(d) / "csr.gt", symmetrize=True, drop_self_loops=True, chunk_edges=1 << 20, memory_budget="24GiB", progress=False)
        g = csr if args.format == "csr" else gt.recode(csr, Path(d) / f"{args.format}.gt", format=args.format)
        csr_bytes = sum(h.total_bytes for h in csr.chunks().headers(range(csr.chunks().n_chunks)))
        state = gt.bfs(g, 0, device="cuda").stats["state_bytes"] + 8 * (g.n_vertices + 1) + 200 * g.chunks().n_chunks
        pool = np.flatnonzero(np.diff(csr.indptr()))
        sources = np.random.default_rng(0).choice(pool, args.sources, replace=False).tolist()
        for share, zero_copy in itertools.product(args.share, args.modes):
            budget = {"device_memory": state + int(share * csr_bytes), "host_memory": "100GiB", "zero_copy": zero_copy}
            gt.bfs(g, sources[0], device="cuda", **budget)  # fills the host tier
            for cold in (True, False):
                for s in sources:
                    if cold:
                        g.evict_device()
                    r = gt.bfs(g, s, device="cuda", **budget)
                    st = r.stats
                    print(
                        f"\n{args.format} share={share} zero_copy={zero_copy} {'cold' if cold else 'warm'} source {s}: {st['seconds'] * 1e3:.2f} ms, {st['bytes_host_to_device'] / 1e6:.0f} MB copied, {st['bytes_zero_copy'] / 1e6:.0f} MB read in place"
                    )
                    for lv in st["iterations"]:
                        print(
                            f"  {lv['direction']} {lv['frontier']:>9,}: {lv['seconds'] * 1e3:7.2f} ms  rounds {lv['rounds']}  hits {lv['device_hits']:>4}  zc {lv['zero_copy_chunks']:>4}  copied {lv['bytes_host_to_device'] / 1e6:7.1f} MB  transfer {lv['transfer_seconds'] * 1e3:6.2f} ms  compute {lv['compute_seconds'] * 1e3:6.2f} ms"
                        )


if __name__ == "__main__":
    main()
