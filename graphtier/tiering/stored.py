"""One direction of a stored graph as the tiers load it, whole (``resident``) or chunk by chunk
(``scheduler``), and the checks each chunk passes there, once, before any kernel may touch it: its
header against ``indptr``, its ids against the vertex count, its weights against the recorded
range. Kernels then index without bounds checks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..codecs import ChunkHeader, GraphChunkCodec
from ..errors import CorruptChunkError
from .storage import CRC_BYTES, ChunkStore, WeightStore


@dataclass
class StoredGraph:
    """``chunks`` of ``adj`` (or of its reverse) in ``codec``'s format, with the row offsets and
    sizes every chunk is checked against; ``weights``: the edges' weights, where a load takes them."""

    chunks: ChunkStore
    codec: GraphChunkCodec
    indptr: np.ndarray
    n_vertices: int
    chunk_edges: int
    id_dtype: np.dtype
    weights: WeightStore | None = None
    sizes: Sequence[int] | None = None  # each chunk's stored bytes less its checksum, where listed already

    def chunk_sizes(self) -> Sequence[int]:
        """``sizes``, listed from the store when first asked for where the caller had not: a load
        lays chunks out by them, and a chunk read later must still have its size."""
        if self.sizes is None:
            self.sizes = [size - CRC_BYTES for size in self.chunks.stored_bytes(range(self.n_chunks))]
        return self.sizes

    @property
    def n_chunks(self) -> int:
        return self.chunks.n_chunks

    def chunk_edge_counts(self) -> list[int]:
        """The edges each chunk holds: ``chunk_edges``, the last one the rest."""
        n_edges = int(self.indptr[-1])
        return [min(self.chunk_edges, n_edges - c * self.chunk_edges) for c in range(self.n_chunks)]

    def validated(self, c: int, blob: np.ndarray) -> tuple[ChunkHeader, np.ndarray, np.ndarray]:
        """Chunk ``c``'s header and decoded sub-lists (offsets, dst), once its bytes have passed
        every check a kernel relies on."""
        try:
            h, offsets, dst = self.codec.checked_lists(blob, self.n_vertices)
        except CorruptChunkError as e:
            raise self.chunks.corrupt(e.detail, c) from None
        self._check_lists(c, h, offsets)
        return h, offsets, dst

    def read(self, c: int, out: np.ndarray) -> tuple[ChunkHeader, np.ndarray, np.ndarray]:
        """Chunk ``c`` read into ``out`` (uint8, its ``chunk_sizes()[c]`` bytes: a buffer of the
        caller's, where the chunk is to stay), checksum checked, then ``validated`` there."""
        self.chunks.read_into(c, out)
        return self.validated(c, out)

    def _check_lists(self, c: int, header: ChunkHeader, offsets: np.ndarray) -> None:
        """The chunk must hold exactly the sub-lists ``indptr`` assigns to it."""
        n, first, last = _expected_sources(self.indptr, c, self.chunk_edges)
        if (header.n_edges, header.first_src, header.last_src) != (n, first, last) or header.id_bytes != self.id_dtype.itemsize:
            raise self.chunks.corrupt(f"header says {header.n_edges} edges of sources {header.first_src}..{header.last_src} ({header.id_bytes}-byte ids), indptr says {n} edges of {first}..{last}", c)
        start = c * self.chunk_edges
        expected = np.clip(self.indptr[first : last + 2], start, start + n) - start if n else np.zeros(1, np.int64)
        if not np.array_equal(offsets, expected):
            raise self.chunks.corrupt("sub-list lengths disagree with indptr", c)


def _expected_sources(indptr: np.ndarray, c: int, chunk_edges: int) -> tuple[int, int, int]:
    """(edge count, first source, last source) that chunk ``c`` must hold, from ``indptr`` alone."""
    n_edges = int(indptr[-1])
    lo, hi = c * chunk_edges, min(n_edges, (c + 1) * chunk_edges)
    first = int(np.searchsorted(indptr, lo, side="right")) - 1
    last = int(np.searchsorted(indptr, hi - 1, side="right")) - 1
    return hi - lo, first, last


def validated_weights(store: WeightStore, c: int, weights: np.ndarray, n_edges: int) -> np.ndarray:
    """Chunk ``c``'s weights, its first ``n_edges``, once they are known to be finite numbers within
    the range the build recorded."""
    if len(weights) < n_edges:
        raise store.corrupt(f"holds {len(weights)} weights for {n_edges} edges", c)
    weights = weights[:n_edges]
    bad = ~np.isfinite(weights)
    if store.bounds is not None:  # outside the recorded range is damage: algorithms trust that range
        bad |= (weights < np.float64(store.bounds[0])) | (weights > np.float64(store.bounds[1]))
    if bad.any():
        i = int(np.argmax(bad))
        where = f", outside the recorded {store.bounds[0]}..{store.bounds[1]}" if store.bounds is not None else ""
        raise store.corrupt(f"weight of edge {c * store.chunk_edges + i} is {weights[i]}{where}", c)
    return weights
