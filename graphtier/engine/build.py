"""``gt.build``: any edge source to a graph store, through partition, codecs and the store schema."""

from __future__ import annotations

import datetime
import os
import sys
from collections.abc import Iterator

import numpy as np
import zarr

from .. import store as schema
from .._version import __version__
from ..codecs import FORMATS
from ..errors import EmptyGraphError
from ..partition.order import ORDERS
from ..partition.pipeline import MAX_VERTICES, Edges, Transposer, count_sources, partition, reorder
from ..partition.sources import open_source
from ..tiering.budget import parse_size
from ..tiering.stored import validated_weights
from .graph import Graph
from .graph import open as open_graph

RECODE_BATCH = 4  # source chunks in memory at a time
CHUNK_EDGES = 1 << 20  # edges per chunk unless asked otherwise
AUTO = "auto"  # the format that the advisor chooses (engine/advise.py)


def default_memory_budget() -> int:
    """A quarter of the machine's memory, at most 8 GiB: room to sort without crowding the rest."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return min(total // 4, 8 << 30)


def build(
    source,
    store: str | os.PathLike,
    *,
    format: str = "csr",
    chunk_edges: int | None = None,
    symmetrize: bool = False,
    drop_self_loops: bool = False,
    dedup: bool = True,
    relabel: bool = False,
    order: str | None = None,
    root: int | None = None,
    memory_budget: int | str | None = None,
    reverse: bool = False,
    overwrite: bool = False,
    allow_empty: bool = False,
    progress: bool | None = None,
    attributes: dict | None = None,
    vectors: dict[str, np.ndarray] | None = None,
) -> Graph:
    """Build a graph store from ``source`` and open it.

    ``source``: a file path (text edge list, MatrixMarket, Parquet, BVGraph basename), an (E, 2)
    array, a scipy.sparse matrix or a networkx graph. ``format``: "csr", "log", "ef", "cgr", or
    "auto": ``gt.advise`` with this machine's budgets for BFS chooses it, and the order and chunk
    size where they are not given (it builds the graph in natural order first, in a temporary
    directory beside the store, so an auto build reads the input twice); for other budgets or an
    algorithm, call ``gt.advise`` and pass its ``build_options()``. ``chunk_edges``: edges per
    chunk (default ``CHUNK_EDGES``). ``memory_budget`` (bytes or "2GiB") bounds
    the edge data in flight: three quarters for the sort (larger inputs are sorted in runs on disk
    beside the store), the rest for input blocks and chunk writes. It does not count the
    interpreter and libraries (about 130 MB) or 16 bytes per vertex for degrees and ``indptr``.
    ``order`` renumbers the vertices for locality ("natural", "degree", "bfs", "rcm", "llp");
    results are still reported in the input's ids (default "natural"). "layered" lays the
    graph out as WolfPath's layered edge lists: the levels of a BFS from ``root`` (an input id;
    default ``partition.order.default_root``) one after another, so that BFS and SSSP from the
    root run a kernel per layer with no frontier (``algorithms/layered.py``). ``reverse`` also stores the transposed graph
    (for pull traversals). The store appears only once it is complete. An input that leaves no
    edges raises ``EmptyGraphError`` unless ``allow_empty``: more often a wrong file or filter than
    a graph. ``attributes``: more group attributes, written with the rest (a derived store's
    description: ``gt.approximate``'s ``approximation``), and ``vectors`` more per-vertex uint64
    arrays (a coalesced store's ``perm`` and ``copies``), written as given (a latency store's
    ``centres``, one per cluster).
    """
    if format not in (*FORMATS, AUTO):
        raise ValueError(f"unknown format {format!r}; choose from {', '.join(FORMATS)} or {AUTO}")
    if order is not None and order not in ORDERS:
        raise ValueError(f"unknown order {order!r}; choose from {', '.join(ORDERS)}")
    if root is not None and order != "layered":
        raise ValueError(f"root= is the root of a layered store: give order='layered' with it (order is {order!r})")
    if chunk_edges is not None and not 1 <= chunk_edges <= (1 << 31):
        raise ValueError(f"chunk_edges must be in [1, 2**31], got {chunk_edges}")
    budget = default_memory_budget() if memory_budget is None else parse_size(memory_budget)
    if reverse:
        budget //= 2  # the forward and reverse sorts hold their buffers at the same time
    progress = sys.stderr.isatty() if progress is None else progress
    read_bytes = int(min(64 << 20, max(1 << 20, budget // 24)))  # ~6 blocks in flight in a quarter
    edges = open_source(source, id_limit=(1 << 64) if relabel else MAX_VERTICES, read_bytes=read_bytes)
    with schema.staged_store(store, overwrite=overwrite, inputs=_input_paths(source, edges.provenance)) as group, schema.scratch_dir(store) as scratch:
        advised = {}
        if format == AUTO:  # here, once the destination is known to be writable
            from .advise import advise

            graph = {"symmetrize": symmetrize, "drop_self_loops": drop_self_loops, "dedup": dedup, "relabel": relabel, "reverse": reverse}
            advice = advise(source, **graph, memory_budget=memory_budget, scratch=scratch, progress=progress)
            format, order, chunk_edges = advice.format, order or advice.order, chunk_edges or advice.chunk_edges
            advised = {"advised": {**advice.build_options(), "region": advice.region, "algorithm": advice.algorithm, "goal": advice.goal}}
        order, chunk_edges = order or "natural", chunk_edges or CHUNK_EDGES
        part = partition(
            edges,
            spill_dir=scratch,
            memory_budget=budget,
            symmetrize=symmetrize,
            drop_self_loops=drop_self_loops,
            dedup=dedup,
            relabel=relabel,
            progress=progress,
        )
        if order != "natural":
            part = reorder(part, order, spill_dir=scratch, memory_budget=budget, root=root)
        dtype = schema.id_dtype(part.n_vertices)
        layout = {"fmt": format, "chunk_edges": chunk_edges, "dtype": dtype, "weighted": part.weighted, "n_vertices": part.n_vertices}
        transposer = Transposer(spill_dir=scratch, memory_budget=budget, weighted=part.weighted) if reverse else None
        forward = write_adjacency(group, part.edges(), tee=transposer, **layout)
        if not forward["n_edges"] and not allow_empty:
            raise EmptyGraphError(_no_edges(part.stats), file=edges.name)
        if transposer is not None:
            rev = group.create_group(schema.REVERSE)
            rev.update_attributes(write_adjacency(rev, transposer.edges(), **layout))
        if part.perm is not None:
            schema.write_vector(group, schema.PERM, part.perm)
        for name, values in (vectors or {}).items():
            schema.write_vector(group, name, values)
        layered = {}
        if part.layers is not None:
            schema.write_vector(group, schema.LAYERS, part.layers)
            layered = {"layered": {"root": int(part.perm[0]), "layers": len(part.layers) - 1, "reached": int(part.layers[-1])}}
        group.update_attributes(
            {
                "graphtier_schema": schema.SCHEMA_VERSION,
                "n_vertices": part.n_vertices,
                "directed": not part.symmetric,
                "weighted": part.weighted,
                "format": format,
                "codec": {},
                "chunk_edges": chunk_edges,
                "vertex_order": order,
                "relabelled": relabel,
                "id_dtype": dtype.name,
                **(attributes or {}),
                **layered,
                **forward,
                "build": {
                    **edges.provenance,
                    **part.stats,
                    "duplicates_removed": part.sorter.duplicates_removed,
                    "graphtier_version": __version__,
                    "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
                    **advised,
                },
            }
        )
    return open_graph(store)


def _no_edges(stats: dict) -> str:
    read, loops = stats["edges_read"], stats["self_loops_removed"]
    if not read:
        return "the input holds no edges"
    return f"no edges are left of the {read:,} read ({loops:,} self-loops dropped)"


def _input_paths(source, provenance: dict) -> list[str]:
    """The paths a build reads, which its store must never replace: a path source itself and, for a
    BVGraph, the basename's files."""
    if not isinstance(source, (str, os.PathLike)):
        return []
    paths = [os.fspath(source)]
    if provenance.get("kind") == "bvgraph":
        base = provenance["source"]
        paths += [base, f"{base}.graph", f"{base}.properties", f"{base}.offsets"]
    return paths


def recode(
    source: str | os.PathLike | Graph,
    store: str | os.PathLike,
    *,
    format: str | None = None,
    chunk_edges: int | None = None,
    overwrite: bool = False,
) -> Graph:
    """Copy a store into another format or chunk size, a few chunks at a time (bounded memory).

    Rows come out of the old store already sorted, so nothing is sorted again; ``indptr``,
    ``perm`` (a layered store's ``layers``, a coalesced store's ``copies``, a latency store's
    ``centres``), the reverse graph and the build facts carry over.
    """
    old = source if isinstance(source, Graph) else open_graph(source)
    format = format or old.format
    chunk_edges = chunk_edges or old.chunk_edges
    if format not in FORMATS:
        raise ValueError(f"unknown format {format!r}; choose from {', '.join(FORMATS)}")
    layout = {"fmt": format, "chunk_edges": chunk_edges, "dtype": old.id_dtype, "weighted": old.weighted, "n_vertices": old.n_vertices}
    with schema.staged_store(store, overwrite=overwrite, inputs=[old.location]) as group:
        facts = _copy_adjacency(old, False, group, layout)
        if old.has_reverse:
            rev = group.create_group(schema.REVERSE)
            rev.update_attributes(_copy_adjacency(old, True, rev, layout))
        if old.perm is not None:
            schema.write_vector(group, schema.PERM, old.perm)
        if old.layers is not None:
            schema.write_vector(group, schema.LAYERS, old.layers)
        if old.copies is not None:
            schema.write_vector(group, schema.COPIES, old.copies)
        if old.centres is not None:
            schema.write_vector(group, schema.CENTRES, old.centres)
        group.update_attributes({**old.attrs, **facts, "format": format, "chunk_edges": chunk_edges, "codec": {}})
    return open_graph(store)


def _copy_adjacency(old: Graph, reverse: bool, into: zarr.Group, layout: dict) -> dict:
    """Copy one part of ``old`` (the graph, or its reverse) a few chunks at a time, each through the
    checks a query's load makes, so that a damaged source stops the copy naming its chunk rather
    than passing on what Zarr reads for it (fill values for a missing chunk)."""
    stored = old.stored(reverse, weights=old.weighted)
    chunks, weights = stored.chunks, stored.weights

    def blocks() -> Iterator[Edges]:
        for lo in range(0, chunks.n_chunks, RECODE_BATCH):
            ids = range(lo, min(lo + RECODE_BATCH, chunks.n_chunks))
            values = weights.read(ids)[0] if weights is not None else [None] * len(ids)
            for c, blob, w in zip(ids, chunks.read(ids), values):
                h, offsets, dst = stored.validated(c, blob)
                src = np.repeat(np.arange(h.first_src, h.first_src + h.n_local, dtype=dst.dtype), np.diff(offsets))
                yield src, dst, (validated_weights(weights, c, w, h.n_edges) if weights is not None else None)

    return write_adjacency(into, blocks(), **{**layout, "weighted": weights is not None})


def write_adjacency(
    group: zarr.Group,
    edges: Iterator[Edges],
    *,
    fmt: str,
    chunk_edges: int,
    dtype: np.dtype,
    weighted: bool,
    n_vertices: int,
    tee: Transposer | None = None,
) -> dict:
    """Write ``adj`` (+ ``weights``) and ``indptr`` from sorted edges; returns the degree facts (and
    the weights' least, largest and mean: algorithms read them, SSSP to know weights are >= 0)."""
    writer = schema.AdjWriter(group, fmt=fmt, chunk_edges=chunk_edges, dtype=dtype, weighted=weighted)
    degrees = np.zeros(n_vertices, np.int64)
    low, high, total = np.inf, -np.inf, 0.0
    for src, dst, w in edges:
        writer.append(src, dst, w)
        count_sources(degrees, src)
        if w is not None and len(w):
            low, high, total = min(low, float(w.min())), max(high, float(w.max())), total + float(w.sum(dtype=np.float64))
        if tee is not None:
            tee.add(src, dst, w)
    writer.close()
    indptr = np.zeros(n_vertices + 1, np.uint64)
    indptr[1:] = np.cumsum(degrees)  # not out=: a casting accumulate is 25x slower
    schema.write_vector(group, schema.INDPTR, indptr)
    facts = {"n_edges": writer.n_edges, "degree": degree_summary(degrees)}
    if weighted and writer.n_edges:
        facts["weights"] = {"min": low, "max": high, "mean": total / writer.n_edges}
    return facts


def degree_summary(degrees: np.ndarray) -> dict:
    """Max, mean and a power-of-two histogram: bin k counts degrees in [2**(k-1), 2**k), bin 0 zeros."""
    bins = np.zeros(len(degrees), np.int64)
    nz = degrees > 0
    bins[nz] = np.floor(np.log2(degrees[nz])).astype(np.int64) + 1
    counts = np.bincount(bins) if len(bins) else np.zeros(1, np.int64)
    histogram = [{"min": 0 if k == 0 else 1 << (k - 1), "max": 0 if k == 0 else (1 << k) - 1, "vertices": int(n)} for k, n in enumerate(counts) if n]
    return {
        "max": int(degrees.max()) if len(degrees) else 0,
        "mean": float(degrees.mean()) if len(degrees) else 0.0,
        "histogram": histogram,
    }
