"""From any edge source to one sorted, deduplicated stream of dense edges, in bounded memory.

This is the whole of a build's preparation: relabel (a first pass that collects the distinct ids),
symmetrize, drop self-loops, sort through :class:`ExternalSorter`, and optionally reorder the
vertices for locality (which needs the graph's CSR in memory, 4 bytes per edge, and sorts again).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from ..errors import InputError
from .order import default_root, layers, vertex_order
from .sort import ExternalSorter, pack, unpack
from .source import EdgeSource

MAX_VERTICES = (1 << 32) - 1  # packed sort keys hold 32-bit ids; the largest is the store's fill value
Edges = tuple[np.ndarray, np.ndarray, np.ndarray | None]


@dataclass
class Partitioned:
    """The sorted edges of a graph over vertices ``0 .. n_vertices-1``, ready to be cut into chunks."""

    n_vertices: int
    weighted: bool
    symmetric: bool
    perm: np.ndarray | None  # original id of each vertex, when relabelled or reordered
    sorter: ExternalSorter
    stats: dict = field(default_factory=dict)
    layers: np.ndarray | None = None  # the layered order's layer offsets (order.layers)

    def edges(self) -> Iterator[Edges]:
        for keys, w in self.sorter:
            src, dst = unpack(keys)
            yield src, dst, w


def sort_share(memory_budget: int) -> int:
    """The sort gets three quarters of a budget; input blocks, degrees and chunk writes the rest."""
    return memory_budget * 3 // 4


def _progress(desc: str, enabled: bool) -> tqdm:
    return tqdm(desc=desc, unit=" edges", unit_scale=True, disable=not enabled, leave=False, mininterval=0.5)


def distinct_ids(source: EdgeSource, *, progress: bool) -> np.ndarray:
    """Every id the source uses, sorted: the ``perm`` of a relabelled graph."""
    found: list[np.ndarray] = []
    pending = 0
    with _progress("collecting ids", progress) as bar:
        for block in source.blocks():
            found.append(np.unique(np.concatenate([block.src, block.dst])))
            pending += len(found[-1])
            if pending > (1 << 24):
                found = [np.unique(np.concatenate(found))]
                pending = len(found[0])
            bar.update(len(block))
    return np.unique(np.concatenate(found)) if found else np.zeros(0, np.uint64)


def partition(
    source: EdgeSource,
    *,
    spill_dir: Path,
    memory_budget: int,
    symmetrize: bool = False,
    drop_self_loops: bool = False,
    dedup: bool = True,
    relabel: bool = False,
    progress: bool = False,
) -> Partitioned:
    perm = distinct_ids(source, progress=progress) if relabel else None
    if perm is not None and len(perm) > MAX_VERTICES:
        raise InputError(f"{len(perm)} distinct vertex ids: more than {MAX_VERTICES} is not supported", file=source.name)
    symmetric = symmetrize or source.undirected
    sorter = ExternalSorter(memory_budget=sort_share(memory_budget), spill_dir=spill_dir, weighted=source.weighted, dedup=dedup)
    max_id = -1
    read = loops = 0
    with _progress("sorting", progress) as bar:
        for block in source.blocks():
            src, dst, w = block.src, block.dst, block.weight
            read += len(src)
            if perm is not None:
                src, dst = np.searchsorted(perm, src), np.searchsorted(perm, dst)
            if len(src):
                max_id = max(max_id, int(src.max()), int(dst.max()))
            if drop_self_loops:
                keep = src != dst
                loops += len(src) - int(keep.sum())
                src, dst, w = src[keep], dst[keep], (w[keep] if w is not None else None)
            sorter.add(pack(src, dst), w)
            if symmetric:
                sorter.add(pack(dst, src), w)
            bar.update(len(block))
    n_vertices = len(perm) if perm is not None else max(max_id + 1, source.n_vertices or 0)
    stats = {
        "edges_read": read,
        "self_loops_removed": loops,
        "symmetrized": symmetric,
        "sorted_runs": sorter.n_runs,
    }
    return Partitioned(n_vertices, source.weighted, symmetric, perm, sorter, stats)


def reorder(part: Partitioned, method: str, *, spill_dir: Path, memory_budget: int, seed: int = 0, root: int | None = None) -> Partitioned:
    """Renumber the vertices by ``method`` (see ``order.ORDERS``) and sort the edges again.
    ``root``: the layered order's, an id as the input gave it (default ``order.default_root``)."""
    n = part.n_vertices
    indptr = np.zeros(n + 1, np.int64)
    indices, weights = [], []
    for src, dst, w in part.edges():
        count_sources(indptr[1:], src)
        indices.append(dst.astype(np.uint32))
        if w is not None:
            weights.append(w)
    np.cumsum(indptr, out=indptr)
    indices = np.concatenate(indices) if indices else np.zeros(0, np.uint32)
    offsets = None
    if method == "layered":
        if not n:
            raise ValueError("a layered order needs a vertex for its root; this graph has none")
        root = default_root(indptr, indices) if root is None else _internal(part, root)
        rank, offsets = layers(indptr, indices, root)
    else:
        rank = vertex_order(indptr, indices, method, seed=seed)
    src = np.repeat(rank, np.diff(indptr))
    sorter = ExternalSorter(memory_budget=sort_share(memory_budget), spill_dir=spill_dir, weighted=part.weighted, dedup=False)
    sorter.add(pack(src, rank[indices]), np.concatenate(weights) if weights else None)
    perm = np.empty(n, np.uint64)
    perm[rank] = part.perm if part.perm is not None else np.arange(n, dtype=np.uint64)
    stats = {**part.stats, "order": method, "sorted_runs": part.stats["sorted_runs"] + sorter.n_runs}
    return Partitioned(n, part.weighted, part.symmetric, perm, sorter, stats, offsets)


def _internal(part: Partitioned, vertex: int) -> int:
    """The dense id of ``vertex``, an id as the input gave it."""
    ids = part.perm
    i = int(np.searchsorted(ids, vertex)) if ids is not None else int(vertex)
    if not 0 <= i < part.n_vertices or (ids is not None and int(ids[i]) != vertex):
        raise ValueError(f"root {vertex} is not a vertex of the graph")
    return i


def count_sources(degrees: np.ndarray, src: np.ndarray) -> None:
    """Add a sorted block's out-degrees into ``degrees``; a bincount over the block's span only."""
    if len(src):
        lo = int(src[0])
        counts = np.bincount((src - src.dtype.type(lo)).astype(np.int64))
        degrees[lo : lo + len(counts)] += counts


class Transposer:
    """Collects a graph's sorted edges as they stream past and gives back the reverse graph's."""

    def __init__(self, *, spill_dir: Path, memory_budget: int, weighted: bool):
        self.sorter = ExternalSorter(memory_budget=sort_share(memory_budget), spill_dir=spill_dir, weighted=weighted, dedup=False)

    def add(self, src: np.ndarray, dst: np.ndarray, w: np.ndarray | None) -> None:
        self.sorter.add(pack(dst, src), w)

    def edges(self) -> Iterator[Edges]:
        for keys, w in self.sorter:
            src, dst = unpack(keys)
            yield src, dst, w
