"""PageRank by power iteration with networkx's semantics, pulling over in-edges (CUDA functors in
pagerank.cu): each iteration is one sweep of the in-edges, so out of core it streams the graph
once per iteration, in store order.

With ``x`` the ranks, ``W[v]`` the sum of v's out-edge weights (its out-degree unweighted) and
``p`` the personalization (uniform by default), an iteration computes

    x'[u] = alpha * sum over in-edges (v, u) of x[v] * w(v, u) / W[v]
          + alpha * (sum of x[v] over dangling v, those with W[v] = 0) * p[u] + (1 - alpha) * p[u]

and stops when ``sum |x' - x| < n * tol`` (networkx's test), or fails after ``max_iter``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import GraphtierError
from ..runtime import ALL, Algorithm, Combine, Compute, Config, Edges, Gather, Run, run
from ..runtime.functors import cpu
from ..runtime.parts import spreads
from ..runtime.results import PageRankResult


class ConvergenceError(GraphtierError):
    """Power iteration did not reach the tolerance in ``max_iter`` iterations (networkx's
    PowerIterationFailedConvergence)."""


@cpu
def everyone(u, s):
    return True


@cpu
def share(u, v, e, w, s):
    """v's rank flowing to u. ``s``: (rank per unit of out-weight, sums)."""
    return s[0][v] * w


@cpu
def add(u, total, s):
    s[1][u] += total


@cpu
def weight(u, v, e, w, s):
    return w


@cpu
def keep(u, total, s):
    s[0][u] += total


SUMS = (Combine(1, "sum"),)  # split over devices: each vertex summed by one part, zeros elsewhere
SHARE = Gather("Share", everyone, share, add, SUMS)
WEIGHTED_SHARE = Gather("WeightedShare", everyone, share, add, SUMS)  # the GPU reads each edge's weight
OUT_WEIGHT = Gather("OutWeight", everyone, weight, keep, (Combine(0, "sum"),))


@cpu
def copy_sum(v, s):
    """Confluence on a coalesced store: a replica and its original both hold the sum of the two
    (one vertex's in-flow, or out-weight). ``s``: (values, partner)."""
    values, partner = s
    total = values[v] + values[partner[v]]
    values[v] = values[partner[v]] = total


COPY_SUM = Compute("CopySum", copy_sum)


