"""The operators on the GPU: the kernel templates of kernels/cuda/operators.cuh instantiated with an
algorithm's functor structs (its .cu file) and the graph's decoder, launched once per round of the
scheduler. Every kernel parameter is an 8-byte word (``Launcher``): arrays go as their addresses,
functor arguments as eight words (pointers, integers, doubles)."""

from __future__ import annotations

import functools
import itertools

import numpy as np

from ..errors import DeviceError
from ..kernels.cuda.runtime import Launcher, module
from ..kernels.limits import HUB_EDGES, MAX_LANES, PIECE_EDGES
from .frontier import ALL, Queue, Span, Spans, span_of
from .functors import Gather
from .parts import merge_at

BLOCK, BLOCKS_PER_SM = 256, 8  # threads per block; blocks per SM of the (grid-stride) grids
ROUNDS_BLOCK = 128  # threads of the block that iterates a cluster (a centre and at most `size` neighbours, 32 by default; not tuned on a GPU)
SPANS_BLOCK = 1024  # the one block that pushes from a group of spans, where the kernel's registers allow
EXTERNS = ("push_demand", "queue_to_bitmap", "clear_bitmap", "frontier_start", "set_range", "bitmap_to_queue", "bitmap_counts", "bitmap_to_ids", "set_at_bitmap", "any_bits", "reached_entries")
WORDS = 8  # FUNCTOR_PARAMS
_NULL = 0  # a null pointer


def word(a) -> int:
    """A kernel argument as its 8-byte word: a device array as its address, a float as a double's
    bits, an integer as 64-bit two's complement."""
    if hasattr(a, "data") and hasattr(a.data, "ptr"):
        return a.data.ptr
    if isinstance(a, float | np.floating):
        return int(np.float64(a).view(np.uint64))
    return int(np.int64(a).view(np.uint64))


def functor_words(args) -> list[int]:
    """An operator's arguments as the kernels' FUNCTOR_PARAMS, in order, padded to eight words."""
    if len(args) > WORDS:
        raise ValueError(f"a functor takes at most {WORDS} arguments, got {len(args)}")
    return [word(a) for a in args] + [_NULL] * (WORDS - len(args))


@functools.cache
def _multiprocessors() -> int:
    import cupy

    return cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)["multiProcessorCount"]


