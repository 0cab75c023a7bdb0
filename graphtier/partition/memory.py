"""In-memory inputs (NumPy arrays, scipy.sparse matrices, networkx graphs) as edge sources.

`checked_block` is the one place where id and weight columns already in memory are validated;
the Parquet reader uses it too.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError
from .blocks import EdgeBlock
from .source import EdgeSource

if TYPE_CHECKING:
    import networkx
    import scipy.sparse


def _bad_ids(ids: np.ndarray, id_limit: int) -> np.ndarray:
    """Mask of the ids that are not integers in [0, id_limit)."""
    if ids.dtype.kind == "f":
        return ~((ids >= 0) & (ids < id_limit) & (ids == np.floor(ids)))  # NaN fails all three
    bad = ids >= id_limit if id_limit <= np.iinfo(ids.dtype).max else np.zeros(len(ids), bool)
    return bad | (ids < 0) if ids.dtype.kind == "i" else bad


def _id_problem(value: float, column: str, id_limit: int) -> str:
    if isinstance(value, float) and not value.is_integer():
        return f"{value!r} in {column} is not an integer vertex id"
    value = int(value)
    negative = "negative " if value < 0 else ""
    return f"{negative}vertex id {value} in {column} is out of range [0, {id_limit})"


def _weight_problem(value: float) -> str:
    if math.isnan(value):
        return "weight is NaN"
    if value < 0:
        return f"negative weight {value}"
    return f"weight {value} is infinite (or too large for float32)"


def checked_block(
    src: np.ndarray,
    dst: np.ndarray,
    weight: np.ndarray | None,
    *,
    id_limit: int,
    names: Sequence[str],
    fail: Callable[[int, str], Exception],
) -> EdgeBlock:
    """Check numeric id and weight columns and convert them to EdgeBlock's dtypes.

    On the first bad entry, raises ``fail(index, problem)``: the caller knows how to name the
    place (array row, Parquet row, matrix entry, graph edge); `names` name the columns.
    """
    for ids, column in zip((src, dst), names):
        bad = _bad_ids(ids, id_limit)
        if bad.any():
            i = int(bad.argmax())
            raise fail(i, _id_problem(ids[i].item(), column, id_limit))
    if weight is not None:
        with np.errstate(over="ignore"):  # too large for float32 becomes inf, reported below
            converted = weight.astype(np.float32)
        bad = ~(converted >= 0) | np.isinf(converted)
        if bad.any():
            i = int(bad.argmax())
            raise fail(i, _weight_problem(weight[i].item()))
        weight = converted
    return EdgeBlock(np.ascontiguousarray(src, np.uint64), np.ascontiguousarray(dst, np.uint64), weight)


def _columns_source(
    src: np.ndarray,
    dst: np.ndarray,
    weight: np.ndarray | None,
    *,
    name: str,
    kind: str,
    where: Callable[[int], str],
    names: Sequence[str],
    id_limit: int,
    block_edges: int,
    **facts,
) -> EdgeSource:
    """An EdgeSource over whole columns, checked block by block.

    Errors read ``name: where(i): problem``.
    """

    def blocks():
        for a in range(0, len(src), block_edges):
            b = a + block_edges
            yield checked_block(
                src[a:b],
                dst[a:b],
                None if weight is None else weight[a:b],
                id_limit=id_limit,
                names=names,
                fail=lambda i, problem: InputError(f"{where(a + i)}: {problem}", file=name),
            )

    return EdgeSource(
        name=name,
        make_blocks=blocks,
        weighted=weight is not None,
        provenance={"source": name, "kind": kind},
        **facts,
    )


def array_source(a: np.ndarray, *, id_limit: int, block_edges: int = 1 << 22, n_vertices: int | None = None) -> EdgeSource:
    """An (E, 2) array of (src, dst) rows, or (E, 3) with a weight column (``n_vertices``: at
    least that many vertices, those past the last id without edges).

    Float arrays are accepted when their id columns hold whole numbers.
    """
    a = np.asarray(a)
    if a.ndim != 2 or a.shape[1] not in (2, 3) or a.dtype.kind not in "iuf":
        raise InputError(
            f"expected an (E, 2) or (E, 3) array of numbers, got shape {a.shape} of {a.dtype}",
            file="array",
        )
    return _columns_source(
        a[:, 0],
        a[:, 1],
        a[:, 2] if a.shape[1] == 3 else None,
        name="array",
        kind="numpy",
        where=lambda i: f"row {i}",
        names=("column 0", "column 1"),
        id_limit=id_limit,
        block_edges=block_edges,
        n_vertices=n_vertices,
    )


def scipy_source(m: scipy.sparse.spmatrix | scipy.sparse.sparray, *, id_limit: int, block_edges: int = 1 << 22) -> EdgeSource:
    """A square scipy.sparse matrix or array: stored entry (i, j) is edge i -> j.

    Weighted only when the values carry information: floating and not all 1.
    """
    rows, columns = m.shape
    if rows != columns:
        raise InputError(f"the matrix is {rows} x {columns}; a graph needs a square matrix", file="matrix")
    coo = m.tocoo()
    values = coo.data
    weighted = values.dtype.kind == "f" and bool((values != 1).any())
    return _columns_source(
        coo.row,
        coo.col,
        values if weighted else None,
        name="matrix",
        kind="scipy",
        where=lambda i: f"entry ({coo.row[i]}, {coo.col[i]})",
        names=("the row index", "the column index"),
        id_limit=id_limit,
        block_edges=block_edges,
        n_vertices=rows,
    )


def networkx_source(G: networkx.Graph, *, id_limit: int, block_edges: int = 1 << 22) -> EdgeSource:
    """A networkx graph whose nodes are integers in [0, id_limit); isolated nodes count.

    Weights come from the ``weight`` edge attribute (1 where an edge lacks it) when any edge
    has one.
    """
    for node in G:
        if not isinstance(node, (int, np.integer)) or isinstance(node, bool) or node < 0:
            raise InputError(
                f"node {node!r} is not a non-negative integer; relabel the graph with networkx.convert_node_labels_to_integers(G)",
                file="graph",
            )
    n_vertices = int(max(G, default=-1)) + 1
    if n_vertices > id_limit:
        raise InputError(f"node {n_vertices - 1} is out of range [0, {id_limit})", file="graph")
    e = G.number_of_edges()
    src = np.fromiter((u for u, _ in G.edges()), np.uint64, count=e)
    dst = np.fromiter((v for _, v in G.edges()), np.uint64, count=e)
    weight = None
    if any("weight" in data for *_, data in G.edges(data=True)):
        try:
            weight = np.fromiter((w for *_, w in G.edges(data="weight", default=1.0)), np.float64, count=e)
        except (TypeError, ValueError) as exc:
            raise InputError(f"a 'weight' attribute is not a number: {exc}", file="graph") from exc
    return _columns_source(
        src,
        dst,
        weight,
        name="graph",
        kind="networkx",
        where=lambda i: f"edge ({src[i]}, {dst[i]})",
        names=("the source node", "the target node"),
        id_limit=id_limit,
        block_edges=block_edges,
        undirected=not G.is_directed(),
        n_vertices=n_vertices,
    )
