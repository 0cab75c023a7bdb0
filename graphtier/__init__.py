"""graphtier: an out-of-core graph engine over compressed, chunked Zarr v3 graph stores.

import graphtier as gt
g = gt.build(gt.generators.kronecker(16), "kron16.gt", symmetrize=True)
r = gt.bfs(g, 0)
"""

from ._version import __version__
from .engine import (
    Advice,
    BetweennessResult,
    BFSResult,
    BFSValidationError,
    ColoringResult,
    ComponentsResult,
    Config,
    ConvergenceError,
    Graph,
    IndependentSetResult,
    MSTResult,
    PageRankResult,
    Problem,
    SSSPResult,
    VerifyReport,
    advise,
    approximate,
    betweenness_centrality,
    bfs,
    build,
    connected_components,
    greedy_color,
    inaccuracy,
    maximal_independent_set,
    minimum_spanning_tree,
    open,
    pagerank,
    recode,
    sssp,
    strongly_connected_components,
    validate_bfs_tree,
    verify,
)
from .errors import BudgetError, CorruptChunkError, DeviceError, EmptyGraphError, GraphtierError, InputError, OutOfMemoryError, PartDiedError, StoreError, StoreReplacedError
from .partition import generators


def __getattr__(name: str):
    """``gt.dask`` is imported on first use, so that graphtier itself does not need dask."""
    if name == "dask":
        import importlib

        return importlib.import_module(".dask", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Advice",
    "BFSResult",
    "BFSValidationError",
    "BetweennessResult",
    "BudgetError",
    "ColoringResult",
    "ComponentsResult",
    "Config",
    "ConvergenceError",
    "CorruptChunkError",
    "DeviceError",
    "EmptyGraphError",
    "Graph",
    "GraphtierError",
    "IndependentSetResult",
    "InputError",
    "MSTResult",
    "OutOfMemoryError",
    "PageRankResult",
    "PartDiedError",
    "Problem",
    "SSSPResult",
    "StoreError",
    "StoreReplacedError",
    "VerifyReport",
    "__version__",
    "advise",
    "approximate",
    "betweenness_centrality",
    "bfs",
    "build",
    "connected_components",
    "generators",
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
