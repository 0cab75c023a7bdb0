"""The scheduler: each iteration, the chunks its frontier needs, brought where a kernel can read them.

The device region holds, after indptr and the round tables:

- the *index arena*, when kernels read chunks in place: every chunk's header and local index
  (or, where they do not all fit, those of the first chunks that do), copied there the first
  time the chunk enters the host tier and never evicted. A list read in place from host memory
  then costs one dependent trip over PCIe instead of two (EMOGI and EFG keep their offsets on
  the device for the same reason);
- the *sidecars* an algorithm registers (``Sidecar``), when kernels read chunks in place: a value
  per vertex derived from the chunk that holds the vertex's list the first time it is validated
  (say, one in-neighbour per vertex, checked before a list is read in place);
- *slots* for whole chunks (each followed by its edges' weights when the algorithm reads them):
  equal slots as large as the largest, least recently used out; or, when the budget holds every
  chunk, one slot per chunk at its own place (nothing evicted).

An iteration is one of:

- *static*: every chunk is readable where it already is: on the device, or in the pinned host
  tier to be read in place (unless the device is still filling with a graph that fits it whole).
  One round, one cached table, nothing moved and no demand read back (on the GPU its statistics
  stay on the device until a result asks for them), so an algorithm can launch several
  iterations without waiting;
- *streamed*: the demand (edges per chunk, from a kernel over the frontier) is read back and
  split into rounds, every needed chunk present in exactly one: first the device hits and the
  chunks read in place (the iteration needs at most ZERO_COPY_SHARE of their edges), then the
  rest in batches of at most half the device slots, each copied from the host tier on the copy
  stream while the previous round's kernels run. With ``zero_copy="auto"`` an iteration copies
  one batch at most (the most needed chunks) and reads the rest in place, however much of them it
  needs.

Why reading in place wins once the host tier holds the graph (measured in
``benchmarks/results/ooc_levels-*``): copying chunks into free device slots made single queries
slower than reading every chunk in place, and later queries no faster, for traversals that read
most edges once; every round after the first costs a pass of the kernels over the whole frontier. Copies pay when every chunk fits the device (it then holds the
whole graph after one pass) and when the host tier cannot hold the graph.

Chunks come into the host tier from the store (read concurrently, validated once as they arrive).
Both tiers evict the least recently used chunk; hits go first, so the chunks an iteration loads
last are the ones the next one finds. Where the host tier cannot hold the graph, chunks read from
the store also fill device slots that are free or hold chunks the host tier holds too, and each
chunk copied so is the host tier's next to go: the tiers then hold different chunks, and a graph
they hold together is read from the store once. A sweep instead evicts, in both tiers, the chunk
it needs again last (the host tier first those the device holds): least recently used would keep
a sweep's last chunks, each lost before the next sweep reaches it.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np

from ..codecs.header import pad8
from ..errors import GraphtierError, OutOfMemoryError
from .budget import allocating
from .memory import TABLE_RING, CpuMemory, CudaMemory
from .resident import (
    ABSENT,
    CHUNK_EDGES,
    CHUNK_START,
    INDEX_START,
    PAYLOAD_START,
    TABLE_COLUMNS,
    WEIGHTS_START,
    unit_bytes,
    weights_start,
)
from .slots import SlotCache
from .storage import CRC_BYTES, mapped_ahead
from .stored import StoredGraph, validated_weights

# Read a chunk in place (zero-copy) when an iteration needs at most this share of its edges: a
# kernel reading mapped memory pays for whole 32-byte sectors and for a lower bandwidth than a copy.
ZERO_COPY_SHARE = 0.25
ZERO_COPY = ("auto", "always", "never")
# A sweep's copies per round: small enough that most slots keep a prefix of the graph across
# sweeps, large enough that a round's kernel launches are few against its copies.
SWEEP_ROUND_BYTES = 32 << 20
INDEX_SLACK = 8  # bytes a format's index reads may run past its index (ef's fields: one word)
COUNTERS = (
    "bytes_store_read",
    "bytes_host_to_device",  # every byte copied to the device: chunks, weights, indexes, sidecars
    "bytes_index_to_device",  # of which headers and local indexes (index arena) and sidecars
    "bytes_zero_copy",  # estimated: the needed share of each chunk read in place
    "device_hits",
    "device_misses",
    "host_hits",
    "host_misses",
    "zero_copy_chunks",
    "rounds",
)


def reads_of(stats: Iterable[dict]) -> dict:
    """The store reads of several sources' (or parts') statistics together: the most times any
    chunk was read, and the chunks' bytes by the times they were read."""
    most, histogram = 0, {}
    for s in stats:
        most = max(most, s.get("store_reads_max", 0))
        for times, nbytes in s.get("store_read_bytes", {}).items():
            histogram[times] = histogram.get(times, 0) + nbytes
    return {"store_reads_max": most, "store_read_bytes": dict(sorted(histogram.items()))}


# A sweep overlaps its copies with the previous round's kernels from this many device slots: the
# round computing, the next, and no more.
OVERLAP_SLOTS = 3


def fixed_bytes(n_vertices: int, n_chunks: int) -> int:
    """Device bytes a scheduler holds before any chunk: indptr, the round tables and the demand
    counts (what a budget must leave it after the vertex state)."""
    return 8 * (n_vertices + 1) + (TABLE_RING + 1) * n_chunks * TABLE_COLUMNS * 8


