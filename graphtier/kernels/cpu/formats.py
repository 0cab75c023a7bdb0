"""Per-format neighbour access on the CPU: the only kernel code that knows a payload layout.

Each ``*_neighbors(words, table, c, v, lo, hi, scratch)`` returns the destinations of source ``v``
held by chunk ``c`` at chunk-local edge positions ``lo:hi``, read from the encoded arena in place
(a view for ``csr``; compressed formats decode that one sub-list into ``scratch``). ``words`` is
the arena viewed as the format's word type, given beside each function in ``NEIGHBORS`` (None:
the id width). Chunks were validated before: a sub-list decodes to exactly ``hi - lo`` ids.

``PUSH_VISITORS`` (``operators``) pairs a neighbors function with a fused push visitor, which
``advance`` uses in its place: ``ef``'s, which visits each id as it decodes it.
"""

from __future__ import annotations

from numba import njit

from ...tiering.resident import PAYLOAD_START
from .cgr import WORD as CGR_WORD
from .cgr import cgr_neighbors
from .ef import WORD as EF_WORD
from .ef import ef_neighbors, ef_push
from .log import WORD as LOG_WORD
from .log import log_neighbors
from .operators import PUSH_VISITORS


@njit(inline="always")
def csr_neighbors(words, table, c, v, lo, hi, scratch):
    base = table[c, PAYLOAD_START] // words.itemsize
    return words[base + lo : base + hi]


NEIGHBORS = {
    "csr": (csr_neighbors, None),
    "log": (log_neighbors, LOG_WORD),
    "ef": (ef_neighbors, EF_WORD),
    "cgr": (cgr_neighbors, CGR_WORD),
}
PUSH_VISITORS[ef_neighbors] = ef_push
