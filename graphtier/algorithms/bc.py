"""Betweenness centrality by Brandes's algorithm with networkx's semantics, on the runtime (CUDA
functors in bc.cu).

Sources go in batches of up to 64 that share each pass over the edges (as MS-BFS's, msbfs.py),
so each chunk's trip over PCIe or from storage serves the whole batch; the edges are opened once
for every batch. A vertex holds a bit per source of the batch in three words (``seen``, ``visit``,
``next``, as msbfs.py's) and a row of ``width`` columns, one per source, of ``sigma`` (its
shortest paths from the source), ``delta`` (its dependency) and ``depth`` (its level, -1 where the
source has not reached it):
- *forward*: level by level from the batch's sources, each vertex taking the sources that reach
  it at this level and its path count from each (float64, as networkx; counts are integers, exact
  up to 2**53 whatever order the adds come in, so the same on every backend), then settling at
  the next level. A small level pushes through its vertices' out-edges, an add per edge and
  source; a wide one is pulled, as Beamer's BFS switches (``bfs.Direction``, on a symmetric
  graph): every vertex sums, one lane per source not yet at it, the counts of its in-neighbours
  on the last level (``Gather`` with lanes), with no atomic adds. Each level's vertices are
  kept on the host.
- *backward*: from the deepest level up, each level's vertices gather, one lane per source at
  that depth, ``ratio[w]`` over their out-edges (so a directed graph needs no reverse graph), and
  add ``sigma[v]`` times the sum to their dependency. ``ratio[w]`` is ``(1 + delta[w]) /
  sigma[w]``, written before the level gathers where w is one level deeper from the source, with
  that source's bit in ``visit[w]`` (cleared again after), so a lane reads the ratio only of a
  neighbour one level deeper: one word per edge, shared by the lanes.
  Each lane sums a chunk's share of a list in list order, and out of core the shares are added
  in the order the chunks arrive: two shares commute, so only lists
  over three chunks or more may differ in their last bits between budgets; a hub's pieces are
  summed apart on the GPU. So values agree within a few ulps per sum (tested: 1e-12 relative
  between budgets, 1e-9 between CPU, GPU and networkx), and the same query on the same budget
  gives the same bits, whatever the batch's width.
- *accumulate*: ``centrality[v] += delta[v]`` (plus one for each pair's endpoint with
  ``endpoints``) for each source of the batch in order, so sources add up in their given order.
Then the sums are rescaled exactly as networkx's ``_rescale`` does, sampled sources included.
"""

from __future__ import annotations

import copy
import math
import random
from pathlib import Path

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from ..kernels.limits import MAX_LANES
from ..runtime import ALL, Advance, Algorithm, Compute, Config, Edges, Filter, Gather, Run, run
from ..runtime.functors import cpu
from ..runtime.results import BetweennessResult
from ..runtime.run import state_of
from .bc_weighted import WeightedBetweenness
from .bfs import Direction
from .sssp import refuse_weights

FORWARD, BACKWARD = "forward", "backward"
LEVELS = ("level_0", "level_1", "level_2")  # level d's vertices in queue d % 3: a backward step reads d, d + 1 and d + 2
ONE = np.uint64(1)


@cpu
def seeded(v, s):
    """A batch's first frontier: its sources, the vertices with bits to push. ``s``: (visit,)."""
    return s[0][v] != 0


@cpu
def spread(v, u, e, w, s):
    """Forward: u takes the sources that reached v at this level and not u before, and v's paths
    from each; queued the first time its ``next`` gets a bit (the CPU's advance is serial: plain
    writes). ``s``: (seen, visit, next, sigma, width)."""
    seen, visit, nxt, sigma, width = s
    bits = visit[v] & ~seen[u]
    if bits == 0:
        return False
    first = nxt[u] == 0
    nxt[u] |= bits
    while bits:
        b = np.int64(trailing_zeros(bits))
        sigma[u * width + b] += sigma[v * width + b]
        bits &= bits - ONE
    return first


@cpu
def unreached(u, b, s):
    """Pull: source b, whose search goes on (``live``), has not reached u yet. ``s``: (seen, visit,
    next, sigma, width, live)."""
    return ((~s[0][u] & s[5]) >> np.uint64(b)) & ONE != 0


@cpu
def paths(u, v, e, w, b, s):
    """Pull: v's paths from source b, where it is on the last level from b."""
    _, visit, _, sigma, width, _ = s
    return sigma[v * width + b] if (visit[v] >> np.uint64(b)) & ONE else 0.0