class CudaOperators:
    def __init__(self, run):
        import cupy

        self.cupy = self.xp = cupy
        self.run = run
        if run.graph.id_dtype != np.uint32:
            raise DeviceError(f"the GPU backend reads 32-bit ids; this graph has {run.graph.id_dtype} ids")
        fmt = run.format
        self.decoder = run.config.decoder or next(iter(fmt.decoders))
        self.type = fmt.decoder_type(run.config.decoder)
        names = tuple(dict.fromkeys(k for f in run.algorithm.functors for k in f.kernels(self.type))) + EXTERNS
        self.module = module(run.algorithm.cuda, names)
        self.launch = Launcher()
        self._kernels: dict = {}
        self._functions: dict[str, int] = {}
        self._advanced: set[int] = set()  # the rows of queues advanced from: the hubs they hold are spent
        self.grid = _multiprocessors() * BLOCKS_PER_SM

    @staticmethod
    def scratch_shapes(algorithm, g) -> dict[str, tuple]:
        """The hubs a push or a gather hands to its second kernel, the sizes row of an ALL set, and
        for a gather where each hub's pieces start and their sums (a hub's sub-list in a chunk
        makes a piece per PIECE_EDGES edges, and one more at most; a sum per lane by lanes)."""
        hubs = g.n_edges // HUB_EDGES + 1
        shapes = {"hubs": ((hubs,), np.uint64), "all_row": ((4,), np.uint64)}
        gathers = [f for f in algorithm.functors if isinstance(f, Gather)]
        if gathers:
            pieces = g.n_edges // PIECE_EDGES + g.n_edges // g.chunk_edges + 2 * hubs
            lanes = MAX_LANES if any(f.lanes for f in gathers) else 1
            shapes |= {"hub_first": ((hubs,), np.int64), "hub_sums": ((pieces * lanes,), np.float64)}
        return shapes

    def _functor_kernels(self, f) -> tuple[str, ...]:
        """The names of the functor's kernels with this run's decoder (formatted once per run)."""
        k = self._kernels.get(f)
        if k is None:
            k = self._kernels[f] = tuple(f.kernels(self.type))
        return k

    def _function(self, name: str) -> int:
        """The kernel's CUfunction on this run's device."""
        address = self._functions.get(name)
        if address is None:
            address = self._functions[name] = self.module.get_function(name).kernel.ptr
        return address

    def _launch(self, kernel: str, *params, grid: int = 0, block: int = BLOCK) -> None:
        """``kernel`` with ``params``, words (``Launcher``), on ``grid`` blocks (0: a grid-stride
        grid that fills the device)."""
        self.launch(self._function(kernel), grid or self.grid, block, params)

    def _set(self, s: Queue | Span | str) -> tuple[int, int]:
        """A vertex set's kernel parameters: the address of its ids (null for a range: ALL or a
        span) and of its sizes row."""
        if s == ALL or isinstance(s, Span):
            return _NULL, self.run.state["all_row"].data.ptr
        return s.ids.data.ptr, s.address

    def _round_set(self, s: Queue | Span | str, source, row, first: bool, edges: bool = True) -> None:
        """Before a round's kernels: ALL or a span as the vertices of it whose lists the round
        holds (a sweep's round holds a range of them) and, for an operator that reads ``edges``,
        this part reads; no hubs queued. A queue's hubs of the last round (or of the last operator
        that read it) cleared, except before the first round with ``first``."""
        if s == ALL or isinstance(s, Span):
            v0, v1 = source.round_vertices if source is not None else (0, self.run.n)
            if isinstance(s, Span):
                v0, v1 = max(v0, s.start), min(v1, s.stop)
            if edges:
                v0, v1 = max(v0, self.run.own[0]), min(v1, self.run.own[1])
            self._launch("set_range", row, v0, max(0, v1 - v0), grid=1, block=1)
        elif not first:
            s.row[2] = 0

    def _demand(self, source, ids: int, row: int):
        if ids == _NULL:
            return None  # a sweep
        return lambda need: self._launch("push_demand", source.indptr.data.ptr, source.chunk_edges, ids, row, need.data.ptr)

    def advance(self, f, args, source, weighted: bool, input, output: Queue, dedup: bool) -> None:
        push, hubs, *spans = self._functor_kernels(f)
        marks = self.run.frontier.marks.data.ptr if dedup else _NULL
        words = functor_words(args)
        out = (*self._set(output), marks)
        if isinstance(input, Spans):  # every list in one round (Run.advance): one block
            bounds = input.device.data.ptr + 8 * input.first
            block = min(SPANS_BLOCK, self.module.get_function(spans[0]).max_threads_per_block) // 32 * 32  # ef's and cgr's decoders hold more registers
            for table in source.rounds(None, span_of(input)):  # launched inside: the round's slots stay until it is done
                self._launch(spans[0], *source.params(table, weighted), bounds, input.count, *out, *words, grid=1, block=block)
            return
        ids, row = self._set(input)
        fresh = ids == _NULL or row not in self._advanced  # else a queue advanced from again (SCC: through in- and out-edges)
        hub_queue = self.run.state["hubs"].data.ptr
        for i, table in enumerate(source.rounds(self._demand(source, ids, row), span_of(input))):
            self._round_set(input, source, row, i == 0 and fresh)
            params = (*source.params(table, weighted), ids, row, hub_queue, *out, *words)
            self._launch(push, *params)
            self._launch(hubs, *params)
        if ids != _NULL:
            self._advanced.add(row)

    def rounds(self, f, args, clusters, source, weighted: bool, rounds: int, output: Queue, counts) -> None:
        """``Run.rounds``: ``clusters.touched`` holds ``output``'s vertices while the kernel runs
        (set before it, cleared after it from the grown queue: each of its words cleared whole)."""
        kernel = self._functor_kernels(f)[-1]  # Advance.kernels lists it last
        queue, bits = self._set(output), clusters.touched.data.ptr
        self._launch("queue_to_bitmap", *queue, bits)
        weights = clusters.weight.data.ptr if weighted else _NULL
        params = (source.indptr.data.ptr, clusters.ptr.data.ptr, clusters.src.data.ptr, clusters.dst.data.ptr, weights, clusters.n, rounds, bits, counts.data.ptr)
        self._launch(kernel, *params, *queue, self.run.frontier.marks.data.ptr, *functor_words(args), grid=max(1, min(clusters.n, self.grid)), block=ROUNDS_BLOCK)
        self._launch("clear_bitmap", *queue, bits)

    def pull(self, f, args, source, weighted: bool, input, output: Queue, sidecar: str | None) -> None:
        pull, from_sidecar, demand = self._functor_kernels(f)
        ids, row = self._set(input)
        words = functor_words(args)
        out = (*self._set(output), _NULL)
        candidates = source.sidecar(sidecar) if sidecar else None
        indptr = source.indptr.data.ptr
        self._round_set(input, None, row, True)
        if candidates is not None:
            self._launch(from_sidecar, candidates.data.ptr, _NULL, indptr, source.chunk_edges, self.run.n, 0, ids, row, *out, *words)
        count = lambda need: self._launch(demand, indptr, source.chunk_edges, ids, row, need.data.ptr, *words)
        for table in source.rounds(count):
            self._launch(pull, *source.params(table, weighted), ids, row, *out, *words)

    def gather(self, f, args, source, weighted: bool, input, lanes: int) -> None:
        kernels = self._functor_kernels(f)
        ids, row = self._set(input)
        words = functor_words(args)
        scratch = (self.run.state[k].data.ptr for k in ("hubs", "hub_first", "hub_sums"))
        params = (ids, row, *scratch, *words, *((lanes,) if f.lanes else ()))
        for table in source.rounds(self._demand(source, ids, row), span_of(input)):
            self._round_set(input, source, row, False)  # the round's hubs, queued by the first kernel
            for kernel in kernels:
                self._launch(kernel, *source.params(table, weighted), *params)

    def filter(self, f, args, input, output: Queue) -> None:
        ids, row = self._set(input)
        self._round_set(input, None, row, True, edges=False)
        self._launch(self._functor_kernels(f)[0], ids, row, *self._set(output), *functor_words(args))

    def compute(self, f, args, input) -> None:
        ids, row = self._set(input)
        self._round_set(input, None, row, True, edges=False)
        self._launch(self._functor_kernels(f)[0], ids, row, *functor_words(args))

    def any_bits(self, words, input):
        ids, row = self._set(input)
        self._round_set(input, None, row, True, edges=False)
        bits = self.cupy.zeros(1, np.uint64)
        self._launch("any_bits", ids, row, words.data.ptr, bits.data.ptr)
        return bits

    def union(self, output: Queue, source, comm, writes: tuple = (), marks: tuple = ()) -> None:
        """A run split over devices: ``output`` becomes the union of every part's (a bitmap merged
        across the devices), this part's own vertices of it; ``writes`` (array, combine), written
        by the operator at the vertices it queued alone, merged at the union's vertices (their
        count read back); ``marks`` (array, value): the union's vertices take the value."""
        bits = self.run.state["union_bits"]
        bits.fill(0)
        queue = self._set(output)
        self._launch("queue_to_bitmap", *queue, bits.data.ptr)
        comm.allreduce(bits, "or")
        for a, value in marks:
            self._launch("set_at_bitmap", bits.data.ptr, len(bits), a.data.ptr, a.itemsize, int(np.asarray(value, a.dtype).view(f"u{a.itemsize}")))
        if writes:
            merge_at(self._union_ids(bits), writes, comm, self.run.n)
        self._launch("set_range", queue[1], 0, 0, grid=1, block=1)
        self._launch("bitmap_to_queue", bits.data.ptr, self.run.own[0], self.run.own[1], source.indptr.data.ptr, *queue)

    def _union_ids(self, bits):
        """The ids set in ``bits``, in increasing order (their count read back to size them)."""
        ends = self.cupy.empty(len(bits), np.int64)
        self._launch("bitmap_counts", bits.data.ptr, len(bits), ends.data.ptr)
        self.cupy.cumsum(ends, out=ends)
        ids = self.cupy.empty(int(ends[-1]), np.uint32)
        self._launch("bitmap_to_ids", bits.data.ptr, len(bits), ends.data.ptr, ids.data.ptr)
        return ids

    def start_frontier(self, frontier, vertex: int, edges: int) -> None:
        self._launch("frontier_start", frontier.queues.data.ptr, frontier.sizes.data.ptr, len(frontier.sizes), word(vertex), edges)

    def set_bits(self, queue: Queue, bits, value: bool) -> None:
        self._launch("queue_to_bitmap" if value else "clear_bitmap", *self._set(queue), bits.data.ptr)

    def clock(self):
        event = self.cupy.cuda.Event()
        event.record()
        return event

    def seconds(self, marks: list) -> list[float]:
        if marks:
            marks[-1].synchronize()
        return [self.cupy.cuda.get_elapsed_time(a, b) / 1e3 for a, b in itertools.pairwise(marks)]

    @staticmethod
    def copy_out(a, out: np.ndarray) -> None:
        """Into host memory the caller gave (pinned, for the copy engine's full speed)."""
        a.get(out=out)

    def reached_entries(self, values, indptr) -> int:
        """The list entries of the vertices whose value (int32) is not negative (BFS's edges
        traversed), by a kernel of ours: CuPy's ufuncs would import cupyx, and SciPy through it, in
        every fresh process, and its ``ReductionKernel`` to one value runs in one block (about 5 ms
        on kron23)."""
        total = self.cupy.zeros(1, np.uint64)
        self._launch("reached_entries", values.data.ptr, indptr.data.ptr, len(values), total.data.ptr)
        return int(total[0])

    def to_host(self, a) -> np.ndarray:
        """Into pinned host memory (from CuPy's pool: a result let go serves the next), which the
        copy engine writes at full speed; as ``cupyx.empty_pinned`` makes it."""
        out = np.ndarray(a.shape, a.dtype, buffer=self.cupy.cuda.alloc_pinned_memory(a.nbytes))
        return a.get(out=out)
