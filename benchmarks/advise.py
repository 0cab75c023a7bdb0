"""The format advisor on the compression report's graphs: what it picks, how close its sizes come to
the report's, and whether the region it predicts is the one a run opens.

    python benchmarks/advise.py [--graphs cnr-2000 kron20 grid1024] [--tmp DIR] [--out DIR]

Each graph is built as ``compression.py`` builds it (natural order, csr, chunks of 2**20 edges),
then advised (``gt.advise``, BFS, on this machine's backend):

- goal size under this machine's budgets: the pick, and the largest difference between a
  candidate's total bits per edge and the compression report's
  (``benchmarks/results/compression-2026-11-22-vm.json``, same graph, order and format);
- goal speed under five budgets: this machine's; the least device memory the advice says csr
  needs to stay on the device; halfway down to what the smallest store needs; a third of the way
  from the vertex state up to that; and the last with host memory a third of what keeps every
  chunk in memory. For each: the pick, its chunk size and region, and the tier that a BFS opens
  on the store built as advised, under those budgets (a ``Run``'s sources: the scheduler's own
  decision, without running kernels). Regions name tiers: fits and compressed on the device,
  streamed from host memory, beyond-host from the store.

Results go to ``benchmarks/results/advise-<date>-<host>.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

REPORT = Path(__file__).resolve().parent / "results" / "compression-2026-11-22-vm.json"
GRAPHS = ("cnr-2000", "kron20", "grid1024")
TIER = {"fits": "device", "compressed": "device", "streamed": "host", "beyond-host": "store", "refused": "refused"}


def opened(store: str, device: int | None, host: int | None) -> str:
    """The tier a BFS on ``store`` reads its graphs from under these budgets, or "refused"."""
    import graphtier as gt
    from graphtier.engine.advise import ALGORITHMS, TIERS, tier_of
    from graphtier.runtime import Config
    from graphtier.runtime.run import Run

    g = gt.open(store)
    source = int(g.perm[0]) if g.perm is not None else 0
    config = Config(device_memory=device, host_memory=host)
    try:
        sources = Run(ALGORITHMS["bfs"](g, source, config.backend()), g, config).sources.values()
    except ValueError:
        return "refused"
    return max(map(tier_of, sources), key=TIERS.index)


def main() -> None:
    from compression import load, parse
    from harness import RESULTS_DIR, machine_info, publish

    import graphtier as gt

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--graphs", nargs="+", default=list(GRAPHS), help="default: %(default)s")
    p.add_argument("--out", default=str(RESULTS_DIR), help="results directory (default: benchmarks/results)")
    p.add_argument("--tmp", default=None, help="scratch directory for the stores (default: the system's)")
    args = p.parse_args()
    for name in args.graphs:
        try:
            parse(name)
        except argparse.ArgumentTypeError as e:
            p.error(str(e))
    report = {(r["graph"], r["order"], r["format"]): r["total_bpe"] for r in json.loads(REPORT.read_text())["rows"]}
    rows = []
    for name in args.graphs:
        edges, symmetrize = load(name)
        with tempfile.TemporaryDirectory(dir=args.tmp) as tmp:
            base = gt.build(edges, Path(tmp) / "csr.gt", symmetrize=symmetrize, drop_self_loops=symmetrize, progress=False)
            t = time.perf_counter()
            size = gt.advise(base, goal="size")
            seconds = time.perf_counter() - t
            diffs = [abs(c["bits_per_edge"]["total"] - report[name, c["order"], c["format"]]) for c in size.candidates if (name, c["order"], c["format"]) in report]
            smallest = min((k for k in report if k[0] == name and k[1] in {c["order"] for c in size.candidates}), key=report.get)
            row = {"graph": name, "goal": "size", "budget": "machine", "format": size.format, "order": size.order, "chunk_edges": size.chunk_edges, "region": size.region}
            rows.append(
                row
                | {
                    "report_smallest": f"{smallest[2]} {smallest[1]}",
                    "max_bpe_diff": round(max(diffs), 3),
                    "measured": "whole" if size.measured["whole"] else f"{size.measured['chunks']} of {size.measured['of']} chunks",
                    "advise_s": round(seconds, 1),
                }
            )
            print(rows[-1], flush=True)
            machine = gt.advise(base)
            fits, least, state = machine.budgets["device_memory"], size.budgets["device_memory"], machine.state_bytes
            low = state + (least - state) // 3
            budgets = {"machine": (None, None), "csr fits": (fits, None), "halfway": ((fits + least) // 2, None), "low": (low, None), "low, host low": (low, size.budgets["host_memory"] // 3)}
            for label, (device, host) in budgets.items():
                t = time.perf_counter()
                a = gt.advise(base, device_memory=device, host_memory=host)
                seconds = time.perf_counter() - t
                if a.order == "natural":
                    store = gt.recode(base, Path(tmp) / f"{label}.gt", format=a.format, chunk_edges=a.chunk_edges)
                else:
                    store = gt.build(edges, Path(tmp) / f"{label}.gt", symmetrize=symmetrize, drop_self_loops=symmetrize, progress=False, **a.build_options())
                seen = opened(store.location, device, host)
                mb = lambda b: "default" if b is None else round(b / 1e6, 2)
                row = {
                    "graph": name,
                    "goal": "speed",
                    "budget": label,
                    "device_MB": mb(device),
                    "host_MB": mb(host),
                    "format": a.format,
                    "order": a.order,
                    "chunk_edges": a.chunk_edges,
                    "region": a.region,
                }
                rows.append(row | {"predicted_tier": TIER[a.region], "observed_tier": seen, "match": TIER[a.region] == seen, "advise_s": round(seconds, 1)})
                print(rows[-1], flush=True)
    meta = {
        "command": " ".join(sys.argv),
        "advice": "gt.advise for BFS on this machine's backend; goal size under its budgets, goal speed under the budgets named (MB; default: what the machine has, less a margin)",
        "report": str(REPORT.relative_to(REPORT.parents[2])),
        "observed": "the tier a BFS Run opens on the store built as advised, under the same budgets (no kernel runs)",
        "machine": machine_info(),
    }
    publish("advise", rows, meta, out_dir=args.out)


if __name__ == "__main__":
    main()
