"""graphtier as a networkx backend: networkx's own tests of the covered algorithms run against it (in
a subprocess, ``NETWORKX_TEST_BACKEND=graphtier`` with fallback on, this module loaded there as a
plugin that marks ``XFAIL`` and counts which calls graphtier ran), and its answers against
networkx's on directed, undirected, weighted graphs with isolated nodes, self-loops and string
labels; what it declines and why; the temporary stores it leaves behind (none)."""

from __future__ import annotations

import inspect
import json
import logging
import os
import random
import re
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import graphtier as gt
from _graphtier_networkx import FUNCTIONS, get_info
from graphtier import temps
from graphtier.algorithms.priority import priorities_of
from graphtier.networkx import backend_interface, from_store
from graphtier.networkx.algorithms import ALGORITHMS
from graphtier.networkx.graph import ranked_ids

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.filterwarnings("ignore:Note. conversions to backend graphs are saved to cache")  # the point of GRAPHS

# networkx's test modules of the functions graphtier implements, in two groups that run at once
# (each process compiles only its algorithms' kernels).
MODULES = [
    [
        "networkx.algorithms.traversal.tests.test_bfs",
        "networkx.algorithms.shortest_paths.tests.test_unweighted",
        "networkx.algorithms.shortest_paths.tests.test_weighted",
        "networkx.algorithms.link_analysis.tests.test_pagerank",
        "networkx.algorithms.centrality.tests.test_betweenness_centrality",
        "networkx.algorithms.components.tests.test_strongly_connected",
        "networkx.algorithms.tests.test_mis",
    ],
    [
        "networkx.algorithms.components.tests.test_connected",
        "networkx.algorithms.tree.tests.test_mst",
        "networkx.algorithms.coloring.tests.test_coloring",
    ],
]

# networkx tests that fail against graphtier by design, by the end of their node id.
XFAIL = {
    "test_mis.py::test_random_seed": "networkx's seeded set comes from its random.choice sequence; graphtier's seeded priorities give another valid set",
}


# The plugin side (loaded with -p in the subprocess).


