"""The backend's graph: a graphtier store in a temporary directory of this process, plus what networkx's
answers need that a store does not keep (node labels, each edge's place in its node's adjacency,
attribute dictionaries where networkx asks to preserve them).

Vertex i of the store is the i-th node of the networkx graph, so graphtier's ties between vertices
(components numbered by their least vertex, sampled sources, forest edges of equal weight) fall as
networkx's node order does. An undirected graph's store holds both directions of every edge, sorted
by (source, destination), the order in which ``positions`` and ``edge_data`` are kept.
"""

from __future__ import annotations

import atexit
import os
import shutil
import threading
import uuid
import weakref
from collections.abc import Iterator
from pathlib import Path

import networkx as nx
import numpy as np

import graphtier as gt
from _graphtier_networkx import get_info

from .. import temps
from ..algorithms.priority import GOLDEN, mix_array
from ..partition.blocks import EdgeBlock
from ..partition.source import EdgeSource

_lock = threading.Lock()
_directory: Path | None = None


def option(name: str):
    """The backend's setting ``name``: ``nx.config.backends.graphtier`` (networkx makes it from
    ``get_info``'s defaults), or that default where graphtier is not registered with networkx."""
    config = getattr(nx.config.backends, "graphtier", None)
    return get_info()["default_config"][name] if config is None else config[name]


def _workspace() -> Path:
    """This process's directory of stores (created on first use, removed at exit; what killed
    processes left is swept first: ``temps.workspace``)."""
    global _directory
    with _lock:
        if _directory is None or not _directory.is_dir():
            _directory = temps.workspace("graphtier-nx")
            atexit.register(_remove, [_directory], os.getpid())
        return _directory


class WeightFacts:
    """What the checks need to know about one attribute's weights (default filled in), computed once."""

    def __init__(self, values: list, loops: np.ndarray | None = None):
        self.numbers = all(isinstance(w, int | float | np.integer | np.floating) and not isinstance(w, bool | np.bool_) for w in values)
        self.integers = self.numbers and all(isinstance(w, int | np.integer) for w in values)
        w = np.array(values if self.numbers else [], np.float64)
        if not self.numbers:
            loops = None
        self.finite = bool(np.isfinite(w).all())
        self.negative = bool((w < 0).any())
        self.zero = bool((w == 0).any())
        with np.errstate(over="ignore"):
            single = w.astype(np.float32)
        self.float32 = self.finite and bool((single == w).all()) and (not self.integers or all(abs(int(v)) <= 1 << 24 for v in values))
        self.ones = bool((w == 1).all())
        keep = single if loops is None else single[~loops]
        self.distinct = len(np.unique(keep)) == len(keep)

    def problem(self, *, exact: bool = True) -> str | None:
        """Why graphtier cannot use these weights, or None: numbers, finite, not negative (its stores
        refuse them), and exact in float32 where ``exact`` asks (graphtier stores float32; sums of
        exact weights are networkx's sums)."""
        if not self.numbers:
            return "edge weights that are not (real, non-boolean) numbers"
        if not self.finite:
            return "NaN or infinite edge weights"
        if self.negative:
            return "negative edge weights"
        if exact and not self.float32:
            return "edge weights that float32 (graphtier's weights) does not hold exactly"
        return None


def weight_facts(G: nx.Graph, attr: str, default=1) -> WeightFacts:
    """The facts of ``G``'s weights under ``attr``, cached on ``G`` until networkx clears its cache
    (any change through networkx's methods does)."""
    cache = getattr(G, "__networkx_cache__", None)
    key = ("graphtier", "weights", attr, default)
    if cache is not None and key in cache:
        return cache[key]
    values, loops = [], []
    for u, v, w in G.edges(data=attr, default=default):
        values.append(w)
        loops.append(u == v)
    facts = WeightFacts(values, np.array(loops, bool))
    if cache is not None and nx.config.cache_converted_graphs:
        cache[key] = facts
    return facts


