"""Breadth-first search: three functors and a direction-optimizing driver over the operators.

Push levels expand the frontier through out-edges; when the frontier's edges outweigh what is left
unexplored, and the reverse graph is stored, pull levels let each unvisited vertex look for a
parent among its in-neighbours instead, until the frontier shrinks and is small again (Beamer et
al.'s heuristic with GAP's constants, alpha 14 and beta 24).
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from ..kernels.cpu import operators as ops
from ..kernels.cpu.formats import NEIGHBORS
from .backend import resolve_device
from .graph import Graph
from .results import BFSResult

ALPHA, BETA = 14, 24


@njit
def visit(v, u, state):
    """Push: claim an unvisited neighbour."""
    dist, parent, _ = state
    if dist[u] < 0:
        dist[u] = dist[v] + 1
        parent[u] = v
        return True
    return False


@njit
def adopt(u, v, state):
    """Pull: take the first in-neighbour found in the frontier as parent."""
    dist, parent, in_frontier = state
    if in_frontier[v]:
        dist[u] = dist[v] + 1
        parent[u] = v
        return True
    return False


@njit
def unvisited(v, state):
    return state[0][v] < 0


def bfs(graph: Graph, source: int, *, device: str = "auto", direction: str = "auto") -> BFSResult:
    """Distances and BFS-tree parents from ``source`` (an id as the input gave it).

    ``direction``: "push", "pull" (needs the reverse graph) or "auto": on a symmetric graph with
    the reverse stored, switch by frontier size; otherwise push. (Pulling on a directed graph
    rarely stops early: on cnr-2000 it made BFS 8x slower.)
    """
    resolve_device(device)
    if direction not in ("auto", "push", "pull"):
        raise ValueError(f"direction must be 'auto', 'push' or 'pull', got {direction!r}")
    if direction == "pull" and not graph.has_reverse:
        raise ValueError(f"direction='pull' needs the reverse graph, which {graph.location} does not have")
    s = graph.vertex(source)
    fwd = graph.resident()
    optimize = direction == "auto" and graph.has_reverse and not graph.directed
    rev = graph.resident(reverse=True) if direction == "pull" or optimize else None
    neighbors, word = NEIGHBORS[graph.format]
    scratch = ops.scratch_for(graph.chunk_edges, graph.id_dtype)
    n = graph.n_vertices

    t0 = time.perf_counter()
    dist = np.full(n, -1, np.int32)
    parent = np.full(n, -1, np.int64)
    dist[s], parent[s] = 0, s
    queue = np.empty(n, np.int64)
    queue[0] = s
    a, b = 0, 1
    in_frontier = np.zeros(n if rev is not None else 0, np.bool_)
    all_vertices = np.arange(n if rev is not None else 0, dtype=np.int64)
    candidates = np.empty_like(all_vertices)
    unexplored = graph.n_edges
    levels = []
    pulling = direction == "pull"
    previous = 0
    while a < b:
        started = time.perf_counter()
        frontier = queue[a:b]
        level = {"frontier": int(b - a)}
        if optimize:
            frontier_edges = ops.degree_sum(frontier, fwd.indptr)
            unexplored -= frontier_edges
            level["edges"] = int(frontier_edges)
            if pulling:  # keep pulling while the frontier grows or stays large (as GAP does)
                pulling = len(frontier) >= previous or len(frontier) > n / BETA
            else:  # start pulling only on a growing frontier with most remaining edges at its door
                pulling = len(frontier) > previous and frontier_edges > unexplored / ALPHA
        previous = len(frontier)
        if pulling:
            in_frontier[frontier] = True
            todo = candidates[: ops.filter(all_vertices, unvisited, (dist,), candidates)]
            done = np.zeros(len(todo), np.bool_)
            ops.advance_pull(todo, rev.indptr, rev.words(word), rev.table, rev.chunk_edges, neighbors, adopt, (dist, parent, in_frontier), done, scratch)
            found = todo[done]
            queue[b : b + len(found)] = found
            in_frontier[frontier] = False
            n_next = len(found)
        else:
            n_next = ops.advance(frontier, fwd.indptr, fwd.words(word), fwd.table, fwd.chunk_edges, neighbors, visit, (dist, parent, in_frontier), queue[b:], scratch)
        levels.append({**level, "direction": "pull" if pulling else "push", "seconds": time.perf_counter() - started})
        a, b = b, b + n_next
    seconds = time.perf_counter() - t0
    edges_reached = int(ops.degree_sum(queue[:b], fwd.indptr))
    stats = {
        "device": "cpu",
        "format": graph.format,
        "seconds": seconds,
        "levels": len(levels),
        "reached": int(b),
        "edges_traversed": edges_reached,
        "teps": edges_reached / seconds if seconds > 0 else float("inf"),
        "per_level": levels,
        "resident_bytes": fwd.nbytes + (rev.nbytes if rev is not None else 0),
    }
    return BFSResult(
        source=source,
        distances=graph.to_original(dist),
        parents=graph.refs_to_original(graph.to_original(parent)),
        stats=stats,
        ids=graph.ids,
    )
