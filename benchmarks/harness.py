"""Shared plumbing for the benchmark scripts: what machine, how long, and where the figures go.

Every figure is recorded with the machine it was measured on (BENCHMARKS.md: compare only ratios
measured side by side, and name the device).
"""

from __future__ import annotations

import json
import os
import platform
import re
import socket
import statistics
import time
from collections.abc import Callable
from datetime import datetime
from importlib import metadata
from pathlib import Path
from typing import Any

RESULTS_DIR = Path(__file__).resolve().parent / "results"


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


def write_results(name: str, rows: list[dict], meta: dict, out_dir: str | Path = RESULTS_DIR, tag: str | None = None) -> tuple[Path, Path]:
    """Write ``<name>-<date>-<host>[-<tag>].json`` (rows, meta, machine) and a markdown table beside
    it; ``-2``, ``-3``... after that where a run of the same day is there already (kept)."""
    machine = meta.get("machine") or machine_info()
    meta = {**meta, "machine": machine}
    host = re.sub(r"[^A-Za-z0-9_.-]", "_", machine["host"])
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
    return json_path, md_path


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
