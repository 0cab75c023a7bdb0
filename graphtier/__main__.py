"""``graphtier`` (the installed command) and ``python -m graphtier``: the command line, with the
GPU's driver starting on another thread while the command's modules import, since each takes
a share of a cold call on a GPU host (benchmarks/results/gpu-2026-11-27-session18-notes.md)."""

from __future__ import annotations

import ctypes
import itertools
import sys
import threading


def console() -> None:
    if not on_cpu(sys.argv[1:]):
        threading.Thread(target=start_driver, name="graphtier-cuinit", daemon=True).start()
    from .cli import console as run

    run()


def on_cpu(argv: list[str]) -> bool:
    """Whether the command line asks for the CPU (``--device cpu``), so that no driver is started."""
    return "--device=cpu" in argv or any(a == "--device" and b == "cpu" for a, b in itertools.pairwise(argv))


def start_driver() -> None:
    """``cuInit``, which CuPy's first call would otherwise make while the command waits; through
    ctypes, which lets the importing thread run meanwhile. Without a driver, nothing: a command
    that needs the GPU says so itself."""
    try:
        ctypes.CDLL("libcuda.so.1").cuInit(0)
    except OSError:
        pass


if __name__ == "__main__":
    console()
