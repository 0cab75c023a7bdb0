"""``gt.verify``: read every chunk of every array of a store and report every problem, not the first.

Opening a store checks its metadata, and a query checks each chunk it loads, but both stop at the
first problem and read only what the query needs. ``verify`` reads everything and goes on past
each problem, in bounded memory: ``indptr`` (8 bytes a vertex, as a query holds it), in-degree
counts for the reverse graph (8 bytes a vertex) and a few chunks at a time.
"""

from __future__ import annotations

import math
import os
import sys
import time
from dataclasses import asdict, dataclass, field

import numpy as np
import zarr
from tqdm.auto import tqdm

from .. import store as schema
from ..errors import CorruptChunkError, StoreError
from ..partition.order import levels
from ..tiering.storage import CRC_BYTES, read_vector
from ..tiering.stored import StoredGraph, validated_weights
from .build import degree_summary
from .graph import Graph, centres_problem, copies_problem, layers_problem, perm_problem

BATCH = 8  # chunks read at a time (concurrently)
_MASK = (1 << 64) - 1


@dataclass(frozen=True)
class Problem:
    """One finding: where (an array such as ``reverse/adj``, or a metadata file; its chunk) and what."""

    array: str | None
    chunk: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.array} chunk {self.chunk}: " if self.chunk is not None else f"{self.array}: " if self.array else ""
        return where + self.message


@dataclass
class VerifyReport:
    """What ``verify`` found: every problem, and how much it read."""

    store: str
    problems: list[Problem] = field(default_factory=list)
    chunks_read: int = 0
    bytes_read: int = 0
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict:
        return {"store": self.store, "ok": self.ok, "problems": [asdict(p) for p in self.problems], "chunks_read": self.chunks_read, "bytes_read": self.bytes_read, "seconds": self.seconds}

    def __str__(self) -> str:
        head = f"{self.store}: read {self.chunks_read:,} chunks ({self.bytes_read / 1e6:.1f} MB) in {self.seconds:.2f} s, "
        if self.ok:
            return head + "no problems"
        return head + f"{len(self.problems)} problem{'s' if len(self.problems) > 1 else ''}:\n" + "\n".join(f"  {p}" for p in self.problems)


def verify(store: str | os.PathLike | Graph, *, progress: bool | None = None) -> VerifyReport:
    """Check a store through and through: metadata, every chunk's checksum, header, ids and sub-list
    lengths against ``indptr``, the weights (aligned, finite, as the attributes summarise them),
    ``perm`` and, with a reverse graph, that it is the transpose (equal in-degrees, and equal
    order-free hashes of the (src, dst, weight) triples both ways). ``progress``: a bar over the
    chunks (default: when stderr is a terminal)."""
    start = time.perf_counter()
    report = VerifyReport(store.location if isinstance(store, Graph) else str(store))
    try:
        group = store.group if isinstance(store, Graph) else schema.open_group(store, check=False)
    except (StoreError, FileNotFoundError) as e:
        report.problems.append(Problem(None, None, str(e)))
        return report
    layout = schema.layout_problems(group)
    report.problems += [Problem(where, None, what) for where, what in layout]
    if any(where == "zarr.json" for where, _ in layout):
        return report  # the attributes that describe the arrays are themselves wrong
    graph = store if isinstance(store, Graph) else Graph(group, report.store)
    damaged = {where.startswith(schema.REVERSE) for where, _ in layout}  # parts left out: their arrays do not open
    parts = [r for r in (False, True) if r not in damaged and (not r or graph.has_reverse)]
    show = sys.stderr.isatty() if progress is None else progress
    total = sum(graph.chunks(r).n_chunks * (2 if graph.weighted else 1) for r in parts)
    with tqdm(desc="verifying", total=total, unit=" chunks", file=sys.stderr, disable=not show, leave=False) as bar:
        sums = {r: _check_part(graph, r, report, bar) for r in parts}
    if False not in damaged:
        perm = _check_perm(graph, report)
        _check_layers(graph, report)
        _check_copies(graph, perm, report)
        _check_centres(graph, report)
    if len(sums) == 2 and None not in sums.values():
        _check_transpose(graph, sums[False], sums[True], report)
    report.seconds = time.perf_counter() - start
    return report


@dataclass
class _Sums:
    """What a part's chunks add up to, for the checks that span chunks."""

    pairs: int = 0  # sum of the hashes of the (src, dst, weight) triples, mod 2**64
    in_degree: np.ndarray | None = None
    low: float = math.inf
    high: float = -math.inf
    total: float = 0.0


