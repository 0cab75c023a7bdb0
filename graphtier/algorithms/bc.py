"""Betweenness centrality by Brandes's algorithm with networkx's semantics, on the runtime (CUDA
functors in bc.cu).

One source at a time, in one run (the edges are opened once for all of them):
- *forward*: a BFS level by level, counting shortest paths. Each level's vertices push through
  their out-edges: an unvisited neighbour joins the next level, and a neighbour on the next level
  adds the vertex's count ``sigma`` to its own (float64, as networkx; counts are integers, exact
  up to 2**53 whatever order the adds come in, so the same on every backend). Each level's
  vertices are kept in ``order``, the BFS order.
- *backward*: from the deepest level up, each level's vertices sum over their out-edges
  ``sigma[v] / sigma[w] * (1 + delta[w])`` for the neighbours w one level deeper: a gather over
  out-edges, so a directed graph needs no reverse graph. Each chunk's share of a list is summed
  in list order, and out of core the shares are added in the order the chunks arrive: two
  shares commute, so only lists over three chunks or more may differ in their last bits between
  budgets; the GPU's warps add a list's terms in another order than the CPU. So values agree
  within a few ulps per sum (tested: 1e-12 relative between budgets, 1e-9 between CPU, GPU and
  networkx), and the same query on the same budget gives the same bits.
- *accumulate*: ``centrality[v] += delta[v]`` (plus one for each pair's endpoint with
  ``endpoints``), in source order.
Then the sums are rescaled exactly as networkx's ``_rescale`` does, sampled sources included.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np

from ..runtime import ALL, Advance, Algorithm, Compute, Config, Filter, Gather, Run, run
from ..runtime.functors import cpu
from ..runtime.results import BetweennessResult

FORWARD, BACKWARD = "forward", "backward"


@cpu
def reset(v, s):
    """A new source: every vertex unvisited but the source, with one path to itself; the source
    is selected (it becomes the frontier). ``s``: (dist, sigma, delta, source)."""
    dist, sigma, delta, source = s
    is_source = v == source
    dist[v] = 0 if is_source else -1
    sigma[v] = 1.0 if is_source else 0.0
    delta[v] = 0.0
    return is_source


@cpu
def count(v, u, e, w, s):
    """Forward: claim an unvisited u for the next level; add v's paths to u on it (the CPU's
    advance is serial: plain writes). ``s``: (dist, sigma, level of the next level)."""
    dist, sigma, level = s
    claimed = dist[u] < 0
    if claimed:
        dist[u] = level
    if dist[u] == level:
        sigma[u] += sigma[v]
    return claimed


@cpu
def everyone(v, s):
    return True


@cpu
def dependency(v, u, e, w, s):
    """Backward, over v's out-edges: u one level deeper passes on its share of v's paths. ``s``:
    (dist, sigma, delta, v's level)."""
    dist, sigma, delta, level = s
    if dist[u] == level + 1:
        return sigma[v] * ((1.0 + delta[u]) / sigma[u])
    return 0.0


@cpu
def add_dependency(v, total, s):
    s[2][v] += total


@cpu
def accumulate(v, s):
    """After a source's sweeps: each vertex it reached takes its dependency, and with endpoints
    one more for the pair it ends; the source counts the vertices it reached. ``s``: (centrality,
    dist, delta, source, endpoints (0 or 1), vertices reached)."""
    centrality, dist, delta, source, endpoints, reached = s
    if dist[v] > 0:
        centrality[v] += delta[v] + np.float64(endpoints)
    elif v == source and endpoints:
        centrality[v] += np.float64(reached - 1)


RESET = Filter("Reset", reset)
COUNT = Advance("Count", count)
DEPENDENCY = Gather("Dependency", everyone, dependency, add_dependency)
ACCUMULATE = Compute("Accumulate", accumulate)


class Betweenness(Algorithm):
    cuda = Path(__file__).with_suffix(".cu")
    functors = (RESET, COUNT, DEPENDENCY, ACCUMULATE)
    queues = ("level",)  # the vertices of the level a backward step gathers for

    def __init__(self, graph, sources: np.ndarray, endpoints: bool):
        self.sources = sources  # store indices, in the order their sums are added
        self.endpoints = endpoints
        self.next = 0  # the source under way
        self.source_edges = int(graph.indptr()[sources[0] + 1] - graph.indptr()[sources[0]]) if len(sources) else 0

    def state(self, graph) -> dict[str, tuple]:
        n = graph.n_vertices
        return {"centrality": (n, np.float64), "dist": (n, np.int32), "sigma": (n, np.float64), "delta": (n, np.float64), "order": (max(n, 1), graph.id_dtype)}

    def start(self, run: Run) -> None:
        run.state["centrality"].fill(0)
        self._begin(run, run.queues["level"])  # its queued source is not read: the frontier below holds it
        run.frontier.start(self.sources[:1], self.source_edges)

    def _begin(self, run: Run, output) -> None:
        """The next source's state, the source queued in ``output``."""
        s = run.state
        run.filter(RESET, s["dist"], s["sigma"], s["delta"], int(self.sources[self.next]), input=ALL, output=output)
        self.phase, self.offsets = FORWARD, [0]  # offsets: where each level starts in ``order``

    def step(self, run: Run) -> None:
        s, record = run.state, run.iterations[-1]
        record["source"] = self.next
        if self.phase == FORWARD:
            m = int(run.sizes[-1, 0])
            if m:
                record["phase"] = FORWARD
                lo = self.offsets[-1]
                s["order"][lo : lo + m] = run.frontier.current.ids[:m]
                self.offsets.append(lo + m)
                run.advance(COUNT, s["dist"], s["sigma"], len(self.offsets) - 1)
                return
            self.phase, self.depth = BACKWARD, len(self.offsets) - 3  # the deepest level has no deeper neighbours
        record["phase"] = BACKWARD
        if self.depth >= 1:  # the source's own dependency is never used
            d, level = self.depth, run.queues["level"]
            lo, hi = self.offsets[d], self.offsets[d + 1]
            level.ids[: hi - lo] = s["order"][lo:hi]
            level.row[0] = hi - lo
            run.gather(DEPENDENCY, s["dist"], s["sigma"], s["delta"], d, edges="out", input=level)
            self.depth -= 1
        if self.depth < 1:
            source = int(self.sources[self.next])
            run.compute(ACCUMULATE, s["centrality"], s["dist"], s["delta"], source, int(self.endpoints), self.offsets[-1], input=ALL)
            self.next += 1
            if self.next < len(self.sources):
                self._begin(run, run.frontier.next)

    def done(self, run: Run, sizes: np.ndarray) -> bool:
        return self.next == len(self.sources)

    def progress(self, run: Run) -> tuple[int, int | None, str]:
        return self.next, len(self.sources), "sources"


def _sources(graph, k: int | None, seed, sources) -> list | None:
    """The sources as the input numbered them, in the order networkx visits them: None for every
    vertex; else ``sources``, or k of the input's ids (ascending, as a graph that added its nodes
    0..n-1 first lists them) sampled as networkx samples: ``seed.sample(list(G), k)`` with
    ``random.Random(seed)`` (the ``random`` module's own generator for None)."""
    n = graph.n_original
    if sources is not None:
        if k is not None:
            raise ValueError("give k or sources, not both")
        chosen = [int(v) for v in sources]
        if len(set(chosen)) != len(chosen) or not chosen:
            raise ValueError("sources must be distinct vertices, at least one")
        return chosen
    if k is None or k == n:  # networkx: k == len(G) is every vertex, unscaled for sampling
        return None
    if not 0 < k <= n:
        raise ValueError(f"k must be between 1 and the {n} vertices, got {k}")
    ids = list(range(n)) if graph.ids is None else graph.ids.tolist()
    rng = random if seed is None else seed if isinstance(seed, random.Random) else random.Random(seed)
    return rng.sample(ids, k)


def rescale(centrality: np.ndarray, n: int, *, normalized: bool, directed: bool, endpoints: bool, sampled: np.ndarray | None, xp=np) -> np.ndarray:
    """networkx's ``_rescale``: sums over ``len(sampled)`` sources (a mask of them; None: every
    vertex) scaled to the pairs counted, unordered ones on an undirected graph (``xp``: the arrays'
    module, NumPy or CuPy)."""
    N = n if endpoints else n - 1
    if N < 2:
        return centrality
    k = None if sampled is None else int(sampled.sum())
    K = N if k is None else k
    if k is None or endpoints:
        scale = 1 / (K * (N - 1)) if normalized else N / (K * (1 if directed else 2))
        return centrality * scale if scale != 1 else centrality
    if normalized:
        source, other = (1 / ((K - 1) * (N - 1)) if K > 1 else math.nan), 1 / (K * (N - 1))
    else:
        correction = 1 if directed else 2
        source, other = (N / ((K - 1) * correction) if K > 1 else math.nan), N / (K * correction)
    return centrality * xp.where(sampled, source, other)


def betweenness_centrality(
    graph,
    *,
    k: int | None = None,
    normalized: bool = True,
    weight=None,
    seed=None,
    endpoints: bool = False,
    sources=None,
    config: Config | None = None,
    **options,
) -> BetweennessResult:
    """Shortest-path betweenness centrality of every vertex, as networkx.betweenness_centrality
    computes it (a store built with ``symmetrize`` is an undirected graph).

    ``k``: sample k sources as networkx does with the same ``seed`` (an int, a ``random.Random``,
    or None for the ``random`` module's generator), drawn from the input's ids ascending: the
    same sources as networkx's on a graph whose nodes were added as 0..n-1 (or ascending) first.
    ``sources``: the sources themselves instead (input ids), scaled as networkx scales k sampled
    ones. ``normalized``, ``endpoints``: as networkx's. ``weight``: only None (unit weights);
    weighted shortest paths are not implemented. Execution options as every algorithm's
    (``runtime.Config``).
    """
    if weight not in (None, False):
        raise NotImplementedError("betweenness_centrality over edge weights (Dijkstra's shortest paths) is not implemented yet; use weight=None (every edge weighs 1)")
    n = graph.n_original  # a coalesced store's replicas and holes are no sources, nor counted
    chosen = _sources(graph, k, seed, sources)
    if chosen is None:
        order = graph.to_original(np.arange(graph.n_vertices))  # every vertex, in the input's order of ids
        sampled = None
    else:
        order = np.array([graph.vertex(v) for v in chosen], np.int64)
        sampled = np.zeros(graph.n_vertices, np.bool_)
        sampled[order] = True
        if len(order) == n:  # every vertex given: networkx's k == len(G)
            sampled = None
    if n == 0:
        return BetweennessResult(centrality=np.zeros(0), sources=None, ids=graph.ids)
    done = run(Betweenness(graph, order, endpoints), graph, Config.of(config, **options))
    sampled = None if sampled is None else done.xp.asarray(sampled)
    centrality = rescale(done.state["centrality"], n, normalized=normalized, directed=graph.directed, endpoints=endpoints, sampled=sampled, xp=done.xp)
    stats = done.stats(sources=len(order), normalized=normalized, endpoints=endpoints)
    return BetweennessResult(centrality=done.output(centrality), sources=None if chosen is None else np.array(chosen, np.int64), stats=stats, ids=graph.ids)
