"""What a person at a terminal waits for (issue 16): ``graphtier bfs`` on cnr-2000 in a fresh process,
once kernels are cached, against the target of 1.5 s and against the BFS's own time.

    python benchmarks/cli_cost.py [--device cuda] [--formats csr ef] [--repeat 5] [--dir DIR]

Each format's store is built once from ``../shared/datasets/cnr-2000`` (``compression.load``). A
first ``graphtier bfs STORE --source 100000 --json`` fills the kernel caches (Numba's and CuPy's,
where they were empty) and is reported apart; then ``--repeat`` more, each a new process, their
median wall time reported with the BFS's own ``seconds`` (from ``--json``) and a fresh process's
``import graphtier.cli`` alone. One more call runs under cProfile, written beside the results
(``cli_cost-profile-<device>-<format>.txt``, by cumulative time), to say where the rest went.

The processes run with Python's bytecode caches written and read, as an installed package has
them: an environment that sets ``PYTHONDONTWRITEBYTECODE`` (the GPU machines do) would have every
process compile every module of zarr, numba and graphtier from source again (about 1 s there).
The first call writes the caches; the results record whether the parent's environment disabled
them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from compression import load
from harness import RESULTS_DIR, machine_info, publish

import graphtier as gt

SOURCE = 100000
TARGET_S = 1.5
IMPORT = "import time; t = time.perf_counter(); import graphtier.cli; print(time.perf_counter() - t)"
PROFILE = "import cProfile, sys; from graphtier import cli; cProfile.run('cli.main(sys.argv[2:])', sys.argv[1])"
# what the ``graphtier`` script runs (its entry point), so that the same works where only a checkout is on the path
CLI = [sys.executable, "-m", "graphtier"]
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # caches as an install has them (above)


def bfs_args(store: Path, device: str) -> list[str]:
    return ["bfs", str(store), "--source", str(SOURCE), "--device", device, "--json"]


def call(store: Path, device: str) -> tuple[float, float]:
    """(wall seconds of a fresh ``graphtier bfs`` process, the BFS's own seconds)."""
    t = time.perf_counter()
    done = subprocess.run([*CLI, *bfs_args(store, device)], capture_output=True, text=True, check=True, env=ENV)
    return time.perf_counter() - t, json.loads(done.stdout)["seconds"]


def profiled(store: Path, device: str, out: Path) -> None:
    import pstats

    stats = out.with_suffix(".prof")
    subprocess.run([sys.executable, "-c", PROFILE, str(stats), *bfs_args(store, device)], capture_output=True, check=True, env=ENV)
    with out.open("w") as f:
        pstats.Stats(str(stats), stream=f).sort_stats("cumulative").print_stats(60)
    stats.unlink()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--device", default="auto")
    p.add_argument("--formats", nargs="+", default=["csr", "ef"])
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--dir", default=tempfile.gettempdir(), help="where the stores are built")
    p.add_argument("--out", default=RESULTS_DIR)
    args = p.parse_args()
    edges, _ = load("cnr-2000")
    Path(args.out).mkdir(parents=True, exist_ok=True)
    imports = [float(subprocess.run([sys.executable, "-c", IMPORT], capture_output=True, text=True, check=True, env=ENV).stdout) for _ in range(args.repeat + 1)][1:]  # the first writes the caches
    rows = []
    for fmt in args.formats:
        store = Path(args.dir) / f"cnr-2000-{fmt}.gt"
        gt.build(edges, store, format=fmt, overwrite=True, progress=False)
        first_s, _ = call(store, args.device)
        calls = [call(store, args.device) for _ in range(args.repeat)]
        wall = statistics.median(w for w, _ in calls)
        rows.append(
            {
                "format": fmt,
                "device": args.device,
                "first_call_s": round(first_s, 3),
                "wall_s": round(wall, 3),
                "bfs_s": round(statistics.median(s for _, s in calls), 4),
                "import_s": round(statistics.median(imports), 3),
                "target_s": TARGET_S,
                "met": wall < TARGET_S,
            }
        )
        print(rows[-1], file=sys.stderr, flush=True)
        profiled(store, args.device, Path(args.out) / f"cli_cost-profile-{args.device}-{fmt}.txt")
    meta = {"command": " ".join(sys.argv), "source": SOURCE, "repeat": args.repeat, "machine": machine_info(), "environment_disabled_bytecode_caches": "PYTHONDONTWRITEBYTECODE" in os.environ}
    publish("cli_cost", rows, meta, args.out)


if __name__ == "__main__":
    main()
