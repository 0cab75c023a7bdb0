"""The Graph500 BFS validation rules, adapted to directed graphs: an oracle independent of the BFS.

It reads only the CSR arrays and numpy, never graphtier's BFS, so a bug there cannot hide itself.
Every check is vectorized; edges are read in chunks, so a 500M-edge graph costs O(E) gathers in
bounded temporary memory and O(V log depth) for the cycle check.
"""

from __future__ import annotations

import numpy as np

from ..errors import GraphtierError

_RULES = {
    0: "input arrays",
    1: "the parent tree is rooted at the source and has no cycles",
    2: "tree edges join vertices whose distances differ by one",
    3: "every edge from a reached vertex leads to a reached vertex at most one level deeper",
    4: "distances and parents agree on which vertices are reached",
    5: "each tree edge parent -> vertex is an edge of the graph",
}


class BFSValidationError(GraphtierError):
    """A BFS result that breaks a Graph500 rule; ``rule`` and ``vertex`` say which and where."""

    def __init__(self, rule: int, message: str, vertex: int | None = None):
        where = f" (e.g. vertex {vertex})" if vertex is not None else ""
        super().__init__(f"rule {rule} ({_RULES[rule]}): {message}{where}")
        self.rule = rule
        self.vertex = vertex


def validate_bfs_tree(
    indptr: np.ndarray,
    indices: np.ndarray,
    source: int,
    distances: np.ndarray,
    parents: np.ndarray,
    *,
    chunk_edges: int = 1 << 22,
) -> None:
    """Raise ``BFSValidationError`` unless ``distances``/``parents`` are a BFS from ``source``.

    ``indptr``/``indices`` are the CSR of the out-edges as stored (duplicates and self-loops are
    fine); ``distances`` is int32 with -1 for unreached vertices, ``parents`` int64 with -1 for
    unreached and ``parents[source] == source``. Rules 1, 2 and 5 make the reached set a tree of
    graph edges in which ``distances`` are depths, so each is at least the true distance; rule 3
    makes it closed under out-edges with no distance more than one past its predecessor's, so the
    reached set is exactly the reachable one and each distance is the shortest.
    """
    indptr, indices = np.asarray(indptr), np.asarray(indices)
    distances, parents = np.asarray(distances), np.asarray(parents)
    n = _check_inputs(indptr, indices, source, distances, parents)

    reached = distances >= 0
    _fail_at(reached != (parents >= 0), 4, "distance and parent disagree on whether v is reached")

    if parents[source] != source or distances[source] != 0:
        raise BFSValidationError(
            1,
            f"the source has parent {parents[source]} and distance {distances[source]}",
            source,
        )
    others = reached.copy()
    others[source] = False
    parent_of = np.where(reached, parents, np.arange(n))  # unreached vertices point at themselves
    _fail_at(others & ~reached[parent_of], 1, "the parent of a reached v is unreached")
    # Pointer jumping: after k rounds ancestor[v] is v's 2**k-th ancestor (the source is a fixed
    # point). A tree of depth D settles in log2(D) rounds; a cycle, or a vertex that is its own
    # parent, never does.
    ancestor = parent_of
    for _ in range(n.bit_length() + 1):
        lost = reached & (ancestor != source)
        if not lost.any():
            break
        ancestor = ancestor[ancestor]
    else:
        _fail_at(lost, 1, "following parents from v never reaches the source (a cycle)")

    depth_of_parent = distances[parent_of].astype(np.int64)
    wrong_depth = others & (distances != depth_of_parent + 1)
    _fail_at(wrong_depth, 2, "distances[v] != distances[parents[v]] + 1")

    has_tree_edge = np.zeros(n, dtype=bool)
    for rows, start, stop in _edge_chunks(indptr, chunk_edges):
        counts = np.diff(np.clip(indptr[rows.start : rows.stop + 1], start, stop).astype(np.int64))
        u = np.repeat(np.arange(rows.start, rows.stop), counts)
        v = indices[start:stop].astype(np.int64)
        if v.size and (v.min() < 0 or v.max() >= n):
            i = np.flatnonzero((v < 0) | (v >= n))[0]
            raise BFSValidationError(0, f"edge {u[i]} -> {v[i]} leaves [0, {n})", int(u[i]))
        du = np.repeat(distances[rows], counts)
        dv = distances[v]
        bad = np.flatnonzero((du >= 0) & ((dv < 0) | (dv > du + 1)))
        if bad.size:
            i = bad[0]
            missed = " (reachable but unreached)" if dv[i] < 0 else ""
            raise BFSValidationError(3, f"edge {u[i]} -> {v[i]} goes from distance {du[i]} to {dv[i]}{missed}", int(v[i]))
        tree = parents[v] == u
        has_tree_edge[v[tree]] = True
    _fail_at(others & ~has_tree_edge, 5, "the graph has no edge parents[v] -> v")


def _check_inputs(indptr, indices, source, distances, parents) -> int:
    """Rule 0: shapes, dtypes and ranges, so the rules can index without surprises."""
    if distances.dtype != np.int32 or parents.dtype != np.int64:
        raise BFSValidationError(0, f"distances must be int32 and parents int64, got {distances.dtype}, {parents.dtype}")
    if distances.ndim != 1 or distances.shape != parents.shape:
        shapes = f"{distances.shape}, {parents.shape}"
        raise BFSValidationError(0, f"distances and parents must be 1-D, one length, got {shapes}")
    n = len(distances)
    if indptr.dtype.kind not in "iu" or indices.dtype.kind not in "iu":
        dtypes = f"{indptr.dtype}, {indices.dtype}"
        raise BFSValidationError(0, f"indptr and indices must be integers, got {dtypes}")
    if indptr.shape != (n + 1,) or indices.ndim != 1:
        raise BFSValidationError(0, f"CSR of {n} vertices needs indptr of shape ({n + 1},), got {indptr.shape}")
    if indptr[0] != 0 or indptr[-1] != len(indices):
        ends = f"{indptr[0]}..{indptr[-1]}"
        raise BFSValidationError(0, f"indptr must run from 0 to {len(indices)}, got {ends}")
    _fail_at(np.append(indptr[1:] < indptr[:-1], False), 0, "indptr[v + 1] < indptr[v]")
    if not (isinstance(source, (int, np.integer)) and 0 <= source < n):
        raise BFSValidationError(0, f"source {source!r} is not a vertex of [0, {n})")
    _fail_at(distances < -1, 0, "the distance is below -1")
    _fail_at((parents < -1) | (parents >= n), 0, f"the parent is outside [-1, {n})")
    return n


def _edge_chunks(indptr: np.ndarray, chunk_edges: int):
    """Edge ranges of at most ``chunk_edges`` with the rows that own them, high degrees split."""
    n_edges = int(indptr[-1])
    for start in range(0, n_edges, chunk_edges):
        stop = min(start + chunk_edges, n_edges)
        first = int(np.searchsorted(indptr, start, side="right")) - 1
        last = int(np.searchsorted(indptr, stop, side="left"))  # rows first..last-1 own the edges
        yield slice(first, last), start, stop


def _fail_at(bad: np.ndarray, rule: int, message: str) -> None:
    where = np.flatnonzero(bad)
    if where.size:
        raise BFSValidationError(rule, f"{message} (bad vertices: {where.size})", int(where[0]))