class PageRank(Algorithm):
    cuda = Path(__file__).with_suffix(".cu")
    functors = (SHARE, WEIGHTED_SHARE, OUT_WEIGHT, COPY_SUM)

    def __init__(self, graph, alpha: float, tol: float, max_iter: int, personalization, weight):
        if not 0 <= alpha <= 1:
            raise ValueError(f"alpha must be in [0, 1], got {alpha}")
        if graph.directed and not graph.has_reverse:
            raise ValueError(
                f"pagerank pulls over in-edges: on a directed graph it needs the reverse graph, which {graph.location} does not have (build it with reverse=True, or graphtier convert --reverse)"
            )
        self.alpha, self.tol, self.max_iter = float(alpha), float(tol), int(max_iter)
        self.weighted = weight not in (None, False) and graph.weighted
        self.p = _personalization(graph, personalization)
        self.error = np.inf

    def edges(self, graph) -> dict[str, Edges]:
        out = {"in": Edges(reverse=True, weights=self.weighted)}
        if self.weighted:  # W[v], the out-weights, summed over the out-edges once
            out["out"] = Edges(weights=True)
        return out

    def state(self, graph) -> dict[str, tuple]:
        n = graph.n_vertices
        return {name: (n, np.float64) for name in ("ranks", "next", "contribution", "out_weight", "dangling", "p")}

    def start(self, run: Run) -> None:
        xp, s, n = run.xp, run.state, run.graph.n_original
        if self.p is None:
            s["p"].fill(1.0 / n)
        else:
            s["p"][:] = xp.asarray(self.p)
        s["ranks"].fill(1.0 / n)
        if run.copies is not None:  # uniform over the input's vertices: a coalesced store's replicas and holes start at 0
            for a in (s["ranks"], s["p"]):
                a[run.copies.extras] = 0
        w = s["out_weight"]
        if self.weighted:
            w.fill(0)
            run.gather(OUT_WEIGHT, w, edges="out")
        else:
            indptr = run.sources["in"].indptr if not run.graph.directed else xp.asarray(run.graph.indptr())
            w[:] = indptr[1:] - indptr[:-1]
        self.confluence(run, w, s["ranks"])  # a vertex's copies: one out-weight, one rank
        s["dangling"][:] = w == 0
        w[:] = xp.where(w > 0, 1.0 / xp.where(w > 0, w, 1.0), 0.0)  # from here on, 1 / W[v] (0 for dangling v)
        run.frontier.start(np.zeros(0, np.int64), 0)

    def step(self, run: Run) -> None:
        xp, s = run.xp, run.state
        x, sums = s["ranks"], s["next"]
        xp.multiply(x, s["out_weight"], out=s["contribution"])
        teleport = self.alpha * xp.dot(x, s["dangling"]) + 1 - self.alpha  # stays on the device
        sums.fill(0)
        run.gather(WEIGHTED_SHARE if self.weighted else SHARE, s["contribution"], sums, input=ALL)
        sums *= self.alpha  # after the sums: added in rounds, scaled once, the same under every budget
        sums += teleport * s["p"]
        self.confluence(run, sums)
        self.error = float(xp.abs(s["next"] - x).sum())
        s["ranks"], s["next"] = s["next"], x
        run.iterations[-1]["error"] = self.error

    def confluence(self, run: Run, *values) -> None:
        """A coalesced store's copies of a vertex: each holds the sum of the two (its replica's
        teleport share is 0, so a rank sums the in-flows of both)."""
        if run.copies is not None:
            for a in values:
                run.compute(COPY_SUM, a, run.copies.partner, input=run.copies.replicas)

    def done(self, run: Run, sizes: np.ndarray) -> bool:
        if self.error < run.graph.n_original * self.tol:
            return True
        if len(run.iterations) >= self.max_iter:
            raise ConvergenceError(f"pagerank did not converge to tol={self.tol} in {self.max_iter} iterations (error {self.error:.3g}, needed < {run.graph.n_original * self.tol:.3g})")
        return False


def _personalization(graph, personalization) -> np.ndarray | None:
    """p in the store's order, summing to 1, from a {vertex: value} mapping (vertices as the input
    named them; those not named get 0) or an array over the input's vertices; None: uniform."""
    n = graph.n_vertices
    if personalization is None:
        return None  # uniform (over a coalesced store's vertices, not its replicas and holes)
    p = np.zeros(n)
    if isinstance(personalization, dict):
        for v, value in personalization.items():
            p[graph.vertex(v)] = value
    else:
        values = np.asarray(personalization, np.float64)
        if values.shape != (graph.n_original,):
            raise ValueError(f"personalization must be a mapping or an array of {graph.n_original} values, got shape {values.shape}")
        p = graph.from_original(values)
    if (p < 0).any() or not np.isfinite(p).all() or p.sum() <= 0:
        raise ValueError("personalization must be finite, non-negative and not all zero")
    return p / p.sum()


@spreads(PageRank)
def pagerank(graph, *, alpha: float = 0.85, tol: float = 1e-6, max_iter: int = 100, personalization=None, weight=None, config: Config | None = None, **options) -> PageRankResult:
    """PageRank of every vertex, as networkx.pagerank computes it.

    ``personalization``: a mapping ``{vertex: value}`` (or an array over the vertices) for the
    teleport and dangling distribution, normalised; uniform by default. ``weight``: None for every
    edge weighing 1 (networkx's ``weight=None``), True (or "weight") for the stored weights.
    Raises ``ConvergenceError`` after ``max_iter`` iterations without reaching ``tol``.
    Execution options as every algorithm's (``runtime.Config``).
    """
    alg = PageRank(graph, alpha, tol, max_iter, personalization, weight)
    if graph.n_vertices == 0:
        return PageRankResult(ranks=np.zeros(0), iterations=0, ids=graph.ids)
    done = run(alg, graph, Config.of(config, **options))
    stats = done.stats(weighted=alg.weighted, error=alg.error)
    return PageRankResult(ranks=done.output(done.state["ranks"]), iterations=len(done.iterations), stats=stats, ids=graph.ids)
