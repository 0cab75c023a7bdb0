"""The layer users touch: building and opening stores, algorithms and their results."""

from .bfs import bfs
from .build import build, recode
from .graph import Graph, open
from .results import BFSResult
from .validate import BFSValidationError, validate_bfs_tree

__all__ = ["BFSResult", "BFSValidationError", "Graph", "bfs", "build", "open", "recode", "validate_bfs_tree"]
