"""Memory budgets: sizes such as "1GiB" or "512 MB", what a machine has when none is given, the
rule for a budget larger than the machine (refused), and allocation failures named.

A budget above what the device or the host has in all can never be honoured: a run would fail
part-way, or on the host be killed by the kernel once overcommitted pages are touched. It is
refused before any work (``BudgetError``), naming the budget and what the machine has. A budget
within that which the machine cannot give at the moment (other processes hold the memory) ends
in ``OutOfMemoryError`` at the allocation that fails, naming what it was for and its size.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Iterator

from ..errors import BudgetError, OutOfMemoryError

UNITS = {"": 1, "b": 1, "k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12, "ki": 2**10, "mi": 2**20, "gi": 2**30, "ti": 2**40}
# Left to everything else on the machine when a budget is not given: this share, at least MARGIN_MIN.
MARGIN, MARGIN_MIN = 0.1, 1 << 30
CGROUP_LIMIT = "/sys/fs/cgroup/memory.max"  # a container's memory limit (cgroup v2), "max" when none
CUDA_OUT_OF_MEMORY = 2  # cudaErrorMemoryAllocation and CUDA_ERROR_OUT_OF_MEMORY alike


def parse_size(size: int | str) -> int:
    """Bytes in ``size``: an int, or a number with a unit (B, kB, MB, GB, TB, KiB, MiB, GiB, TiB)."""
    if isinstance(size, int) and not isinstance(size, bool):
        if size < 0:
            raise ValueError(f"a memory size cannot be negative, got {size}")
        return size
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]i?)?b?\s*", str(size), re.IGNORECASE)
    if m is None:
        raise ValueError(f"not a memory size: {size!r} (examples: 1GiB, 512MB, 1073741824)")
    return int(float(m[1]) * UNITS[(m[2] or "").lower()])


def less_margin(total: int) -> int:
    return max(0, total - max(int(total * MARGIN), MARGIN_MIN))


def host_total() -> int:
    """Memory this process may have in all: the machine's physical memory, or its container's
    limit when that is lower (the kernel kills a process that outgrows it)."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    try:
        with open(CGROUP_LIMIT) as f:
            limit = f.read().strip()
    except OSError:
        return total
    return min(total, int(limit)) if limit.isdigit() else total


def host_available() -> int:
    """Memory of this machine (or container), less the margin."""
    return less_margin(host_total())


def device_total() -> tuple[int, str]:
    """(bytes, name) of the current GPU: all its memory, free or not."""
    import cupy

    _, total = cupy.cuda.runtime.memGetInfo()
    name = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)["name"]
    return total, name.decode() if isinstance(name, bytes) else str(name)


def device_available() -> int:
    """Free memory of the current GPU, less the margin."""
    import cupy

    free, _ = cupy.cuda.runtime.memGetInfo()
    return less_margin(free + cupy.get_default_memory_pool().free_bytes())


def check_budgets(device_memory: int | str | None, host_memory: int | str | None, backend: str) -> None:
    """Refuses (``BudgetError``) a budget given above what its memory has in all: ``device_memory``
    against the GPU's memory, or on the CPU backend, whose device is simulated in host memory,
    against the host's; ``host_memory`` against the host's. Budgets left out are within already."""
    if host_memory is not None:
        _within("host_memory", host_memory, host_total(), "this machine has")
    if device_memory is not None and backend == "cuda":
        total, name = device_total()
        _within("device_memory", device_memory, total, f"the GPU ({name}) has")
    elif device_memory is not None:
        _within("device_memory", device_memory, host_total(), "this machine has (the CPU backend simulates its device in host memory)")


def _within(name: str, budget: int | str, total: int, holder: str) -> None:
    if parse_size(budget) > total:
        raise BudgetError(f"{name}={budget} ({parse_size(budget):,} bytes) is more than {holder} in all ({total:,} bytes): give at most that, or leave it out for what is free")


def allocation_failure(e: BaseException) -> bool:
    """Whether ``e`` is an allocator's refusal: a MemoryError (NumPy's, CuPy's OutOfMemoryError) or
    CUDA's out-of-memory status (cudaHostAlloc for pinned memory, a module or launch that needs
    device memory)."""
    if isinstance(e, MemoryError):
        return True
    cupy = sys.modules.get("cupy")
    if cupy is None:
        return False
    cuda_errors = (cupy.cuda.runtime.CUDARuntimeError, cupy.cuda.driver.CUDADriverError)
    return isinstance(e, cuda_errors) and getattr(e, "status", None) == CUDA_OUT_OF_MEMORY


@contextlib.contextmanager
def allocating(what: str, nbytes: int, where: str) -> Iterator[None]:
    """An allocation failure inside becomes an ``OutOfMemoryError`` naming ``what`` was being
    allocated, its ``nbytes`` and ``where`` ("GPU", "pinned host", "host")."""
    try:
        yield
    except OutOfMemoryError:
        raise
    except Exception as e:
        if not allocation_failure(e):
            raise
        raise OutOfMemoryError(what, nbytes, where) from e
