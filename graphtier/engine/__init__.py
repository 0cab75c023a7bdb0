"""The layer users touch: building and opening stores, and the algorithms' public functions."""

from .. import algorithms
from ..algorithms import ConvergenceError
from ..runtime import Config
from ..runtime.results import BetweennessResult, BFSResult, ColoringResult, ComponentsResult, IndependentSetResult, MSTResult, PageRankResult, SSSPResult
from .advise import Advice, advise
from .approximate import approximate, inaccuracy
from .build import build, recode
from .graph import Graph, open
from .query import query
from .validate import BFSValidationError, validate_bfs_tree
from .verify import Problem, VerifyReport, verify

# The algorithms as users call them: budgets checked first, allocation failures named (engine/query.py).
bfs = query(algorithms.bfs)
sssp = query(algorithms.sssp)
pagerank = query(algorithms.pagerank)
connected_components = query(algorithms.connected_components)
strongly_connected_components = query(algorithms.strongly_connected_components)
minimum_spanning_tree = query(algorithms.minimum_spanning_tree)
maximal_independent_set = query(algorithms.maximal_independent_set)
greedy_color = query(algorithms.greedy_color)
betweenness_centrality = query(algorithms.betweenness_centrality)

__all__ = [
    "Advice",
    "BFSResult",
    "BFSValidationError",
    "BetweennessResult",
    "ColoringResult",
    "ComponentsResult",
    "Config",
    "ConvergenceError",
    "Graph",
    "IndependentSetResult",
    "MSTResult",
    "PageRankResult",
    "Problem",
    "SSSPResult",
    "VerifyReport",
    "advise",
    "approximate",
    "betweenness_centrality",
    "bfs",
    "build",
    "connected_components",
    "greedy_color",
    "inaccuracy",
    "maximal_independent_set",
    "minimum_spanning_tree",
    "open",
    "pagerank",
    "recode",
    "sssp",
    "strongly_connected_components",
    "validate_bfs_tree",
    "verify",
]
