"""How SSSP's near-far bucket width trades iterations against relaxations on the GPU: the same
kron graph and sources as ``algorithms_gpu.py``, with ``delta`` at multiples of its default, in
GPU memory (csr) and out of core (ef at a share of the CSR size).

    python benchmarks/sssp_probe.py [--scale 23] [--multiples 1 2 4 8 16 inf] [--share 0.25]

``ms`` is the whole query (CUDA events, median over sources after a warm-up), ``parents_ms`` the
parent pass within it, ``relaxed_mb`` the edge bytes the tiers moved (out of core).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np
from algorithms_gpu import weighted_kronecker
from harness import RESULTS_DIR, machine_info, publish, timed

import graphtier as gt


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--scale", type=int, default=23)
    p.add_argument("--multiples", nargs="+", type=float, default=[1, 2, 4, 8, 16, float("inf")])
    p.add_argument("--share", type=float, default=0.25)
    p.add_argument("--sources", type=int, default=2)
    p.add_argument("--out", type=Path, default=RESULTS_DIR)
    args = p.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as d:
        csr, graphs = weighted_kronecker(args.scale, Path(d), ["ef"])
        ef = graphs["ef"]
        degree = np.diff(csr.indptr())
        sources = np.random.default_rng(1).choice(np.flatnonzero(degree), args.sources, replace=False).tolist()
        first = gt.sssp(csr, sources[0], device="cuda")
        default = first.stats["delta"]
        csr_bytes = sum(h.total_bytes for h in csr.chunks().headers(range(csr.chunks().n_chunks))) + 4 * csr.n_edges
        budget = {"device_memory": first.stats["state_bytes"] + int(args.share * csr_bytes) + (64 << 20), "host_memory": "100GiB"}
        reference = {}
        for region, g, b in (("resident", csr, {}), (f"ef {args.share:.0%} of csr", ef, budget)):
            for k in args.multiples:
                delta = default * k if np.isfinite(k) else float(np.finfo(np.float32).max)
                ms, wall, its, parents, moved = [], [], [], [], []
                for s in sources:
                    m, wl, r = timed(lambda g=g, s=s, b=b, delta=delta: gt.sssp(g, s, delta=delta, device="cuda", **b), 2)
                    assert np.array_equal(r.distances, reference.setdefault(s, r.distances)), f"{region} delta x{k}: distances differ"
                    finish = [it for it in r.stats["iterations"] if it.get("phase") == "finish"]
                    ms.append(m)
                    wall.append(wl)
                    its.append(len(r.stats["iterations"]) - len(finish))
                    parents.append(sum(it["seconds"] for it in finish) * 1e3)
                    moved.append((r.stats["bytes_host_to_device"] + r.stats["bytes_zero_copy"]) / 1e6)
                row = {
                    "region": region,
                    "delta_x": k,
                    "delta": round(delta, 2),
                    "ms": round(statistics.median(ms), 2),
                    "wall_ms": round(statistics.median(wall), 1),
                    "parents_ms": round(statistics.median(parents), 2),
                    "iterations": int(statistics.median(its)),
                    "moved_mb": round(statistics.median(moved), 1),
                }
                rows.append(row)
                print(row, flush=True)
    machine = machine_info()
    meta = {"command": " ".join(sys.argv), "graph": f"kron{args.scale}", "sources": sources, "machine": machine}
    publish("sssp_probe", rows, meta, out_dir=args.out, columns=["region", "delta_x", "delta", "ms", "wall_ms", "parents_ms", "iterations", "moved_mb"])


if __name__ == "__main__":
    main()
