"""The scheduler: each iteration, the chunks its frontier needs, brought where a kernel can read them.

An iteration's demand (edges per chunk, from a kernel over the frontier) is split into rounds, and
every needed chunk is present in exactly one round's table:

1. chunks already in the device tier (hits), and chunks read in place from mapped pinned host
   memory (zero-copy) because the iteration needs only a few of their edges;
2. the rest, in batches of at most half the device slots, each copied from the host tier on the
   copy stream while the previous batch's kernels run.

Chunks come into the host tier from the store (read concurrently, validated once as they arrive).
Both tiers evict the least recently used chunk; hits go first, so the chunks an iteration loads
last are the ones the next one finds. When every chunk is on the device, the scheduler steps
aside: one round, the whole table, no demand computed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from ..codecs import GraphChunkCodec
from ..codecs.header import pad8
from ..errors import CorruptChunkError
from .memory import TABLE_RING, CpuMemory, CudaMemory
from .resident import (
    ABSENT,
    CHUNK_START,
    INDEX_START,
    PAYLOAD_START,
    TABLE_COLUMNS,
    validated,
)
from .slots import SlotCache
from .storage import CRC_BYTES, ChunkStore

# Read a chunk in place (zero-copy) when an iteration needs at most this share of its edges: a
# kernel reading mapped memory pays for whole 32-byte sectors and for a lower bandwidth than a copy.
ZERO_COPY_SHARE = 0.25
ZERO_COPY = ("auto", "always", "never")
COUNTERS = ("bytes_store_read", "bytes_host_to_device", "bytes_zero_copy", "device_hits", "device_misses", "host_hits", "host_misses", "zero_copy_chunks", "rounds")


class Scheduler:
    """One graph (forward or reverse) under a device budget for chunks and a host budget."""

    def __init__(self, store: ChunkStore, codec: GraphChunkCodec, indptr: np.ndarray, n_vertices: int, chunk_edges: int, id_dtype: np.dtype, backend: str, chunk_budget: int, host_budget: int, zero_copy: str = "auto"):
        if zero_copy not in ZERO_COPY:
            raise ValueError(f"zero_copy must be one of {', '.join(ZERO_COPY)}, got {zero_copy!r}")
        self.store, self.codec, self.zero_copy = store, codec, zero_copy
        self.n_vertices, self.chunk_edges, self.id_dtype = n_vertices, chunk_edges, id_dtype
        self.host_indptr = indptr
        n = store.n_chunks
        headers = store.headers(range(n))
        self.layout = np.array([(0, h.index_start, h.payload_start, h.n_edges, h.first_src) for h in headers], np.int64).reshape(n, TABLE_COLUMNS)
        self.chunk_bytes = np.array([h.total_bytes for h in headers], np.int64)
        slot_bytes = pad8(int(self.chunk_bytes.max(initial=8)))
        self.table_bytes = (TABLE_RING + 1) * self.layout.nbytes  # round tables, and the demand counts
        chunk_budget -= self.table_bytes + indptr.nbytes  # what the arena may take
        device_slots = 0 if zero_copy == "always" else min(n, max(0, chunk_budget) // slot_bytes)
        host_slots = min(n, host_budget // slot_bytes)
        if device_slots < 1 and zero_copy != "always":
            raise ValueError(f"device_memory leaves {max(0, chunk_budget):,} bytes for chunks of {store.name} after the vertex state, indptr and chunk tables, less than one chunk slot ({slot_bytes:,} bytes)")
        if host_slots < 1:
            raise ValueError(f"host_memory ({host_budget:,} bytes) is less than one chunk slot of {store.name} ({slot_bytes:,} bytes)")
        self.memory = CudaMemory(slot_bytes, device_slots, host_slots, n) if backend == "cuda" else CpuMemory(slot_bytes, device_slots, host_slots)
        self.device, self.host = SlotCache(self.memory.device_slots), SlotCache(host_slots)
        self.indptr = self.memory.array(indptr)
        self.totals = dict.fromkeys(COUNTERS, 0)
        self.iterations: list[dict] = []
        self._whole = None  # the table of the whole graph once the device tier holds it

    @property
    def n_chunks(self) -> int:
        return len(self.layout)

    @property
    def steps_aside(self) -> bool:
        return len(self.device) == self.n_chunks and self.zero_copy != "always"

    @property
    def resident_bytes(self) -> int:
        """Device bytes the scheduler holds: indptr, the arena, the round tables."""
        return self.indptr.nbytes + self.memory.arena_bytes + self.table_bytes

    def evict_device(self) -> None:
        """Forget every chunk of the device tier (the next iteration finds none there)."""
        self.device.clear()
        self._whole = None

    @property
    def host_bytes(self) -> int:
        """Host bytes held: the most host slots ever in use (pinned ones are allocated on first use)."""
        return self.host.peak * self.memory.slot_bytes

    def words(self, dtype: np.dtype | None = None) -> np.ndarray:
        """The CPU backend's memory as words of ``dtype`` (default: the id width), as
        ``ResidentGraph.words``: table addresses are byte offsets into it."""
        return self.memory.words(self.id_dtype if dtype is None else dtype)

    def params(self, table) -> tuple:
        """The GPU kernels' GRAPH_PARAMS for a round's table."""
        return (table, self.indptr, np.int64(self.chunk_edges), np.int64(self.n_vertices))

    def rounds(self, demand: Callable[[], np.ndarray]) -> Iterator[object]:
        """The tables of one iteration's rounds (the caller runs its kernels on each before asking
        for the next); ``demand()`` gives the edges the iteration will read per chunk."""
        it = dict.fromkeys(COUNTERS, 0) | {"transfer_seconds": 0.0, "compute_seconds": 0.0, "_marks": []}
        self.iterations.append(it)
        if self.steps_aside:
            if self._whole is None:  # every chunk's table row, uploaded once while nothing moves
                self._whole = self.memory.array(self._addressed({c: self.device.slot(c) for c in range(self.n_chunks)}, {}))
            yield self._whole
            return
        self._whole = None
        need = demand()
        needed = np.flatnonzero(need)
        hits = [int(c) for c in needed if c in self.device]
        missing = [int(c) for c in needed if c not in self.device]
        batch = max(1, min(self.device.n_slots // 2, self.host.n_slots // 2))
        in_place = [c for c in missing if self._reads_in_place(c, int(need[c]))]
        copies = [c for c in missing if not self._reads_in_place(c, int(need[c]))]
        room = max(1, self.host.n_slots - (batch if copies else 0))
        it.update(device_hits=len(hits), device_misses=len(copies), zero_copy_chunks=len(in_place))
        for c in hits:
            self.device.touch(c)
        groups = [in_place[i : i + room] for i in range(0, len(in_place), room)] or [[]]
        for i, group in enumerate(groups):
            here = {c: self.device.slot(c) for c in hits} if i == 0 else {}
            if here or group:
                host = self._to_host(it, group)
                it["bytes_zero_copy"] += sum(int(self.chunk_bytes[c]) * min(1.0, need[c] / max(1, self.layout[c, 3])) for c in group)
                yield from self._round(it, here, host)
        for i in range(0, len(copies), batch):
            yield from self._round(it, self._copy(it, copies[i : i + batch]), {})
        it["bytes_zero_copy"] = int(it["bytes_zero_copy"])
        for k in COUNTERS:
            self.totals[k] += it[k]

    def _reads_in_place(self, c: int, edges: int) -> bool:
        if self.zero_copy == "auto":
            return edges <= ZERO_COPY_SHARE * self.layout[c, 3]
        return self.zero_copy == "always"

    def _to_host(self, it: dict, chunks: list[int]) -> dict[int, int]:
        """Host slots of ``chunks``, reading the missing ones from the store, validated."""
        missing = [c for c in chunks if c not in self.host]
        it["host_hits"] += len(chunks) - len(missing)
        it["host_misses"] += len(missing)
        for c in chunks:
            if c in self.host:
                self.host.touch(c)
        for c, blob in zip(missing, self.store.read(missing) if missing else []):
            h = validated(self.store, self.codec, c, blob, self.host_indptr, self.n_vertices, self.chunk_edges, self.id_dtype)
            if (h.index_start, h.payload_start, h.total_bytes) != (self.layout[c, INDEX_START], self.layout[c, PAYLOAD_START], self.chunk_bytes[c]):
                raise CorruptChunkError("chunk changed in the store since it was opened", array=self.store.name, chunk=c)
            slot, _ = self.host.place(c, keep=chunks)
            self.memory.host_waits(self.host.fence[slot])
            self.memory.host_view(slot)[: len(blob)] = blob
            it["bytes_store_read"] += len(blob) + CRC_BYTES
        return {c: self.host.slot(c) for c in chunks}

    def _copy(self, it: dict, chunks: list[int]) -> dict[int, int]:
        """Device slots for ``chunks``, filled from the host tier on the copy stream."""
        host = self._to_host(it, chunks)
        start = self.memory.mark("copy")
        slots = {}
        for c in chunks:
            slot, _ = self.device.place(c, keep=chunks)
            nbytes = int(self.chunk_bytes[c])
            self.memory.copy(self.memory.device_address(slot), self.memory.host_address(host[c]), nbytes, after=self.device.fence[slot])
            it["bytes_host_to_device"] += nbytes
            slots[c] = slot
        end = self.memory.mark("copy")
        self.memory.compute_waits(end)
        for c in chunks:
            self.host.fence[host[c]] = end
        it["_marks"].append(("transfer_seconds", start, end))
        return slots

    def _round(self, it: dict, device: dict[int, int], host: dict[int, int]) -> Iterator[object]:
        """One round's table: ``device`` chunks in their arena slots, ``host`` chunks read in place."""
        table = self._addressed(device, host)
        start = self.memory.mark("compute")
        yield self.memory.upload(table)
        end = self.memory.mark("compute")
        for slot in device.values():
            self.device.fence[slot] = end
        for slot in host.values():
            self.host.fence[slot] = end
        it["rounds"] += 1
        it["_marks"].append(("compute_seconds", start, end))

    def _addressed(self, device: dict[int, int], host: dict[int, int]) -> np.ndarray:
        table = self.layout.copy()
        table[:, CHUNK_START] = ABSENT
        for chunks, address in ((device, self.memory.device_address), (host, self.memory.host_address)):
            if chunks:
                rows = np.fromiter(chunks, np.int64, len(chunks))
                base = np.fromiter((address(slot) for slot in chunks.values()), np.int64, len(chunks))
                table[rows, CHUNK_START] = base
                table[rows, INDEX_START] += base
                table[rows, PAYLOAD_START] += base
        return table

    def take_stats(self) -> dict:
        """What moved since the last call, per iteration and in total (waits for the GPU to finish
        so that its events can be timed); the counters start again from zero."""
        self.memory.synchronize()
        iterations = []
        for it in self.iterations:
            for key, start, end in it.pop("_marks"):
                it[key] += self.memory.seconds(start, end)
            iterations.append(it)
        totals = self.totals
        self.iterations, self.totals = [], dict.fromkeys(COUNTERS, 0)
        return {**totals, "iterations": iterations}
