"""Per-format neighbour access on the CPU: the only code that knows a chunk's payload layout.

Each ``*_neighbors(words, table, c, v, lo, hi, scratch)`` returns the destinations of source ``v``
held by chunk ``c`` at chunk-local edge positions ``lo:hi``, read from the encoded arena in place
(a view for ``csr``; later formats decode one sub-list into ``scratch``).
"""

from __future__ import annotations

from numba import njit

from ...tiering.resident import PAYLOAD_START


@njit(inline="always")
def csr_neighbors(words, table, c, v, lo, hi, scratch):
    base = table[c, PAYLOAD_START] // words.itemsize
    return words[base + lo : base + hi]


NEIGHBORS = {"csr": csr_neighbors}