@cpu
def take_paths(u, b, total, s):
    """Pull: u reached from source b at this level, with its paths, where any in-neighbour had
    some (out of core, a chunk's share at a time; the CPU's lanes of a vertex are one thread's: a
    plain or)."""
    _, _, nxt, sigma, width, _ = s
    if total > 0.0:
        sigma[u * width + b] += total
        nxt[u] |= ONE << np.uint64(b)


@cpu
def reached(u, s):
    """After a pull: the vertices some source reached at this level. ``s``: (next,)."""
    return s[0][u] != 0


@cpu
def forget(v, s):
    """A vertex's bits, cleared: the level's once it has pushed, and in the backward the level
    below's once it has been gathered from. ``s``: (visit,)."""
    s[0][v] = 0


@cpu
def settle(u, s):
    """A vertex reached at this level pushes its new sources next, at their depth. ``s``: (seen,
    visit, next, depth, width, level)."""
    seen, visit, nxt, depth, width, level = s
    bits = nxt[u]
    visit[u] = bits
    seen[u] |= bits
    nxt[u] = 0
    while bits:
        depth[u * width + np.int64(trailing_zeros(bits))] = level
        bits &= bits - ONE


@cpu
def share(v, s):
    """Backward, before a level gathers: each vertex one level deeper from a source holds
    ``(1 + delta) / sigma`` for it in ``ratio``, the share of a path through it, and that source's
    bit in ``visit``. ``s``: (depth, sigma, delta, ratio, visit, width, sources in the batch, that
    level)."""
    depth, sigma, delta, ratio, visit, width, count, level = s
    bits = np.uint64(0)
    for b in range(count):
        if depth[v * width + b] == level:
            ratio[v * width + b] = (1.0 + delta[v * width + b]) / sigma[v * width + b]
            bits |= ONE << np.uint64(b)
    visit[v] = bits


@cpu
def at_level(v, b, s):
    """Backward: the sources that reached v at the level gathered. ``s``: (depth, sigma, delta,
    ratio, visit, width, level)."""
    return s[0][v * s[5] + b] == s[6]


@cpu
def dependency(v, u, e, w, b, s):
    """Over v's out-edges: u's share of a path from source b, where u is one level deeper from it."""
    _, _, _, ratio, visit, width, _ = s
    return ratio[u * width + b] if (visit[u] >> np.uint64(b)) & ONE else 0.0


@cpu
def add_dependency(v, b, total, s):
    """v's dependency on source b: its paths times the shares of the deeper neighbours'."""
    at = v * s[5] + b
    s[2][at] += s[1][at] * total


@cpu
def accumulate(v, s):
    """After a batch's sweeps, source by source: each vertex a source reached takes its dependency,
    and with endpoints one more for the pair it ends; a source takes its own count. ``s``:
    (centrality, depth, delta, width, sources in the batch, endpoints (0.0 or 1.0), own)."""
    centrality, depth, delta, width, count, endpoints, own = s
    c = centrality[v]
    for b in range(count):
        d = depth[v * width + b]
        if d > 0:
            c += delta[v * width + b] + endpoints
        elif d == 0:
            c += own[b]
    centrality[v] = c


SEEDED = Filter("Seeded", seeded, per_vertex=True)
SPREAD = Advance("Spread", spread)
PATHS = Gather("Paths", unreached, paths, take_paths, lanes=True)
REACHED = Filter("Reached", reached, per_vertex=True)
FORGET = Compute("Forget", forget)
SETTLE = Compute("Settle", settle)
SHARE = Compute("Share", share)
DEPENDENCY = Gather("Dependency", at_level, dependency, add_dependency, lanes=True)
ACCUMULATE = Compute("Accumulate", accumulate)


def forward_direction(graph) -> Direction:
    """The forward's switch: Beamer's (pulls on a symmetric graph), but back to pushing as soon as
    a level stops growing, since a pull reads each list to its end."""
    return Direction(graph, "auto", keep=1.0)


