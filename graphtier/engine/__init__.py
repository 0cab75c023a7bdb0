"""The layer users touch: building and opening stores, and the algorithms' public functions."""

from .. import algorithms
from ..algorithms import ConvergenceError
from ..runtime import Config
from ..runtime.results import BFSResult, ColoringResult, ComponentsResult, IndependentSetResult, PageRankResult, SSSPResult
from .build import build, recode
from .graph import Graph, open
from .query import query
from .validate import BFSValidationError, validate_bfs_tree
from .verify import Problem, VerifyReport, verify

# The algorithms as users call them: budgets checked first, allocation failures named (engine/query.py).
bfs, sssp, pagerank, connected_components, maximal_independent_set, greedy_color = (
    query(f) for f in (algorithms.bfs, algorithms.sssp, algorithms.pagerank, algorithms.connected_components, algorithms.maximal_independent_set, algorithms.greedy_color)
)

__all__ = [
    "BFSResult",
    "BFSValidationError",
    "ColoringResult",
    "ComponentsResult",
    "Config",
    "ConvergenceError",
    "Graph",
    "IndependentSetResult",
    "PageRankResult",
    "Problem",
    "SSSPResult",
    "VerifyReport",
    "bfs",
    "build",
    "connected_components",
    "greedy_color",
    "maximal_independent_set",
    "open",
    "pagerank",
    "recode",
    "sssp",
    "validate_bfs_tree",
    "verify",
]
