"""The iteration loop every algorithm runs in, written once for both backends.

An algorithm (``Algorithm``) says which edges it reads (``edges``), what vertex state it keeps
(``state``), how it starts (``start``), what one iteration does (``step``: operator calls), how
many iterations may run before the host looks at the sizes again (``batch``) and when it is done
(``done``). ``Run`` does the rest: it charges the state to the device budget before allocating
it, opens the edges under what is left (the resident graph, or a scheduler streaming chunks
through the tiers), launches batches of iterations, times each (CUDA events on the GPU) and
records per-iteration statistics, with what the tiers moved for it.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import OutOfMemoryError
from ..kernels.formats import FORMATS
from ..kernels.limits import MAX_LANES
from ..tiering.scheduler import COUNTERS, Scheduler, Sidecar, reads_of
from . import parts
from .config import Config
from .frontier import ALL, Clusters, Copies, Frontier, Queue, Span, Spans, span_of
from .functors import Advance, Compute, DepthFirst, Filter, Gather, Pull

BATCH = 8  # iterations launched per readback of the sizes when an algorithm needs no decision between them


@dataclass(frozen=True)
class Edges:
    """Edges an algorithm reads: the graph (``reverse``: its transpose, stored under ``reverse/``),
    with each edge's weight or not, and the sidecars to keep on the device when chunks are read in
    place (tiering/scheduler.py)."""

    reverse: bool = False
    weights: bool = False
    sidecars: tuple[Sidecar, ...] = ()


class Algorithm:
    """One algorithm: functors (``functors``, their CUDA structs in ``cuda``, a .cu file) and the
    driver methods below. A subclass instance holds one query's parameters. On a coalesced store
    (Graffix) ``run.copies`` holds the replicas: an algorithm whose steps merge each with its
    original (confluence: functors over ``run.copies.pairs`` or ``.replicas``) computes as if
    they were one vertex; in any other a replica is a vertex of its own."""

    cuda: Path
    functors: tuple = ()
    queues: tuple[str, ...] = ()  # queues of its own besides the frontier (``Run.queues``)
    dedup = False  # operators may queue a vertex once per iteration (marks)
    bitmap = False  # pulls test membership in the frontier (a bitmap of it)
    planned = False  # iterations read spans the host knows (layers): a batch needs no resident graph, an empty output ends nothing

    def edges(self, graph) -> dict[str, Edges]:
        return {"out": Edges()}

    def state(self, graph) -> dict[str, tuple]:
        """Vertex state, ``name -> (shape, dtype)``, allocated (uninitialised) before ``start``."""
        return {}

    def start(self, run: Run) -> None:
        raise NotImplementedError

    def step(self, run: Run) -> None:
        raise NotImplementedError

    def batch(self, run: Run) -> int:
        """Iterations to launch before the host reads the sizes again."""
        return 1

    def done(self, run: Run, sizes: np.ndarray) -> bool:
        """Whether to stop, given every iteration's sizes (the last row: the next frontier)."""
        return sizes[-1, 0] == 0

    def finish(self, run: Run) -> None:
        """Work after the last iteration, recorded as an iteration of its own (``phase``: finish)."""

    def progress(self, run: Run) -> tuple[int, int | None, str]:
        """(work done, all of it or None when unknown, its unit) for the progress bar."""
        return len(run.iterations), None, "iterations"