class Betweenness(Algorithm):
    cuda = Path(__file__).with_suffix(".cu")
    functors = (SEEDED, SPREAD, PATHS, REACHED, FORGET, SETTLE, SHARE, DEPENDENCY, ACCUMULATE)
    queues = LEVELS

    def __init__(self, graph, sources: np.ndarray, endpoints: bool, width: int):
        """``sources``: store indices, distinct, in the order their sums are added; ``width``:
        the sources a batch holds (at most 64)."""
        self.sources, self.endpoints, self.width = sources, endpoints, width
        self.batches = [sources[i : i + width] for i in range(0, len(sources), width)]
        self.current = 0  # the batch under way
        self.indptr = graph.indptr()
        self.unswitched = forward_direction(graph)  # each batch's forward starts with a copy

    def edges(self, graph) -> dict[str, Edges]:
        return {"out": Edges(), "in": Edges(reverse=True)} if self.unswitched.pulls else {"out": Edges()}

    def state(self, graph) -> dict[str, tuple]:
        n, rows = graph.n_vertices, graph.n_vertices * self.width
        words = dict.fromkeys(("seen", "visit", "next"), (n, np.uint64))
        return {
            "centrality": (n, np.float64),
            **words,
            "sigma": (rows, np.float64),
            "delta": (rows, np.float64),
            "ratio": (rows, np.float64),
            "depth": (rows, np.int32),
            "own": (self.width, np.float64),
        }

    def start(self, run: Run) -> None:
        run.state["centrality"].fill(0)
        run.state["own"].fill(0)  # a source's own count: the vertices it reached, less itself, with endpoints
        batch = self._begin(run)
        run.frontier.start(batch, int((self.indptr[batch + 1] - self.indptr[batch]).sum()))

    def _begin(self, run: Run) -> np.ndarray:
        """The batch's state: every vertex unreached but its sources, each with one path to itself."""
        s, xp, batch = run.state, run.xp, self.batches[self.current]
        for name, value in (("seen", 0), ("visit", 0), ("next", 0), ("sigma", 0), ("delta", 0), ("depth", -1)):  # ratio: read only where visit's bit is set
            s[name].fill(value)
        ids = xp.asarray(batch)
        columns = xp.arange(len(batch))
        s["sigma"][ids * self.width + columns] = 1.0
        s["depth"][ids * self.width + columns] = 0
        bits = xp.left_shift(xp.uint64(1), columns.astype(xp.uint64))
        s["seen"][ids] = bits
        s["visit"][ids] = bits
        self.phase, self.levels = FORWARD, []  # levels: each level's vertices, on the host
        self.direction = copy.copy(self.unswitched)
        self.held = [-1] * len(LEVELS)  # the level each queue of LEVELS holds
        return batch

    def step(self, run: Run) -> None:
        s, frontier, record = run.state, run.frontier, run.iterations[-1]
        record["batch"] = self.current
        if self.phase == FORWARD:
            m = int(run.sizes[-1, 0])
            if m:
                record["phase"] = FORWARD
                self.levels.append(np.array(run.ops.to_host(frontier.current.ids[:m])))
                pulling = self.direction.next(m, int(run.sizes[-1, 1]))  # edges as a push queued them (a pulled level's filter counts none)
                if pulling:  # the lanes of sources whose searches have ended (an isolated source's at once) are left out
                    live = np.uint64(run.any_bits(s["visit"], input=frontier.current))
                    run.gather(PATHS, s["seen"], s["visit"], s["next"], s["sigma"], self.width, live, input=ALL, lanes=len(self.batches[self.current]))
                    run.filter(REACHED, s["next"], input=ALL)
                else:
                    run.advance(SPREAD, s["seen"], s["visit"], s["next"], s["sigma"], self.width)
                record["direction"] = "pull" if pulling else "push"
                run.compute(FORGET, s["visit"], input=frontier.current)
                run.compute(SETTLE, s["seen"], s["visit"], s["next"], s["depth"], self.width, len(self.levels), input=frontier.next)
                return
            self.phase, self.depth = BACKWARD, len(self.levels) - 2  # the deepest level has no deeper neighbours
        record["phase"] = BACKWARD
        count = len(self.batches[self.current])
        if self.depth >= 1:  # a source's own dependency is never used
            d = self.depth
            if d + 2 < len(self.levels):
                run.compute(FORGET, s["visit"], input=self._level(run, d + 2))
            run.compute(SHARE, s["depth"], s["sigma"], s["delta"], s["ratio"], s["visit"], self.width, count, d + 1, input=self._level(run, d + 1))
            run.gather(DEPENDENCY, s["depth"], s["sigma"], s["delta"], s["ratio"], s["visit"], self.width, d, edges="out", input=self._level(run, d), lanes=count)
            self.depth -= 1
        if self.depth < 1:
            if self.endpoints:
                s["own"][:count] = (s["depth"].reshape(-1, self.width)[:, :count] >= 0).sum(axis=0) - 1
            run.compute(ACCUMULATE, s["centrality"], s["depth"], s["delta"], self.width, count, float(self.endpoints), s["own"], input=ALL)
            self.current += 1
            if self.current < len(self.batches):
                self._begin(run)
                run.filter(SEEDED, s["visit"], input=ALL, output=frontier.next)

    def _level(self, run: Run, d: int):
        """Level ``d``'s vertices in their queue, uploaded from the host once a batch."""
        q = run.queues[LEVELS[d % 3]]
        if self.held[d % 3] != d:
            ids = self.levels[d]
            q.ids[: len(ids)] = run.xp.asarray(ids)
            q.row[0] = len(ids)
            self.held[d % 3] = d
        return q

    def done(self, run: Run, sizes: np.ndarray) -> bool:
        return self.current == len(self.batches)

    def progress(self, run: Run) -> tuple[int, int | None, str]:
        return sum(len(b) for b in self.batches[: self.current]), len(self.sources), "sources"


