"""One module per algorithm: functors, a driver and the public function, CUDA functors beside it."""

from .bc import betweenness_centrality
from .bfs import bfs
from .cc import connected_components
from .coloring import greedy_color
from .mis import maximal_independent_set
from .mst import minimum_spanning_tree
from .pagerank import ConvergenceError, pagerank
from .scc import strongly_connected_components
from .sssp import sssp

__all__ = [
    "ConvergenceError",
    "betweenness_centrality",
    "bfs",
    "connected_components",
    "greedy_color",
    "maximal_independent_set",
    "minimum_spanning_tree",
    "pagerank",
    "sssp",
    "strongly_connected_components",
]