@dataclass(frozen=True)
class Sidecar:
    """A value per vertex that an algorithm derives from each chunk's decoded lists the first time
    the chunk is validated, kept on the device beside the slots so that a kernel can consult it
    before reading a list in place. ``derive(first, end, offsets, dst, indptr)`` returns the values
    of the chunk's lists ``first`` to ``end`` (indexes into ``offsets``); ``cuda``, where that
    takes the host long, derives the same on the GPU from those lists copied there,
    ``cuda(offsets, dst, indptr, out)``: CuPy arrays (``offsets`` into ``dst``, ``indptr`` the
    graph's) and the device address of the first list's value. A vertex whose chunk has not been
    validated reads as the dtype's largest value (``unknown``)."""

    name: str
    dtype: type
    derive: Callable
    cuda: Callable | None = None

    @property
    def unknown(self) -> int:
        return int(np.iinfo(self.dtype).max)


def lists_starting(c: int, first_src: int, n_edges: int, indptr: np.ndarray, chunk_edges: int) -> tuple[int, int]:
    """The vertices whose lists start in chunk ``c`` (a list that starts in another chunk takes its
    sidecar value there), as local indexes of the chunk's offsets, from its first source's."""
    start = c * chunk_edges
    v0, v1 = (int(np.searchsorted(indptr, x)) for x in (start, start + n_edges))
    return max(v0, first_src) - first_src, v1 - first_src  # empty lists before the first source have no local index here


@dataclass(frozen=True)
class DevicePlan:
    """How the device region is laid out: byte offsets of the chunk slots, of each chunk's
    index copy (-1: not kept; None: no index arena) and of each sidecar kept (those that fit)."""

    slots: np.ndarray
    homes: bool  # slot c is chunk c's own (every chunk fits)
    index: np.ndarray | None
    nbytes: int
    sidecars: dict = field(default_factory=dict)  # name -> offset


def resident_fits(resident_bytes: int, chunk_budget: int, host_budget: int, zero_copy: str) -> bool:
    """Whether a graph of ``resident_bytes`` (``resident.resident_bytes``) is held whole, with no
    scheduler: under the cost model's policy, when it fits both what the device budget leaves it
    and the host budget (it is loaded through host memory)."""
    return zero_copy == "auto" and resident_bytes <= min(chunk_budget, host_budget)


def slot_size(unit_bytes: np.ndarray) -> int:
    """Bytes of each equal slot: as large as the largest chunk (``resident.unit_bytes``)."""
    return int(unit_bytes.max(initial=8))


def device_left(chunk_budget: int, n_vertices: int, n_chunks: int, name: str) -> int:
    """What a device budget of ``chunk_budget`` leaves for chunks after ``fixed_bytes``; a
    ValueError when not even those fit."""
    fixed = fixed_bytes(n_vertices, n_chunks)
    if chunk_budget < fixed:
        raise ValueError(f"device_memory leaves {max(0, chunk_budget):,} bytes for {name} after the vertex state, less than its indptr and chunk tables ({fixed:,} bytes), and no chunk slot")
    return chunk_budget - fixed


