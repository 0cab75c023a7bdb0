"""The operators on the CPU: Numba kernels (kernels/cpu/operators.py) over the same chunk tables the
GPU reads, one call per round of the scheduler."""

from __future__ import annotations

import itertools
import time

import numba
import numpy as np

from ..kernels.cpu import operators as ops
from ..kernels.formats import FORMATS
from ..kernels.limits import EVERY_EDGE, PULL_READS
from ..tiering.resident import ABSENT, TABLE_COLUMNS
from ..tiering.scheduler import Scheduler
from .frontier import ALL, Queue, Span, Spans, span_of
from .functors import DepthFirst, Pull
from .parts import merge_at

SERIAL_BELOW = 1024  # a filter or compute over fewer vertices runs on one thread (waking threads costs more)
_NO_WEIGHTS = np.ones(1, np.float32)
_NO_MARKS = np.zeros(1, np.bool_)


class CpuOperators:
    xp = np

    def __init__(self, run):
        self.run = run

    @staticmethod
    def scratch_shapes(algorithm, g) -> dict[str, tuple]:
        """Per-thread decode buffers, the pulls' per-vertex done flags, a depth-first walk's stack, a
        row per vertex on it (and, for formats that decode, its stack of decoded sub-lists: an id a
        vertex, or less where the walk's depth is bounded, then a chunk's worth for a sub-list that
        does not fit), and where operators de-duplicate (which drains need), the drains' flags of
        the vertices pushed from."""
        shapes = {"scratch": ((numba.config.NUMBA_NUM_THREADS, g.chunk_edges), g.id_dtype)}
        if any(isinstance(f, Pull) for f in algorithm.functors):
            shapes["done"] = ((g.n_vertices,), np.bool_)
        walks = [f for f in algorithm.functors if isinstance(f, DepthFirst)]
        if walks:
            rows = g.n_vertices if not all(f.depth for f in walks) else min(max(f.depth for f in walks), g.n_vertices)
            held = min(rows * g.chunk_edges, g.n_vertices)  # the sub-lists of the vertices on the walk
            shapes["walk"] = ((max(rows, 1), ops.WALK_COLUMNS), np.int64)
            shapes["walk_lists"] = ((1 if FORMATS[g.format].in_place else held + g.chunk_edges,), g.id_dtype)
        if algorithm.dedup:
            shapes["seen"] = ((g.n_vertices,), np.bool_)
        return shapes

    def _set(self, s: Queue | Span | Spans | str, edges: bool = True) -> tuple[np.ndarray, int, bool]:
        """A vertex set as the kernels take it; ALL or a span as a range: its vertices whose lists
        this part reads for an operator that reads ``edges``, else all of them."""
        if s == ALL or isinstance(s, Span | Spans):  # spans: one after another is the range in order
            v0, v1 = self.run.own if edges else (0, self.run.n)
            if (span := span_of(s)) is not None:
                v0, v1 = max(v0, span[0]), max(min(v1, span[1]), span[0])
            return np.array([v0], np.int64), max(v1 - v0, 0), True
        return s.ids, int(s.row[0]), False

    def _graph(self, source, weighted: bool) -> tuple:
        fmt = self.run.format
        return source.indptr, source.words(fmt.word), source.weights if weighted else _NO_WEIGHTS, source.chunk_edges

    @staticmethod
    def _demand(source, ids, n, every):
        """The scheduler's demand of a set's out-edges; None (a sweep) for every vertex."""
        if every:
            return None
        return lambda need: ops.chunk_demand(ids, n, every, source.indptr, source.chunk_edges, EVERY_EDGE, need)

    def advance(self, f, args, source, weighted: bool, input, output: Queue, dedup: bool) -> None:
        fmt = self.run.format
        kernel = ops.advance_kernel(fmt.neighbors, fmt.push, f.fn, weighted, dedup)
        ids, n, every = self._set(input)
        indptr, words, weights, ce = self._graph(source, weighted)
        marks = self.run.frontier.marks if dedup else _NO_MARKS
        scratch = self.run.state["scratch"]
        start = n_out = int(output.row[0])
        for table in source.rounds(self._demand(source, ids, n, every), span_of(input)):
            n_out += kernel(ids, n, every, indptr, words, weights, table, ce, args, output.ids[n_out:], marks, scratch)
        self._queued(output, start, n_out, indptr)

    def drain(self, f, args, source, weighted: bool, input, output: Queue) -> None:
        """``advance`` to a fixpoint in one call over a graph in memory (``Run.advance``'s ``drain``),
        the room after ``output``'s vertices its ring: ``output`` is left as it was."""
        fmt = self.run.format
        kernel = ops.drain_kernel(fmt.neighbors, fmt.push, f.fn, weighted)
        ids, n, every = self._set(input)
        indptr, words, weights, ce = self._graph(source, weighted)
        (table,) = source.rounds()
        seen = self.run.state["seen"]
        seen[:] = False
        kernel(ids, n, every, indptr, words, weights, table, ce, args, output.ids[int(output.row[0]) :], self.run.frontier.marks, seen, self.run.state["scratch"])

    def depth_first(self, f, args, source, input) -> int:
        """``Run.depth_first``: the walk runs on a round's table until it waits for a chunk the table
        lacks; out of core the next rounds bring that chunk and those at hand (``Scheduler.at_hand``).
        Returns how many times it asked the scheduler for rounds."""
        fmt = self.run.format
        kernel = ops.depth_first_kernel(fmt.neighbors, fmt.push, fmt.in_place, f.root, f.start, f.edge, f.back, f.leave)
        ids, n, every = self._set(input)
        indptr, words, _, ce = self._graph(source, False)
        walk, lists = self.run.state["walk"], self.run.state["walk_lists"]
        progress = np.zeros(3, np.int64)
        streamed = isinstance(source, Scheduler)
        tables = [np.full((source.n_chunks, TABLE_COLUMNS), ABSENT)] if streamed else source.rounds()  # streamed: the first chunk it waits for
        status, calls = None, 0
        while True:
            for table in tables:
                if status != ops.WALKED:
                    status = kernel(ids, n, every, indptr, words, table, ce, args, walk, lists, progress)
            if status == ops.TOO_DEEP:
                raise ValueError(f"{f.cuda}: edge entered more vertices at once than the walk holds ({len(walk)}: the functor's depth, else the graph's vertices, one then entered twice)")
            if status == ops.WALKED:
                return calls
            tables = source.rounds(lambda out, c=status: source.at_hand(out, c))
            calls += 1

    def rounds(self, f, args, clusters, source, weighted: bool, rounds: int, output: Queue, counts) -> None:
        """``Run.rounds``: ``clusters.touched`` holds ``output``'s vertices while the kernel runs."""
        kernel = ops.rounds_kernel(f.fn, weighted)
        queued = output.ids[: int(output.row[0])]
        clusters.touched[queued] = True
        start = int(output.row[0])
        end = start + kernel(clusters.ptr, clusters.src, clusters.dst, clusters.weight, rounds, clusters.touched, args, output.ids[start:], self.run.frontier.marks, counts)
        clusters.touched[queued] = False
        self._queued(output, start, end, source.indptr)

    def _queued(self, output: Queue, start: int, end: int, indptr) -> None:
        output.row[0] = end
        output.row[1] += ops.degree_sum(output.ids[start:end], end - start, False, indptr)

    def pull(self, f, args, source, weighted: bool, input, output: Queue, sidecar: str | None) -> None:
        ids, n, every = self._set(input)
        indptr, words, weights, ce = self._graph(source, weighted)
        done = self.run.state["done"]
        done[:] = False
        candidates = source.sidecar(sidecar) if sidecar else None
        if candidates is not None:
            ops.pull_sidecar_kernel(f.wanted, f.test, f.adopt)(ids, n, every, candidates, args, done)
        kernel = ops.pull_kernel(self.run.format.neighbors, f.wanted, f.test, f.adopt, weighted)
        demand = lambda need: ops.wanted_demand_kernel(f.wanted)(ids, n, every, indptr, ce, PULL_READS, args, need)
        for table in source.rounds(demand):
            kernel(ids, n, every, indptr, words, weights, table, ce, args, done, self.run.state["scratch"])
        found = np.flatnonzero(done)
        start = int(output.row[0])
        output.ids[start : start + len(found)] = found
        self._queued(output, start, start + len(found), indptr)

    def gather(self, f, args, source, weighted: bool, input, lanes: int) -> None:
        ids, n, every = self._set(input)
        indptr, words, weights, ce = self._graph(source, weighted)
        kernel = (ops.gather_lanes_kernel if f.lanes else ops.gather_kernel)(self.run.format.neighbors, f.wanted, f.gather, f.apply, weighted)
        extra = (lanes,) if f.lanes else ()
        for table in source.rounds(self._demand(source, ids, n, every), span_of(input)):
            kernel(ids, n, every, indptr, words, weights, table, ce, *extra, args, self.run.state["scratch"])

    def filter(self, f, args, input, output: Queue) -> None:
        ids, n, every = self._set(input, edges=False)
        start = int(output.row[0])
        output.row[0] = start + ops.filter_kernel(f.fn, f.per_vertex and n >= SERIAL_BELOW)(ids, n, every, args, output.ids[start:])

    def compute(self, f, args, input) -> None:
        ids, n, every = self._set(input, edges=False)
        ops.compute_kernel(f.fn, n >= SERIAL_BELOW)(ids, n, every, args)

    def any_bits(self, words, input) -> np.ndarray:
        ids, n, every = self._set(input, edges=False)
        return np.array([ops.any_bits(ids, n, every, words)], np.uint64)

    def union(self, output: Queue, source, comm, writes: tuple = (), marks: tuple = ()) -> None:
        """A run split over devices: ``output`` becomes the union of every part's, this part's
        own vertices of it (in order); ``writes`` and ``marks`` as the GPU's."""
        bits = np.zeros(self.run.n, np.bool_)
        bits[output.ids[: int(output.row[0])]] = True
        comm.allreduce(bits, "or")
        for a, value in marks:
            a[bits] = value
        if writes:
            merge_at(np.flatnonzero(bits), writes, comm, self.run.n)
        v0, v1 = self.run.own
        mine = np.flatnonzero(bits[v0:v1]) + v0
        output.ids[: len(mine)] = mine
        output.row[:] = 0
        self._queued(output, 0, len(mine), source.indptr)

    @staticmethod
    def start_frontier(frontier, vertex: int, edges: int) -> None:
        frontier.sizes.fill(0)
        if vertex >= 0:
            frontier.queues[0, 0] = vertex
            frontier.sizes[0, :2] = 1, edges

    def set_bits(self, queue: Queue, bits: np.ndarray, value: bool) -> None:
        bits[queue.ids[: int(queue.row[0])]] = value

    @staticmethod
    def clock() -> float:
        return time.perf_counter()

    @staticmethod
    def seconds(marks: list[float]) -> list[float]:
        return [b - a for a, b in itertools.pairwise(marks)]

    @staticmethod
    def copy_out(a, out: np.ndarray) -> None:
        np.copyto(out, a)

    @staticmethod
    def reached_entries(values, indptr) -> int:
        """The list entries of the vertices whose value is not negative (BFS's edges traversed)."""
        return int(np.diff(indptr)[values >= 0].sum())

    @staticmethod
    def to_host(a) -> np.ndarray:
        return np.asarray(a)