class Graph:
    """A networkx graph as graphtier holds it: ``store`` (a ``graphtier.Graph``), ``nodes`` (vertex i is
    ``nodes[i]``), ``weight`` (the edge attribute its weights come from), ``attributes`` (every edge
    attribute's name: under any other, every edge weighs 1). Made by ``from_networkx`` or
    ``from_store``; the stores it made go when it does."""

    __networkx_backend__ = "graphtier"

    def __init__(
        self,
        store: gt.Graph,
        nodes: list,
        *,
        directed: bool,
        weight: str | None = None,
        attributes: frozenset = frozenset(),
        facts: dict[str, WeightFacts] | None = None,
        positions: np.ndarray | None = None,
        edge_data: list[dict] | None = None,
        node_data: list[dict] | None = None,
        graph_attrs: dict | None = None,
        nx_class: type = nx.Graph,
        owned: bool = False,
    ):
        self.store = store
        self.nodes = nodes
        self.directed = directed
        self.weight = weight
        self.attributes = attributes
        self.facts = facts or {}
        self.positions = positions
        self.edge_data = edge_data
        self.node_data = node_data
        self.graph_attrs = graph_attrs
        self.nx_class = nx_class
        self._index: dict | None = None
        self._edges: tuple[np.ndarray, np.ndarray] | None = None
        self._variants: dict[tuple[str | None, bool], gt.Graph] = {}
        self._priority: tuple[gt.Graph, np.ndarray] | None = None
        self._owned = [store.location] if owned else []
        weakref.finalize(self, _remove, self._owned, os.getpid())

    def _own(self, store: gt.Graph) -> gt.Graph:
        self._owned.append(store.location)
        return store

    # What networkx's decorators and the checks ask of a graph.
    def is_directed(self) -> bool:
        return self.directed

    def is_multigraph(self) -> bool:
        return False

    def __len__(self) -> int:
        return len(self.nodes)

    def __iter__(self) -> Iterator:
        return iter(self.nodes)

    def __contains__(self, node: object) -> bool:
        try:
            return node in self.index
        except TypeError:
            return False

    def number_of_nodes(self) -> int:
        return len(self.nodes)

    def number_of_edges(self) -> int:
        """networkx's count: an undirected edge once (its store holds both directions, a self-loop once)."""
        n = self.store.n_edges
        return n if self.directed else (n + self.self_loops) // 2

    @property
    def index(self) -> dict:
        """node -> vertex id."""
        if self._index is None:
            self._index = {node: i for i, node in enumerate(self.nodes)}
        return self._index

    def __repr__(self) -> str:
        kind = "directed" if self.directed else "undirected"  # no edge count: that reads the edges (networkx's debug log calls this)
        return f"<graphtier.networkx.Graph: {kind}, {len(self.nodes):,} nodes, in {self.store.location}>"

    def edge_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """(src, dst) of every stored edge (both directions of an undirected one), in store order."""
        if self._edges is None:
            rows = self.store.edges().astype(np.int64).reshape(-1, 2)
            self._edges = rows[:, 0], rows[:, 1]
        return self._edges

    @property
    def self_loops(self) -> int:
        src, dst = self.edge_arrays()
        return int((src == dst).sum())

    def degrees(self) -> np.ndarray:
        """networkx's ``G.degree`` per vertex of an undirected graph (a self-loop counts twice)."""
        src, dst = self.edge_arrays()
        return np.bincount(src, minlength=len(self.nodes)) + np.bincount(src[src == dst], minlength=len(self.nodes))

    def weights(self, attr: str) -> np.ndarray:
        """The weights under ``attr`` in store order (float32 as stored; int 1 where an edge lacks it)."""
        if attr == self.weight and self.store.weighted:
            return self.store.edge_weights()
        if attr == self.weight or attr not in self.attributes:
            return np.ones(self.store.n_edges, np.int64)
        if self.edge_data is None:
            raise ValueError(self.can_weigh(attr))
        return np.array([d.get(attr, 1) for d in self.edge_data], np.float32)

    def edge_ids(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """The place in store order of each edge (u, v)."""
        src, dst = self.edge_arrays()
        n = len(self.nodes)
        return np.searchsorted(src * n + dst, u * n + v)

    def edge_attributes(self, ids: np.ndarray) -> list[dict]:
        """The attribute dictionaries of these edges (places in store order): networkx's own where
        kept, else each one's stored weight."""
        if self.edge_data is not None:
            return [self.edge_data[e] for e in ids.tolist()]
        if self.weight is None or not self.store.weighted:
            return [{} for _ in range(len(ids))]
        return [{self.weight: w} for w in self.weights(self.weight)[ids].tolist()]

    def can_weigh(self, attr: str | None) -> str | None:
        """Why this graph cannot give weights under ``attr``, or None."""
        if attr is None or attr == self.weight or attr not in self.attributes or self.edge_data is not None:
            return None
        return f"the graph was converted with weights from {self.weight!r}, not {attr!r}, and without its edge attributes"

    def weight_facts(self, attr: str) -> WeightFacts:
        if attr not in self.facts:
            src, dst = self.edge_arrays()
            values = [d.get(attr, 1) for d in self.edge_data] if self.edge_data is not None else self.weights(attr).tolist()
            self.facts[attr] = WeightFacts(values, src == dst)
        return self.facts[attr]

    def stored(self, weight: str | None = None, *, reverse: bool = False) -> tuple[gt.Graph, bool]:
        """(a store, whether to read its weights) for weights from ``weight`` (None, or an attribute
        under which every edge weighs 1: any store, read without weights) with, on a directed graph
        where ``reverse`` asks, its reverse graph: the base store, or one built once from the same
        edges and the kept attributes."""
        reads = weight is not None and not self.weight_facts(weight).ones
        key, reverse = (weight if reads else None), reverse and self.directed
        for (w, r), store in [((self.weight, self.store.has_reverse), self.store), *self._variants.items()]:
            if key in (None, w) and (r or not reverse):
                return store, reads
        src, dst = self.edge_arrays()
        store = _build(src, dst, self.weights(weight) if reads else None, len(self.nodes), directed=self.directed, reverse=reverse)
        self._variants[key, reverse] = self._own(store)
        return store, reads

    def with_reverse(self) -> gt.Graph:
        """A store that holds the reverse graph where the graph is directed (SCC pulls over in-edges)."""
        return self.stored(None, reverse=True)[0]

    def by_priority(self) -> tuple[gt.Graph, np.ndarray]:
        """(a store of the same edges whose vertices graphtier's seed-0 priorities rank in node order,
        the vertex id of each of its rows): greedy colouring's ties then fall as networkx's stable sort
        leaves them. The store holds only vertices with edges."""
        if self._priority is None:
            src, dst = self.edge_arrays()
            ids = ranked_ids(len(self.nodes))
            store = _build(ids[src], ids[dst], None, None, directed=False, relabel=True)
            rows = np.argsort(ids)  # the relabelled store's rows follow the ids ascending
            present = np.zeros(len(self.nodes), bool)
            present[src] = present[dst] = True
            self._priority = (self._own(store), rows[present[rows]])
        return self._priority

    def to_networkx(self) -> nx.Graph:
        """The networkx graph this one stands for (its kept attributes, or the stored weights)."""
        G = self.nx_class()
        if self.graph_attrs:
            G.graph.update(self.graph_attrs)
        if self.node_data is not None:
            G.add_nodes_from(zip(self.nodes, self.node_data))
        else:
            G.add_nodes_from(self.nodes)
        src, dst = self.edge_arrays()
        nodes = self.nodes
        if self.edge_data is not None:
            G.add_edges_from((nodes[u], nodes[v], d) for u, v, d in zip(src.tolist(), dst.tolist(), self.edge_data))
        elif self.weight is not None and self.store.weighted:
            G.add_weighted_edges_from(((nodes[u], nodes[v], w) for u, v, w in zip(src.tolist(), dst.tolist(), self.weights(self.weight).tolist())), weight=self.weight)
        else:
            G.add_edges_from((nodes[u], nodes[v]) for u, v in zip(src.tolist(), dst.tolist()))
        return G


def _remove(locations: list, pid: int) -> None:
    """Removes these stores or directories, in the process that made them (never in a forked child)."""
    if os.getpid() == pid:
        for location in locations:
            shutil.rmtree(location, ignore_errors=True)


def _build(src: np.ndarray, dst: np.ndarray, weight: np.ndarray | None, n_vertices: int | None, *, directed: bool, reverse: bool = False, relabel: bool = False) -> gt.Graph:
    """A store of these edges in this process's workspace: symmetric when undirected; with the reverse
    graph where ``reverse`` asks (PageRank and SCC pull over in-edges)."""
    block = EdgeBlock(np.ascontiguousarray(src, np.uint64), np.ascontiguousarray(dst, np.uint64), None if weight is None else np.ascontiguousarray(weight, np.float32))
    source = EdgeSource(
        name="networkx graph",
        make_blocks=lambda: iter([block]),
        weighted=weight is not None,
        undirected=not directed,
        n_vertices=n_vertices,
        provenance={"source": "networkx graph", "kind": "networkx"},
    )
    path = _workspace() / f"{uuid.uuid4().hex}.gt"
    return gt.build(source, path, format=option("format"), relabel=relabel, reverse=directed and reverse, allow_empty=True, progress=False)


_MASK = (1 << 64) - 1
_INVERSE = [pow(c, -1, 1 << 64) for c in (0xBF58476D1CE4E5B9, 0x94D049BB133111EB)]


def _unshift(z: np.ndarray, shift: int) -> np.ndarray:
    """The inverse of ``z ^ (z >> shift)`` on uint64."""
    out = z.copy()
    for k in range(shift, 64, shift):
        out ^= z >> np.uint64(k)
    return out


def _unmix(p: np.ndarray) -> np.ndarray:
    """The inverse of splitmix64's finaliser (``algorithms.priority.mix``)."""
    z = _unshift(p, 31) * np.uint64(_INVERSE[1])
    z = _unshift(z, 27) * np.uint64(_INVERSE[0])
    return _unshift(z, 30)


def ranked_ids(n: int) -> np.ndarray:
    """n distinct uint64 ids whose graphtier priorities under seed 0 decrease with their index:
    priority = mix(id + key), so id = unmix(priority) - key."""
    key = int(mix_array(np.array([GOLDEN], np.uint64))[0])  # seed 0's key: mix(0 + GOLDEN)
    wanted = np.uint64(_MASK) - np.arange(n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        return _unmix(wanted) - np.uint64(key)


def from_networkx(
    G: nx.Graph,
    *,
    weight: str | None = None,
    default: object = 1,
    preserve_edge_attrs: bool = False,
    preserve_node_attrs: bool = False,
    preserve_graph_attrs: bool = False,
    reverse: bool = False,
) -> Graph:
    """``G`` (a Graph or DiGraph; not a multigraph) as a graphtier store, with weights from the edge
    attribute ``weight`` (``default`` where an edge lacks it; none when every weight is 1), and the
    reverse graph of a directed one where ``reverse`` asks. The ``preserve_*`` flags keep networkx's
    attribute dictionaries for answers that return them."""
    if G.is_multigraph():
        raise NotImplementedError("graphtier keeps one edge per pair of nodes: multigraphs are not supported")
    nodes = list(G)
    index = {node: i for i, node in enumerate(nodes)}
    adj = G._adj
    degree = np.fromiter((len(adj[u]) for u in nodes), np.int64, len(nodes))
    starts = np.concatenate([[0], np.cumsum(degree)])
    src = np.repeat(np.arange(len(nodes), dtype=np.int64), degree)
    dst = np.fromiter((index[v] for u in nodes for v in adj[u]), np.int64, int(starts[-1]))
    order = np.lexsort((dst, src))  # the store's order; positions are each edge's place in adj[u]
    positions = (np.arange(len(dst)) - starts[src])[order]
    src, dst = src[order], dst[order]
    data = [d for u in nodes for d in adj[u].values()]
    data = [data[i] for i in order.tolist()]
    facts, w = {}, None
    if weight is not None:
        values = [d.get(weight, default) for d in data]
        facts[weight] = f = WeightFacts(values, src == dst)
        problem = f.problem(exact=False)
        if problem:
            raise ValueError(f"graphtier cannot store {problem} (attribute {weight!r})")
        w = None if f.ones else np.array(values, np.float64)
    store = _build(src, dst, w, len(nodes), directed=G.is_directed(), reverse=reverse)
    return Graph(
        store,
        nodes,
        directed=G.is_directed(),
        weight=weight,
        attributes=frozenset().union(*data),
        facts=facts,
        positions=positions,
        edge_data=data if preserve_edge_attrs else None,
        node_data=[G._node[u] for u in nodes] if preserve_node_attrs else None,
        graph_attrs=G.graph if preserve_graph_attrs else None,
        nx_class=type(G),
        owned=True,
    )


def adjacency_sorted(G: nx.Graph | Graph) -> bool:
    """Whether every node lists its later neighbours (in node order) in node order, as ``G.edges()``
    then does: networkx's edge order is graphtier's (smaller end, larger end)."""
    if isinstance(G, Graph):
        if G.positions is None:
            return True
        src, dst = G.edge_arrays()
        later = src < dst
        s, p = src[later], G.positions[later]
        return bool(((p[1:] > p[:-1]) | (s[1:] != s[:-1])).all())
    cache = getattr(G, "__networkx_cache__", None)
    key = ("graphtier", "adjacency sorted")
    if cache is not None and key in cache:
        return cache[key]
    index = {node: i for i, node in enumerate(G)}
    ordered = True
    for u, neighbours in G._adj.items():
        last = index[u]
        for v in neighbours:
            j = index[v]
            if j > index[u]:
                if j < last:
                    ordered = False
                    break
                last = j
        if not ordered:
            break
    if cache is not None and nx.config.cache_converted_graphs:
        cache[key] = ordered
    return ordered


def from_store(store: gt.Graph, *, weight: str = "weight") -> Graph:
    """A graphtier store as a networkx backend graph, without copying it: nodes are its vertex ids, its
    weights (1 where it has none) stand for the edge attribute ``weight``, and neighbours are in id
    order. The store is not removed with the graph."""
    if store.perm is not None:
        raise ValueError(f"{store.location} renumbered its vertices (relabel or order); graphtier's networkx backend reads stores in natural order")
    nodes = list(range(store.n_vertices))
    return Graph(store, nodes, directed=store.directed, weight=weight, attributes=frozenset([weight] if store.weighted else []))
