"""Graffix's approximations (``../shared/papers/003-graffix.md``): a store rewritten for the GPU's
sake, answers a little off, and how far off (``inaccuracy``).

``approximate`` leaves the original store as it is and writes a new one, which says what it is
(``info()["approximation"]``: the transform, its knobs, the store it came from, what it added).
Its results come in the input's ids like any store's, so they compare vertex for vertex with the
original's. Built: ``divergence`` (degree buckets, and 2-hop edges for vertices a little short of
their warp's largest degree), ``coalesce`` (BFS-level renumbering in chunks of k, holes filled
with replicas, whose values algorithms merge with their originals' after every iteration:
``Algorithm.confluence``) and ``latency`` (sibling edges raising clustering coefficients, and
the clusters, high-clustering vertices with their neighbours, recorded for shared memory).
"""

from __future__ import annotations

import os

import numpy as np

from .. import store as schema
from ..partition.graffix import coalesce_layout, divergence_edges, latency_edges
from ..partition.memory import array_source
from ..runtime.results import BetweennessResult, ComponentsResult, MSTResult, PageRankResult, TreeResult
from .build import build
from .graph import Graph
from .graph import open as open_graph

TRANSFORMS = {  # each transform's knobs and defaults
    "divergence": {"threshold": 0.3, "share": 0.85, "warp": 32},
    "coalesce": {"k": 16, "threshold": 0.6},
    "latency": {"threshold": 0.7, "slack": 0.1, "limit": 0.05, "size": 32},
}


def approximate(graph: Graph | str | os.PathLike, out: str | os.PathLike, transform: str = "divergence", *, overwrite: bool = False, **knobs) -> Graph:
    """Write ``graph`` transformed by ``transform`` to ``out`` (same format, chunk size and reverse
    graph) and open it. The graph is read into memory whole (its CSR, 12 bytes an edge with weights).

    ``divergence`` (vertices in decreasing degree) knobs: ``threshold`` (a vertex short of its
    warp's largest degree by less than this share of it is topped up; 0.3, the paper's best),
    ``share`` (to this share of the largest: 0.85) and ``warp`` (vertices per warp: 32).

    ``coalesce`` knobs: ``k`` (slots a chunk holds; each BFS level of the forest starts at a
    multiple of it: 16, the paper's) and ``threshold`` (a vertex reaching at least this share of
    a next-level chunk's vertices gets a replica in its level's holes, which takes those edges
    and 2-hop ones into the chunk: 0.6, the paper's for power-law graphs, below 0.5 for roads).
    Algorithms that declare a confluence merge each replica with its original after every
    iteration (SSSP and BFS the least distance, PageRank the sum of both copies' in-flows, where
    Graffix takes the mean); in the others a replica is a vertex of its own. Results report the
    originals only.

    ``latency`` knobs (on the graph as undirected; a cluster is a vertex with 2 to ``size``
    neighbours and a clustering coefficient of at least ``threshold``, with its neighbours):
    ``threshold`` (0.7: the paper keeps it high), ``slack`` (a vertex this far under it gets the
    sibling edges that lift it there: 0.1), ``limit`` (the edges added at most, a share of the
    graph's: 0.05) and ``size`` (32). Each sibling edge goes both ways and weighs its 2-hop path,
    so shortest distances stay exact on a symmetric graph; the store keeps the vertices' ids and
    order and lists the clusters' centres (``Graph.centres``)."""
    g = graph if isinstance(graph, Graph) else open_graph(graph)
    if "approximation" in g.attrs:
        made = g.attrs["approximation"]
        raise ValueError(f"{g.location} is approximate already ({made.get('transform')} of {made.get('source')}): approximate the exact store")
    if transform not in TRANSFORMS:
        raise ValueError(f"unknown transform {transform!r}: choose from {', '.join(TRANSFORMS)}")
    unknown = set(knobs) - set(TRANSFORMS[transform])
    if unknown:
        raise TypeError(f"{transform} takes the knobs {', '.join(TRANSFORMS[transform])}, not {', '.join(sorted(unknown))}")
    knobs = TRANSFORMS[transform] | knobs
    indptr, edges = g.indptr(), g.edges().astype(np.int64)
    weights = g.edge_weights()
    ids = g.perm.astype(np.uint64) if g.perm is not None else np.arange(g.n_vertices, dtype=np.uint64)
    described = {"transform": transform, "knobs": knobs, "source": g.location, "source_build_id": g.attrs.get("build_id")}
    options = {"format": g.format, "chunk_edges": g.chunk_edges, "symmetrize": not g.directed, "reverse": g.has_reverse, "overwrite": overwrite, "progress": False}
    if transform == "coalesce":
        return _coalesce(g, indptr, edges, weights, ids, knobs, described, out, options)
    if transform == "latency":
        return _latency(g, indptr, edges, weights, knobs, described, out, options)
    src, dst, w = divergence_edges(indptr, edges[:, 1], weights, **knobs)
    columns = _with_added(edges, weights, src, dst, w)
    ids = ids.astype(np.int64)
    rows = np.column_stack([ids[columns[0]], ids[columns[1]], *columns[2:]])
    described["added_edges"] = len(src)
    return build(rows, out, relabel=bool(g.attrs.get("relabelled")), order="degree", attributes={"approximation": described}, **options)


