"""networkx's functions on graphtier, each with networkx's signature, return types and errors, and a
check saying why graphtier declines a call (``can_run``): what it cannot store or compute, and
where its deterministic choices would give another answer than networkx's.

Each function receives the converted graph (``graph.Graph``); each check receives the arguments as
networkx received them (the graph a networkx graph, or already a backend one), bound to networkx's
signature with its defaults.
"""

from __future__ import annotations

import heapq
import itertools
import numbers
from collections.abc import Callable, Hashable, Iterator

import networkx as nx
import numpy as np

import graphtier as gt

from ..algorithms.pagerank import ConvergenceError
from ..runtime import Config
from .graph import Graph, WeightFacts, adjacency_sorted, option, weight_facts

ALGORITHMS: dict[str, Callable] = {}
CHECKS: dict[str, Callable[..., str | None]] = {}
INF = float("inf")


def implements(check: Callable[..., str | None] | None = None) -> Callable:
    """Registers a function under its networkx name, with the check of its arguments."""

    def register(func: Callable) -> Callable:
        ALGORITHMS[func.__name__] = func
        if check is not None:
            CHECKS[func.__name__] = check
        return func

    return register


def config() -> Config:
    """The execution options set in ``nx.config.backends.graphtier``."""
    return Config(device=option("device"), device_memory=option("device_memory"), host_memory=option("host_memory"), zero_copy=option("zero_copy"), progress=False)


def facts_of(G: nx.Graph | Graph, attr) -> WeightFacts:
    return G.weight_facts(attr) if isinstance(G, Graph) else weight_facts(G, attr)


def weights_problem(G: nx.Graph | Graph, attr, *, exact: bool = True) -> str | None:
    """Why graphtier cannot use the weights of edge attribute ``attr`` (None: every edge weighs 1)."""
    if attr is None:
        return None
    if callable(attr):
        return "a weight function: graphtier reads weights from one edge attribute"
    if not isinstance(attr, Hashable):
        return f"weight={attr!r}: not an edge attribute's name"
    if isinstance(G, Graph) and (problem := G.can_weigh(attr)):
        return problem
    return facts_of(G, attr).problem(exact=exact)


def self_loops(G: nx.Graph | Graph) -> int:
    return G.self_loops if isinstance(G, Graph) else nx.number_of_selfloops(G)


def _vertex(G: Graph, node, error: Callable[[], Exception]) -> int:
    try:
        return G.index[node]
    except (KeyError, TypeError):
        raise error() from None


def _not_in_graph(node) -> Callable[[], Exception]:
    return lambda: nx.NetworkXError(f"The node {node} is not in the graph.")


def _labels(G: Graph, vertices: np.ndarray) -> list:
    nodes = G.nodes
    return [nodes[v] for v in vertices.tolist()]


def _distances(G: Graph, vertex: int) -> np.ndarray:
    """BFS levels from ``vertex`` (-1 where unreachable)."""
    return gt.bfs(G.store, vertex, config=config()).distances.astype(np.int64)


def _groups(G: Graph, labels: np.ndarray) -> Iterator[set]:
    """The sets of nodes sharing a label, in label order."""
    order = np.argsort(labels, kind="stable")
    if len(order):
        for part in np.split(order, np.flatnonzero(np.diff(labels[order])) + 1):
            yield set(_labels(G, part))


# Breadth-first search: graphtier's levels, networkx's order.


