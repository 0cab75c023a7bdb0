"""An algorithm's functors, declared once for both backends: the name of the CUDA struct (in the
algorithm's ``.cu`` file) and the ``@njit`` functions that do the same on the CPU.

CPU functions take a ``state`` tuple last: the arguments the algorithm passed to the operator, in
order (the CUDA struct's fields, in the same order). Edges come as ``(src, dst, edge, weight)``,
``edge`` the edge's position in ``adj`` and ``weight`` its weight when the run loaded weights.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from numba import njit


def cpu(fn: Callable | None = None, **options):
    """Compile a CPU functor (or a helper it calls): Numba without reference counting, since a
    functor allocates nothing, and counting the state's arrays on every call cost 5x the time per
    edge (SSSP's relax on cnr-2000: 53 against 11 ms for a third of the lists)."""
    if fn is None:
        return lambda f: njit(f, _nrt=False, **options)
    return njit(fn, _nrt=False, **options)


@dataclass(frozen=True)
class Combine:
    """How the parts of a run split over devices (runtime/parts.py) merge a state array that an
    operator writes, its argument ``arg``: reduced by ``op`` ("sum", "max" or "min") after the
    operator; or, with ``value``, set to the operator's argument ``value`` at every vertex the
    parts queued (all it writes there, so the union of the queues says where and no values move);
    or, ``at_end``, reduced by ``op`` once, after the last iteration: for an array no functor reads
    and that each vertex has written in one iteration at most (the parts hold other values of it
    in between)."""

    arg: int
    op: str = "max"
    value: int | None = None
    at_end: bool = False

    def __post_init__(self):
        if self.op not in ("sum", "max", "min"):
            raise ValueError(f"a combine's op is 'sum', 'max' or 'min', got {self.op!r}")


@dataclass(frozen=True)
class Functor:
    cuda: str  # the struct in the algorithm's .cu file

    def kernels(self, decoder: str) -> tuple[str, ...]:
        """The name expressions of the CUDA kernels that apply this functor with ``decoder``."""
        raise NotImplementedError

    @property
    def reads_edges(self) -> bool:
        return isinstance(self, Advance | Pull | Gather)


@dataclass(frozen=True)
class Advance(Functor):
    """``fn(v, u, edge, weight, state) -> bool``: push through the edge (v, u); True queues u.
    ``combine``: a ``Combine`` for each state array it writes, which is how a run split over
    devices merges the parts' writes; none: it runs on one. ``combine_queued``: it writes those
    arrays only at the vertices it queues, so the merge moves their values at the union of the
    parts' queues, not whole arrays (and a ``Combine`` with a ``value`` needs it)."""

    fn: Callable
    combine: tuple[Combine, ...] = ()
    combine_queued: bool = False
    spans: bool = False  # also pushes from several spans in one launch (``Spans``): it takes no per-span argument
    rounds: bool = False  # also iterates a latency store's clusters (``Run.rounds``)

    def kernels(self, decoder: str) -> tuple[str, ...]:
        spans = (f"advance_spans_kernel<{decoder}, {self.cuda}>",) if self.spans else ()
        rounds = (f"rounds_kernel<{self.cuda}>",) if self.rounds else ()  # last: runtime/cuda.py takes it so
        return (f"advance_push_kernel<{decoder}, {self.cuda}>", f"advance_hubs_kernel<{decoder}, {self.cuda}>", *spans, *rounds)


@dataclass(frozen=True)
class Pull(Functor):
    """Each wanted vertex u scans its in-edges (v, u) until ``test(u, v, edge, weight, state)``
    holds, then ``adopt(u, v, state)`` runs once and u is queued."""

    wanted: Callable  # (u, state) -> bool
    test: Callable
    adopt: Callable
    combine: tuple[Combine, ...] = ()  # as Advance's
    combine_queued: bool = False  # as Advance's

    def kernels(self, decoder: str) -> tuple[str, ...]:
        return (f"advance_pull_kernel<{decoder}, {self.cuda}>", f"pull_sidecar_kernel<{self.cuda}>", f"pull_demand_kernel<{self.cuda}>")


@dataclass(frozen=True)
class Gather(Functor):
    """Each wanted vertex u sums ``gather(u, v, edge, weight, state)`` over its in-edges, then
    ``apply(u, total, state)``. With ``lanes``, a vertex sums one value per lane b (``Run.gather``
    says how many, at most 64: the sources of a batch, say): ``wanted(u, b, state)``,
    ``gather(u, v, edge, weight, b, state)``, ``apply(u, b, total, state)``, each lane's terms
    added in list order. The CUDA functor also names the lanes an edge feeds (``lanes_of(u, v)``,
    a word a warp reads once per edge) and is asked for those lanes' terms alone; the CPU's
    ``gather`` returns zero for the others."""

    wanted: Callable  # (u, state) -> bool
    gather: Callable
    apply: Callable
    combine: tuple[Combine, ...] = ()  # as Advance's
    lanes: bool = False

    def kernels(self, decoder: str) -> tuple[str, ...]:
        kind = "gather_lanes" if self.lanes else "gather"
        return (f"{kind}_kernel<{decoder}, {self.cuda}>", f"{kind}_hubs_kernel<{decoder}, {self.cuda}>", f"{kind}_apply_kernel<{self.cuda}>")


@dataclass(frozen=True)
class DepthFirst(Functor):
    """A depth-first walk through out-edges, on the CPU only (``Run.depth_first``), each vertex on
    it carrying an int64 value: ``root(v, state) -> bool`` starts a walk at v (True: v is entered);
    ``start(v, state) -> value`` is an entered vertex's first value; ``edge(v, u, edge, weight,
    value, state) -> (bool, value)`` for each edge of the vertex being walked, in list order (True:
    u is entered, the walk goes down to it; at most once per vertex and call), with v's value
    after it; ``back(v, u, value, state) -> value`` when the walk comes back to v from u;
    ``leave(v, value, state)`` once v's list is done. The value stays in a register along a list
    (Tarjan's low link, say). ``depth``: the most vertices on the walk at once, which sizes its
    stack (0: every vertex; 1: a walk that enters none, visiting each root's list alone). ``cuda``
    names no struct: the GPU has no serial walk."""

    root: Callable
    start: Callable
    edge: Callable
    back: Callable
    leave: Callable
    depth: int = 0

    def kernels(self, decoder: str) -> tuple[str, ...]:
        return ()


@dataclass(frozen=True)
class Filter(Functor):
    """``fn(v, state) -> bool``: v is queued when True. ``per_vertex``: ``fn`` writes only v's own
    state, so the CPU may run it on many vertices at once (as the GPU does, where a functor that
    writes others' state uses atomics); else the CPU runs it one vertex after another."""

    fn: Callable
    per_vertex: bool = False

    def kernels(self, decoder: str) -> tuple[str, ...]:
        return (f"filter_kernel<{self.cuda}>",)


@dataclass(frozen=True)
class Compute(Functor):
    """``fn(v, state)`` on every vertex of a set, in parallel."""

    fn: Callable

    def kernels(self, decoder: str) -> tuple[str, ...]:
        return (f"compute_kernel<{self.cuda}>",)
