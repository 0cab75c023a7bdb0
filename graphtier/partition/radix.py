"""Parallel LSD radix sort of packed (src << 32 | dst) keys, with an optional float32 payload.

np.sort takes ~115 ns per uint64 key here; graph keys have few significant bits, so 3-5 stable
counting passes over both cores do the same job several times faster.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange


@njit(parallel=True, cache=True)
def _pass(src, dst, wsrc, wdst, shift, digit_bits, has_w, nthreads):
    n = len(src)
    radix = 1 << digit_bits
    mask = np.uint64(radix - 1)
    sh = np.uint64(shift)
    step = (n + nthreads - 1) // nthreads
    counts = np.zeros((nthreads, radix), np.int64)
    for t in prange(nthreads):
        for i in range(t * step, min(n, (t + 1) * step)):
            counts[t, (src[i] >> sh) & mask] += 1
    total = 0
    for d in range(radix):
        for t in range(nthreads):
            c = counts[t, d]
            counts[t, d] = total
            total += c
    for t in prange(nthreads):
        for i in range(t * step, min(n, (t + 1) * step)):
            d = (src[i] >> sh) & mask
            j = counts[t, d]
            dst[j] = src[i]
            if has_w:
                wdst[j] = wsrc[i]
            counts[t, d] = j + 1


def radix_sort(keys: np.ndarray, weights: np.ndarray | None = None) -> None:
    """Sort ``keys`` (uint64) in place, carrying ``weights`` along stably; one scratch copy."""
    n = len(keys)
    if n == 0:
        return
    bits = int(keys.max()).bit_length()
    passes = max(1, -(-bits // 10))  # 10-bit digits keep the scatter targets in cache
    digit_bits = max(1, -(-bits // passes))
    has_w = weights is not None
    a, b = keys, np.empty_like(keys)
    wa = weights if has_w else np.empty(0, np.float32)
    wb = np.empty_like(wa)
    nthreads = numba.get_num_threads()
    for p in range(passes):
        _pass(a, b, wa, wb, p * digit_bits, digit_bits, has_w, nthreads)
        a, b, wa, wb = b, a, wb, wa
    if a is not keys:
        keys[:] = a
        if has_w:
            weights[:] = wa
