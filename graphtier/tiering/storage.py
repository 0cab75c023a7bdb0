"""The storage tier: encoded chunk bytes straight from any Zarr store, read in parallel.

Chunks are never run through Zarr's decode path here; only their crc32c is checked and stripped,
so what comes back is exactly the bytes a kernel will traverse.
"""

from __future__ import annotations

import asyncio
import functools
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, wait

import google_crc32c
import numpy as np
import zarr
from zarr.abc.store import RangeByteRequest
from zarr.core.buffer import default_buffer_prototype
from zarr.core.sync import sync
from zarr.storage import LocalStore

from ..codecs import HEADER_BYTES, ChunkHeader, read_header
from ..errors import CorruptChunkError, StoreError, StoreReplacedError

CRC_BYTES = 4
TWO_PER_CORE = 2 * (os.cpu_count() or 1)  # work handed to a thread per core at once, so that none waits for its next


class ChunkStore:
    """Read access to the stored chunks of one array (``adj``, or raw ``weights``), split along
    its first axis. ``unchanged``, when given, tells whether the store is still the build it was
    opened as (a rebuild with ``overwrite`` replaces its files under a reader)."""

    def __init__(self, array: zarr.Array, fmt: str, location: str | None = None, unchanged: Callable[[], bool] | None = None):
        self.array = array
        self.format = fmt
        self.name = array.path
        self.location = location  # the store, as the user named it, for error messages
        self.n_chunks = array.cdata_shape[0]
        self._store = array.store_path.store
        self._unchanged = unchanged

    def check_unchanged(self) -> None:
        """Raises ``StoreReplacedError`` when the store was replaced since it was opened: chunks read
        before this call may then mix two builds. One small read (the root's metadata, about 1 ms),
        so callers make it after their reads rather than per chunk (the scheduler: once per
        operator call that read any), and when a read fails."""
        if self._unchanged is not None and not self._unchanged():
            raise StoreReplacedError(self.location or self.name)

    def corrupt(self, message: str, c: int) -> CorruptChunkError:
        """The error for chunk ``c``, naming the store, the array and the chunk."""
        return CorruptChunkError(message, array=self.name, chunk=c, store=self.location)

    def key(self, c: int) -> str:
        return f"{self.array.path}/{self.array.metadata.encode_chunk_key((c,) + (0,) * (self.array.ndim - 1))}"

    def read(self, chunk_ids: Sequence[int]) -> list[np.ndarray]:
        """The chunks' encoded bytes (crc checked and removed), fetched concurrently."""
        return _raising(self.read_each(chunk_ids))

    def read_each(self, chunk_ids: Sequence[int]) -> list[np.ndarray | CorruptChunkError | StoreError]:
        """As ``read``, but a chunk that cannot be read gives its error in its place, so that a
        check of every chunk goes on past the first bad one."""
        raw = self._fetched(chunk_ids)
        return list(core_threads("crc").map(self._checked, chunk_ids, raw))  # google_crc32c lets go of the GIL

    def read_into(self, c: int, out: np.ndarray) -> None:
        """Chunk ``c``'s bytes, checksum checked, into ``out`` (uint8, as many as the chunk holds
        less its checksum: a chunk of another size has changed since it was listed). From a local
        store straight from its file (Zarr's reads return new bytes: one more copy of every chunk,
        into pages faulted in afresh), from any other through ``read``."""
        if not isinstance(self._store, LocalStore) or not hasattr(os, "preadv"):
            body = self.read([c])[0]
            if len(body) != len(out):
                raise self.corrupt(f"chunk changed in the store since its size was read ({len(body) + CRC_BYTES:,} bytes, not {len(out) + CRC_BYTES:,})", c)
            out[:] = body
            return
        crc = np.empty(1, "<u4")
        try:
            with open(self._store.root / self.key(c), "rb", buffering=0) as f:
                size = os.fstat(f.fileno()).st_size
                if size != len(out) + CRC_BYTES:
                    raise self.corrupt(f"chunk changed in the store since its size was read ({size:,} bytes, not {len(out) + CRC_BYTES:,})", c)
                done = os.preadv(f.fileno(), [out, crc], 0)
        except FileNotFoundError:
            raise self.corrupt("chunk is missing from the store", c) from None
        except OSError as e:
            raise self._failed(c, e) from e
        if done != size:  # a file cut short as it was read
            raise self.corrupt(f"chunk changed in the store as it was read ({done:,} of {size:,} bytes)", c)
        self._check_crc(c, out, int(crc[0]))

    def _fetched(self, chunk_ids: Sequence[int]) -> list:
        return self._results([self._store.get(self.key(c), prototype=default_buffer_prototype()) for c in chunk_ids], chunk_ids)

    def _checked(self, c: int, b) -> np.ndarray | CorruptChunkError | StoreError:
        """Chunk ``c``'s bytes, checksum checked and stripped, or the error in their place."""
        if isinstance(b, Exception):
            return b
        try:
            return self._strip_crc(c, b)
        except CorruptChunkError as e:
            return e

    def headers(self, chunk_ids: Sequence[int], sizes: Sequence[int] | None = None) -> list[ChunkHeader]:
        """Only the headers, by byte-range reads; ``total_bytes`` is checked against the stored
        size less the checksum (``sizes``, where the caller has listed them already)."""
        req = RangeByteRequest(0, HEADER_BYTES)
        raw = self._gather([self._store.get(self.key(c), prototype=default_buffer_prototype(), byte_range=req) for c in chunk_ids], chunk_ids)
        if sizes is None:
            sizes = [size - CRC_BYTES for size in self.stored_bytes(chunk_ids)]
        out = []
        for c, b, size in zip(chunk_ids, raw, sizes):
            head = self._present(c, b).as_numpy_array().view(np.uint8)
            try:
                h = read_header(head, self.format, nbytes=int(size))
            except CorruptChunkError as e:
                raise self.corrupt(e.detail, c) from None
            out.append(h)
        return out

    def stored_bytes(self, chunk_ids: Sequence[int]) -> list[int]:
        return self._gather([self._store.getsize(self.key(c)) for c in chunk_ids], chunk_ids)

    def _gather(self, coros: list, chunk_ids: Sequence[int]) -> list:
        """The coroutines' results; a failed read raises its chunk's error."""
        return _raising(self._results(coros, chunk_ids))

    def _results(self, coros: list, chunk_ids: Sequence[int]) -> list:
        """The coroutines' results, a failed read replaced by an error naming its chunk."""

        async def run():
            return await asyncio.gather(*coros, return_exceptions=True)

        results = sync(run())
        for i, (c, r) in enumerate(zip(chunk_ids, results)):
            if isinstance(r, FileNotFoundError):
                results[i] = self.corrupt("chunk is missing from the store", c)
            elif isinstance(r, Exception):
                results[i] = self._failed(c, r)
                results[i].__cause__ = r
        return results

    def _failed(self, c: int, e: Exception) -> StoreError:
        """The error for a read of chunk ``c`` that failed with ``e``."""
        where = f"{self.location}: " if self.location is not None else ""
        return StoreError(f"{where}{self.name} chunk {c}: reading it failed: {e}")

    def _present(self, c: int, buf):
        if buf is None:
            raise self.corrupt("chunk is missing from the store", c)
        return buf

    def _strip_crc(self, c: int, buf) -> np.ndarray:
        data = self._present(c, buf).as_numpy_array().view(np.uint8)
        if len(data) < CRC_BYTES:
            raise self.corrupt("chunk is too short to hold its checksum", c)
        body = data[:-CRC_BYTES]
        self._check_crc(c, body, int(data[-CRC_BYTES:].view("<u4")[0]))
        return body

    def _check_crc(self, c: int, body: np.ndarray, crc: int) -> None:
        if google_crc32c.value(_read_only(body)) != crc:
            raise self.corrupt("crc32c mismatch", c)


