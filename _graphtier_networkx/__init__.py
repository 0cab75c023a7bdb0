"""What networkx learns about the graphtier backend when it is imported (the ``networkx.backend_info``
entry point): kept apart from the ``graphtier`` package, whose import (Numba, Zarr) takes a second
that every ``import networkx`` would otherwise pay. ``graphtier.networkx`` implements exactly the
functions named here (tests/test_networkx_backend.py checks it)."""

from __future__ import annotations

_ORDER = "In networkx's order: graphtier gives the levels, each node's place in its neighbours' adjacency (kept at conversion) the order. "
_DECLINES = "Declined (networkx runs it where fallback is on): "
_WEIGHTS = "weights that are not numbers, negative, NaN or infinite"

FUNCTIONS = {
    "bfs_edges": _ORDER + _DECLINES + "``reverse=True`` on a directed graph, ``sort_neighbors``.",
    "bfs_tree": _ORDER + _DECLINES + "``reverse=True`` on a directed graph, ``sort_neighbors``.",
    "bfs_predecessors": _ORDER + _DECLINES + "``sort_neighbors``.",
    "bfs_successors": _ORDER + _DECLINES + "``sort_neighbors``.",
    "bfs_layers": _ORDER + "One BFS per source.",
    "descendants_at_distance": "",
    "descendants": "",
    "single_source_shortest_path_length": "Keys in order of distance, then of the graph's nodes.",
    "single_source_dijkstra_path_length": _DECLINES + f"a weight function; {_WEIGHTS} or not exact in float32 (graphtier's weights).",
    "single_source_bellman_ford_path_length": _DECLINES + f"a weight function; {_WEIGHTS} or not exact in float32 (graphtier's weights).",
    "pagerank": "Weights as float32. " + _DECLINES + f"``nstart``, ``dangling``, ``alpha`` outside [0, 1], negative personalization values; {_WEIGHTS}.",
    "connected_components": "",
    "number_connected_components": "",
    "is_connected": "",
    "node_connected_component": "",
    "strongly_connected_components": "In a reverse topological order, as networkx's; which one may differ.",
    "number_strongly_connected_components": "",
    "is_strongly_connected": "",
    "betweenness_centrality": _DECLINES + f"{_WEIGHTS}, zero, or not exact in float32; ``k`` outside 1..len(G).",
    "minimum_spanning_edges": _DECLINES + f"algorithms other than Kruskal's (their order); ties where networkx's choice follows its edge order; {_WEIGHTS}.",
    "minimum_spanning_tree": _DECLINES + f"ties where networkx's choice follows its edge order (all algorithms agree where weights are distinct); {_WEIGHTS}.",
    "greedy_color": "networkx's colouring exactly. " + _DECLINES + "strategies other than ``largest_first``, ``interchange=True``, directed graphs, self-loops.",
    "maximal_independent_set": "A valid set, not networkx's for the same seed (graphtier draws its own priorities). " + _DECLINES + "``nodes``, the null graph.",
}


def get_info() -> dict:
    """networkx's ``backend_info``: the functions graphtier implements and its configuration."""
    return {
        "backend_name": "graphtier",
        "project": "graphtier",
        "package": "graphtier",
        "short_summary": "Out-of-core graph engine for GPUs over compressed, chunked Zarr v3 graph stores.",
        "functions": {name: {"additional_docs": docs} if docs else {} for name, docs in FUNCTIONS.items()},
        "default_config": {
            "device": "auto",
            "device_memory": None,
            "host_memory": None,
            "zero_copy": "auto",
            "format": "csr",
            "min_edges": 100_000,
        },
    }
