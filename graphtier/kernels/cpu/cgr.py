"""CPU neighbour access for ``cgr`` chunks: decode one sub-list from the arena into scratch.

The arena is read as uint32 words (``WORD``). A chunk's local index starts with the 16-byte
parameter block, then one 32- or 64-bit anchor per 32 local sources and every source's bit-packed
offset from its anchor; the payload is the bit stream. ``docs/formats.md`` (section cgr) has the layout;
``graphtier.codecs.cgr.sublist_bits`` finds a sub-list and ``decode_sublist`` decodes it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...codecs.cgr import decode_chunk_sublist
from ...tiering.resident import FIRST_SRC, INDEX_START, PAYLOAD_START

WORD = np.uint32


@njit(inline="always")
def cgr_neighbors(words, table, c, v, lo, hi, scratch):
    """Ids of ``v``'s sub-list in chunk ``c`` (chunk-local edges ``lo:hi``), ascending, as ``scratch[:hi - lo]``."""
    row = (table[c, INDEX_START], table[c, PAYLOAD_START], table[c, FIRST_SRC])
    n = decode_chunk_sublist(words, row, v, hi - lo, scratch)
    return scratch[: max(n, 0)]
