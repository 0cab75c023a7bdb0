"""Graffix's approximations (``../shared/papers/003-graffix.md``): a store rewritten for the GPU's
sake, answers a little off, and how far off (``inaccuracy``).

``approximate`` leaves the original store as it is and writes a new one, which says what it is
(``info()["approximation"]``: the transform, its knobs, the store it came from, what it added).
Its results come in the input's ids like any store's, so they compare vertex for vertex with the
original's. Built: ``divergence`` (degree buckets, and 2-hop edges for vertices a little short of
their warp's largest degree). Not yet: ``coalesce`` (level renumbering with replicas) and
``latency`` (edges raising clustering for shared-memory subgraphs).
"""

from __future__ import annotations

import os

import numpy as np

from ..partition.graffix import divergence_edges
from ..runtime.results import BetweennessResult, ComponentsResult, MSTResult, PageRankResult, TreeResult
from .build import build
from .graph import Graph
from .graph import open as open_graph

TRANSFORMS = {"divergence": {"threshold": 0.3, "share": 0.85, "warp": 32}}  # each built transform's knobs and defaults
PLANNED = ("coalesce", "latency")


def approximate(graph: Graph | str | os.PathLike, out: str | os.PathLike, transform: str = "divergence", *, overwrite: bool = False, **knobs) -> Graph:
    """Write ``graph`` transformed by ``transform`` to ``out`` (same format, chunk size and reverse
    graph; vertices in decreasing degree) and open it. ``divergence`` knobs: ``threshold`` (a vertex
    short of its warp's largest degree by less than this share of it is topped up; 0.3, the paper's
    best), ``share`` (to this share of the largest: 0.85) and ``warp`` (vertices per warp: 32).
    The graph is read into memory whole (its CSR, 12 bytes an edge with weights)."""
    g = graph if isinstance(graph, Graph) else open_graph(graph)
    if transform not in TRANSFORMS:
        later = f"; {transform!r} is not built yet" if transform in PLANNED else ""
        raise ValueError(f"unknown transform {transform!r}: choose from {', '.join(TRANSFORMS)}{later}")
    unknown = set(knobs) - set(TRANSFORMS[transform])
    if unknown:
        raise TypeError(f"{transform} takes the knobs {', '.join(TRANSFORMS[transform])}, not {', '.join(sorted(unknown))}")
    knobs = TRANSFORMS[transform] | knobs
    indptr, edges = g.indptr(), g.edges().astype(np.int64)
    weights = g.group["weights"][:] if g.weighted else None
    src, dst, w = divergence_edges(indptr, edges[:, 1], weights, **knobs)
    ids = g.perm.astype(np.int64) if g.perm is not None else np.arange(g.n_vertices)
    columns = [np.concatenate([edges[:, 0], src]), np.concatenate([edges[:, 1], dst])]
    if weights is not None:  # an unweighted graph stays so: a shortcut is an edge like any other
        columns.append(np.concatenate([weights.astype(np.float64), w]))
    rows = np.column_stack([ids[columns[0]], ids[columns[1]], *columns[2:]])
    described = {"transform": transform, "knobs": knobs, "source": g.location, "source_build_id": g.attrs.get("build_id"), "added_edges": len(src)}
    return build(
        rows,
        out,
        format=g.format,
        chunk_edges=g.chunk_edges,
        symmetrize=not g.directed,
        relabel=bool(g.attrs.get("relabelled")),
        order="degree",
        reverse=g.has_reverse,
        overwrite=overwrite,
        attributes={"approximation": described},
        progress=False,
    )


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