class WeightStore:
    """Read access to the ``weights`` chunks aligned with an ``adj`` array: chunk c holds the
    float32 weights of edges ``c * chunk_edges ...``. A raw array (bytes and crc32c, as builds
    write it) is read like ``adj``, concurrently and with only its checksum checked; any other
    codec (stores built before weights were read in place) through Zarr's decode path. ``bounds``:
    the least and largest weight the build recorded, which every chunk read must respect."""

    def __init__(self, array: zarr.Array, location: str | None = None, bounds: tuple[float, float] | None = None):
        self.array = array
        self.bounds = bounds
        self.name = array.path
        self.chunk_edges = array.chunks[0]
        self.raw = [type(c).__name__ for c in array.metadata.codecs] == ["BytesCodec", "Crc32cCodec"]
        self._chunks = ChunkStore(array, "weights", location)
        self.corrupt = self._chunks.corrupt

    def read(self, chunk_ids: Sequence[int]) -> tuple[list[np.ndarray], int]:
        """The chunks' weights (the last chunk's padding included) and the bytes read for them."""
        out = _raising(self.read_each(chunk_ids))
        return out, sum(self.stored_bytes(w) for w in out)

    def stored_bytes(self, weights: np.ndarray) -> int:
        """The bytes a chunk of ``weights`` (as read) took from the store."""
        return weights.nbytes + (CRC_BYTES if self.raw else 0)

    def read_each(self, chunk_ids: Sequence[int]) -> list[np.ndarray | CorruptChunkError | StoreError]:
        """As ``read`` without the byte count, but a chunk that cannot be read gives its error in its place."""
        if self.raw:
            return [self._floats(c, b) for c, b in zip(chunk_ids, self._chunks.read_each(chunk_ids))]
        out = []
        for c in chunk_ids:
            try:
                out.append(decoded_chunk(self._chunks, c).astype(np.float32, copy=False))
            except CorruptChunkError as e:
                out.append(e)
        return out

    def _floats(self, c: int, blob: np.ndarray | Exception) -> np.ndarray | Exception:
        if isinstance(blob, Exception):
            return blob
        if len(blob) % 4:
            return self.corrupt(f"holds {len(blob)} bytes, not a whole number of float32 weights", c)
        return blob.view("<f4")