class _Calls(logging.Handler):
    """Counts networkx's dispatch log: calls graphtier ran, and calls it declined (networkx ran them)."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.ran, self.declined = Counter(), Counter()

    def emit(self, record: logging.LogRecord) -> None:
        if record.msg.startswith("Using backend '%s' for call to '%s'") and record.args[0] == "graphtier":
            self.ran[record.args[1]] += 1
        elif record.msg.startswith("Backend '%s' can't run `%s`") and record.args[0] == "graphtier":
            self.declined[f"{record.args[1]}: {record.args[3].removeprefix(', because: ')}"] += 1


_calls = _Calls()


def pytest_configure(config):
    log = logging.getLogger("networkx.utils.backends")
    log.setLevel(logging.DEBUG)
    log.addHandler(_calls)


def pytest_collection_modifyitems(items):
    for item in items:
        name = item.path.name + item.nodeid[item.nodeid.index("::") :]  # --pyargs ids start at "::"
        if name in XFAIL:
            item.add_marker(pytest.mark.xfail(reason=XFAIL[name], strict=True))


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line("GRAPHTIER-CALLS " + json.dumps({"ran": _calls.ran, "declined": _calls.declined}))


# The tests.


def test_networkx_suite(tmp_path):
    """networkx's tests of every covered function pass against graphtier (those in XFAIL fail as
    expected), and graphtier runs each covered function in them."""
    (tmp_path / "pytest.ini").write_text("[pytest]\n")  # not this project's settings
    env = {**os.environ, "NETWORKX_TEST_BACKEND": "graphtier", "NETWORKX_FALLBACK_TO_NX": "True", "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "pytest", "-q", "-c", str(tmp_path / "pytest.ini"), "-p", "no:cacheprovider", "-p", "tests.test_networkx_backend"]
    command += ["-W", "ignore:Numcodecs codecs are not in the Zarr version 3:UserWarning", "--pyargs"]
    runs = [subprocess.Popen([*command, *modules], cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for modules in MODULES]
    outputs = [run.communicate(timeout=900)[0] for run in runs]
    ran, declined, counts = Counter(), Counter(), Counter()
    for run, output in zip(runs, outputs):
        assert run.returncode == 0, output[-8000:]
        lines = output.strip().splitlines()
        calls = json.loads(next(line for line in lines if line.startswith("GRAPHTIER-CALLS ")).split(" ", 1)[1])
        ran.update(calls["ran"])
        declined.update(calls["declined"])
        counts.update({word: int(n) for n, word in re.findall(r"(\d+) (passed|xfailed|skipped|failed)", lines[-1])})
    print(dict(counts), "graphtier ran:", dict(ran), "declined:", dict(declined), sep="\n")
    assert counts["xfailed"] == len(XFAIL)
    missing = set(ALGORITHMS) - set(ran) - {"descendants"}  # networkx's dag tests are not run here
    assert not missing, f"graphtier ran none of these in networkx's tests: {sorted(missing)}"


def test_registered():
    """The entry points are installed (pip install -e . puts them there) and name the same functions."""
    assert "graphtier" in nx.utils.backends.backends
    assert set(FUNCTIONS) == set(ALGORITHMS) == set(nx.utils.backends.backend_info["graphtier"]["functions"])
    assert nx.config.backends.graphtier.min_edges == get_info()["default_config"]["min_edges"]
    for name, func in ALGORITHMS.items():
        ours = inspect.signature(func)
        theirs = inspect.signature(nx.utils.backends._registered_algorithms[name].orig_func)
        assert [(p.name, p.default) for p in ours.parameters.values()] == [(p.name, p.default) for p in theirs.parameters.values()], name


def _graphs() -> dict[str, nx.Graph]:
    """Undirected and directed, weighted and not, with string labels, isolated nodes, self-loops,
    several components and adjacency in an order other than the nodes'."""
    rng = random.Random(5)
    G = nx.gnm_random_graph(40, 70, seed=3)
    for (u, v), w in zip(G.edges, rng.sample(range(1, 200), 70)):
        G.edges[u, v]["weight"] = w  # distinct: one spanning forest
    G.add_edge(7, 7, weight=2)
    G.add_nodes_from([40, 41])  # isolated
    shuffled = list(G)
    rng.shuffle(shuffled)
    words = nx.relabel_nodes(G, {n: f"n{n}" for n in shuffled})  # string labels, adjacency not in node order
    D = nx.gnm_random_graph(30, 80, seed=4, directed=True)
    for u, v in D.edges:
        D.edges[u, v]["weight"] = rng.choice([0.5, 1.25, 2.0, 3.75, 0.0])
    D.add_edge(3, 3, weight=1.0)
    D.add_node("isolated")
    return {"undirected": G, "words": words, "directed": D, "unweighted": nx.path_graph(["a", "b", "c", "d"])}


GRAPHS = _graphs()


def both(func, *args, **kwargs):
    """networkx's answer and graphtier's to the same call."""
    return func(*args, **kwargs), func(*args, backend="graphtier", **kwargs)


@pytest.mark.parametrize("name", list(GRAPHS))
def test_traversals_match(name):
    G = GRAPHS[name]
    source = next(iter(G))
    for depth in (None, 1, 3):
        expect, got = both(lambda *a, **k: list(nx.bfs_edges(*a, **k)), G, source, depth_limit=depth)
        assert got == expect
    assert list(nx.bfs_predecessors(G, source, backend="graphtier")) == list(nx.bfs_predecessors(G, source))
    assert list(nx.bfs_successors(G, source, backend="graphtier")) == list(nx.bfs_successors(G, source))
    tree = nx.bfs_tree(G, source, backend="graphtier")
    assert list(tree.edges) == list(nx.bfs_tree(G, source).edges) and list(tree) == list(nx.bfs_tree(G, source))
    sources = list(G)[:3]
    assert list(nx.bfs_layers(G, sources, backend="graphtier")) == list(nx.bfs_layers(G, sources))
    for d in (0, 2, 5, -1):
        assert nx.descendants_at_distance(G, source, d, backend="graphtier") == nx.descendants_at_distance(G, source, d)
    assert nx.descendants(G, source, backend="graphtier") == nx.descendants(G, source)
    for cutoff in (None, 2):
        expect, got = both(nx.single_source_shortest_path_length, G, source, cutoff=cutoff)
        assert got == expect and all(type(got[n]) is type(expect[n]) for n in expect)


