"""Memory budgets: sizes such as "1GiB" or "512 MB", and what a machine has when none is given."""

from __future__ import annotations

import os
import re

UNITS = {"": 1, "b": 1, "k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12, "ki": 2**10, "mi": 2**20, "gi": 2**30, "ti": 2**40}
# Left to everything else on the machine when a budget is not given: this share, at least MARGIN_MIN.
MARGIN, MARGIN_MIN = 0.1, 1 << 30


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


def host_available() -> int:
    """Physical memory of this machine, less the margin."""
    return less_margin(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))


def device_available() -> int:
    """Free memory of the current GPU, less the margin."""
    import cupy

    free, _ = cupy.cuda.runtime.memGetInfo()
    return less_margin(free + cupy.get_default_memory_pool().free_bytes())