def bfs_order(G: Graph, first: np.ndarray, dist: np.ndarray, depth: float) -> tuple[np.ndarray, np.ndarray]:
    """(the vertices at most ``depth`` levels deep in the order networkx's BFS from ``first`` meets
    them, the parent it gives each, -1 for ``first``). graphtier gives the levels; within a level
    networkx meets vertices in order of (their first parent's place in its order, their place in
    that parent's adjacency), the first parent being the earliest of those one level up: one NumPy
    pass over the edges between each two levels."""
    src, dst = G.edge_arrays()
    pos = G.positions if G.positions is not None else np.arange(len(src)) - G.store.indptr()[src]
    parent = np.full(len(G), -1, np.int64)
    rank = np.full(len(G), -1, np.int64)
    rank[first] = np.arange(len(first))
    tree = (dist[src] >= 0) & (dist[dst] == dist[src] + 1) & (dist[dst] < depth + 1)
    by_level = np.flatnonzero(tree)[np.argsort(dist[src[tree]], kind="stable")]
    src, dst, pos = src[by_level], dst[by_level], pos[by_level]
    bounds = np.searchsorted(dist[src], np.arange(int(dist.max(initial=0)) + 2))
    width = int(pos.max(initial=0)) + 1
    order, met = [first], len(first)
    for a, b in itertools.pairwise(bounds):
        if a == b:
            break
        s, d = src[a:b], dst[a:b]
        key = rank[s] * width + pos[a:b]
        by_child = np.lexsort((key, d))
        earliest = by_child[np.r_[True, d[by_child][1:] != d[by_child][:-1]]]
        children = d[earliest][np.argsort(key[earliest], kind="stable")]
        parent[d[earliest]] = s[earliest]
        rank[children] = met + np.arange(len(children))
        met += len(children)
        order.append(children)
    return np.concatenate(order), parent


def _bfs_check(G, source=None, reverse=False, depth_limit=None, sort_neighbors=None) -> str | None:
    if reverse and G.is_directed():
        return "reverse=True on a directed graph: graphtier's BFS follows out-edges"
    if sort_neighbors is not None:
        return "sort_neighbors: graphtier keeps the order in which the graph lists neighbours"
    return None


def _tree_edges(G: Graph, source, depth_limit) -> Iterator[tuple]:
    v = _vertex(G, source, _not_in_graph(source))
    order, parent = bfs_order(G, np.array([v]), _distances(G, v), INF if depth_limit is None else depth_limit)
    nodes = G.nodes
    return ((nodes[p], nodes[c]) for p, c in zip(parent[order[1:]].tolist(), order[1:].tolist()))


@implements(_bfs_check)
def bfs_edges(G: Graph, source, reverse=False, depth_limit=None, sort_neighbors=None) -> Iterator[tuple]:
    yield from _tree_edges(G, source, depth_limit)


@implements(_bfs_check)
def bfs_tree(G: Graph, source, reverse=False, depth_limit=None, sort_neighbors=None) -> nx.DiGraph:
    T = nx.DiGraph()
    T.add_node(source)
    T.add_edges_from(_tree_edges(G, source, depth_limit))
    return T


@implements(_bfs_check)
def bfs_predecessors(G: Graph, source, depth_limit=None, sort_neighbors=None) -> Iterator[tuple]:
    for s, t in _tree_edges(G, source, depth_limit):
        yield (t, s)


@implements(_bfs_check)
def bfs_successors(G: Graph, source, depth_limit=None, sort_neighbors=None) -> Iterator[tuple]:
    parent, children = source, []
    for p, c in _tree_edges(G, source, depth_limit):
        if p == parent:
            children.append(c)
            continue
        yield (parent, children)
        parent, children = p, [c]
    yield (parent, children)


@implements()
def bfs_layers(G: Graph, sources) -> Iterator[list]:
    """One BFS per source: a vertex's level is its least distance from them."""
    if sources in G:
        sources = [sources]
    first = list(set(sources))  # networkx's first layer, in the order its set gives
    vertices = np.array([_vertex(G, s, _not_in_graph(s)) for s in first], np.int64)
    if not len(vertices):
        return
    far = np.iinfo(np.int64).max
    dist = np.stack([np.where(d >= 0, d, far) for d in (_distances(G, v) for v in vertices)]).min(axis=0)
    dist[dist == far] = -1
    order, _ = bfs_order(G, vertices, dist, INF)
    for layer in np.split(order, np.flatnonzero(np.diff(dist[order])) + 1):
        yield _labels(G, layer)


@implements()
def descendants_at_distance(G: Graph, source, distance) -> set:
    v = _vertex(G, source, _not_in_graph(source))
    if not isinstance(distance, numbers.Real) or distance < 0:
        return set()
    return set(_labels(G, np.flatnonzero(_distances(G, v) == distance)))


@implements()
def descendants(G: Graph, source) -> set:
    v = _vertex(G, source, _not_in_graph(source))
    return set(_labels(G, np.flatnonzero(_distances(G, v) > 0)))


