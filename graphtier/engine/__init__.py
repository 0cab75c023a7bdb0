"""The layer users touch: building and opening stores, and the algorithms' public functions."""

from ..algorithms import bfs
from ..runtime import Config
from ..runtime.results import BFSResult
from .build import build, recode
from .graph import Graph, open
from .validate import BFSValidationError, validate_bfs_tree

__all__ = ["BFSResult", "BFSValidationError", "Config", "Graph", "bfs", "build", "open", "recode", "validate_bfs_tree"]
