"""Neighbour access for the ``ef`` format: decode one Elias-Fano sub-list from the arena.

The arena is read as bytes (``WORD``). Source ``v``'s local index record gives its sub-list's byte
offset and low-bit width; the next record's offset ends it. Decoding is the codec's one EF decoder,
the one ``decode_lists`` runs on every sub-list, so both read the same bytes the same way; here
built without the checks of canonical form, since the chunk was validated when it entered the
arena (``tiering/resident.py``).

Two entry points: ``ef_neighbors`` decodes the list into ``scratch`` and returns it, as every
format's kernel does (``ef_decode_bounded``, memory-safe whatever the bytes); ``ef_push`` hands
each id to the push visitor as soon as it is decoded (``ef_decode_push``), one loop per list
instead of a decode loop and then a visit loop; ``operators.advance`` inlines it (the format
registry, ``kernels/formats.py``, names it). On cnr-2000 (13 ids per non-empty list) push BFS takes 20.3 ms that
way against 29.1 through ``ef_neighbors``.

Reads stay inside the chunk: the preamble and record windows start inside the index and end at
worst 7 bytes later, in the index's padding or the payload that follows it; list loads start
before the list's n-th one-bit, so before its end, and end at worst in the payload's 8 bytes of
slack (``ef_push`` relies on the chunk being valid for this: it does not read the list's end).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...codecs.ef import PREAMBLE_BYTES, ef_decode_list, ef_decode_push, load8
from ...tiering.resident import FIRST_SRC, INDEX_START, PAYLOAD_START

WORD = np.uint8
_ANY_ID = np.uint64(2**64 - 1)


@njit(inline="always")
def _field(words, bit, width):
    """``width`` (<= 56) bits at absolute bit ``bit`` of the arena, from one 8-byte window."""
    return np.int64((load8(words, bit >> 3) >> np.uint64(bit & 7)) & ((np.uint64(1) << np.uint64(width)) - np.uint64(1)))


@njit(inline="always")
def _record(words, table, c, v):
    """Where ``v``'s record of chunk ``c`` starts, ``(bit, wo, wl, wd, quantum)``: the preamble (in one
    load) gives the field widths and the quantum, the record is at ``(wo + wl + wd) (v - first_src)``."""
    ib = table[c, INDEX_START]
    pre = load8(words, ib)
    wo = np.int64(pre & np.uint64(0xFF))
    wl = np.int64((pre >> np.uint64(8)) & np.uint64(0xFF))
    wd = np.int64((pre >> np.uint64(16)) & np.uint64(0xFF))
    q = np.int64(pre >> np.uint64(32))
    rec = (ib + PREAMBLE_BYTES) * 8 + (v - table[c, FIRST_SRC]) * (wo + wl + wd)
    return rec, wo, wl, wd, q


@njit(inline="always")
def _locate(words, table, c, v):
    """``(start, end, l, quantum)`` of ``v``'s sub-list in chunk ``c``: the arena offsets of its bytes
    (its record's offset and the next record's), its low-bit width, the chunk's quantum."""
    rec, wo, wl, wd, q = _record(words, table, c, v)
    pb = table[c, PAYLOAD_START]
    return pb + _field(words, rec, wo), pb + _field(words, rec + wo + wl + wd, wo), _field(words, rec + wo, wl), q


@njit(inline="always")
def ef_neighbors(words, table, c, v, lo, hi, scratch):
    """Destinations of ``v`` in chunk ``c``; ``lo:hi`` must be its whole sub-list there (as ``advance`` passes)."""
    start, end, l, q = _locate(words, table, c, v)
    n = ef_decode_list(words, start, end, hi - lo, l, q, _ANY_ID, scratch, 0, False)
    return scratch[: max(n, 0)]


@njit(inline="always")
def ef_push(words, table, c, v, lo, hi, scratch, functor, state, first, out, n_out):
    """``advance``'s inner loop for ``ef``: each destination ``u`` of ``v`` in chunk ``c`` is
    appended to ``out`` at ``n_out`` when ``functor(v, u, first + i, 1.0, state)`` holds (``i``
    its rank in the sub-list, ``first`` the list's first edge), as it is decoded; returns the
    last ``n_out``. ``lo:hi`` must be ``v``'s whole sub-list there; ``scratch`` (unused but for its
    dtype, the ids') as ``advance`` passes it."""
    rec, wo, wl, _, q = _record(words, table, c, v)
    start = table[c, PAYLOAD_START] + _field(words, rec, wo)
    l = _field(words, rec + wo, wl)
    # the list's end (the next record's offset) is not needed: the chunk was validated
    top = np.uint64(scratch.dtype.type(-1))  # the largest id: a constant, which lets l <= 56 be one
    _, n_out = ef_decode_push(words, start, -1, hi - lo, l, q, top, scratch, 0, functor, v, state, first, out, n_out)
    return n_out
