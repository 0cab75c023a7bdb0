"""Neighbour access for ``csr`` chunks on the CPU: a view of the destination ids in place."""

from __future__ import annotations

from numba import njit

from ...tiering.resident import PAYLOAD_START

WORD = None  # the arena as words as wide as the ids


@njit(inline="always")
def csr_neighbors(words, table, c, v, lo, hi, scratch):
    base = table[c, PAYLOAD_START] // words.itemsize
    return words[base + lo : base + hi]