def _raising(results: list) -> list:
    """``results`` of reads done per chunk, once none of them is an error (the first one raised)."""
    for r in results:
        if isinstance(r, Exception):
            raise r
    return results


def decoded_chunk(chunks: ChunkStore, c: int) -> np.ndarray:
    """Chunk ``c`` of a 1-D array through Zarr's decode path. A missing chunk is an error here,
    not the fill value Zarr would read in its place (builds write every chunk)."""
    chunks.stored_bytes([c])
    step = chunks.array.chunks[0]
    try:
        return chunks.array[c * step : (c + 1) * step]
    except Exception as e:  # Zarr's codecs raise what they like (ValueError, RuntimeError, ...)
        raise chunks.corrupt(f"decoding it failed: {e}", c) from e


def read_vector(array: zarr.Array, location: str | None = None) -> np.ndarray:
    """A whole 1-D array (``indptr``, ``perm``): every chunk present (Zarr would read a missing one
    as its fill value), then read whole, its chunks decoded concurrently; chunk by chunk only when
    that fails, so that the bad chunk is named."""
    chunks = ChunkStore(array, "vector", location)
    if not chunks.n_chunks:
        return np.zeros(array.shape, array.dtype)
    chunks.stored_bytes(range(chunks.n_chunks))
    try:
        return array[:]
    except Exception:  # noqa: BLE001 (Zarr's codecs raise what they like: each chunk's own read names it)
        return np.concatenate([decoded_chunk(chunks, c) for c in range(chunks.n_chunks)])


def core_threads(purpose: str) -> ThreadPoolExecutor:
    """A thread per core for ``purpose``, kept for the process: a forked child gets a pool of its
    own, since its parent's threads did not come with it (work handed to them would wait forever)."""
    return _core_threads(purpose, os.getpid())


@functools.cache
def _core_threads(purpose: str, pid: int) -> ThreadPoolExecutor:
    return ThreadPoolExecutor(os.cpu_count() or 1, thread_name_prefix=f"graphtier-{purpose}")


def mapped_ahead(purpose: str, fn: Callable, items: Iterable[tuple], ahead: int | None = None) -> Iterator:
    """``fn(*item)`` of each item, in order, worked out on ``purpose``'s threads at most ``ahead``
    (default ``TWO_PER_CORE``) ahead of the one taken: parallel, yet the results held at once stay
    few however many items come. Work not yet started when the caller stops (an error) is
    cancelled, and work under way is waited for: it may write into buffers the caller then frees."""
    pool, ahead = core_threads(purpose), ahead or TWO_PER_CORE
    pending: deque = deque()
    try:
        for item in items:
            pending.append(pool.submit(fn, *item))
            if len(pending) > ahead:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        for future in pending:
            future.cancel()
        wait(pending)


def _read_only(a: np.ndarray) -> np.ndarray:
    """A read-only view of ``a``, which google_crc32c reads in place (it takes no writable buffer,
    and a copy to bytes costs more than the checksum)."""
    view = a.view()
    view.flags.writeable = False
    return view
