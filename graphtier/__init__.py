"""graphtier: an out-of-core graph engine over compressed, chunked Zarr v3 graph stores.

import graphtier as gt
g = gt.build(gt.generators.kronecker(16), "kron16.gt", symmetrize=True)
r = gt.bfs(g, 0)
"""

from ._version import __version__
from .engine import (
    BetweennessResult,
    BFSResult,
    BFSValidationError,
    ComponentsResult,
    Config,
    ConvergenceError,
    Graph,
    MSTResult,
    PageRankResult,
    Problem,
    SSSPResult,
    VerifyReport,
    betweenness_centrality,
    bfs,
    build,
    connected_components,
    minimum_spanning_tree,
    open,
    pagerank,
    recode,
    sssp,
    strongly_connected_components,
    validate_bfs_tree,
    verify,
)
from .errors import BudgetError, CorruptChunkError, DeviceError, EmptyGraphError, GraphtierError, InputError, OutOfMemoryError, StoreError, StoreReplacedError
from .partition import generators

__all__ = [
    "BFSResult",
    "BFSValidationError",
    "BetweennessResult",
    "BudgetError",
    "ComponentsResult",
    "Config",
    "ConvergenceError",
    "CorruptChunkError",
    "DeviceError",
    "EmptyGraphError",
    "Graph",
    "GraphtierError",
    "InputError",
    "MSTResult",
    "OutOfMemoryError",
    "PageRankResult",
    "Problem",
    "SSSPResult",
    "StoreError",
    "StoreReplacedError",
    "VerifyReport",
    "__version__",
    "betweenness_centrality",
    "bfs",
    "build",
    "connected_components",
    "generators",
    "minimum_spanning_tree",
    "open",
    "pagerank",
    "recode",
    "sssp",
    "strongly_connected_components",
    "validate_bfs_tree",
    "verify",
]
