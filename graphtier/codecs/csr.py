"""The uncompressed baseline: destination ids as plain 32- or 64-bit words.

Its local index is the chunk's own slice of ``indptr`` (32-bit, one entry per local source plus
one), which lets a chunk decode alone; kernels use the global ``indptr`` instead and never read it.
"""

from __future__ import annotations

import numpy as np

from ..errors import CorruptChunkError
from .base import GraphChunkCodec
from .header import ChunkHeader, pad8


class CsrCodec(GraphChunkCodec):
    format = "csr"
    format_code = 0

    def encode_lists(self, offsets: np.ndarray, dst: np.ndarray, first_src: int) -> tuple[np.ndarray, np.ndarray]:
        return offsets.astype("<u4"), dst.astype(dst.dtype.newbyteorder("<"), copy=False)

    def decode_lists(self, header: ChunkHeader, index: np.ndarray, payload: np.ndarray, id_dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
        if header.index_bytes != pad8(4 * (header.n_local + 1)) or header.payload_bytes != header.n_edges * header.id_bytes:
            raise CorruptChunkError("csr section sizes do not match the edge and source counts")
        offsets = index[: 4 * (header.n_local + 1)].view("<u4").astype(np.int64)
        return offsets, payload.view(id_dtype)
