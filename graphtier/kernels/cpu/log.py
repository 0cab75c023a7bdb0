"""Neighbour access for ``log`` chunks (MPLG's fixed-width packing) on the CPU.

The payload starts with b in one word, then the packed ids: local edge i of chunk c starts at bit
``i * b`` after that word, so the sub-list of ``v`` at local positions ``lo:hi`` decodes straight
from the arena into ``scratch`` with the codec's own decoder, :func:`decode_list_log`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...codecs.log import _word_log2, decode_list_log
from ...tiering.resident import CHUNK_EDGES, PAYLOAD_START

# The arena view this kernel reads: words as wide as the ids (uint32 for 32-bit ids, uint64 for
# 64-bit ids), as the format registry's None means.
WORD = None


@njit(inline="always")
def log_neighbors(words, table, c, v, lo, hi, scratch):
    sh = _word_log2(words)  # 5 or 6, a compile-time constant
    base = table[c, PAYLOAD_START] >> (sh - 3)
    b = np.int64(words[base])
    # Words readable after b: the data words and the padding word (the chunk was validated, so
    # this is exactly its payload; the decoder stays inside it).
    nwords = ((table[c, CHUNK_EDGES] * b + (1 << sh) - 1) >> sh) + 1
    n = decode_list_log(words, base + 1, nwords, b, lo, hi, scratch)
    return scratch[: max(n, 0)]
