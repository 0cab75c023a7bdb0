"""The storage tier: encoded chunk bytes straight from any Zarr store, read in parallel.

Chunks are never run through Zarr's decode path here; only their crc32c is checked and stripped,
so what comes back is exactly the bytes a kernel will traverse.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import google_crc32c
import numpy as np
import zarr
from zarr.abc.store import RangeByteRequest
from zarr.core.buffer import default_buffer_prototype
from zarr.core.sync import sync

from ..codecs import HEADER_BYTES, ChunkHeader, read_header
from ..errors import CorruptChunkError, StoreError

CRC_BYTES = 4


class ChunkStore:
    """Read access to the stored chunks of one array (``adj``, or raw ``weights``), split along
    its first axis."""

    def __init__(self, array: zarr.Array, fmt: str):
        self.array = array
        self.format = fmt
        self.name = array.path
        self.n_chunks = array.cdata_shape[0]
        self._store = array.store_path.store

    def key(self, c: int) -> str:
        return f"{self.array.path}/{self.array.metadata.encode_chunk_key((c,) + (0,) * (self.array.ndim - 1))}"

    def read(self, chunk_ids: Sequence[int]) -> list[np.ndarray]:
        """The chunks' encoded bytes (crc checked and removed), fetched concurrently."""
        raw = self._gather([self._store.get(self.key(c), prototype=default_buffer_prototype()) for c in chunk_ids], chunk_ids)
        return [self._strip_crc(c, b) for c, b in zip(chunk_ids, raw)]

    def headers(self, chunk_ids: Sequence[int]) -> list[ChunkHeader]:
        """Only the headers, by byte-range reads; ``total_bytes`` is checked against the stored size."""
        req = RangeByteRequest(0, HEADER_BYTES)
        raw = self._gather([self._store.get(self.key(c), prototype=default_buffer_prototype(), byte_range=req) for c in chunk_ids], chunk_ids)
        sizes = self.stored_bytes(chunk_ids)
        out = []
        for c, b, size in zip(chunk_ids, raw, sizes):
            head = self._present(c, b).as_numpy_array().view(np.uint8)
            try:
                h = read_header(head, self.format, nbytes=size - CRC_BYTES)
            except CorruptChunkError as e:
                raise CorruptChunkError(str(e), array=self.name, chunk=c) from None
            out.append(h)
        return out

    def stored_bytes(self, chunk_ids: Sequence[int]) -> list[int]:
        return self._gather([self._store.getsize(self.key(c)) for c in chunk_ids], chunk_ids)

    def _gather(self, coros: list, chunk_ids: Sequence[int]) -> list:
        """The coroutines' results; a failed read raises StoreError naming its chunk."""

        async def run():
            return await asyncio.gather(*coros, return_exceptions=True)

        results = sync(run())
        for c, r in zip(chunk_ids, results):
            if isinstance(r, FileNotFoundError):
                raise CorruptChunkError("chunk is missing from the store", array=self.name, chunk=c)
            if isinstance(r, Exception):
                raise StoreError(f"{self.name} chunk {c}: reading it failed: {r}") from r
        return results

    def _present(self, c: int, buf):
        if buf is None:
            raise CorruptChunkError("chunk is missing from the store", array=self.name, chunk=c)
        return buf

    def _strip_crc(self, c: int, buf) -> np.ndarray:
        data = self._present(c, buf).as_numpy_array().view(np.uint8)
        if len(data) < CRC_BYTES:
            raise CorruptChunkError("chunk is too short to hold its checksum", array=self.name, chunk=c)
        body, crc = data[:-CRC_BYTES], int(data[-CRC_BYTES:].view("<u4")[0])
        if google_crc32c.value(body.tobytes()) != crc:
            raise CorruptChunkError("crc32c mismatch", array=self.name, chunk=c)
        return body


class WeightStore:
    """Read access to the ``weights`` chunks aligned with an ``adj`` array: chunk c holds the
    float32 weights of edges ``c * chunk_edges ...``. A raw array (bytes and crc32c, as builds
    write it) is read like ``adj``, concurrently and with only its checksum checked; any other
    codec (stores built before weights were read in place) through Zarr's decode path."""

    def __init__(self, array: zarr.Array):
        self.array = array
        self.name = array.path
        self.chunk_edges = array.chunks[0]
        self.raw = [type(c).__name__ for c in array.metadata.codecs] == ["BytesCodec", "Crc32cCodec"]
        self._chunks = ChunkStore(array, "weights") if self.raw else None

    def read(self, chunk_ids: Sequence[int]) -> tuple[list[np.ndarray], int]:
        """The chunks' weights (the last chunk's padding included) and the bytes read for them."""
        if self.raw:
            blobs = self._chunks.read(chunk_ids)
            return [b.view("<f4") for b in blobs], sum(len(b) + CRC_BYTES for b in blobs)
        out = []
        for c in chunk_ids:
            try:
                out.append(np.asarray(self.array.blocks[c], np.float32))
            except Exception as e:
                raise CorruptChunkError(f"reading it failed: {e}", array=self.name, chunk=c) from e
        return out, sum(a.nbytes for a in out)
