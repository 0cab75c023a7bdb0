"""Neighbour access for the ``ef`` format: decode one Elias-Fano sub-list from the arena.

The arena is read as bytes (``WORD``). Source ``v``'s local index record gives its sub-list's byte
offset and low-bit width; the next record's offset ends it. Decoding is the codec's own
``ef_decode_list``, the function ``decode_lists`` runs on every sub-list, so both read the same
bytes the same way; here with ``check=False``, since the chunk was validated when it entered the
arena. Reads still stay inside the chunk: 8-byte loads that start inside a list end at worst in
the payload's 8 bytes of slack, and index windows at worst in the payload that follows the index.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...codecs.ef import PREAMBLE_BYTES, ef_decode_list, load8
from ...tiering.resident import FIRST_SRC, INDEX_START, PAYLOAD_START

WORD = np.uint8
_ANY_ID = np.uint64(2**64 - 1)


@njit(inline="always")
def _field(words, bit, width):
    """``width`` (<= 56) bits at absolute bit ``bit`` of the arena, from one 8-byte window."""
    return np.int64((load8(words, bit >> 3) >> np.uint64(bit & 7)) & ((np.uint64(1) << np.uint64(width)) - np.uint64(1)))


@njit(inline="always")
def ef_neighbors(words, table, c, v, lo, hi, scratch):
    """Destinations of ``v`` in chunk ``c``; ``lo:hi`` must be its whole sub-list there (as ``advance`` passes)."""
    ib = table[c, INDEX_START]
    pre = load8(words, ib)
    wo = np.int64(pre & np.uint64(0xFF))
    wl = np.int64((pre >> np.uint64(8)) & np.uint64(0xFF))
    wd = np.int64((pre >> np.uint64(16)) & np.uint64(0xFF))
    q = np.int64(pre >> np.uint64(32))
    rec = (ib + PREAMBLE_BYTES) * 8 + (v - table[c, FIRST_SRC]) * (wo + wl + wd)
    pb = table[c, PAYLOAD_START]
    start = pb + _field(words, rec, wo)
    end = pb + _field(words, rec + wo + wl + wd, wo)
    l = _field(words, rec + wo, wl)
    n = ef_decode_list(words, start, end, hi - lo, l, q, _ANY_ID, scratch, 0, False)
    return scratch[: max(n, 0)]
