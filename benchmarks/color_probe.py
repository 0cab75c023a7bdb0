"""Greedy colouring on the GPU with and without the shortcut's tests (coloring.SHORTCUT), kron23 in
GPU memory, beside one BFS, in one process on one card; both colourings must be equal.

    python benchmarks/color_probe.py OUT_DIR [--scale 23]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import numpy as np
from algorithms_gpu import weighted_kronecker
from harness import timed

import graphtier as gt
from graphtier.algorithms import coloring


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("out", type=Path)
    p.add_argument("--scale", type=int, default=23)
    args = p.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as d:
        csr, _ = weighted_kronecker(args.scale, Path(d), ["csr"])
        degree = np.diff(csr.indptr())
        for s in np.random.default_rng(1).choice(np.flatnonzero(degree), 2, replace=False).tolist():
            ms, wall, _ = timed(lambda s=s: gt.bfs(csr, s, device="cuda"), 3)
            rows.append({"algorithm": "bfs", "source": s, "ms": round(ms, 3), "wall_ms": round(wall, 2)})
            print(rows[-1], flush=True)
        reference = None
        for shortcut in (True, False, True):
            coloring.SHORTCUT["cuda"] = shortcut
            ms, wall, r = timed(lambda: gt.greedy_color(csr, seed=1, device="cuda"), 2)
            reference = r.colors if reference is None else reference
            assert np.array_equal(r.colors, reference), "the colourings differ"
            its = r.stats["iterations"]
            rows.append(
                {
                    "algorithm": "color",
                    "shortcut": shortcut,
                    "limit": coloring.LIMIT,
                    "ms": round(ms, 3),
                    "wall_ms": round(wall, 2),
                    "rounds": len(its),
                    "n_colors": r.n_colors,
                    "first_rounds_ms": [round(i["seconds"] * 1e3, 2) for i in its[:12]],
                }
            )
            print(rows[-1], flush=True)
    (args.out / "color_probe.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
