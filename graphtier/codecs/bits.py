"""Bit arithmetic shared by the Numba codecs."""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import leading_zeros


@njit(cache=True, inline="always")
def bit_length(x) -> int:
    """Bits needed for the unsigned value ``x`` (0 for 0)."""
    return 64 - np.int64(leading_zeros(np.uint64(x)))
