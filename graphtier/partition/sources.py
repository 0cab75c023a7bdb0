"""One entry point that turns whatever the user has (a path or an object) into an EdgeSource."""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

import numpy as np

from .matrixmarket import matrixmarket_source
from .memory import array_source, networkx_source, scipy_source
from .parquet import parquet_source
from .source import EdgeSource
from .text import Input, text_source

_COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz")
_ACCEPTED = (
    "a path (text edge list, optionally gzip/bz2/xz; MatrixMarket .mtx/.mm; Parquet .parquet/.pq; "
    "BVGraph basename), a NumPy (E, 2) or (E, 3) array, a scipy.sparse matrix, a networkx graph, "
    "a pyarrow.Table or an EdgeSource"
)


def _is_matrixmarket(path: Path) -> bool:
    with Input(path) as inp:
        return inp.read(14) == b"%%MatrixMarket"


def _bvgraph(basename: Path, id_limit: int, block_edges: int) -> EdgeSource:
    from .bvgraph import bvgraph_source

    return bvgraph_source(str(basename), id_limit=id_limit, block_edges=block_edges)


def _open_path(path: Path, id_limit: int, block_edges: int, read_bytes: int) -> EdgeSource:
    if path.suffix == ".graph" and path.exists():
        return _bvgraph(path.with_suffix(""), id_limit, block_edges)
    if not path.exists():
        if Path(f"{path}.graph").exists() and Path(f"{path}.properties").exists():
            return _bvgraph(path, id_limit, block_edges)
        raise FileNotFoundError(errno.ENOENT, "no such graph input", str(path))
    name = path.name.lower()
    if name.endswith(_COMPRESSED_SUFFIXES):
        name = name.rsplit(".", 1)[0]
    if name.endswith((".parquet", ".pq")):
        return parquet_source(path, id_limit=id_limit, block_edges=block_edges)
    if name.endswith((".mtx", ".mm")) or _is_matrixmarket(path):
        return matrixmarket_source(path, id_limit=id_limit, block_edges=block_edges, read_bytes=read_bytes)
    return text_source(path, id_limit=id_limit, block_edges=block_edges, read_bytes=read_bytes)


def open_source(source: object, *, id_limit: int, block_edges: int = 1 << 22, read_bytes: int = 64 << 20) -> EdgeSource:
    """Dispatch `source` to its reader; every vertex id must be below `id_limit`.

    `read_bytes` sizes the byte blocks of text inputs (about five are in flight at once).
    Paths are told apart by suffix, then by content (a MatrixMarket banner); anything else
    is read as a text edge list.
    """
    if isinstance(source, EdgeSource):
        return source
    if isinstance(source, (str, os.PathLike)):
        return _open_path(Path(source), id_limit, block_edges, read_bytes)
    if isinstance(source, np.ndarray):
        return array_source(source, id_limit=id_limit, block_edges=block_edges)
    # An object of an optional library exists only if that library is loaded: never import one.
    sparse, nx, pa = (sys.modules.get(m) for m in ("scipy.sparse", "networkx", "pyarrow"))
    if sparse is not None and sparse.issparse(source):
        return scipy_source(source, id_limit=id_limit, block_edges=block_edges)
    if nx is not None and isinstance(source, nx.Graph):
        return networkx_source(source, id_limit=id_limit, block_edges=block_edges)
    if pa is not None and isinstance(source, pa.Table):
        return parquet_source(source, id_limit=id_limit, block_edges=block_edges)
    raise TypeError(f"cannot read a graph from {type(source).__name__}; accepted: {_ACCEPTED}")
