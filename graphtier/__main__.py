"""``graphtier`` (the installed command) and ``python -m graphtier``: the command line, with the
GPU's driver starting on another thread while the command's modules import, since each takes
a share of a cold call on a GPU host (benchmarks/results/gpu-2026-11-27-session18-notes.md);
for a query on the default device, that device's context too (session 24's notes)."""

from __future__ import annotations

import ctypes
import itertools
import sys
import threading

QUERIES = frozenset({"bfs", "sssp", "pagerank", "cc", "scc", "mst", "mis", "color", "bc"})  # cli.py's algorithm commands (test_cli keeps them equal)


def console() -> None:
    argv = sys.argv[1:]
    if not on_cpu(argv):
        threading.Thread(target=start_driver, args=(default_device_query(argv),), name="graphtier-cuinit", daemon=True).start()
    from .cli import console as run

    run()


def on_cpu(argv: list[str]) -> bool:
    """Whether the command line asks for the CPU (``--device cpu``), so that no driver is started."""
    return "--device=cpu" in argv or any(a == "--device" and b == "cpu" for a, b in itertools.pairwise(argv))


def default_device_query(argv: list[str]) -> bool:
    """Whether the command line runs a query on the default device (not split over ``--devices``)."""
    return bool(argv) and argv[0] in QUERIES and not any(a == "--devices" or a.startswith("--devices=") for a in argv)


def start_driver(context: bool = False) -> None:
    """``cuInit`` and, with ``context``, device 0's primary context (CuPy's default device, whose
    context CuPy then uses), which CuPy's first calls would otherwise make while the command
    waits; through ctypes, which lets the importing thread run meanwhile. Without a driver,
    nothing: a command that needs the GPU says so itself."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return
    device, ctx = ctypes.c_int(), ctypes.c_void_p()
    if cuda.cuInit(0) == 0 and context and cuda.cuDeviceGet(ctypes.byref(device), 0) == 0:
        cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), device)


if __name__ == "__main__":
    console()