def _check_part(graph: Graph, reverse: bool, report: VerifyReport, bar) -> _Sums | None:
    """Every chunk of one part (the graph, or its reverse); its sums when every chunk passed."""
    part = graph.group[schema.REVERSE] if reverse else graph.group
    found = len(report.problems)
    indptr = _check_indptr(graph, reverse, report)
    chunks, codec = graph.chunks(reverse), graph.codec
    stored = None if indptr is None else StoredGraph(chunks, codec, indptr, graph.n_vertices, graph.chunk_edges, graph.id_dtype)
    weights = graph.weight_store(reverse) if graph.weighted else None
    n_edges = part[schema.ADJ].shape[0]
    sums = _Sums(in_degree=None if reverse else np.zeros(graph.n_vertices, np.int64))
    for lo in range(0, chunks.n_chunks, BATCH):
        ids = range(lo, min(lo + BATCH, chunks.n_chunks))
        blobs = chunks.read_each(ids)
        values = weights.read_each(ids) if weights is not None else [None] * len(ids)
        for c, blob, w in zip(ids, blobs, values):
            try:
                if isinstance(w, Exception):
                    raise w
                if w is not None:
                    report.bytes_read += w.nbytes + CRC_BYTES
                    report.chunks_read += 1
                    w = validated_weights(weights, c, w, min(graph.chunk_edges, n_edges - c * graph.chunk_edges))
                    if len(w):
                        sums.low, sums.high, sums.total = min(sums.low, float(w.min())), max(sums.high, float(w.max())), sums.total + float(w.sum(dtype=np.float64))
            except (CorruptChunkError, StoreError) as e:
                report.problems.append(_problem(e, weights.name, c))
                w = None
            try:
                if isinstance(blob, Exception):
                    raise blob
                report.bytes_read += len(blob) + CRC_BYTES
                report.chunks_read += 1
                if stored is None:  # no indptr to hold the chunk to: its own checks only
                    codec.checked_lists(blob, graph.n_vertices)
                    continue
                h, offsets, dst = stored.validated(c, blob)
            except (CorruptChunkError, StoreError) as e:
                report.problems.append(_problem(e, chunks.name, c))
                continue
            src = np.repeat(np.arange(h.first_src, h.first_src + h.n_local, dtype=np.uint64), np.diff(offsets))
            dst = dst.astype(np.uint64)
            sums.pairs = (sums.pairs + (_pair_hashes(dst, src, w) if reverse else _pair_hashes(src, dst, w))) & _MASK
            if sums.in_degree is not None:
                np.add.at(sums.in_degree, dst.astype(np.int64), 1)
        bar.update(len(ids) * (2 if weights is not None else 1))
    if len(report.problems) > found:
        return None
    _check_summaries(part, np.diff(indptr), sums, report)
    return sums


def _problem(e: CorruptChunkError | StoreError, array: str, chunk: int | None) -> Problem:
    """A chunk's error as a finding (a codec's own errors do not know their array and chunk)."""
    if isinstance(e, CorruptChunkError):
        return Problem(e.array or array, chunk if e.chunk is None else e.chunk, e.detail)
    return Problem(array, chunk, str(e))


def _check_indptr(graph: Graph, reverse: bool, report: VerifyReport) -> np.ndarray | None:
    """The part's indptr, or None (its problem reported) when it cannot serve to check chunks."""
    try:
        return graph.indptr(reverse)
    except CorruptChunkError as e:
        report.problems.append(_problem(e, e.array, e.chunk))
        return None


def _check_summaries(part: zarr.Group, degrees: np.ndarray, sums: _Sums, report: VerifyReport) -> None:
    """The part's attributes against what its chunks hold: degrees, and the weights' range and mean."""
    where = f"{part.path}/zarr.json" if part.path else "zarr.json"
    if part.attrs["degree"] != degree_summary(degrees):
        report.problems.append(Problem(where, None, "attribute degree does not match the degrees in indptr"))
    stated, n = part.attrs.get("weights"), int(degrees.sum())
    if n and sums.low <= sums.high:
        found = {"min": sums.low, "max": sums.high, "mean": sums.total / n}
        if not isinstance(stated, dict) or stated.get("min") != found["min"] or stated.get("max") != found["max"] or not math.isclose(stated.get("mean", math.nan), found["mean"], rel_tol=1e-9):
            report.problems.append(Problem(where, None, f"attribute weights is {stated}, the weights are {found}"))


def _vector(graph: Graph, name: str, report: VerifyReport) -> np.ndarray | None:
    """A whole vector of the store (``perm``, ``layers``, ``copies``), or None with its damaged
    chunk reported."""
    array = graph.group[name]
    try:
        return read_vector(array)
    except CorruptChunkError as e:
        report.problems.append(_problem(e, array.path, e.chunk))
        return None


