"""GPU BFS timed by two versions of graphtier in the same run, on the same stores and sources.

    python benchmarks/bfs_same_run.py build --scale 23 --dir STORES [--formats csr ef]
    python benchmarks/bfs_same_run.py time --dir STORES --label new --out new.json [--shares resident 0.25 0.1]
    PYTHONPATH=OLD python benchmarks/bfs_same_run.py time --dir STORES --label old --out old.json
    python benchmarks/bfs_same_run.py compare new.json old.json

``time`` uses only what every version has (``gt.open``, ``gt.bfs`` with budgets, its stats), so
the graphtier on ``PYTHONPATH`` decides which version is timed. A share is ``device_memory`` =
the version's own vertex state plus that share of the csr graph's chunk bytes (EFG's regions);
``resident``: no budget. Per source: a warm-up query, then the median of ``--repeat`` queries'
CUDA-event time and the wall time a caller sees; the table gives medians over sources.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np

import graphtier as gt


def build(args) -> None:
    d = Path(args.dir)
    d.mkdir(parents=True, exist_ok=True)
    t = time.perf_counter()
    csr = gt.build(gt.generators.kronecker(args.scale, seed=0), d / f"kron{args.scale}-csr.gt", symmetrize=True, drop_self_loops=True, memory_budget="24GiB", progress=False)
    for f in args.formats:
        if f != "csr":
            gt.recode(csr, d / f"kron{args.scale}-{f}.gt", format=f)
    print(f"kron{args.scale}: {csr.n_vertices:,} vertices, {csr.n_edges:,} edges, {args.formats} built in {time.perf_counter() - t:.1f} s", flush=True)


def state_bytes(g, r) -> int:
    return r.stats["state_bytes"] if "state_bytes" in r.stats else g.workspace().nbytes


def time_version(args) -> None:
    rows = []
    for path in sorted(Path(args.dir).glob("*.gt")):
        graph, fmt = path.stem.rsplit("-", 1)
        g = gt.open(path)
        csr = gt.open(path.with_name(f"{graph}-csr.gt"))
        csr_bytes = sum(h.total_bytes for h in csr.chunks().headers(range(csr.chunks().n_chunks)))
        degree = np.diff(g.indptr())
        sources = np.random.default_rng(1).choice(np.flatnonzero(degree), args.sources, replace=False).tolist()
        first = gt.bfs(g, sources[0], device="cuda")  # compile, upload
        state = state_bytes(g, first)
        for share in args.shares:
            budget = {} if share == "resident" else {"device_memory": state + int(float(share) * csr_bytes), "host_memory": "100GiB"}
            ms, wall = [], []
            for s in sources:
                gt.bfs(g, s, device="cuda", **budget)  # warm: the host tier holds the graph, indexes loaded
                runs, walls = [], []
                for _ in range(args.repeat):
                    t = time.perf_counter()
                    r = gt.bfs(g, s, device="cuda", **budget)
                    walls.append(time.perf_counter() - t)
                    runs.append(r.stats["seconds"])
                ms.append(statistics.median(runs) * 1e3)
                wall.append(statistics.median(walls) * 1e3)
            levels = [(it.get("direction"), it["frontier"], round(it["seconds"] * 1e3, 3)) for it in r.stats["iterations"]]
            rows.append({"graph": graph, "format": fmt, "share": share, "ms": statistics.median(ms), "wall_ms": statistics.median(wall), "per_source_ms": ms, "levels": levels})
            print(args.label, rows[-1], flush=True)
    Path(args.out).write_text(json.dumps({"label": args.label, "version": getattr(gt, "__version__", "?"), "rows": rows}, indent=1))


def compare(args) -> None:
    new, old = (json.loads(Path(p).read_text()) for p in (args.new, args.old))
    key = lambda r: (r["graph"], r["format"], str(r["share"]))
    before = {key(r): r for r in old["rows"]}
    print(f"{'graph':8} {'format':6} {'share':9} {new['label'] + ' ms':>10} {old['label'] + ' ms':>10} {'ratio':>6} {new['label'] + ' wall':>10} {old['label'] + ' wall':>10}")
    for r in new["rows"]:
        b = before.get(key(r))
        if b:
            print(f"{r['graph']:8} {r['format']:6} {r['share']!s:9} {r['ms']:10.3f} {b['ms']:10.3f} {r['ms'] / b['ms']:6.3f} {r['wall_ms']:10.2f} {b['wall_ms']:10.2f}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build")
    b.add_argument("--scale", type=int, default=23)
    b.add_argument("--dir", required=True)
    b.add_argument("--formats", nargs="+", default=["csr", "ef"])
    t = sub.add_parser("time")
    t.add_argument("--dir", required=True)
    t.add_argument("--label", required=True)
    t.add_argument("--out", required=True)
    t.add_argument("--sources", type=int, default=8)
    t.add_argument("--repeat", type=int, default=3)
    t.add_argument("--shares", nargs="+", default=["resident"])
    c = sub.add_parser("compare")
    c.add_argument("new")
    c.add_argument("old")
    args = p.parse_args()
    {"build": build, "time": time_version, "compare": compare}[args.command](args)


if __name__ == "__main__":
    main()
