"""graphtier: an out-of-core graph engine over compressed, chunked Zarr v3 graph stores.

import graphtier as gt
g = gt.build(gt.generators.kronecker(16), "kron16.gt", symmetrize=True)
r = gt.bfs(g, 0)
"""

from ._version import __version__
from .engine import BFSResult, BFSValidationError, Config, Graph, bfs, build, open, recode, validate_bfs_tree
from .errors import CorruptChunkError, DeviceError, GraphtierError, InputError, StoreError
from .partition import generators

__all__ = [
    "BFSResult",
    "BFSValidationError",
    "Config",
    "CorruptChunkError",
    "DeviceError",
    "Graph",
    "GraphtierError",
    "InputError",
    "StoreError",
    "__version__",
    "bfs",
    "build",
    "generators",
    "open",
    "recode",
    "validate_bfs_tree",
]
