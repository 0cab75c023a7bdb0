"""Shared plumbing for the benchmark scripts: the graphs they share, what machine, how long, and where the figures go.

Every figure is recorded with the machine it was measured on (BENCHMARKS.md: compare only ratios
measured side by side, and name the device).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime
from importlib import metadata
from pathlib import Path
from typing import Any

RESULTS_DIR = Path(__file__).resolve().parent / "results"


def kronecker_store(scale: int, path: Path, fmt: str, seed: int = 0) -> str:
    """The benchmarks' Kronecker graph (symmetrized, self-loops dropped) as ``fmt`` at ``path``,
    built once (kept across runs in a script's ``--dir``)."""
    import graphtier as gt

    if not path.exists():
        t = time.perf_counter()
        gt.build(gt.generators.kronecker(scale, seed=seed), path, format=fmt, symmetrize=True, drop_self_loops=True, memory_budget="48GiB", progress=False)
        print(f"built {path.name} in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    return str(path)


def kronecker_parser(description: str, scale: int) -> argparse.ArgumentParser:
    """The options of a benchmark on one Kronecker store under budgets: --scale, --format,
    --device, --host (host_memory as a share of the CSR size), --dir, --out and --tag."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--scale", type=int, default=scale)
    p.add_argument("--format", default="ef")
    p.add_argument("--device", default="cuda")
    p.add_argument("--host", type=float, default=0.2, help="host_memory as a share of the CSR size (default 0.2)")
    p.add_argument("--dir", default=tempfile.gettempdir(), help="where the graph is built, and found again by later runs")
    p.add_argument("--out", default=RESULTS_DIR)
    p.add_argument("--tag", help="appended to the results' file names")
    return p


def csr_bytes(g) -> int:
    """The graph's size as CSR (8-byte offsets, 4-byte ids): what benchmarks' budgets are shares of."""
    return 8 * (g.n_vertices + 1) + 4 * g.n_edges


def kronecker_graph(args: argparse.Namespace) -> tuple[Path, Any, int, int]:
    """``kronecker_parser``'s store, built in ``--dir`` the first time: (path, handle, CSR size
    8 (n + 1) + 4 m, the store's chunk bytes)."""
    import graphtier as gt

    Path(args.dir).mkdir(parents=True, exist_ok=True)
    path = Path(kronecker_store(args.scale, Path(args.dir) / f"kron{args.scale}-{args.format}.gt", args.format))
    g = gt.open(path)
    return path, g, csr_bytes(g), int(g.chunk_sizes().sum())


def kronecker_meta(args: argparse.Namespace, g, csr: int, store_bytes: int) -> dict[str, Any]:
    """What the results of a ``kronecker_parser`` benchmark record first: the command, the graph
    and its sizes, the machine."""
    return {
        "command": " ".join(sys.argv),
        "args": vars(args),
        "graph": f"kron{args.scale} {args.format}",
        "n_vertices": g.n_vertices,
        "n_edges": g.n_edges,
        "n_chunks": g.chunks().n_chunks,
        "store_bytes": store_bytes,
        "csr_bytes": csr,
        "machine": machine_info(),
    }


def picked(g, count: int, seed: int) -> list[int]:
    """``count`` seeded vertices of ``g`` with edges, in order (a benchmark's sources)."""
    import numpy as np

    return sorted(int(v) for v in np.random.default_rng(seed).choice(np.flatnonzero(np.diff(g.indptr())), count, replace=False))


def copy_gbps(pinned: bool) -> float:
    """Host-to-device bandwidth from pinned memory, or device-to-device (bytes read + written), GB/s."""
    import cupy
    import numpy as np

    nbytes = 1 << 30
    dev = cupy.empty(nbytes, cupy.uint8)
    src = cupy.cuda.alloc_pinned_memory(nbytes) if pinned else cupy.ones(nbytes, cupy.uint8)
    if pinned:
        np.frombuffer(src, np.uint8, nbytes)[:] = 1
    times = []
    for _ in range(6):
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        cupy.cuda.runtime.memcpyAsync(dev.data.ptr, src.ptr if pinned else src.data.ptr, nbytes, 1 if pinned else 3, cupy.cuda.get_current_stream().ptr)
        end.record()
        end.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, end) / 1e3)
    return nbytes * (1 if pinned else 2) / statistics.median(times[1:]) / 1e9


