"""The shared shape of every graph chunk codec: sorted (src, dst) rows in, self-describing bytes out.

Each format subclasses :class:`GraphChunkCodec` and supplies only how one chunk's sub-lists become
a local index and a payload, and back. Header handling, input checks and padding live here once.
"""

from __future__ import annotations

import numpy as np
from numcodecs.abc import Codec
from numcodecs.compat import ensure_contiguous_ndarray

from ..errors import CorruptChunkError
from .header import HEADER_BYTES, ChunkHeader, pad8, read_header, register_format


def _as_rows(buf) -> np.ndarray:
    rows = np.asarray(buf)
    if rows.ndim != 2 or rows.shape[1] != 2 or rows.dtype not in (np.uint32, np.uint64):
        raise ValueError(f"expected an (n, 2) uint32 or uint64 array of (src, dst) rows, got {rows.shape} {rows.dtype}")
    return rows


def check_sorted(src: np.ndarray, dst: np.ndarray) -> None:
    """Rows must be ordered by (src, dst); duplicates are allowed (a build may keep them)."""
    if len(src) < 2:
        return
    bad = (src[1:] < src[:-1]) | ((src[1:] == src[:-1]) & (dst[1:] < dst[:-1]))
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"rows are not sorted by (src, dst) at row {i + 1}: {src[i]},{dst[i]} then {src[i + 1]},{dst[i + 1]}")


def local_offsets(src: np.ndarray, first: int, n_local: int) -> np.ndarray:
    """Start of each local source's sub-list within the chunk (n_local + 1 entries)."""
    counts = np.bincount((src - src.dtype.type(first)).astype(np.int64), minlength=n_local)
    offsets = np.zeros(n_local + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])
    return offsets


class GraphChunkCodec(Codec):
    """Base of the per-format codecs; ``decode`` returns the (n, 2) rows of the chunk."""

    format: str = ""
    format_code: int = -1  # the byte naming the format in every chunk header
    # Whether the traversal kernels read the local index (csr and log find lists through the
    # global indptr): the scheduler then keeps every chunk's index on the device.
    kernels_read_index: bool = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        register_format(cls.format, cls.format_code)
        cls.codec_id = f"graphtier.{cls.format}"

    def encode(self, buf) -> np.ndarray:
        rows = _as_rows(buf)
        src, dst = rows[:, 0], rows[:, 1]
        check_sorted(src, dst)
        n = len(rows)
        first = int(src[0]) if n else 0
        last = int(src[-1]) if n else 0
        n_local = last - first + 1 if n else 0
        offsets = local_offsets(src, first, n_local) if n else np.zeros(1, np.int64)
        index, payload = (np.ascontiguousarray(a).view(np.uint8) for a in self.encode_lists(offsets, dst, first))
        header = ChunkHeader(self.format, rows.dtype.itemsize, n, first, last, pad8(len(index)), len(payload))
        out = np.zeros(header.total_bytes, np.uint8)
        out[:HEADER_BYTES] = np.frombuffer(header.pack(), np.uint8)
        out[header.index_start : header.index_start + len(index)] = index
        out[header.payload_start : header.payload_start + len(payload)] = payload
        return out

    def decode(self, buf, out=None) -> np.ndarray:
        header, offsets, dst = self._lists(buf)
        rows = np.empty((header.n_edges, 2), dst.dtype) if out is None else out.reshape(-1, 2)[: header.n_edges]
        rows[:, 0] = np.repeat(np.arange(header.n_local, dtype=np.uint64) + np.uint64(header.first_src), np.diff(offsets))
        rows[:, 1] = dst
        return rows

    def check(self, buf, n_vertices: int) -> tuple[ChunkHeader, np.ndarray]:
        """Validate a chunk before a kernel traverses it: well formed, every id below ``n_vertices``.

        Returns the header and the sub-list offsets, which the caller checks against ``indptr``:
        a kernel decoding one sub-list then finds exactly the edges ``indptr`` promises.
        """
        header, offsets, _ = self.checked_lists(buf, n_vertices)
        return header, offsets

    def checked_lists(self, buf, n_vertices: int) -> tuple[ChunkHeader, np.ndarray, np.ndarray]:
        """``check``, returning the decoded sub-lists too: (header, offsets, dst)."""
        header, offsets, dst = self._lists(buf)
        if header.n_edges and (header.last_src >= n_vertices or int(dst.max()) >= n_vertices):
            raise CorruptChunkError(f"chunk holds a vertex id at or above the graph's {n_vertices} vertices")
        return header, offsets, dst

    def _lists(self, buf) -> tuple[ChunkHeader, np.ndarray, np.ndarray]:
        data = ensure_contiguous_ndarray(buf).view(np.uint8).ravel()
        header = read_header(data, self.format)
        index = data[header.index_start : header.payload_start]
        payload = data[header.payload_start : header.payload_start + header.payload_bytes]
        offsets, dst = self.decode_lists(header, index, payload, np.dtype(f"<u{header.id_bytes}"))
        if len(offsets) != header.n_local + 1 or offsets[0] != 0 or offsets[-1] != header.n_edges or len(dst) != header.n_edges:
            raise CorruptChunkError("local index does not describe the chunk's edges")
        if (np.diff(offsets) < 0).any():
            raise CorruptChunkError("local index is not monotone")
        return header, offsets, dst

    def encode_lists(self, offsets: np.ndarray, dst: np.ndarray, first_src: int) -> tuple[np.ndarray, np.ndarray]:
        """(local index, payload), little-endian arrays, for sub-lists ``dst[offsets[i]:offsets[i+1]]``
        of sources ``first_src, first_src + 1, ...`` (gap codes count from the source)."""
        raise NotImplementedError

    def decode_lists(self, header: ChunkHeader, index: np.ndarray, payload: np.ndarray, id_dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
        """(offsets, dst) back from the sections; must check every size it reads."""
        raise NotImplementedError