# Shortest path lengths.


def _lengths(G: Graph, dist: np.ndarray, keep: np.ndarray, integers: bool) -> dict:
    """{node: distance} of the kept vertices, nearest first (ties in node order)."""
    reached = np.flatnonzero(keep)
    order = reached[np.argsort(dist[reached], kind="stable")]
    values = dist[order].astype(np.int64) if integers else dist[order]
    return dict(zip(_labels(G, order), values.tolist()))


@implements()
def single_source_shortest_path_length(G: Graph, source, cutoff=None) -> dict:
    v = _vertex(G, source, lambda: nx.NodeNotFound(f"Source {source} is not in G"))
    dist = _distances(G, v)
    return _lengths(G, dist, (dist == 0) | ((dist > 0) & (dist < (INF if cutoff is None else cutoff) + 1)), True)


def _sssp_check(G, source=None, cutoff=None, weight="weight") -> str | None:
    return weights_problem(G, weight)


def _weighted_lengths(G: Graph, v: int, cutoff, weight) -> dict:
    """networkx's Dijkstra and Bellman-Ford lengths: the source at int 0, then sums of the weights,
    ints where every weight is one (networkx adds the attributes' own values)."""
    store, weighted = G.stored(weight)
    dist = gt.sssp(store, v, weight=weighted, predecessors=False, config=config()).distances
    keep = np.isfinite(dist) & (dist <= (INF if cutoff is None else cutoff))
    keep[v] = True
    lengths = _lengths(G, dist, keep, weight is None or G.weight_facts(weight).integers)
    lengths[G.nodes[v]] = 0
    return lengths


@implements(_sssp_check)
def single_source_dijkstra_path_length(G: Graph, source, cutoff=None, weight="weight") -> dict:
    v = _vertex(G, source, lambda: nx.NodeNotFound(f"Node {source} not found in graph"))
    return _weighted_lengths(G, v, cutoff, weight)


@implements(_sssp_check)
def single_source_bellman_ford_path_length(G: Graph, source, weight="weight") -> dict:
    v = _vertex(G, source, lambda: nx.NodeNotFound(f"Source {source} not in G"))
    return _weighted_lengths(G, v, None, weight)


# PageRank.


def _pagerank_check(G, alpha=0.85, personalization=None, max_iter=100, tol=1e-6, nstart=None, weight="weight", dangling=None) -> str | None:
    if nstart is not None:
        return "nstart: graphtier starts from the uniform vector"
    if dangling is not None:
        return "dangling: graphtier gives dangling nodes' rank away as the personalization"
    if not isinstance(alpha, numbers.Real) or not 0 <= alpha <= 1:
        return f"alpha={alpha!r}: graphtier takes alpha in [0, 1]"
    if personalization is not None and not (isinstance(personalization, dict) and all(isinstance(x, numbers.Real) and 0 <= x < INF for x in personalization.values())):
        return "a personalization that is not a dict of finite, non-negative numbers"
    return weights_problem(G, weight, exact=False)


@implements(_pagerank_check)
def pagerank(G: Graph, alpha=0.85, personalization=None, max_iter=100, tol=1.0e-6, nstart=None, weight="weight", dangling=None) -> dict:
    """Weights as float32 (within a relative 6e-8 of networkx's, far below ``tol``)."""
    if len(G) == 0:
        return {}
    p = None
    if personalization is not None:
        p = np.array([personalization.get(node, 0) for node in G.nodes], np.float64)
        if p.sum() == 0:
            raise ZeroDivisionError
    if max_iter < 1:
        raise nx.PowerIterationFailedConvergence(max_iter)
    store, weighted = G.stored(weight, reverse=True)
    try:
        ranks = gt.pagerank(store, alpha=alpha, tol=tol, max_iter=max_iter, personalization=p, weight=True if weighted else None, config=config()).ranks
    except ConvergenceError:
        raise nx.PowerIterationFailedConvergence(max_iter) from None
    return dict(zip(G.nodes, ranks.tolist()))


# Components.


@implements()
def connected_components(G: Graph) -> Iterator[set]:
    """In networkx's order: by each component's first node."""
    yield from _groups(G, gt.connected_components(G.store, config=config()).labels)


