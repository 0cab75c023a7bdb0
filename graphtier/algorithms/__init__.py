"""One module per algorithm: functors, a driver and the public function, CUDA functors beside it."""

from .bfs import bfs
from .cc import connected_components
from .coloring import greedy_color
from .mis import maximal_independent_set
from .pagerank import ConvergenceError, pagerank
from .sssp import sssp

__all__ = ["ConvergenceError", "bfs", "connected_components", "greedy_color", "maximal_independent_set", "pagerank", "sssp"]
