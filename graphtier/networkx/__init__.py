"""graphtier as a networkx backend: ``nx.pagerank(G, backend="graphtier")``, or
``nx.config.backend_priority = ["graphtier"]`` for every function it implements.

networkx loads ``backend_interface`` from the ``networkx.backends`` entry point. A networkx graph is
converted into a store in a temporary directory of this process (``graph.py``), which goes with the
converted graph and at the latest when the process ends; ``can_run`` declines, with its reason, the
calls graphtier would answer otherwise than networkx (``algorithms.py``); ``should_run`` leaves small
graphs to networkx. Execution options (``device``, ``device_memory``, ``host_memory``,
``zero_copy``), the stores' ``format`` and ``min_edges`` are set in ``nx.config.backends.graphtier``.
"""

from __future__ import annotations

import inspect

import networkx as nx

from .algorithms import ALGORITHMS, CHECKS
from .graph import Graph, from_networkx, from_store, option

__all__ = ["BackendInterface", "Graph", "backend_interface", "from_networkx", "from_store"]

# The functions that pull over in-edges: a directed graph's store then holds its reverse graph too.
PULLS = {"pagerank", "strongly_connected_components", "number_strongly_connected_components", "is_strongly_connected"}


def _bound(name: str, args: tuple, kwargs: dict) -> inspect.BoundArguments | str:
    """The call's arguments bound to networkx's signature (which the implementation repeats)."""
    try:
        bound = inspect.signature(ALGORITHMS[name]).bind(*args, **kwargs)
    except TypeError as e:
        return f"arguments networkx's signature does not take: {e}"
    bound.apply_defaults()
    return bound


class BackendInterface:
    """What networkx asks of a backend: conversions, ``can_run``, ``should_run`` and the functions."""

    @staticmethod
    def convert_from_nx(
        graph: nx.Graph | Graph,
        *,
        edge_attrs: dict | None = None,
        node_attrs: dict | None = None,
        preserve_edge_attrs: bool = False,
        preserve_node_attrs: bool = False,
        preserve_graph_attrs: bool = False,
        name: str | None = None,
        graph_name: str | None = None,
    ) -> Graph:
        """A store of ``graph`` with weights from the one edge attribute networkx names (networkx's
        functions here weigh by one at most); attributes kept where networkx asks."""
        if isinstance(graph, Graph):
            return graph
        if edge_attrs is not None and len(edge_attrs) > 1:
            raise NotImplementedError(f"graphtier stores one edge attribute, not {len(edge_attrs)}")
        weight, default = next(iter(edge_attrs.items())) if edge_attrs else (None, 1)
        return from_networkx(
            graph,
            weight=weight,
            default=1 if default is None else default,
            preserve_edge_attrs=bool(preserve_edge_attrs),
            preserve_node_attrs=bool(preserve_node_attrs),
            preserve_graph_attrs=bool(preserve_graph_attrs),
            reverse=name in PULLS,
        )

    @staticmethod
    def convert_to_nx(obj: object, *, name: str | None = None) -> object:
        """Results are networkx's types already; a backend graph becomes the graph it stands for."""
        return obj.to_networkx() if isinstance(obj, Graph) else obj

    @staticmethod
    def can_run(name: str, args: tuple, kwargs: dict) -> bool | str:
        """True, or why graphtier declines (networkx logs the reason and, with fallback, runs its own)."""
        if name not in ALGORITHMS:
            return f"graphtier does not implement {name}"
        bound = _bound(name, args, kwargs)
        if isinstance(bound, str):
            return bound
        G = bound.arguments["G"]
        if not isinstance(G, nx.Graph | Graph):
            return f"a {type(G).__name__} is not a networkx graph"
        if G.is_multigraph():
            return "multigraphs: graphtier keeps one edge per pair of nodes"
        check = CHECKS.get(name)
        problem = check(**bound.arguments) if check is not None else None
        return problem or True

    @staticmethod
    def should_run(name: str, args: tuple, kwargs: dict) -> bool | str:
        """Whether converting is worth it: graphs with fewer edges than ``min_edges`` (for betweenness
        centrality: edges times sources) stay with networkx."""
        bound = _bound(name, args, kwargs)
        if isinstance(bound, str):
            return bound
        G = bound.arguments["G"]
        work = G.number_of_edges()
        if name == "betweenness_centrality":
            work *= len(G) if bound.arguments["k"] is None else bound.arguments["k"]
        if work < option("min_edges"):
            return f"{work:,} edges to traverse, fewer than min_edges={option('min_edges'):,}: networkx answers before graphtier has converted the graph"
        return True


for _name, _func in ALGORITHMS.items():
    setattr(BackendInterface, _name, staticmethod(_func))

backend_interface = BackendInterface()