@implements()
def number_connected_components(G: Graph) -> int:
    return gt.connected_components(G.store, config=config()).n_components


@implements()
def is_connected(G: Graph) -> bool:
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    return gt.connected_components(G.store, config=config()).n_components == 1


@implements()
def node_connected_component(G: Graph, n) -> set:
    v = _vertex(G, n, lambda: KeyError(n))
    return set(_labels(G, np.flatnonzero(_distances(G, v) >= 0)))


def sinks_first(labels: np.ndarray, n_components: int, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """The components in a reverse topological order of the graph between them (each after every
    component it reaches), as networkx's Tarjan yields them; ready ones by their least node."""
    between = labels[src] != labels[dst]
    pairs = np.unique(labels[src[between]] * n_components + labels[dst[between]])
    tail, head = pairs // n_components, pairs % n_components
    waiting = np.bincount(tail, minlength=n_components).tolist()  # components each one still reaches
    by_head = np.argsort(head, kind="stable")
    starts = np.searchsorted(head[by_head], np.arange(n_components + 1)).tolist()
    reaching = tail[by_head].tolist()
    ready = [c for c in range(n_components) if not waiting[c]]
    order = []
    while ready:
        c = heapq.heappop(ready)
        order.append(c)
        for t in reaching[starts[c] : starts[c + 1]]:
            waiting[t] -= 1
            if not waiting[t]:
                heapq.heappush(ready, t)
    return np.array(order, np.int64)


@implements()
def strongly_connected_components(G: Graph) -> Iterator[set]:
    """In a reverse topological order, as networkx's (which of them may differ)."""
    result = gt.strongly_connected_components(G.with_reverse(), config=config())
    rank = np.empty(result.n_components, np.int64)
    rank[sinks_first(result.labels, result.n_components, *G.edge_arrays())] = np.arange(result.n_components)
    yield from _groups(G, rank[result.labels])


@implements()
def number_strongly_connected_components(G: Graph) -> int:
    return gt.strongly_connected_components(G.with_reverse(), config=config()).n_components


@implements()
def is_strongly_connected(G: Graph) -> bool:
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    return gt.strongly_connected_components(G.with_reverse(), config=config()).n_components == 1


# Betweenness centrality.


def _betweenness_check(G, k=None, normalized=True, weight=None, endpoints=False, seed=None) -> str | None:
    if weight is not None:
        if problem := weights_problem(G, weight):  # exact in float32: path lengths and their ties are networkx's
            return problem
        if facts_of(G, weight).zero:
            return "zero edge weights: graphtier's weighted betweenness needs positive ones"
    if k is not None and (not isinstance(k, numbers.Integral) or isinstance(k, bool) or not 1 <= k <= len(G)):
        return f"k={k!r}: graphtier samples between 1 and all the nodes"
    return None


@implements(_betweenness_check)
def betweenness_centrality(G: Graph, k=None, normalized=True, weight=None, endpoints=False, seed=None) -> dict:
    """Sources sampled as networkx samples them (``seed.sample`` over the nodes in order)."""
    sources = None if k is None else seed.sample(range(len(G)), k)
    store, weighted = G.stored(weight)
    result = gt.betweenness_centrality(store, normalized=normalized, endpoints=endpoints, weight=weighted or None, sources=sources, config=config())
    return dict(zip(G.nodes, result.centrality.tolist()))


# Minimum spanning forests.

ALGORITHM_NAMES = ("kruskal", "prim", "boruvka")


def _forest_problem(G, algorithm, weight, *, edges: bool) -> str | None:
    """Why graphtier's forest could differ from networkx's: graphtier orders edges by (weight,
    smaller node, larger node); networkx's Kruskal by weight, ties in its edge order (``G.edges()``:
    by node, then adjacency). With distinct weights the forest is unique; with ties the two orders
    agree where every node lists its later neighbours in node order."""
    if G.is_directed():
        return "directed graphs: spanning forests are of undirected ones"
    if algorithm not in ALGORITHM_NAMES:
        return f"algorithm={algorithm!r}: not one of networkx's"
    if edges and algorithm != "kruskal":
        return f"algorithm={algorithm!r}: networkx yields {algorithm}'s edges in its own order"
    distinct, exact = False, True  # weight=None: networkx weighs every edge 1
    if weight is not None:
        if problem := weights_problem(G, weight, exact=False):
            return problem
        facts = facts_of(G, weight)
        distinct, exact = facts.distinct, facts.float32
    if distinct or (algorithm == "kruskal" and exact and adjacency_sorted(G)):
        return None
    return "ties between equal weights, where networkx's forest follows its edge order (and nodes do not list neighbours in node order)"


def _edges_check(G, algorithm="kruskal", weight="weight", keys=True, data=True, ignore_nan=False) -> str | None:
    return _forest_problem(G, algorithm, weight, edges=True)


def _tree_check(G, weight="weight", algorithm="kruskal", ignore_nan=False) -> str | None:
    return _forest_problem(G, algorithm, weight, edges=False)


def _forest(G: Graph, weight, data: bool) -> Iterator[tuple]:
    """The forest's edges in Kruskal's order, each as ``G.edges()`` names it (earlier node first)."""
    store, weighted = G.stored(weight)
    forest = gt.minimum_spanning_tree(store, weight=weighted, config=config())
    order = np.lexsort((forest.destinations, forest.sources, forest.weights))
    u, v = forest.sources[order], forest.destinations[order]
    nodes = G.nodes
    if not data:
        yield from ((nodes[a], nodes[b]) for a, b in zip(u.tolist(), v.tolist()))
        return
    for a, b, d in zip(u.tolist(), v.tolist(), G.edge_attributes(G.edge_ids(u, v))):
        yield nodes[a], nodes[b], d


@implements(_edges_check)
def minimum_spanning_edges(G: Graph, algorithm="kruskal", weight="weight", keys=True, data=True, ignore_nan=False) -> Iterator[tuple]:
    return _forest(G, weight, data)


@implements(_tree_check)
def minimum_spanning_tree(G: Graph, weight="weight", algorithm="kruskal", ignore_nan=False) -> nx.Graph:
    T = G.nx_class()
    T.graph.update(G.graph_attrs or {})
    T.add_nodes_from(G.nodes if G.node_data is None else zip(G.nodes, G.node_data))
    T.add_edges_from(_forest(G, weight, True))
    return T


# Colouring and independent sets.


def _color_check(G, strategy="largest_first", interchange=False) -> str | None:
    if not (isinstance(strategy, str) and strategy == "largest_first") and strategy is not nx.coloring.strategy_largest_first:
        return f"strategy={strategy!r}: graphtier colours largest degree first"
    if interchange:
        return "interchange=True: graphtier does not swap colours"
    if G.is_directed():
        return "directed graphs: networkx colours against successors only, graphtier against every neighbour"
    if self_loops(G):
        return "self-loops: networkx counts them in degrees, graphtier ignores them"
    return None


@implements(_color_check)
def greedy_color(G: Graph, strategy="largest_first", interchange=False) -> dict:
    """networkx's colouring exactly: graphtier colours greedily by degree, ties by seeded priorities,
    which a store whose vertex ids are chosen for it (``Graph.by_priority``) ranks in node order."""
    degree = G.degrees()
    order = np.lexsort((np.arange(len(G)), -degree))
    colors = np.zeros(len(G), np.int64)
    if G.store.n_edges:
        store, rows = G.by_priority()
        colors[rows] = gt.greedy_color(store, seed=0, config=config()).colors
    return dict(zip(_labels(G, order), colors[order].tolist()))


def _mis_check(G, nodes=None, seed=None) -> str | None:
    if nodes:
        return "nodes: graphtier's set cannot be made to hold given nodes"
    if len(G) == 0:
        return "the null graph (networkx raises IndexError)"
    return None


@implements(_mis_check)
def maximal_independent_set(G: Graph, nodes=None, seed=None) -> list:
    """graphtier's set for a seed drawn from ``seed``: maximal and independent, not networkx's set."""
    result = gt.maximal_independent_set(G.store, seed=int(seed.random() * (1 << 53)), config=config())
    return _labels(G, np.flatnonzero(result.in_set))