class Run:
    """One execution of an algorithm on a graph: its state, frontier, edges and operators."""

    def __init__(self, algorithm: Algorithm, graph, config: Config):
        self.algorithm, self.graph, self.config = algorithm, graph, config
        self.backend = config.backend()
        self.format = FORMATS[graph.format]
        self.n = graph.n_vertices
        self.part = parts.current if parts.current is not None and parts.current.size > 1 else None  # a part of one merges nothing
        if parts.current is None and parts.device_ids(config) is not None:
            raise ValueError(f"{type(algorithm).__name__} does not run split over several devices yet (devices={config.devices!r})")
        if self.part is not None and graph.copies is not None:
            raise ValueError(f"{graph.location} is a coalesced store (Graffix): its replicas merge on one device, it does not run split over several")
        if self.part is not None and graph.centres is not None and iterates_clusters(algorithm):
            raise ValueError(f"{graph.location} is a latency store (Graffix): its clusters are iterated on one device, it does not run split over several")
        self.own = self.part.vertices if self.part is not None else (0, self.n)  # whose lists this process reads
        self.state_bytes = 0
        self._arrays: dict = {}
        self.ops = _backend(self.backend)(self)
        self.xp = self.ops.xp
        self.device_budget, self.host_budget = config.budgets(self.backend)
        shapes, nbytes = state_of(algorithm, graph, self.backend, self.part is not None)
        self._charge(nbytes)
        self.state = {name: self.array(name, shape, dtype) for name, (shape, dtype) in shapes.items()}
        self.frontier = Frontier(self, self.n, dedup=algorithm.dedup, bitmap=algorithm.bitmap)
        self.copies = Copies(self, graph) if "copy_partner" in self.state else None  # a coalesced store's replicas
        self.clusters = Clusters(self, graph) if "cluster_ptr" in self.state else None  # a latency store's clusters, for rounds
        self.queues = {name: self._queue(name) for name in algorithm.queues}
        wanted = algorithm.edges(graph)
        self.sources = self._open_edges(wanted)
        self.weighted = {name: e.weights for name, e in wanted.items()}  # a weighted graph may serve an unweighted request
        self.iterations: list[dict] = []
        self._calls: list[tuple[int, str]] = []  # (iteration, edges) of every operator that read edges
        self._merges: list[tuple[int, object, object]] = []  # (iteration, start, end) of every merge across the parts
        self._at_end: dict[int, tuple] = {}  # id -> (array, op) of those merged once the run ends

    # --- memory -----------------------------------------------------------------------------

    def _charge(self, nbytes: int) -> None:
        if not state_fits(nbytes, self.device_budget):
            if self.config.device_memory is None:  # the default budget is what is free now
                where = "GPU" if self.backend == "cuda" else "host"
                raise OutOfMemoryError(f"the vertex state of {self.graph.location} ({self.device_budget:,} bytes free, less a margin)", nbytes, where)
            raise ValueError(f"device_memory ({self.device_budget:,} bytes) does not hold the vertex state ({nbytes:,} bytes) of {self.graph.location}")
        self.state_bytes = nbytes

    def streams(self, edges: str) -> bool:
        """Whether the edges named ``edges`` stream through the tiers (else they are resident)."""
        return isinstance(self.sources[edges], Scheduler)

    def drains(self, edges: str) -> bool:
        """Whether an advance through the edges named ``edges`` may ``drain`` (the CPU holds them whole)."""
        return self.backend == "cpu" and not self.streams(edges)

    def array(self, name: str, shape, dtype):
        """A state array where the kernels run (on the GPU kept with the graph between runs)."""
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        if self.backend == "cuda":
            return self.graph.workspace().buffer(name, shape, dtype)[: shape[0]]
        return np.empty(shape, dtype)

    def _open_edges(self, wanted: dict[str, Edges]) -> dict:
        """Each name's edges under the budgets the state leaves; the same graph asked for twice (a
        symmetric graph's in-edges are its out-edges) is opened once, and distinct graphs share
        the budgets equally."""
        names, merged = graphs_read(wanted, self.graph.directed)
        chunk_budget, host_budget = shared_budgets(self.device_budget, self.host_budget, self.state_bytes, len(merged))
        budgets = {"chunk_budget": chunk_budget, "host_budget": host_budget, "zero_copy": self.config.zero_copy}
        opened = {k: self.graph.source(self.backend, e.reverse, weights=e.weights, sidecars=e.sidecars, chunks=self._chunks(e.reverse), **budgets) for k, e in merged.items()}
        return {name: opened[k] for name, k in names.items()}

    def _chunks(self, reverse: bool) -> range | None:
        """The chunks of a graph that this part reads (None: every chunk, a run on one device)."""
        return None if self.part is None else self.part.chunks(self.graph.indptr(reverse), self.graph.chunk_edges)

    # --- operators ----------------------------------------------------------------------------

    def advance(self, functor: Advance, *args, edges: str = "out", input: Queue | Span | Spans | str | None = None, output: Queue | None = None, dedup: bool = False, drain: bool = False) -> None:
        """Push from ``input`` (the frontier by default) through out-edges into ``output`` (the next
        frontier by default), once per vertex with ``dedup``; from ``Spans``, one span after another
        (in one launch where one round holds every list they read). ``drain`` (with ``dedup``), where
        the CPU holds the edges whole (``drains``): push on from every vertex the functor queues
        until none is left, all that follows from one input vertex before the next, skipping input
        vertices already pushed from; ``output`` gets none, and a propagation costs one call instead
        of an iteration per level. Only for functors whose fixpoint does not depend on the order
        (elsewhere the levels run as iterations)."""
        output = output or self.frontier.next
        if isinstance(input, Spans):
            if not functor.spans:
                raise ValueError(f"{functor.cuda} does not push from several spans in one launch (it is not declared with spans=True)")
            source = self.sources[edges]
            if self.part is not None or (self.streams(edges) and source.span_chunks(*span_of(input)) > source.round_chunks):  # parts merge after each; a round holds too few chunks
                for span in input.spans():
                    self.advance(functor, *args, edges=edges, input=span, output=output, dedup=dedup)
                return
        drained = drain and dedup and self.drains(edges)
        if drained:
            self.ops.drain(functor, args, *self._read(edges), input or self.frontier.current, output)
        else:
            self.ops.advance(functor, args, *self._read(edges), input or self.frontier.current, output, dedup)
        self._merge(functor, args, edges, output, queued=not drained)

    def rounds(self, functor: Advance, *args, rounds: int = 4, output: Queue | None = None, edges: str = "out") -> None:
        """Graffix's latency rounds on a latency store: each cluster (``Graph.clusters``) that holds
        a vertex of ``output`` (the next frontier by default) as the call starts, a vertex queued
        this iteration, applies the functor to each of its edges ``rounds`` times in a row (edge:
        its position in the clusters' edge list; weights as ``edges``' were loaded, else 1), on the
        GPU a block per cluster with a barrier between rounds. Every vertex the functor accepts
        joins ``output`` once (the frontier's marks, as ``advance`` with ``dedup``)."""
        if not functor.rounds:
            raise ValueError(f"{functor.cuda} does not iterate clusters (it is not declared with rounds=True)")
        if self.clusters is None:
            raise ValueError(f"{self.graph.location} has no clusters to iterate (a latency store's: gt.approximate(..., 'latency'))")
        if self.frontier.marks is None:
            raise ValueError(f"rounds queues each vertex once through the frontier's marks: {type(self.algorithm).__name__} must declare dedup")
        if rounds < 1:
            raise ValueError(f"rounds must be at least 1, got {rounds}")
        counts = self.clusters.counter(self._under_way)
        self.ops.rounds(functor, args, self.clusters, self.sources[edges], self.weighted[edges], rounds, output or self.frontier.next, counts)

    def pull(self, functor: Pull, *args, edges: str = "in", input: Queue | str = ALL, output: Queue | None = None, sidecar: str | None = None) -> None:
        """Each wanted vertex of ``input`` looks for the first in-neighbour that passes the functor
        and joins ``output``; where ``sidecar`` is kept on the device, its candidate is tried first."""
        output = output or self.frontier.next
        self.ops.pull(functor, args, *self._read(edges), input, output, sidecar)
        self._merge(functor, args, edges, output, queued=True)

    def gather(self, functor: Gather, *args, edges: str = "in", input: Queue | Span | str = ALL, lanes: int = 1) -> None:
        """Each wanted vertex of ``input`` sums the functor over its in-edges (in ``lanes`` lanes,
        for a functor declared with lanes)."""
        if not 1 <= lanes <= (MAX_LANES if functor.lanes else 1):
            raise ValueError(f"{functor.cuda} gathers in {'1 to 64 lanes' if functor.lanes else 'one lane'}, not {lanes}")
        self.ops.gather(functor, args, *self._read(edges), input, lanes)
        self._merge(functor, args, edges)

    def depth_first(self, functor: DepthFirst, *args, edges: str = "out", input: Queue | str = ALL) -> None:
        """Walk depth-first through out-edges from each vertex of ``input`` in turn that the
        functor's ``root`` takes, down through each edge its ``edge`` enters, each list read once
        per visit (Tarjan's and Pearce's strongly connected components, and any serial algorithm
        that needs the order of a depth-first search). Serial, on the CPU, unweighted; out of core
        the walk waits at a list whose chunk is absent while the scheduler brings it."""
        if self.backend != "cpu" or self.part is not None:
            raise ValueError(f"{functor.cuda}: a depth-first walk runs on one CPU (device='cpu', not split over devices)")
        if self.weighted[edges]:
            raise ValueError(f"{functor.cuda}: a depth-first walk reads no weights (edges {edges!r} are loaded with them)")
        source, _ = self._read(edges)
        calls = self.ops.depth_first(functor, args, source, input)
        self._calls.extend([(self._under_way, edges)] * (calls - 1))  # a record of the scheduler's per call of its rounds

    def _merge(self, functor, args: tuple, edges: str, output: Queue | None = None, queued: bool = False) -> None:
        """In a run split over devices: what the operator wrote, combined across the parts as its
        functor says (at the queued vertices alone where it writes no others and ``queued``: its
        output holds every vertex it wrote), and its output, the union of theirs (this part keeping
        its own vertices)."""
        if self.part is None:
            return
        start = self.ops.clock()
        now = [c for c in functor.combine if not c.at_end]
        self._at_end |= {id(args[c.arg]): (args[c.arg], c.op) for c in functor.combine if c.at_end}
        if output is not None and queued and functor.combine_queued:
            writes = tuple((args[c.arg], c.op) for c in now if c.value is None)
            marks = tuple((args[c.arg], args[c.value]) for c in now if c.value is not None)
            self.ops.union(output, self.sources[edges], self.part.comm, writes, marks)
        else:  # values set where the parts queued are reduced whole here: the union does not say where
            for c in now:
                self.part.comm.allreduce(args[c.arg], c.op)
            if output is not None:
                self.ops.union(output, self.sources[edges], self.part.comm)
        self._merges.append((self._under_way, start, self.ops.clock()))

    def _settle(self) -> None:
        """A split run's arrays merged once it ends (``Combine.at_end``), as a merge of its last iteration."""
        start = self.ops.clock()
        for a, op in self._at_end.values():
            self.part.comm.allreduce(a, op)
        self._merges.append((len(self.iterations) - 1, start, self.ops.clock()))

    @property
    def _under_way(self) -> int:
        """The iteration under way (the first, for work done in ``start``)."""
        return max(len(self.iterations) - 1, 0)

    def _read(self, edges: str) -> tuple:
        """(the graph, whether with weights) that an operator reads, noted for the statistics of the
        iteration under way (or the first, for a read in ``start``)."""
        self._calls.append((self._under_way, edges))
        return self.sources[edges], self.weighted[edges]

    def filter(self, functor: Filter, *args, input: Queue | str | None = None, output: Queue | None = None) -> None:
        self.ops.filter(functor, args, input or self.frontier.current, output or self.frontier.next)

    def compute(self, functor: Compute, *args, input: Queue | Span | str = ALL) -> None:
        self.ops.compute(functor, args, input)

    def any_bits(self, words, input: Queue | str = ALL) -> int:
        """The bits that any vertex of a set holds in ``words`` (an array of 64-bit words, one a
        vertex): their OR (every part's, in a split run), read back. Which sources of a batch a
        frontier still holds, say."""
        bits = self.ops.any_bits(words, input)
        if self.part is not None:
            self.part.comm.allreduce(bits, "or")
        return int(self.ops.to_host(bits)[0])

    def output(self, values, *, references: bool = False):
        """A per-vertex array of the run as a result: in the input's order of ids (``references``:
        vertices renamed as the input names them, -1 for none), on the host (from the GPU through
        pinned memory; in a part, each part's share of it into the slab the result goes back in),
        or left on the GPU as a CuPy array of its own (``Config.output="device"``)."""
        g, slab = self.graph, parts.outputs if self.config.output == "host" else None
        if self.config.output == "host" and (slab is None or self.backend == "cpu"):
            values = g.to_original(self.ops.to_host(values))
            values = g.refs_to_original(values) if references else values
        elif g.perm is not None:
            values = values[g.device_mapping("original_order")]
            values = self.xp.where(values >= 0, g.device_mapping("references")[self.xp.maximum(values, 0)], -1) if references else values
        elif self.config.output == "device":
            return values.copy()  # the state's buffer serves the next run
        if slab is None:
            return values
        placed = slab.place(values, self.ops.copy_out)
        return self.ops.to_host(values) if placed is None else placed

    def _queue(self, name: str) -> Queue:
        """A queue of the algorithm's own (room for every vertex, a zeroed count row), as operators
        take for ``input`` and ``output``."""
        row = self.array(f"{name}_row", (1, 4), self.frontier.sizes.dtype)
        q = Queue(self.array(f"{name}_ids", max(self.n, 1), self.frontier.queues.dtype), row, 0, row.data.ptr if self.backend == "cuda" else 0)
        q.sizes.fill(0)
        return q

    def count(self, queue: Queue) -> int:
        """A queue's count, read on the host (a synchronisation on the GPU)."""
        return int(self.ops.to_host(queue.row[:1])[0])

    def _static(self) -> bool:
        """``static`` in every part (they launch the same iterations)."""
        if self.part is None:
            return self.static
        return not self.part.comm.host_sum(np.array([int(not self.static)]))[0]

    def _sizes(self) -> tuple[np.ndarray, bool | None]:
        """The sizes of every iteration so far, each part's share of each frontier summed, and, in a
        split run, whether every part is ``static`` for the next batch: one collective a batch."""
        sizes = self.frontier.read()
        if self.part is None:
            return sizes, None
        summed = self.part.comm.host_sum(np.append(sizes.reshape(-1), int(not self.static)))
        return summed[:-1].reshape(sizes.shape), not summed[-1]

    @property
    def static(self) -> bool:
        """Whether every graph an algorithm reads is where the kernels read it, nothing to move,
        so that iterations can be launched without the host looking in between."""
        return all(s.steps_aside for s in self.sources.values())

    # --- the loop -----------------------------------------------------------------------------

    def execute(self) -> Run:
        alg, fr = self.algorithm, self.frontier
        progress = _progress(self.config, type(alg).__name__, *alg.progress(self)[1:])
        clock = self.ops.clock()
        alg.start(self)
        self.sizes = fr.initial
        ends, static = [], None  # static: agreed by the parts with the last batch's sizes
        while True:
            batch = alg.batch(self)
            if not alg.planned and not (self._static() if static is None else static):  # something moves between iterations, by a demand the host must read
                batch = 1
            fr.reserve(batch)
            first = fr.it
            for _ in range(batch):
                self.iterations.append({})
                alg.step(self)
                fr.step()
                ends.append(self.ops.clock())
            sizes, static = self._sizes()
            if batch > 1 and not alg.planned and not sizes[first + 1 : first + batch + 1, 0].all():  # launched past an empty frontier: they did nothing
                last = first + 1 + int(np.argmin(sizes[first + 1 : first + batch + 1, 0] > 0))
                del self.iterations[last:], ends[last:]
                fr.it, sizes = last, sizes[: last + 1]
            self.sizes = sizes
            if progress is not None:
                progress.update(alg.progress(self)[0] - progress.n)
            if alg.done(self, sizes):
                break
        if progress is not None:
            progress.close()
        if self._at_end:
            self._settle()
            ends[-1] = self.ops.clock()  # the last iteration's time includes it
        if type(alg).finish is not Algorithm.finish:
            self.iterations.append({"phase": "finish"})
            alg.finish(self)
            ends.append(self.ops.clock())
        self._finish(clock, ends)
        return self

    def _finish(self, start, ends: list) -> None:
        """Per-iteration times and tier statistics."""
        seconds = self.ops.seconds([start, *ends])
        for i, (it, s) in enumerate(zip(self.iterations, seconds)):
            it.update({"frontier": int(self.sizes[i, 0]) if i < len(self.sizes) else 0, **dict.fromkeys(COUNTERS, 0), "transfer_seconds": 0.0, "compute_seconds": s, "seconds": s})
        self.seconds = float(sum(seconds))
        sources = {id(s): s for s in self.sources.values()}
        moved = {key: s.take_stats() for key, s in sources.items()}
        self.moved = {k: sum(m.get(k, 0) for m in moved.values()) for k in COUNTERS}
        self.moved |= reads_of(moved.values())
        records = {key: list(m.get("iterations", [])) for key, m in moved.items()}
        tiered = set()
        for it, name in self._calls:
            key = id(self.sources[name])
            record = records[key].pop(0) if records[key] else {}
            if it >= len(self.iterations):  # launched past the end (a batch): it did nothing
                for k in COUNTERS:
                    self.moved[k] -= record.get(k, 0)
                continue
            target = self.iterations[it]
            for k in COUNTERS:
                target[k] += record.get(k, 0)
            target["transfer_seconds"] += record.get("transfer_seconds", 0.0)
            tiered.add(it)
        for it in tiered:  # on tiered iterations compute is what the transfers left
            target = self.iterations[it]
            target["compute_seconds"] = max(0.0, target["seconds"] - target["transfer_seconds"])
        for it, began, ended in self._merges:  # a run split over devices: its iterations' merges
            if it < len(self.iterations):
                record = self.iterations[it]
                record["merge_seconds"] = record.get("merge_seconds", 0.0) + self.ops.seconds([began, ended])[0]
        if self.clusters is not None:  # what the latency rounds did in each iteration
            counts = self.ops.to_host(self.clusters.counts)
            for i, it in enumerate(self.iterations):
                clusters, edges = (int(x) for x in counts[i]) if i < len(counts) else (0, 0)
                it.update({"round_clusters": clusters, "round_edges": edges})

    def stats(self, **extra) -> dict:
        """What a result reports: device, format, time, iterations, bytes moved per tier, peaks."""
        sources = {id(s): s for s in self.sources.values()}.values()
        stats = {
            "device": self.backend,
            "format": self.graph.format,
            "seconds": self.seconds,
            **extra,
            **self.moved,
            "state_bytes": self.state_bytes,
            "device_memory": self.device_budget,
            "host_memory": self.host_budget,
            "device_peak_bytes": self.state_bytes + sum(s.resident_bytes for s in sources),
            "host_peak_bytes": sum(s.host_bytes for s in sources),
            "iterations": self.iterations,
        }
        if self.backend == "cuda":
            stats["decoder"] = self.ops.decoder
        return stats