def _with_added(edges: np.ndarray, weights: np.ndarray | None, src, dst, w) -> list[np.ndarray]:
    """The columns (src, dst[, weight]) of the graph's edges followed by the added ones; an
    unweighted graph stays so (an added edge is an edge like any other)."""
    columns = [np.concatenate([edges[:, 0], src]), np.concatenate([edges[:, 1], dst])]
    if weights is not None:
        columns.append(np.concatenate([weights.astype(np.float64), w]))
    return columns


def _coalesce(g: Graph, indptr, edges, weights, ids, knobs: dict, described: dict, out, options: dict) -> Graph:
    """The coalesced store: its slots as they are (natural order), ``perm`` naming each vertex's
    input id and giving replicas and holes ids above them all, and ``copies``."""
    lay = coalesce_layout(indptr, edges[:, 1], weights, symmetric=not g.directed, **knobs)
    n = len(lay.copies)
    own = lay.copies == np.arange(n)
    perm = np.empty(n, np.uint64)
    perm[lay.slot] = ids
    perm[~own] = (int(ids.max()) + 1 if len(ids) else 0) + np.arange(n - len(ids), dtype=np.uint64)
    replicas = int(np.count_nonzero(lay.copies < n) - len(ids))
    facts = {"k": knobs["k"], "originals": len(ids), "replicas": replicas, "holes": n - len(ids) - replicas, "levels": lay.levels}
    described |= {"added_edges": lay.added, "replicas": replicas, "holes": facts["holes"]}
    rows = np.column_stack([lay.src, lay.dst, *([lay.weight] if weights is not None else [])])  # unweighted stays so
    source = array_source(rows, id_limit=n, n_vertices=n)
    relabelled = {"relabelled": bool(g.attrs.get("relabelled"))}  # the slots are dense already; perm holds the ids
    return build(source, out, order="natural", attributes={"approximation": described, "coalesced": facts, **relabelled}, vectors={"perm": perm, "copies": lay.copies.astype(np.uint64)}, **options)


def _latency(g: Graph, indptr, edges, weights, knobs: dict, described: dict, out, options: dict) -> Graph:
    """The store with the sibling edges, its vertices where the source has them (so ``centres``,
    in the source's ids, are the new store's too; ``perm`` as the source's), and ``centres``."""
    lay = latency_edges(indptr, edges[:, 1], weights, **knobs)
    columns = _with_added(edges, weights, lay.src, lay.dst, lay.weight)
    described |= {"added_edges": lay.pairs, "clusters": len(lay.centres)}
    facts = {"centres": len(lay.centres), "threshold": knobs["threshold"], "size": knobs["size"]}
    source = array_source(np.column_stack(columns), id_limit=g.n_vertices, n_vertices=g.n_vertices)
    vectors = {schema.CENTRES: lay.centres.astype(np.uint64), **({schema.PERM: g.perm} if g.perm is not None else {})}
    kept = {"relabelled": bool(g.attrs.get("relabelled"))}
    return build(source, out, order="natural", attributes={"approximation": described, "clustered": facts, **kept}, vectors=vectors, **options)


def inaccuracy(exact, approx) -> float:
    """How far ``approx`` is from ``exact``, results of one algorithm on a store and on its
    approximation, as Graffix measures it, a fraction: per-vertex values (distances, ranks,
    centrality) by their mean absolute difference over the vertices finite in both, relative to
    the exact values' mean magnitude there (a vertex reached in one but not the other counts as
    wholly wrong, 1); a spanning forest by its total weight's relative difference; components by
    their count's."""
    if type(exact) is not type(approx):
        raise TypeError(f"inaccuracy compares results of one algorithm, got {type(exact).__name__} and {type(approx).__name__}")
    if isinstance(exact, MSTResult):
        return _relative(approx.total_weight, exact.total_weight)
    if isinstance(exact, ComponentsResult):
        return _relative(approx.n_components, exact.n_components)
    field = {TreeResult: "distances", PageRankResult: "ranks", BetweennessResult: "centrality"}
    name = next((f for kind, f in field.items() if isinstance(exact, kind)), None)
    if name is None:
        raise TypeError(f"inaccuracy is defined for distances, ranks, centrality, spanning forests and components, not {type(exact).__name__}")
    e, a = (np.asarray(getattr(r, name), np.float64) for r in (exact, approx))
    if e.shape != a.shape:
        raise ValueError(f"the results cover {len(e)} and {len(a)} vertices: not a store and its approximation")
    both = np.isfinite(e) & np.isfinite(a) & (e >= 0) & (a >= 0)  # BFS's unreached are -1
    one = np.count_nonzero((np.isfinite(e) & (e >= 0)) != (np.isfinite(a) & (a >= 0)))
    scale = float(np.abs(e[both]).mean()) if both.any() else 0.0
    off = float(np.abs(a[both] - e[both]).mean()) / scale if scale > 0 else float(np.any(a[both] != e[both]))
    return (off * np.count_nonzero(both) + one) / max(np.count_nonzero(both) + one, 1)


def _relative(approx: float, exact: float) -> float:
    return abs(approx - exact) / abs(exact) if exact else float(approx != exact)