@pytest.mark.parametrize("name", list(GRAPHS))
def test_lengths_match(name):
    """Weighted lengths equal networkx's, ints where networkx's are, unweighted with weight=None."""
    G = GRAPHS[name]
    for source in list(G)[:4]:
        for func, kwargs in [(nx.single_source_dijkstra_path_length, {}), (nx.single_source_dijkstra_path_length, {"cutoff": 4}), (nx.single_source_bellman_ford_path_length, {})]:
            for weight in ("weight", None):
                expect, got = both(func, G, source, weight=weight, **kwargs)
                assert got == expect
                assert [type(got[n]) for n in expect] == [type(expect[n]) for n in expect]


@pytest.mark.parametrize("name", list(GRAPHS))
def test_rankings_match(name):
    G = GRAPHS[name]
    for kwargs in [{}, {"weight": None}, {"alpha": 0.7, "personalization": {n: i % 3 for i, n in enumerate(G)}}]:
        expect, got = both(nx.pagerank, G, tol=1e-10, **kwargs)
        assert list(got) == list(expect) and got == pytest.approx(expect, abs=1e-9)
    weighted = [] if name == "directed" else [{"weight": "weight"}, {"weight": "weight", "k": 3, "seed": 11, "endpoints": True}]  # "directed" has zero weights (declined)
    for kwargs in [{}, {"normalized": False, "endpoints": True}, {"k": 3, "seed": 11}, {"k": len(G), "seed": 2}, *weighted]:
        expect, got = both(nx.betweenness_centrality, G, **kwargs)
        assert list(got) == list(expect) and got == pytest.approx(expect, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("name", ["undirected", "words", "unweighted"])
def test_undirected_results_match(name):
    """Components in networkx's order; the spanning forest, its edges (with their attribute dicts) and
    their order; networkx's colouring, in its order; a maximal independent set."""
    G = GRAPHS[name]
    assert list(nx.connected_components(G, backend="graphtier")) == list(nx.connected_components(G))
    assert nx.number_connected_components(G, backend="graphtier") == nx.number_connected_components(G)
    assert nx.is_connected(G, backend="graphtier") is nx.is_connected(G)
    node = list(G)[-3]
    assert nx.node_connected_component(G, node, backend="graphtier") == nx.node_connected_component(G, node)
    if name != "unweighted":  # equal weights there: graphtier declines (test_declines)
        for algorithm in ("kruskal", "prim", "boruvka"):
            expect, got = both(nx.minimum_spanning_tree, G, algorithm=algorithm)
            assert nx.utils.graphs_equal(got, expect)  # nodes, edges and their attributes, graph attributes
        expect, got = both(lambda *a, **k: list(nx.minimum_spanning_edges(*a, **k)), G)
        assert got == expect and all(a[2] is b[2] for a, b in zip(got, expect))  # networkx's own dicts
    H = G.copy()
    H.remove_edges_from(nx.selfloop_edges(H))
    expect, got = both(nx.greedy_color, H)
    assert list(got.items()) == list(expect.items())
    independent = nx.maximal_independent_set(H, seed=3, backend="graphtier")
    assert independent == nx.maximal_independent_set(H, seed=3, backend="graphtier")
    assert H.subgraph(independent).number_of_edges() == 0
    assert all(set(H[v]) & set(independent) for v in set(H) - set(independent))


def test_unweighted_forest_in_node_order():
    """Equal weights, neighbours listed in node order: Kruskal's forest and order are graphtier's."""
    G = nx.Graph()
    G.add_nodes_from(range(20))
    G.add_edges_from(sorted(nx.gnm_random_graph(20, 50, seed=1).edges))
    expect, got = both(lambda *a, **k: list(nx.minimum_spanning_edges(*a, **k)), G)
    assert got == expect
    assert nx.utils.graphs_equal(nx.minimum_spanning_tree(G, backend="graphtier"), nx.minimum_spanning_tree(G))


def test_strong_components_match():
    """The same components, in a reverse topological order as networkx's."""
    D = GRAPHS["directed"]
    got = list(nx.strongly_connected_components(D, backend="graphtier"))
    assert set(map(frozenset, got)) == set(map(frozenset, nx.strongly_connected_components(D)))
    place = {n: i for i, c in enumerate(got) for n in c}
    assert all(place[u] >= place[v] for u, v in D.edges)
    assert nx.number_strongly_connected_components(D, backend="graphtier") == nx.number_strongly_connected_components(D)
    assert nx.is_strongly_connected(D, backend="graphtier") is False
    assert nx.is_strongly_connected(nx.cycle_graph(5, create_using=nx.DiGraph), backend="graphtier") is True


def test_errors_match():
    G = GRAPHS["words"]
    for func, args, error in [
        (nx.single_source_shortest_path_length, ("nope",), nx.NodeNotFound),
        (nx.single_source_dijkstra_path_length, ("nope",), nx.NodeNotFound),
        (nx.single_source_bellman_ford_path_length, ("nope",), nx.NodeNotFound),
        (nx.descendants_at_distance, ("nope", 1), nx.NetworkXError),
        (lambda *a, **k: list(nx.bfs_edges(*a, **k)), ("nope",), nx.NetworkXError),
        (nx.node_connected_component, ("nope",), KeyError),
        (nx.pagerank, (), nx.PowerIterationFailedConvergence),
    ]:
        kwargs = {"max_iter": 1} if func is nx.pagerank else {}
        with pytest.raises(error):
            func(G, *args, **kwargs)
        with pytest.raises(error):
            func(G, *args, backend="graphtier", **kwargs)
    with pytest.raises(ZeroDivisionError):
        nx.pagerank(G, personalization={"nope": 1}, backend="graphtier")
    with pytest.raises(nx.NetworkXPointlessConcept):
        nx.is_connected(nx.Graph(), backend="graphtier")
    with pytest.raises(nx.NetworkXNotImplemented):
        nx.connected_components(nx.DiGraph([(1, 2)]), backend="graphtier")


@pytest.mark.parametrize(
    "name, G, kwargs, reason",
    [
        ("pagerank", nx.MultiGraph([(1, 2)]), {}, "multigraphs"),
        ("pagerank", nx.path_graph(3), {"nstart": {0: 1}}, "nstart"),
        ("single_source_dijkstra_path_length", nx.Graph([(1, 2, {"weight": -1})]), {"source": 1}, "negative"),
        ("single_source_dijkstra_path_length", nx.Graph([(1, 2, {"weight": 0.1})]), {"source": 1}, "float32"),
        ("single_source_dijkstra_path_length", nx.Graph([(1, 2, {"weight": "heavy"})]), {"source": 1}, "not (real"),
        ("single_source_dijkstra_path_length", nx.path_graph(3), {"source": 0, "weight": lambda u, v, d: 1}, "weight function"),
        ("betweenness_centrality", nx.Graph([(1, 2, {"weight": 0})]), {"weight": "weight"}, "zero"),
        ("betweenness_centrality", nx.Graph([(1, 2, {"weight": 0.1})]), {"weight": "weight"}, "float32"),
        ("minimum_spanning_tree", nx.Graph({1: [3, 2], 2: [3]}), {}, "ties"),  # node 1 lists 3 before 2
        ("minimum_spanning_edges", nx.Graph([(1, 2, {"weight": float("nan")})]), {}, "NaN"),
        ("greedy_color", nx.path_graph(3), {"strategy": "smallest_last"}, "strategy"),
        ("greedy_color", nx.path_graph(3, create_using=nx.DiGraph), {}, "directed"),
        ("greedy_color", nx.Graph([(1, 1), (1, 2)]), {}, "self-loops"),
        ("maximal_independent_set", nx.path_graph(3), {"nodes": [0]}, "nodes"),
        ("bfs_edges", nx.path_graph(3), {"source": 0, "sort_neighbors": sorted}, "sort_neighbors"),
    ],
)
def test_declines(name, G, kwargs, reason):
    """can_run says why; with backend="graphtier" networkx then refuses, with fallback it answers itself."""
    answer = backend_interface.can_run(name, (G,), kwargs)
    assert isinstance(answer, str) and reason in answer
    with pytest.raises(NotImplementedError):
        result = getattr(nx, name)(G, backend="graphtier", **kwargs)
        list(result) if inspect.isgenerator(result) else result
    nx.config.fallback_to_nx, before = True, nx.config.fallback_to_nx
    try:
        with nx.config.backend_priority(algos=["graphtier"]):
            getattr(nx, name)(G, **kwargs)  # networkx's own answer (or its own error)
    except (nx.NetworkXException, ValueError, TypeError):
        pass
    finally:
        nx.config.fallback_to_nx = before


def test_priority_and_should_run():
    """backend_priority dispatches to graphtier, except where should_run finds the graph too small."""
    G = GRAPHS["undirected"]
    assert isinstance(backend_interface.should_run("pagerank", (G,), {}), str)
    with nx.config.backends.graphtier(min_edges=0):
        assert backend_interface.should_run("pagerank", (G,), {}) is True
        G2 = G.copy()
        with nx.config.backend_priority(algos=["graphtier"]):
            nx.pagerank(G2)
        assert "graphtier" in G2.__networkx_cache__["backends"]


def test_backend_graph():
    """A converted graph serves many calls (no new store), converts back; a store wraps without copying."""
    G = GRAPHS["directed"]
    B = backend_interface.convert_from_nx(G, edge_attrs={"weight": 1}, preserve_edge_attrs=True, preserve_node_attrs=True, preserve_graph_attrs=True)
    assert nx.pagerank(B) == pytest.approx(nx.pagerank(G), abs=1e-9)
    assert nx.single_source_dijkstra_path_length(B, 0) == nx.single_source_dijkstra_path_length(G, 0)
    assert nx.utils.graphs_equal(backend_interface.convert_to_nx(B), G)
    assert B.number_of_edges() == G.number_of_edges() and len(B) == len(G)
    store = gt.build(np.array([[0, 1], [1, 2], [2, 0], [2, 3]]), Path(B.store.location).parent / "wrapped.gt", reverse=True, progress=False)
    W = from_store(store)
    assert nx.pagerank(W) == pytest.approx(dict(enumerate(gt.pagerank(store, device="cpu").ranks.tolist())), abs=1e-12)
    assert list(nx.bfs_edges(W, 0)) == [(0, 1), (1, 2), (2, 3)]


def test_priorities_in_node_order():
    """The ids greedy_color's store gives vertices rank them in node order under graphtier's seed 0."""
    ids = ranked_ids(1000)
    assert len(set(ids.tolist())) == 1000
    assert (np.diff(priorities_of(ids, 0).astype(object)) < 0).all()


def test_no_stores_left_behind(tmp_path):
    """A process's stores go with it, and what a killed one left is swept by the next; never others'."""
    code = textwrap.dedent(
        """
        import os, signal, sys, networkx as nx
        import graphtier.networkx as gnx
        G = gnx.backend_interface.convert_from_nx(nx.path_graph(4))
        print(os.path.dirname(G.store.location), flush=True)
        if sys.argv[1] == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    clean = subprocess.run([sys.executable, "-c", code, "exit"], capture_output=True, text=True, check=True)
    assert not Path(clean.stdout.strip()).exists()
    killed = subprocess.run([sys.executable, "-c", code, "kill"], capture_output=True, text=True, check=False)
    left = Path(killed.stdout.strip())
    assert killed.returncode == -9 and left.exists() and any(left.iterdir())
    foreign = left.with_name(left.name.replace(temps.owner_tag().split("-")[0], "ffffffff", 1))
    other = left.parent / f"graphtier-nx-not-ours-{tmp_path.name}"
    foreign.mkdir()
    other.mkdir()
    try:
        mine = temps.workspace("graphtier-nx")
        assert not left.exists() and foreign.exists() and other.exists()
        mine.rmdir()
    finally:
        foreign.rmdir()
        other.rmdir()