def store_files(path: Path) -> list[Path]:
    return sorted(Path(root) / name for root, _, names in os.walk(path) for name in names)


def drop_cached(path: Path) -> None:
    """Asks the kernel to drop the store's pages from the page cache (written back first: the
    kernel keeps dirty pages, such as those of a store just built, whatever it is advised)."""
    for f in store_files(path):
        fd = os.open(f, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def read_store(path: Path) -> tuple[float, int]:
    """Seconds to read every file of the store once, in order, and the bytes read."""
    nbytes, t = 0, time.perf_counter()
    for f in store_files(path):
        with open(f, "rb", buffering=0) as handle:
            while chunk := handle.read(1 << 24):
                nbytes += len(chunk)
    return time.perf_counter() - t, nbytes


def storage_floor(path: Path) -> dict[str, dict]:
    """The storage tier's floor: the store read once in order, cold (its pages first dropped) and
    warm, each {seconds, bytes, gbps}; ``from_disk``: whether dropping pages took effect (on some
    overlay file systems it does not, and the cold read is the page cache's)."""
    floor = {}
    for state in ("cold", "warm"):
        if state == "cold":
            drop_cached(path)
        seconds, nbytes = read_store(path)
        floor[state] = {"seconds": seconds, "bytes": nbytes, "gbps": nbytes / seconds / 1e9}
        print(f"read the store {state}: {nbytes / 1e9:.2f} GB in {seconds:.2f} s ({floor[state]['gbps']:.2f} GB/s)", file=sys.stderr, flush=True)
    floor["cold"]["from_disk"] = floor["cold"]["gbps"] < 0.8 * floor["warm"]["gbps"]
    if not floor["cold"]["from_disk"]:
        print("the page cache kept the store's pages (posix_fadvise had no effect here): cold figures are the cache's", file=sys.stderr, flush=True)
    return floor


def machine_info() -> dict[str, Any]:
    """Host, CPU, memory, library versions and GPU, as recorded beside every result."""
    return {
        "host": socket.gethostname(),
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "ram_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
        "python": platform.python_version(),
        **{name: _version(name) for name in ("numpy", "numba", "zarr", "graphtier")},
        "gpu": _gpu_name(),
        "date": datetime.now().astimezone().isoformat(timespec="seconds"),
    }


def time_it(fn: Callable[[], object], *, repeat: int = 7, warmup: int = 1) -> dict[str, float]:
    """Median, min and max wall seconds of ``fn()`` after ``warmup`` untimed calls (JIT, caches).

    ``fn`` must finish its work before returning: synchronize the GPU inside it.
    """
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return {"median_s": statistics.median(times), "min_s": min(times), "max_s": max(times)}


def timed(fn: Callable[[], Any], repeat: int) -> tuple[float, float, Any]:
    """(median ms by the run's own clock, CUDA events on the GPU; median wall ms; the last result)
    of a graphtier call, after a warm-up call."""
    fn()
    ms, wall = [], []
    for _ in range(repeat):
        t = time.perf_counter()
        r = fn()
        wall.append((time.perf_counter() - t) * 1e3)
        ms.append(r.stats["seconds"] * 1e3)
    return statistics.median(ms), statistics.median(wall), r


TIMES = ("ms", "graphtier_ms", "seconds")  # the column a results chart draws, the first rows have


def write_results(name: str, rows: list[dict], meta: dict, out_dir: str | Path = RESULTS_DIR, tag: str | None = None) -> tuple[Path, Path]:
    """Write ``<name>-<date>-<gpu or host>[-<tag>].json`` (rows, meta, machine) and a markdown table beside
    it, and where matplotlib is installed a chart of the rows' times (``.png``); ``-2``, ``-3``...
    after that where a run of the same day is there already (kept)."""
    machine = meta.get("machine") or machine_info()
    meta = {**meta, "machine": machine}
    where = "-".join(machine["gpu"].lower().split()[:2]) if machine.get("gpu") else machine["host"]  # "nvidia-h100", or the host
    host = re.sub(r"[^A-Za-z0-9_.-]", "_", where)
    suffix = "-" + re.sub(r"[^A-Za-z0-9_.-]", "_", tag) if tag else ""
    base = Path(out_dir) / f"{name}-{machine['date'][:10]}-{host}{suffix}"
    stem, n = base, 1
    while stem.with_suffix(".json").exists() or stem.with_suffix(".md").exists():
        n += 1
        stem = base.with_name(f"{base.name}-{n}")
    stem.parent.mkdir(parents=True, exist_ok=True)
    json_path, md_path = stem.with_suffix(".json"), stem.with_suffix(".md")
    record = {"name": name, "meta": meta, "rows": rows}
    json_path.write_text(json.dumps(record, indent=2, default=str))
    where = f"{machine['date']} on {host}: {machine['cpu']}, GPU {machine['gpu']}"
    header = [f"# {name}", "", where, ""]
    md_path.write_text("\n".join(header + _table(rows, _columns(rows))) + "\n")
    _chart(rows, f"{name}, {where}", stem.with_suffix(".png"))
    return json_path, md_path


def _chart(rows: list[dict], title: str, path: Path) -> None:
    """One bar per row, labelled by its text columns; nothing without matplotlib or times."""
    value = next((k for k in TIMES if any(isinstance(r.get(k), int | float) for r in rows)), None)
    if value is None:
        return
    try:
        import matplotlib
    except ImportError:
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    drawn = [r for r in rows if isinstance(r.get(value), int | float)]
    labels = [" ".join(str(v) for k, v in r.items() if isinstance(v, str) and len(v) < 40) for r in drawn]
    fig, ax = plt.subplots(figsize=(10, 1.0 + 0.28 * len(drawn)))
    ax.barh(range(len(drawn)), [r[value] for r in drawn], color="tab:blue")
    ax.set_yticks(range(len(drawn)), labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel(f"{value} (log scale)")
    ax.set_title(title, fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def compile_peers(units: dict[str, tuple[str, Path, str]], header: str, out: Path, nvcc: list[str]) -> dict[str, Path]:
    """Compile peer codes into ``out``, in parallel, each with ``header`` force-included (their
    CUDA 13 fixes): ``units`` maps name -> (source text, include folder, what to call it in an
    error). Returns name -> executable."""
    import subprocess

    out.mkdir(parents=True, exist_ok=True)
    (out / "cuda13.h").write_text(header)
    jobs = {}
    for name, (code, include, _) in units.items():
        (out / f"{name}.cu").write_text(code)
        cmd = [*nvcc, "-I", str(include), "-include", str(out / "cuda13.h"), "-o", str(out / name), str(out / f"{name}.cu")]
        jobs[name] = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for name, job in jobs.items():
        log = job.communicate()[0]
        if job.returncode:
            raise RuntimeError(f"nvcc could not build {units[name][2]}:\n{log}")
    return {name: out / name for name in jobs}


def publish(name: str, rows: list[dict], meta: dict, out_dir: str | Path = RESULTS_DIR, tag: str | None = None, columns: list[str] | None = None) -> tuple[Path, Path]:
    """``write_results``, then the rows as a table (``columns``, default all) and where they went."""
    paths = write_results(name, rows, meta, out_dir, tag)
    print()
    print_table(rows, columns)
    print(f"\nwrote {paths[0]} and {paths[1]}")
    return paths


def print_table(rows: list[dict], columns: list[str] | None = None) -> None:
    """Print ``rows`` as an aligned markdown table (all keys, in first-seen order, by default)."""
    print("\n".join(_table(rows, columns or _columns(rows))))


def _table(rows: list[dict], columns: list[str]) -> list[str]:
    cells = [columns] + [[_format(row.get(c, "")) for c in columns] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(columns))]
    lines = ["| " + " | ".join(v.ljust(w) for v, w in zip(r, widths)) + " |" for r in cells]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return lines


def _columns(rows: list[dict]) -> list[str]:
    return list(dict.fromkeys(key for row in rows for key in row))


def _format(value: object) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            model = next(line for line in f if line.startswith("model name"))
        return model.split(":", 1)[1].strip()
    except (OSError, StopIteration):
        return platform.processor() or platform.machine()


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def _gpu_name() -> str | None:
    try:
        import cupy

        name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
        return name.decode() if isinstance(name, bytes) else name
    except Exception:  # noqa: BLE001 (no cupy, no driver or no device: a CPU-only machine)
        return None