def _check_perm(graph: Graph, report: VerifyReport) -> np.ndarray | None:
    """``perm`` names each vertex's original id once (below the vertex count unless relabelled);
    it is returned (None where the store has none, or it is damaged)."""
    if schema.PERM not in graph.group:
        return None
    perm = _vector(graph, schema.PERM, report)
    if perm is not None and (problem := perm_problem(perm, graph.n_vertices, bool(graph.attrs.get("relabelled")))):
        report.problems.append(Problem(schema.PERM, None, problem))
    return perm


def _check_copies(graph: Graph, perm: np.ndarray | None, report: VerifyReport) -> None:
    """A coalesced store's ``copies``: each slot a vertex, a replica of one, or a hole, the
    replicas and holes after the vertices in ``perm`` (results report the vertices by it; a
    damaged ``perm`` is reported already)."""
    if "coalesced" not in graph.attrs:
        return
    copies = _vector(graph, schema.COPIES, report)
    if copies is None or (perm is None and schema.PERM in graph.group):
        return
    problem = copies_problem(copies.astype(np.int64), perm, graph.attrs["coalesced"].get("originals"))
    if problem:
        report.problems.append(Problem(schema.COPIES, None, problem))


def _check_centres(graph: Graph, report: VerifyReport) -> None:
    """A latency store's cluster ``centres``: vertices, ascending, each with at most the
    attribute's ``size`` neighbours (a damaged ``indptr`` is reported already)."""
    if "clustered" not in graph.attrs:
        return
    centres = _vector(graph, schema.CENTRES, report)
    try:
        degrees = np.diff(graph.indptr())
    except CorruptChunkError:
        return
    if centres is not None and (problem := centres_problem(centres.astype(np.int64), degrees, graph.attrs["clustered"].get("size"))):
        report.problems.append(Problem(schema.CENTRES, None, problem))


def _check_layers(graph: Graph, report: VerifyReport) -> None:
    """A layered store's ``layers`` are the levels of a BFS from vertex 0 (the root), each layer
    its vertices in a run, the vertices the root misses after the last: a layered BFS or SSSP
    reads its answers' order from them."""
    if graph.attrs.get("vertex_order") != "layered":
        return
    layers = _vector(graph, schema.LAYERS, report)
    if layers is None:
        return
    layers = layers.astype(np.int64)
    problem = layers_problem(layers, graph.n_vertices)
    if problem:
        report.problems.append(Problem(schema.LAYERS, None, problem))
        return
    order, ends = levels(graph.indptr(), graph.edges()[:, 1].astype(np.int64), 0)
    found = np.full(graph.n_vertices, -1, np.int64)
    found[order] = np.repeat(np.arange(len(ends)), np.diff(np.concatenate([[0], ends])))
    said = np.full(graph.n_vertices, -1, np.int64)
    said[: layers[-1]] = np.repeat(np.arange(len(layers) - 1), np.diff(layers))
    wrong = np.flatnonzero(found != said)
    if len(wrong):
        v = int(wrong[0])
        where = lambda level: f"layer {level}" if level >= 0 else "no layer"
        report.problems.append(Problem(schema.LAYERS, None, f"vertex {v} is in {where(said[v])}, but a BFS from the root puts it in {where(found[v])}"))


def _check_transpose(graph: Graph, forward: _Sums, reverse: _Sums, report: VerifyReport) -> None:
    """The reverse graph holds each edge of the graph turned round, with its weight, and no other."""
    array = f"{schema.REVERSE}/{schema.INDPTR}"
    differ = np.flatnonzero(forward.in_degree != np.diff(graph.indptr(reverse=True)))
    if len(differ):
        v = int(differ[0])
        chunk = v // graph.group[schema.REVERSE][schema.INDPTR].chunks[0]
        report.problems.append(
            Problem(
                array,
                chunk,
                f"out-degrees of {len(differ):,} vertices differ from their in-degrees in adj, first vertex {v}: {int(np.diff(graph.indptr(True))[v])} against {int(forward.in_degree[v])}",
            )
        )
    elif forward.pairs != reverse.pairs:
        report.problems.append(Problem(f"{schema.REVERSE}/{schema.ADJ}", None, "holds other edges (or weights) than adj turned round: the hashes of their (src, dst, weight) triples differ"))


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser, elementwise on uint64 (wrapping)."""
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def _pair_hashes(src: np.ndarray, dst: np.ndarray, weights: np.ndarray | None) -> int:
    """The sum (mod 2**64) of a hash of each (src, dst[, weight]): the same for any order of the
    same triples, so that a graph and its reverse can be compared chunk by chunk, unsorted."""
    h = _mix(_mix(src) ^ dst)
    if weights is not None:
        h = _mix(h ^ weights.view(np.uint32).astype(np.uint64))
    return int(h.sum(dtype=np.uint64))
