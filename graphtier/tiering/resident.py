"""A whole graph held in one buffer of encoded chunks: the device tier when everything fits.

Every chunk is checked as it is placed (``StoredGraph.read``), once, before any kernel may
touch it. Kernels then index without bounds checks.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .budget import allocating
from .storage import CRC_BYTES, core_threads
from .stored import StoredGraph, validated_weights

# Columns of the chunk table that kernels use to find a chunk: where the chunk, its index, its
# payload and its edges' weights start (byte offsets into the memory the kernel reads; on the GPU,
# addresses), its edge count and first source. ABSENT in CHUNK_START: the chunk is not in memory
# for this round; in WEIGHTS_START: no weights were loaded. The CUDA sources get the same layout
# from here (kernels/cuda/sources.py).
TABLE = ("CHUNK_START", "INDEX_START", "PAYLOAD_START", "CHUNK_EDGES", "FIRST_SRC", "WEIGHTS_START")
CHUNK_START, INDEX_START, PAYLOAD_START, CHUNK_EDGES, FIRST_SRC, WEIGHTS_START = range(len(TABLE))
TABLE_COLUMNS = len(TABLE)
ABSENT = -1


class Whole:
    """A graph held whole where its kernels read it (host memory, or the GPU's): the scheduler
    steps aside, and one round, the whole table, holds every list."""

    steps_aside = True

    def sidecar(self, name: str) -> None:
        """Every list is at hand: no per-vertex sidecar to check before reading one."""
        return

    @property
    def round_vertices(self) -> tuple[int, int]:
        return 0, self.n_vertices

    def rounds(self, demand=None, span=None):
        yield self.table

    def take_stats(self) -> dict:
        """What loading it moved, once: the first result to ask reports it."""
        moved, self.unreported = self.unreported, {}
        return moved


@dataclass
class ResidentGraph(Whole):
    arena: np.ndarray  # uint8, every chunk 8-byte aligned (a CuPy array where loaded for the GPU)
    table: np.ndarray  # int64 (n_chunks, TABLE_COLUMNS), byte offsets into ``arena``
    indptr: np.ndarray  # int64 (V + 1,)
    n_vertices: int
    chunk_edges: int
    format: str
    id_dtype: np.dtype
    unreported: dict = field(default_factory=dict)  # the load, until a result reports it

    def words(self, dtype: np.dtype | None = None) -> np.ndarray:
        """The arena as words of ``dtype`` (default: the id width), the view a format's kernel reads."""
        return self.arena.view(self.id_dtype if dtype is None else dtype)

    @property
    def weighted(self) -> bool:
        """Whether each chunk is followed by its edges' weights."""
        return bool(len(self.table)) and self.table[0, WEIGHTS_START] != ABSENT

    @property
    def weights(self) -> np.ndarray:
        """The arena as float32, where each chunk's weights start at its ``WEIGHTS_START // 4``."""
        return self.arena[: len(self.arena) // 4 * 4].view(np.float32)

    @property
    def nbytes(self) -> int:
        return self.arena.nbytes + self.table.nbytes + self.indptr.nbytes

    resident_bytes = host_bytes = nbytes


def indptr_problem(indptr: np.ndarray, n_vertices: int, n_edges: int) -> tuple[str, int] | None:
    """What is wrong with ``indptr`` for a graph of this size, and the entry where it shows; None if
    nothing: n_vertices + 1 entries from 0 up to n_edges, never decreasing."""
    if len(indptr) != n_vertices + 1:
        return f"holds {len(indptr)} entries for {n_vertices} vertices", 0
    if indptr[0] != 0:
        return f"starts at {indptr[0]}, not 0", 0
    if indptr[-1] != n_edges:
        return f"ends at {indptr[-1]}, not the {n_edges} edges of adj", n_vertices
    down = indptr[1:] < indptr[:-1]
    if down.any():
        i = int(np.argmax(down))
        return f"decreases at entry {i + 1} ({indptr[i]} then {indptr[i + 1]})", i + 1
    return None


# What a warp reads of 32 consecutive ids or weights. Chunks start on a line in every tier, so a
# kernel finds where lines start from a chunk's own offsets, the same under every budget (the
# lanes that sum a list's shares, and so float sums, do not depend on where the chunk lies).
LINE_BYTES = 128


def pad_line(nbytes: int) -> int:
    return -(-nbytes // LINE_BYTES) * LINE_BYTES


def weights_start(chunk_bytes: int, payload_start: int) -> int:
    """Where a chunk's weights start, from the chunk's start: past its bytes, at its payload's place
    within a line, so that a warp reading the ids and weights of 32 positions reads whole lines of
    both (read in place over PCIe, each line a warp touches crosses the bus)."""
    return chunk_bytes + (payload_start - chunk_bytes) % LINE_BYTES


def unit_bytes(chunk_bytes: int, payload_start: int, n_edges: int, weighted: bool) -> int:
    """Bytes a chunk takes in memory, whole lines: its encoded bytes, then its edges' weights
    (``weights_start``)."""
    return pad_line(weights_start(chunk_bytes, payload_start) + 4 * n_edges if weighted else chunk_bytes)


def resident_bytes(chunk_bytes: Sequence[int], chunk_edges: Sequence[int], n_vertices: int, weights: bool) -> int:
    """Bytes a whole graph takes resident, from its chunks' encoded sizes and edge counts: every
    chunk on whole lines (with its weights: at most, as their place within a line varies), its
    table row, and indptr. ``Graph.source`` holds a graph resident when this fits its budgets."""
    total = sum(pad_line(int(b)) + 8 * TABLE_COLUMNS for b in chunk_bytes) + 8 * (n_vertices + 1)
    if weights:
        total += sum(LINE_BYTES + pad_line(4 * int(e)) for e in chunk_edges)
    return total


class HostArena:
    """Where ``load_resident`` places a graph's chunks: a host buffer (the CPU's resident graph),
    each chunk read straight into its place there."""

    where = "host"

    def __init__(self, nbytes: int):
        self.bytes = np.empty(nbytes, np.uint8)  # each byte written once: the chunks, then what pads them

    @contextlib.contextmanager
    def chunk(self, start: int, nbytes: int, end: int):
        """Where a chunk's ``nbytes`` are read to and checked, then kept at ``start``; zeros after
        them up to ``end``."""
        yield self.bytes[start : start + nbytes]
        self.bytes[start + nbytes : end] = 0

    def put(self, start: int, data: np.ndarray, end: int) -> None:
        """``data`` (bytes) at ``start``, zeros after it up to ``end``."""
        self.bytes[start : start + len(data)] = data
        self.bytes[start + len(data) : end] = 0


def load_resident(graph: StoredGraph, memory=HostArena) -> ResidentGraph:
    """Every chunk, validated, in one arena made by ``memory`` (``HostArena``, or the GPU's, which
    spares a copy of the graph on the host); each followed by its edges' weights where ``graph``
    has them. The arena is laid out from the chunks' sizes (``graph.chunk_sizes()``; a chunk's
    weights at most a line past its bytes); then a thread per core reads each chunk where the arena
    says (its place, or a buffer of the thread's that goes on to the GPU), checks and validates it
    (the reads, the checksum and the decoders let go of the GIL), so that a load holds the arena
    and a chunk a thread beside it. A damaged store names its first damaged chunk."""
    store, weights, sizes = graph.chunks, graph.weights, graph.chunk_sizes()
    n = store.n_chunks
    edges = graph.chunk_edge_counts()
    units = [pad_line(size + (LINE_BYTES - 1 + 4 * e if weights else 0)) for size, e in zip(sizes, edges)]
    starts = np.concatenate([[0], np.cumsum(units, dtype=np.int64)])
    with allocating(f"the whole graph ({store.name}, every chunk{' and its weights' if weights else ''})", int(starts[-1]), memory.where):
        arena = memory(int(starts[-1]))
    table = np.zeros((n, TABLE_COLUMNS), np.int64)

    def place(c: int) -> int:
        """Chunk ``c`` read, checked, validated and placed (zeros up to the next one), its weights
        after it: the bytes it took from the store."""
        start, size = int(starts[c]), int(sizes[c])
        with arena.chunk(start, size, int(starts[c + 1])) as out:
            h = graph.read(c, out)[0]
        table[c] = (start, start + h.index_start, start + h.payload_start, h.n_edges, h.first_src, start + weights_start(size, h.payload_start) if weights else ABSENT)
        if weights is None:
            return size + CRC_BYTES
        values = weights.read([c])[0][0]
        w = validated_weights(weights, c, values, h.n_edges).view(np.uint8)
        arena.put(int(table[c, WEIGHTS_START]), w, int(table[c, WEIGHTS_START]) + len(w))
        return size + CRC_BYTES + weights.stored_bytes(values)

    nbytes = sum(core_threads("resident").map(place, range(n)))
    return ResidentGraph(
        arena.bytes, table, graph.indptr, graph.n_vertices, graph.chunk_edges, graph.codec.format, graph.id_dtype, {"bytes_store_read": nbytes, "store_reads_max": 1, "store_read_bytes": {1: nbytes}}
    )
