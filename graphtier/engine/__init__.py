"""The layer users touch: building and opening stores, and the algorithms' public functions."""

from ..algorithms import ConvergenceError, bfs, connected_components, pagerank, sssp
from ..runtime import Config
from ..runtime.results import BFSResult, ComponentsResult, PageRankResult, SSSPResult
from .build import build, recode
from .graph import Graph, open
from .validate import BFSValidationError, validate_bfs_tree
from .verify import Problem, VerifyReport, verify

__all__ = [
    "BFSResult",
    "BFSValidationError",
    "ComponentsResult",
    "Config",
    "ConvergenceError",
    "Graph",
    "PageRankResult",
    "Problem",
    "SSSPResult",
    "VerifyReport",
    "bfs",
    "build",
    "connected_components",
    "open",
    "pagerank",
    "recode",
    "sssp",
    "validate_bfs_tree",
    "verify",
]