def host_slot_count(n_chunks: int, host_budget: int, slot_bytes: int, name: str) -> int:
    """Host slots of ``slot_bytes`` a host budget holds (at most one per chunk); a ValueError when
    not even one."""
    slots = min(n_chunks, host_budget // slot_bytes)
    if slots < 1:
        raise ValueError(f"host_memory ({host_budget:,} bytes) is less than one chunk slot of {name} ({slot_bytes:,} bytes)")
    return slots


def sidecar_bytes(side: Sidecar, n_vertices: int) -> int:
    return pad8(n_vertices * np.dtype(side.dtype).itemsize)


def plan_device(
    unit_bytes: np.ndarray, payload_starts: np.ndarray, reads_index: bool, sidecars: tuple[Sidecar, ...], n_vertices: int, left: int, slot_bytes: int, zero_copy: str, name: str
) -> DevicePlan:
    """The device region within ``left`` bytes for chunks of ``unit_bytes`` (their payloads
    starting at ``payload_starts``; ``reads_index``: the format's kernels read indexes): one
    slot per chunk when all fit; else the sidecars that fit first (each spares reading a list per
    vertex, worth more than any chunk's index), then the index arena (when chunks are read in
    place: every chunk's index when it fits, else those of the first chunks that fit, -1 for the
    others), and equal slots of ``slot_bytes``. A ValueError when not one slot fits (unless every
    chunk is read in place)."""
    starts = np.concatenate([[0], np.cumsum(unit_bytes)])
    if zero_copy != "always" and starts[-1] <= left:  # every chunk at a place of its own
        return DevicePlan(starts[:-1], True, None, int(starts[-1]))
    index, indexed = None, 0
    keep = 0 if zero_copy == "always" else slot_bytes  # room for a slot
    kept = []
    for side in sidecars:
        if zero_copy != "never" and n_vertices <= side.unknown and sidecar_bytes(side, n_vertices) <= left - keep:
            kept.append(side)
            left -= sidecar_bytes(side, n_vertices)
    spans = payload_starts + INDEX_SLACK  # header, index and slack, 8-aligned
    ends = np.cumsum(spans)
    if zero_copy != "never" and reads_index:  # the index arena: every chunk's index, else the first ones'
        fit = int(np.searchsorted(ends, left - keep, side="right"))
        if fit:
            index, indexed = np.where(np.arange(len(ends)) < fit, ends - spans, -1), int(ends[fit - 1])
            left -= indexed
    n_slots = 0 if zero_copy == "always" else min(len(unit_bytes), max(0, left) // slot_bytes)
    if n_slots < 1 and zero_copy != "always":
        raise ValueError(f"device_memory leaves {max(0, left):,} bytes for chunks of {name} after the vertex state, indptr and chunk tables, less than one chunk slot ({slot_bytes:,} bytes)")
    slots = np.arange(n_slots, dtype=np.int64) * slot_bytes
    used = n_slots * slot_bytes
    if index is not None:
        index[index >= 0] += used
        used += indexed
    offsets = {}
    for side in kept:
        offsets[side.name] = used
        used += sidecar_bytes(side, n_vertices)
    return DevicePlan(slots, False, index, used, offsets)


class Scheduler:
    """One graph (forward or reverse) under a device budget for chunks and a host budget; where
    ``graph`` has weights, each chunk travels with its edges' weights; ``sidecars`` are kept on the
    device."""

    def __init__(
        self,
        graph: StoredGraph,
        backend: str,
        chunk_budget: int,
        host_budget: int,
        zero_copy: str = "auto",
        sidecars: tuple[Sidecar, ...] = (),
        chunks: range | None = None,
    ):
        if zero_copy not in ZERO_COPY:
            raise ValueError(f"zero_copy must be one of {', '.join(ZERO_COPY)}, got {zero_copy!r}")
        self.graph, self.zero_copy, self.wanted_sidecars = graph, zero_copy, sidecars
        self.store, self.weight_store = graph.chunks, graph.weights
        self.n_vertices, self.chunk_edges, self.id_dtype, self.host_indptr = graph.n_vertices, graph.chunk_edges, graph.id_dtype, graph.indptr
        n = graph.n_chunks
        headers = self.store.headers(range(n), graph.chunk_sizes())
        self.layout = np.array([(0, h.index_start, h.payload_start, h.n_edges, h.first_src, ABSENT) for h in headers], np.int64).reshape(n, TABLE_COLUMNS)
        self.chunk_bytes = np.array([h.total_bytes for h in headers], np.int64)
        # what a chunk takes in a slot: its bytes, then its edges' weights (WEIGHTS_START from the slot's start)
        self.unit_bytes = np.array([unit_bytes(int(b), int(p), int(e), self.weighted) for b, p, e in zip(self.chunk_bytes, self.layout[:, PAYLOAD_START], self.layout[:, CHUNK_EDGES])], np.int64)
        if self.weighted:
            self.layout[:, WEIGHTS_START] = [weights_start(int(b), int(p)) for b, p in zip(self.chunk_bytes, self.layout[:, PAYLOAD_START])]
        self.mine = chunks if chunks is not None else range(n)  # a part of a run split over devices reads only these
        outside = np.ones(n, bool)
        outside[self.mine.start : self.mine.stop] = False
        self._planned = np.where(outside, 0, self.unit_bytes)
        slot_bytes = slot_size(self._planned)
        self.fixed_bytes = fixed_bytes(graph.n_vertices, n)
        left = device_left(chunk_budget, graph.n_vertices, n, self.store.name)  # what the device region may take
        host_slots = host_slot_count(max(1, len(self.mine)), host_budget, slot_bytes, self.store.name)
        memory = CudaMemory if backend == "cuda" else CpuMemory
        self.memory = memory(slot_bytes, host_slots, n)
        self.plan = self._allocate(left, slot_bytes)
        self.device, self.host = SlotCache(len(self.plan.slots)), SlotCache(host_slots)
        self.indexed = np.zeros(n, bool)  # whose header and index are in the index arena
        self.derived = np.zeros(n, bool)  # whose vertices' sidecar values are on the device
        for side in self.sidecars:  # unknown until their chunk is validated
            self.memory.fill_device(self.plan.sidecars[side.name], sidecar_bytes(side, self.n_vertices), 0xFF)
        with allocating(f"indptr and the chunk tables of {self.store.name}", self.fixed_bytes, self.memory.device_side):
            self.indptr = self.memory.array(graph.indptr)
            self._edges = self.memory.array(np.where(outside, 0, self.layout[:, CHUNK_EDGES]))
            self._edge_bytes = self.memory.array(self.unit_bytes / np.maximum(self.layout[:, CHUNK_EDGES], 1))
        self.totals = dict.fromkeys(COUNTERS, 0)
        self.reads = np.zeros(n, np.int32)  # times each chunk came from the store since the last stats
        self.stored_bytes = np.zeros(n, np.int64)  # what a read of each chunk (and its weights) took from the store
        self.iterations: list[dict] = []
        self._needs = self.memory.xp.zeros((0, n), np.int64)  # each iteration's demand, until take_stats
        self._static = None  # (table, which chunks are read in place, slots) while nothing moves
        self.round_vertices = (0, graph.n_vertices)  # whose lists the round just yielded may hold (a sweep's: a range)

    def _allocate(self, left: int, slot_bytes: int) -> DevicePlan:
        """The largest plan within ``left`` bytes that the device can give, halving the budget
        (and saying so) while it cannot."""
        wanted = left
        while True:
            try:
                plan = self._plan(left, slot_bytes)
            except ValueError:
                if left == wanted:
                    raise
                raise self._no_slot(slot_bytes) from None
            if self.memory.allocate_device(plan.nbytes):
                if left < wanted:
                    print(f"graphtier: the GPU could not give {wanted:,} bytes for chunks of {self.store.name}; using {plan.nbytes:,}", file=sys.stderr)
                return plan
            if len(plan.slots) <= 1 and plan.index is None:
                raise self._no_slot(slot_bytes)
            left //= 2

    def _no_slot(self, slot_bytes: int) -> OutOfMemoryError:
        """The device could not give even one chunk slot, however much the budget allowed."""
        return OutOfMemoryError(f"one chunk slot of {self.store.name} (the arena, halved down to it)", slot_bytes, self.memory.device_side)

    def _plan(self, left: int, slot_bytes: int) -> DevicePlan:
        payloads = np.where(self._planned > 0, self.layout[:, PAYLOAD_START], -INDEX_SLACK)  # no index room for others' chunks
        return plan_device(self._planned, payloads, self.graph.codec.kernels_read_index, self.wanted_sidecars, self.n_vertices, left, slot_bytes, self.zero_copy, self.store.name)

    @property
    def sidecars(self) -> list[Sidecar]:
        """The sidecars the device region holds (those that fitted)."""
        return [s for s in self.wanted_sidecars if s.name in self.plan.sidecars]

    def sidecar(self, name: str):
        """A sidecar's values on the device (its ``unknown`` where not derived yet), or None when
        it is not kept (not asked for, or it did not fit)."""
        side = next((s for s in self.sidecars if s.name == name), None)
        return None if side is None else self.memory.device_view(self.plan.sidecars[name], self.n_vertices, side.dtype)

    @property
    def weighted(self) -> bool:
        """Whether chunks travel with their edges' weights."""
        return self.weight_store is not None

    @property
    def weights(self):
        """The CPU backend's memory as float32, as ``ResidentGraph.weights``: chunk c's weights
        start at its table row's ``WEIGHTS_START // 4``."""
        return self.memory.words(np.float32)

    @property
    def n_chunks(self) -> int:
        return len(self.layout)

    @property
    def steps_aside(self) -> bool:
        """Whether iterations are static: every chunk readable where it is, nothing to move."""
        if self._static is not None:
            return True
        if len(self.device) == len(self.mine):
            return self.zero_copy != "always"
        if self.zero_copy == "never" or (self.zero_copy == "auto" and self.plan.homes):
            return False
        return len(self.device) + sum(c not in self.device for c in self.host.chunks()) == len(self.mine)

    @property
    def resident_bytes(self) -> int:
        """Device bytes the scheduler holds: indptr, the device region, the round tables."""
        return self.fixed_bytes + self.memory.device_bytes

    @property
    def host_bytes(self) -> int:
        """Host bytes held: the most host slots ever in use (pinned ones are allocated on first use)."""
        return self.host.peak * self.memory.slot_bytes

    def evict_device(self) -> None:
        """Forget every chunk of the device tier (the next iteration finds none there); the index
        arena and the sidecars stay. Waits for the kernels still reading them, which no fence records
        when the whole graph was on the device."""
        self.memory.synchronize()
        self.device.clear()
        self._static = None

    def words(self, dtype: np.dtype | None = None) -> np.ndarray:
        """The CPU backend's memory as words of ``dtype`` (default: the id width), as
        ``ResidentGraph.words``: table addresses are byte offsets into it."""
        return self.memory.words(self.id_dtype if dtype is None else dtype)

    def params(self, table, weighted: bool) -> tuple:
        """The GPU kernels' GRAPH_PARAMS as words for a round's table, ``weighted`` if the operator reads weights."""
        return (table.data.ptr, self.indptr.data.ptr, self.chunk_edges, self.n_vertices, int(weighted))

    def rounds(self, demand: Callable[[object], None] | None, span: tuple[int, int] | None = None) -> Iterator[object]:
        """The tables of one iteration's rounds (the caller runs its kernels on each before asking
        for the next); ``demand(out)`` adds to ``out`` (zeros, one count per chunk, of the memory's
        kind) the edges the iteration will read per chunk, or is None for a sweep: every edge of
        every chunk, or with ``span`` (v0, v1) of the chunks holding those vertices' lists (a
        layer's), in store order. Static iterations leave the counts where they are, for
        ``take_stats``."""
        sweep = demand is None
        self.round_vertices = (0, self.n_vertices)
        chunks = self.mine if span is None else self._span_chunks(*span)
        if sweep:
            demand = lambda out: self._sweep(out, chunks)
        elif len(self.mine) < self.n_chunks:
            demand = self._mine_only(demand)
        it = dict.fromkeys(COUNTERS, 0) | {"transfer_seconds": 0.0, "compute_seconds": 0.0, "_marks": [], "_in_place": None}
        self.iterations.append(it)
        if self.static_sweep if sweep else self.steps_aside:
            yield from self._static_round(it, demand)
        elif sweep:
            yield from self._sweep_rounds(it, chunks)
        else:
            need = self._need_row()
            demand(need)
            yield from self._streamed_rounds(it, self.memory.to_numpy(need))
        if it["host_misses"]:  # after its reads: a store replaced before them shows now
            self.store.check_unchanged()
        for k in COUNTERS:
            self.totals[k] += it[k]

    def at_hand(self, out, chunk: int) -> None:
        """A demand (as ``rounds`` takes) for ``chunk`` whole and for one edge of each chunk a round
        presents without a copy or a read from the store: the device's, and the host tier's where
        chunks may be read in place. A walk that needs one chunk next but may go anywhere after
        it (a depth-first walk) finds as much as it can in the rounds."""
        out[self.device.chunks()] += 1
        if self.zero_copy != "never":
            out[self.host.chunks()] += 1
        out[chunk] += self.chunk_edges

    def _sweep(self, out, chunks: range) -> None:
        out[chunks.start : chunks.stop] += self._edges[chunks.start : chunks.stop]

    def _span_chunks(self, v0: int, v1: int) -> range:
        """This part's chunks holding the lists of vertices ``v0 .. v1 - 1``."""
        e0, e1 = int(self.host_indptr[v0]), int(self.host_indptr[v1])
        first, end = (e0 // self.chunk_edges, -(-e1 // self.chunk_edges)) if e1 > e0 else (0, 0)
        first, end = max(first, self.mine.start), min(end, self.mine.stop)
        return range(first, max(first, end))

    def _mine_only(self, demand: Callable[[object], None]) -> Callable[[object], None]:
        """``demand`` with the counts of other parts' chunks dropped."""

        def mine(out) -> None:
            demand(out)
            out[: self.mine.start] = 0
            out[self.mine.stop :] = 0

        return mine

    def _need_row(self):
        """This iteration's row of demand counts, zeros (rows are zeroed again by take_stats)."""
        i = len(self.iterations) - 1
        if i >= len(self._needs):
            grown = self.memory.xp.zeros((max(8, 2 * i), self.n_chunks), np.int64)
            grown[: len(self._needs)] = self._needs
            self._needs = grown
        return self._needs[i]

    def _static_round(self, it: dict, demand: Callable[[object], None]) -> Iterator[object]:
        if self._static is None:
            device = {c: self.device.slot(c) for c in self.device.chunks()}
            host = {c: self.host.slot(c) for c in self.host.chunks() if c not in self.device}
            in_place = np.zeros(self.n_chunks, bool)
            in_place[list(host)] = True
            self._static = (self.memory.array(self._addressed(device, host)), self.memory.array(in_place), device, host)
        table, in_place, device, host = self._static
        if not host:  # the whole graph on the device: as the resident graph, nothing to count
            yield table
            return
        demand(self._need_row())  # counted on the device, for take_stats
        it["_in_place"] = in_place
        start = self.memory.mark("compute")
        yield table
        self._fence(device, host, start, it)

    def _streamed_rounds(self, it: dict, need: np.ndarray) -> Iterator[object]:
        needed = np.flatnonzero(need)
        on_device = np.array([c in self.device for c in needed], bool)
        hits, missing = needed[on_device].tolist(), needed[~on_device]
        if self.zero_copy == "auto":
            small = need[missing] <= ZERO_COPY_SHARE * self.layout[missing, CHUNK_EDGES]
        else:
            small = np.full(len(missing), self.zero_copy == "always")
        in_place, copies = missing[small].tolist(), missing[~small].tolist()
        batch = max(1, min(self.device.n_slots // 2, self.host.n_slots // 2))
        if self.zero_copy == "auto":
            # Every chunk fits the device: copy what is needed (it stays). Otherwise one batch of
            # copies at most, the most needed first: each further batch would be another pass of
            # the kernels over the whole frontier, its copies waiting for the previous pass.
            if self.plan.homes:
                copies, in_place = copies + in_place, []
            else:
                copies = sorted(copies, key=lambda c: -need[c])
                copies, in_place = copies[:batch], copies[batch:] + in_place
        room = max(1, self.host.n_slots - (batch if copies else 0))
        for chunks in (in_place, copies):  # host hits first: the misses read later evict chunks already used
            chunks.sort(key=lambda c: c not in self.host)
        it["device_hits"] = len(hits)
        for c in hits:
            self.device.touch(c)
        # Where the host tier cannot hold the graph (and chunks may be read in place), a copy takes
        # only a slot that is free or holds a chunk the host tier holds too, and chunks just read
        # from the store go to such slots as well, each then the host tier's next to go: the tiers
        # hold different chunks, and a graph they hold together is read once.
        beyond = self.zero_copy == "auto" and self.host.n_slots < len(self.mine) and not self.plan.homes
        groups = [in_place[i : i + room] for i in range(0, len(in_place), room)] or [[]]
        for i, group in enumerate(groups):
            here = {c: self.device.slot(c) for c in hits} if i == 0 else {}
            if here or group:
                fresh = [c for c in group if c not in self.host]
                host = self._to_host(it, group)
                if beyond:
                    here |= self._fill(it, host, fresh, keep=set(here) | set(fresh), spare_only=True)
                yield from self._round_streamed(it, here, host, need)
        for i in range(0, len(copies), batch):
            group = copies[i : i + batch]
            host = self._to_host(it, group)
            yield from self._round_streamed(it, self._fill(it, host, group, keep=set(group), spare_only=beyond), host, need)

    def _round_streamed(self, it: dict, device: dict[int, int], host: dict[int, int], need: np.ndarray) -> Iterator[object]:
        """A streamed iteration's round, counted: ``device`` chunks in their slots, ``host`` chunks
        read in place (the needed share of each)."""
        group = list(host)
        it["zero_copy_chunks"] += len(group)
        share = np.minimum(need[group], self.layout[group, CHUNK_EDGES]) / np.maximum(self.layout[group, CHUNK_EDGES], 1)
        it["bytes_zero_copy"] += int(np.sum(share * self.unit_bytes[group]))
        yield from self._round(it, device, host)

    def _sweep_rounds(self, it: dict, chunks: range) -> Iterator[object]:
        """Every chunk of ``chunks``, in store order, in rounds of consecutive chunks: the chunks on the device
        and the next misses, copied while the previous round's kernels run (so that a vertex's
        sums over its chunks add up in the same order under every budget). A miss takes the slot
        of the chunk the sweep needs again last (Belady's choice for a cyclic order: behind the
        cursor, the latest), so a prefix of the graph stays on the device across sweeps, and the
        next part of it in the host tier."""
        n = chunks.stop
        in_place = self.zero_copy == "always"
        overlap = self.device.n_slots >= OVERLAP_SLOTS
        batch = self._sweep_batch()
        previous: list[int] = []
        c = chunks.start
        while c < n:
            hits, take = [], []
            room = self.device.n_slots - (len(previous) if overlap else 0)  # slots this round may hold
            while c < n and (in_place or len(hits) + len(take) < room):
                if not in_place and c in self.device:
                    hits.append(c)
                elif len(take) < batch:
                    take.append(c)
                else:
                    break
                c += 1
            self.round_vertices = self._vertices(c - len(hits) - len(take), c)
            if in_place:
                host = self._to_host(it, take)
                it["zero_copy_chunks"] += len(take)
                it["bytes_zero_copy"] += int(self.unit_bytes[take].sum())
                yield from self._round(it, {}, host)
                continue
            for h in hits:
                self.device.touch(h)
            device = {h: self.device.slot(h) for h in hits}
            cursor = c
            device.update(self._copy(it, take, keep=set(hits + take + (previous if overlap else [])), last=lambda x: (x < cursor, x)))
            it["device_hits"] += len(hits)
            previous = hits + take
            yield from self._round(it, device, {})
        self.round_vertices = (0, self.n_vertices)

    def _sweep_batch(self) -> int:
        """The chunks a sweep's round reads from the host tier (copies: the slots two rounds of
        them leave keep the prefix of the graph they hold)."""
        if self.zero_copy == "always":
            return self.host.n_slots
        overlap = self.device.n_slots >= OVERLAP_SLOTS
        return max(1, min(self.device.n_slots // (3 if overlap else 1), SWEEP_ROUND_BYTES // self.memory.slot_bytes, self.host.n_slots // 2))

    @property
    def static_sweep(self) -> bool:
        """Whether a sweep is one round over the chunks where they are: all on the device, or read
        in place where they all are."""
        return self.steps_aside and (self.zero_copy == "always" or len(self.device) == len(self.mine))

    @property
    def round_chunks(self) -> int:
        """The most consecutive chunks a sweep of a span reads in one round, whatever the tiers
        hold: a span over no more has all its lists at hand in one table."""
        return self.n_chunks if self.static_sweep else self._sweep_batch()

    def span_chunks(self, v0: int, v1: int) -> int:
        """How many chunks hold the lists of vertices ``v0 .. v1 - 1`` (this part's)."""
        return len(self._span_chunks(v0, v1))

    def _vertices(self, c0: int, c1: int) -> tuple[int, int]:
        """The vertices whose lists have edges in chunks [c0, c1)."""
        indptr = self.host_indptr
        v0 = int(np.searchsorted(indptr, c0 * self.chunk_edges, side="right")) - 1
        v1 = int(np.searchsorted(indptr, c1 * self.chunk_edges, side="left"))
        return max(v0, 0), min(v1, self.n_vertices)

    def _to_host(self, it: dict, chunks: list[int], last: Callable[[int], object] | None = None) -> dict[int, int]:
        """Host slots of ``chunks``, reading the missing ones (and their weights) from the store,
        validated, into slots ``last`` chooses (see ``SlotCache.place``); their headers, indexes
        and sidecar values go to the device the first time."""
        missing = [c for c in chunks if c not in self.host]
        if missing:  # the tiers change: a static table made before would point at other chunks
            self._static = None
        it["host_hits"] += len(chunks) - len(missing)
        it["host_misses"] += len(missing)
        self.reads[missing] += 1
        for c in chunks:
            if c in self.host:
                self.host.touch(c)
        derived = []
        try:
            weights = self.weight_store.read(missing)[0] if self.weight_store is not None and missing else [None] * len(missing)
            arrived = 0
            try:
                slots = [self._place(c, chunks, last) for c in missing]
                with contextlib.closing(mapped_ahead("validate", self._read, zip(missing, slots, weights))) as read_chunks:
                    for c, w, (h, offsets, dst) in zip(missing, weights, read_chunks):
                        arrived += 1
                        self.stored_bytes[c] = int(self.chunk_bytes[c]) + CRC_BYTES + (0 if w is None else self.weight_store.stored_bytes(w))
                        it["bytes_store_read"] += int(self.stored_bytes[c])
                        if not self.derived[c]:
                            derived += self._derive(it, c, h.first_src, offsets, dst)
                            self.derived[c] = True
            except BaseException:  # the tier holds a chunk only once it is whole there
                for c in missing[arrived:]:
                    if c in self.host:
                        self.host.drop(c)
                raise
        except GraphtierError:  # a chunk missing, damaged or not as indptr says: a replaced store explains it
            self.store.check_unchanged()
            raise
        slots = {c: self.host.slot(c) for c in chunks}
        self._load_indexes(it, slots, derived)
        return slots

    def _place(self, c: int, keep: list[int], last: Callable[[int], object] | None) -> int:
        """A host slot for chunk ``c`` (``last`` choosing which chunk leaves, none of ``keep``), free
        of the copies that read it before and allocated, for ``_read`` to fill on a worker thread."""
        slot, _ = self.host.place(c, keep=keep, last=last)
        self.memory.host_waits(self.host.fence[slot])
        self.memory.host_view(slot)
        return slot

    def _read(self, c: int, slot: int, weights: np.ndarray | None) -> tuple:
        """Chunk ``c`` read straight into host slot ``slot`` and validated there, its weights after
        it, on a worker thread: (header, offsets, dst), as ``StoredGraph.read`` gives them."""
        view = self.memory.host_view(slot)
        h, offsets, dst = self.graph.read(c, view[: self.chunk_bytes[c]])
        if (h.index_start, h.payload_start) != (self.layout[c, INDEX_START], self.layout[c, PAYLOAD_START]):
            raise self.store.corrupt("chunk changed in the store since it was opened", c)
        if weights is not None:
            weights = validated_weights(self.weight_store, c, weights, h.n_edges)
            view[self.layout[c, WEIGHTS_START] : self.layout[c, WEIGHTS_START] + weights.nbytes] = weights.view(np.uint8)
        return h, offsets, dst

    def _derive(self, it: dict, c: int, first_src: int, offsets: np.ndarray, dst: np.ndarray) -> list:
        """Chunk ``c``'s sidecar values: those derived on the host, ``[(sidecar, (v0, values))]``
        for ``_load_indexes`` to copy; on the GPU, derived there from its lists copied over."""
        first, end = lists_starting(c, first_src, len(dst), self.host_indptr, self.chunk_edges)
        on_host = []
        for side in self.sidecars:
            if side.cuda is not None and self.memory.kind == "cuda":
                at = self.plan.sidecars[side.name] + (first_src + first) * np.dtype(side.dtype).itemsize
                with allocating(f"the {side.name} of chunk {c} of {self.store.name}", 16 * (end - first + 1) + 4 * len(dst), self.memory.device_side):
                    moved = self.memory.derive(side.cuda, offsets[first : end + 1], dst, self.indptr, at)
                it["bytes_host_to_device"] += moved
                it["bytes_index_to_device"] += moved
            else:
                on_host.append((side, (first_src + first, side.derive(first, end, offsets, dst, self.host_indptr))))
        return on_host

    def _load_indexes(self, it: dict, host: dict[int, int], derived: list) -> None:
        """Copies the headers and indexes not yet in the index arena, from their host slots, and
        the sidecar values just derived, ``[(sidecar, (v0, values)), ...]``."""
        todo = [c for c in host if self.plan.index is not None and self.plan.index[c] >= 0 and not self.indexed[c]]
        if not todo and not derived:
            return
        start = self.memory.mark("copy")
        for c in todo:
            nbytes = int(min(self.layout[c, PAYLOAD_START] + INDEX_SLACK, self.chunk_bytes[c]))
            self.memory.copy(self._index_address(c), self.memory.host_address(host[c]), nbytes)
            it["bytes_host_to_device"] += nbytes
            it["bytes_index_to_device"] += nbytes
            self.indexed[c] = True
        for side, (v0, values) in derived:
            values = np.ascontiguousarray(values, side.dtype)
            self.memory.copy(self.memory.device_base + self.plan.sidecars[side.name] + v0 * values.itemsize, values, values.nbytes)
            it["bytes_host_to_device"] += values.nbytes
            it["bytes_index_to_device"] += values.nbytes
        end = self.memory.mark("copy")
        self.memory.compute_waits(end)
        for c in todo:
            self.host.fence[host[c]] = end
        it["_marks"].append(("transfer_seconds", start, end))

    def _copy(self, it: dict, chunks: list[int], keep=None, last=None) -> dict[int, int]:
        """Device slots for ``chunks``, filled from the host tier on the copy stream; the slots of
        ``keep`` (default: ``chunks``) are not taken, and ``last`` chooses among the others (see
        ``SlotCache.place``); in the host tier too, after the chunks the device holds, those it
        will keep longest first (so that the tiers hold different chunks)."""
        host = self._to_host(it, chunks, None if last is None else self._apart(last))
        return self._fill(it, host, chunks, keep=chunks if keep is None else keep, last=last)

    def _apart(self, last: Callable[[int], tuple]) -> Callable[[int], tuple]:
        """The host tier's choice beside a device that evicts by ``last`` (largest first): the
        chunks the device holds go first, smallest ``last`` (kept there longest) first, then the
        others by ``last``."""
        return lambda x: (True, tuple(-v for v in last(x))) if x in self.device else (False, last(x))

    def _fill(self, it: dict, host: dict[int, int], chunks: list[int], keep, last=None, spare_only: bool = False) -> dict[int, int]:
        """Device slots for ``chunks``, copied from their slots in ``host`` on the copy stream, and
        taken out of ``host``. With ``spare_only``, only into slots that are free or hold a chunk
        the host tier holds too (least recently used first), each chunk copied then the host
        tier's next to go; the rest stay in ``host``."""
        held_twice = [d for d in self.device.chunks() if d in self.host and d not in keep] if spare_only else []
        self._static = None  # the device tier changes
        start = self.memory.mark("copy")
        slots = {}
        for c in chunks:
            if spare_only and len(self.device) == self.device.n_slots:
                if not held_twice:
                    break
                self.device.drop(held_twice.pop(0))
            slot, _ = self.device.place(c, keep=keep, home=c if self.plan.homes else None, last=last)
            if spare_only:
                self.host.demote(c)
            nbytes = int(self.unit_bytes[c])
            try:
                self.memory.copy(self._device_address(slot), self.memory.host_address(host[c]), nbytes, after=self.device.fence[slot])
            except BaseException:  # as in the host tier: a slot holds a chunk only once its copy is under way
                self.device.drop(c)
                raise
            it["bytes_host_to_device"] += nbytes
            it["device_misses"] += 1
            slots[c] = slot
        end = self.memory.mark("copy")
        self.memory.compute_waits(end)
        for c in slots:
            self.host.fence[host.pop(c)] = end
        it["_marks"].append(("transfer_seconds", start, end))
        return slots

    def _round(self, it: dict, device: dict[int, int], host: dict[int, int]) -> Iterator[object]:
        """One round's table: ``device`` chunks in their slots, ``host`` chunks read in place."""
        table = self._addressed(device, host)
        start = self.memory.mark("compute")
        yield self.memory.upload(table)
        self._fence(device, host, start, it)

    def _fence(self, device: dict[int, int], host: dict[int, int], start, it: dict) -> None:
        """After a round's kernels: its slots are free to overwrite once they are done."""
        end = self.memory.mark("compute")
        for slot in device.values():
            self.device.fence[slot] = end
        for slot in host.values():
            self.host.fence[slot] = end
        it["rounds"] += 1
        it["_marks"].append(("compute_seconds", start, end))

    def _device_address(self, slot: int) -> int:
        return self.memory.device_base + int(self.plan.slots[slot])

    def _index_address(self, c: int) -> int:
        return self.memory.device_base + int(self.plan.index[c])

    def _addressed(self, device: dict[int, int], host: dict[int, int]) -> np.ndarray:
        table = self.layout.copy()
        table[:, CHUNK_START] = ABSENT
        device_addresses = lambda slots: self.memory.device_base + self.plan.slots[slots]
        for chunks, addresses in ((device, device_addresses), (host, self.memory.host_addresses)):
            if chunks:
                rows = np.fromiter(chunks, np.int64, len(chunks))
                base = addresses(np.fromiter(chunks.values(), np.int64, len(chunks)))
                table[rows, CHUNK_START] = base
                table[rows, INDEX_START] += base
                table[rows, PAYLOAD_START] += base
                if self.weighted:
                    table[rows, WEIGHTS_START] += base
        if host and self.plan.index is not None:  # chunks read in place find their index on the device (those it holds)
            rows = np.fromiter(host, np.int64, len(host))
            rows = rows[self.plan.index[rows] >= 0]
            table[rows, INDEX_START] = self.memory.device_base + self.plan.index[rows] + self.layout[rows, INDEX_START]
        return table

    def take_stats(self) -> dict:
        """What moved since the last call, per iteration and in total, the most times any chunk was
        read from the store, and the chunks' bytes by the times they were read (waits for the GPU
        to finish so that its events and counts can be read); the counters start again from zero."""
        self.memory.synchronize()
        self._count_static()
        for it in self.iterations:
            it.pop("_in_place", None)
            for key, start, end in it.pop("_marks"):
                it[key] += self.memory.seconds(start, end)
        self._needs[: len(self.iterations)] = 0
        iterations, totals, most = self.iterations, self.totals, int(self.reads.max(initial=0))
        read = np.bincount(self.reads, weights=self.stored_bytes)
        histogram = {times: int(nbytes) for times, nbytes in enumerate(read) if times and nbytes}
        self.iterations, self.totals = [], dict.fromkeys(COUNTERS, 0)
        self.reads[:] = 0
        return {**totals, "store_reads_max": most, "store_read_bytes": histogram, "iterations": iterations}

    def _count_static(self) -> None:
        """What the static iterations read, from their demand rows, in one pass on the device:
        hits are needed chunks on the device; the rest were read in place from the host tier."""
        rows = [i for i, it in enumerate(self.iterations) if it["_in_place"] is not None]
        if not rows:
            return
        xp = self.memory.xp
        need = self._needs[rows]
        in_place = xp.stack([self.iterations[i].pop("_in_place") for i in rows])
        needed = need > 0
        counts = xp.stack(
            [xp.count_nonzero(needed & ~in_place, axis=1), xp.count_nonzero(needed & in_place, axis=1), xp.sum(xp.minimum(need, self._edges) * self._edge_bytes * in_place, axis=1)], axis=1
        )
        for i, (hits, zero_copy, read) in zip(rows, self.memory.to_numpy(counts).tolist()):
            counted = {"device_hits": int(hits), "zero_copy_chunks": int(zero_copy), "host_hits": int(zero_copy), "bytes_zero_copy": int(read)}
            for k, v in counted.items():
                self.iterations[i][k] += v
                self.totals[k] += v
