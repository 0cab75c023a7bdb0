"""graphtier: an out-of-core graph engine over compressed, chunked Zarr v3 graph stores.

import graphtier as gt
g = gt.build(gt.generators.kronecker(16), "kron16.gt", symmetrize=True)
r = gt.bfs(g, 0)
"""

import importlib

from ._version import __version__
from .errors import BudgetError, CorruptChunkError, DeviceError, EmptyGraphError, GraphtierError, InputError, OutOfMemoryError, PartDiedError, StoreError, StoreReplacedError

PUBLIC = {  # each name of the API and the module (below graphtier) that defines it
    "Advice": "engine.advise",
    "advise": "engine.advise",
    "approximate": "engine.approximate",
    "inaccuracy": "engine.approximate",
    "build": "engine.build",
    "recode": "engine.build",
    "Graph": "engine.graph",
    "open": "engine.graph",
    "BFSValidationError": "engine.validate",
    "validate_bfs_tree": "engine.validate",
    "Problem": "engine.verify",
    "VerifyReport": "engine.verify",
    "verify": "engine.verify",
    "Config": "runtime.config",
    **{name: "runtime.results" for name in ("BetweennessResult", "BFSResult", "ColoringResult", "ComponentsResult", "IndependentSetResult", "MSTResult", "PageRankResult", "SSSPResult")},
    "ConvergenceError": "algorithms.pagerank",
}
ALGORITHMS = {  # each algorithm as users call it (engine/query.py: budgets checked first, allocation failures named) and its module
    "betweenness_centrality": "bc",
    "bfs": "bfs",
    "connected_components": "cc",
    "greedy_color": "coloring",
    "maximal_independent_set": "mis",
    "minimum_spanning_tree": "mst",
    "pagerank": "pagerank",
    "strongly_connected_components": "scc",
    "sssp": "sssp",
}
MODULES = {"generators": "partition.generators", "dask": "dask"}  # modules the API names


def __getattr__(name: str):
    """Each name's module is imported when the name is first asked for, so that a process that
    runs one algorithm (a command, a part of a split run, a Dask worker) imports only what it
    runs; ``gt.generators`` and ``gt.dask`` (which needs dask) likewise."""
    if name in PUBLIC:
        value = getattr(importlib.import_module(f".{PUBLIC[name]}", __name__), name)
    elif name in ALGORITHMS:
        from .engine.query import query

        value = query(getattr(importlib.import_module(f".algorithms.{ALGORITHMS[name]}", __name__), name))
    elif name in MODULES:
        value = importlib.import_module(f".{MODULES[name]}", __name__)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


__all__ = (
    list(PUBLIC)
    + list(ALGORITHMS)
    + [
        "generators",
        "__version__",
        "BudgetError",
        "CorruptChunkError",
        "DeviceError",
        "EmptyGraphError",
        "GraphtierError",
        "InputError",
        "OutOfMemoryError",
        "PartDiedError",
        "StoreError",
        "StoreReplacedError",
    ]
)