def state_fits(state_bytes: int, device_budget: int) -> bool:
    """Whether the vertex state leaves room in the device budget (it is charged first)."""
    return state_bytes < device_budget


def graphs_read(wanted: dict[str, Edges], directed: bool) -> tuple[dict[str, tuple], dict[tuple, Edges]]:
    """The distinct graphs behind an algorithm's named edges: (each name's graph, each graph with
    every sidecar asked of it). A symmetric graph's in-edges are its out-edges, one graph."""
    key = lambda e: (e.reverse and directed, e.weights)
    merged: dict[tuple, Edges] = {}
    for e in wanted.values():
        old = merged.get(key(e), Edges(*key(e)))
        merged[key(e)] = Edges(*key(e), old.sidecars + tuple(s for s in e.sidecars if s not in old.sidecars))
    return {name: key(e) for name, e in wanted.items()}, merged


def shared_budgets(device_budget: int, host_budget: int, state_bytes: int, n_graphs: int) -> tuple[int, int]:
    """(device bytes, host bytes) for each of ``n_graphs`` graphs: what the vertex state leaves, shared equally."""
    return (device_budget - state_bytes) // n_graphs, host_budget // n_graphs


def state_of(algorithm: Algorithm, graph, backend: str, split: bool = False) -> tuple[dict[str, tuple], int]:
    """The arrays a run of ``algorithm`` allocates before any chunk (its state and the operators'
    scratch, ``name -> (shape, dtype)``), and the bytes they and the frontier take: what it
    charges to ``device_memory`` first (a part of a ``split`` run merges queues in a bitmap)."""
    ops = _backend(backend)
    shapes = {**algorithm.state(graph), **ops.scratch_shapes(algorithm, graph)}
    if graph.copies is not None:
        shapes |= Copies.shapes(graph, backend)
    if iterates_clusters(algorithm) and graph.clusters is not None:
        shapes |= Clusters.shapes(graph, backend)
    if split and backend == "cuda":
        shapes["union_bits"] = (((graph.n_vertices + 31) // 32,), np.uint32)
    frontier = Frontier.nbytes(graph.n_vertices, backend, algorithm.dedup, algorithm.bitmap)
    queues = len(algorithm.queues) * (max(graph.n_vertices, 1) * (4 if backend == "cuda" else 8) + 32)
    return shapes, frontier + queues + sum(int(np.prod(s)) * np.dtype(d).itemsize for s, d in shapes.values())


def iterates_clusters(algorithm: Algorithm) -> bool:
    """Whether an algorithm iterates a latency store's clusters (a functor declared with rounds)."""
    return any(isinstance(f, Advance) and f.rounds for f in algorithm.functors)


def _backend(backend: str):
    if backend == "cuda":
        from .cuda import CudaOperators

        return CudaOperators
    from .cpu import CpuOperators

    return CpuOperators


def _progress(config: Config, name: str, total: int | None, unit: str):
    show = sys.stderr.isatty() if config.progress is None else config.progress
    if not show:
        return None
    from tqdm import tqdm

    return tqdm(desc=name, total=total, unit=f" {unit}", file=sys.stderr, leave=False)


def run(algorithm: Algorithm, graph, config: Config) -> Run:
    """Execute ``algorithm`` on ``graph``: its state, its loop, its statistics."""
    return Run(algorithm, graph, config).execute()