def batch_width(graph, n_sources: int, config: Config, batch: int | None) -> int:
    """Sources per batch: ``batch`` if given; else as many as 64 while the batch's state leaves the
    chunks at least half the device budget (one at least), but on the CPU one where no level pulls
    (a directed graph): serial pushes gain nothing from sharing a pass in memory, where pulls do
    (benchmarks/results/bc_batches-*)."""
    if batch is not None:
        if not 1 <= batch <= MAX_LANES:
            raise ValueError(f"batch must be between 1 and {MAX_LANES} sources, got {batch}")
        return min(batch, n_sources)
    backend = config.backend()
    device, _ = config.budgets(backend)
    width = min(MAX_LANES if backend == "cuda" or forward_direction(graph).pulls else 1, n_sources)
    while width > 1 and 2 * state_of(Betweenness(graph, np.zeros(0, np.int64), False, width), graph, backend)[1] > device:
        width //= 2
    return width


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
    rng = random if seed is None else seed if isinstance(seed, random.Random) else random.Random(seed)
    picked = rng.sample(range(n), k)  # the draws on a list of n ids, by position, without building it
    return picked if graph.ids is None else graph.ids[picked].tolist()


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
    batch: int | None = None,
    config: Config | None = None,
    **options,
) -> BetweennessResult:
    """Shortest-path betweenness centrality of every vertex, as networkx.betweenness_centrality
    computes it (a store built with ``symmetrize`` is an undirected graph).

    ``k``: sample k sources as networkx does with the same ``seed`` (an int, a ``random.Random``,
    or None for the ``random`` module's generator), drawn from the input's ids ascending: the
    same sources as networkx's on a graph whose nodes were added as 0..n-1 (or ascending) first.
    ``sources``: the sources themselves instead (input ids), scaled as networkx scales k sampled
    ones. ``normalized``, ``endpoints``: as networkx's. ``batch``: sources per pass over the edges
    (1 to 64; default: 64, fewer where their state would take over half the device budget, and on
    the CPU 1 on a directed graph), which changes the speed, never the values. ``weight``: None
    (every edge weighs 1), or True (or a name, as networkx's ``weight="weight"``) for the stored
    weights, which must be positive: shortest paths by SSSP's distances, one source at a time
    (``bc_weighted.py``; a store without weights weighs 1 an edge, as networkx's graph without
    the attribute). Execution options as every algorithm's (``runtime.Config``).
    """
    weighted = weight not in (None, False) and graph.weighted  # networkx: a graph without the weights weighs 1 an edge
    if weighted:  # a zero weight could close a cycle of shortest paths
        if graph.copies is not None:
            raise ValueError(f"{graph.location} is a coalesced store (Graffix): betweenness over its weights is not computed there; use weight=None or the original store")
        refuse_weights(graph, graph.weight_facts(), "betweenness_centrality over weights", positive=True)
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
    config = Config.of(config, **options)
    alg = WeightedBetweenness(graph, order, endpoints) if weighted else Betweenness(graph, order, endpoints, batch_width(graph, len(order), config, batch))
    done = run(alg, graph, config)
    sampled = None if sampled is None else done.xp.asarray(sampled)
    centrality = rescale(done.state["centrality"], n, normalized=normalized, directed=graph.directed, endpoints=endpoints, sampled=sampled, xp=done.xp)
    stats = done.stats(sources=len(order), batch=1 if weighted else done.algorithm.width, weighted=weighted, normalized=normalized, endpoints=endpoints)
    return BetweennessResult(centrality=done.output(centrality), sources=None if chosen is None else np.array(chosen, np.int64), stats=stats, ids=graph.ids)
