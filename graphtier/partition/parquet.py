"""Parquet files and in-memory Arrow tables, read batch by batch so memory stays bounded."""

from __future__ import annotations

import hashlib
import os
from typing import TYPE_CHECKING

from ..errors import InputError
from .memory import checked_block
from .source import EdgeSource

if TYPE_CHECKING:
    import pyarrow


def _pyarrow():
    """pyarrow is optional: import it only when Parquet is actually read."""
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError as e:
        raise ImportError("reading Parquet needs pyarrow: pip install 'graphtier[parquet]'") from e
    return pyarrow, pyarrow.parquet


def _edge_columns(schema, name: str) -> list[str]:
    """`src`, `dst` and `weight` when so named, else the first two (three) columns."""
    pa, _ = _pyarrow()
    names = schema.names
    if "src" in names and "dst" in names:
        columns = ["src", "dst"] + (["weight"] if "weight" in names else [])
    elif len(names) >= 2:
        columns = names[:3]
    else:
        raise InputError(f"needs columns src and dst, found {names}", file=name)
    for column in columns[:2]:
        if not pa.types.is_integer(schema.field(column).type):
            raise InputError(
                f"column {column!r} holds {schema.field(column).type}; vertex ids must be integers",
                file=name,
            )
    if len(columns) == 3:
        kind = schema.field(columns[2]).type
        if not (pa.types.is_integer(kind) or pa.types.is_floating(kind)):
            raise InputError(f"column {columns[2]!r} holds {kind}; weights must be numbers", file=name)
    return columns


def parquet_source(path_or_table: str | os.PathLike | pyarrow.Table, *, id_limit: int, block_edges: int = 1 << 22) -> EdgeSource:
    """A Parquet file (path) or a pyarrow.Table of edges with ids in [0, id_limit).

    Errors name the 1-based row, passed as the line.
    """
    pa, pq = _pyarrow()
    if isinstance(path_or_table, pa.Table):
        table = path_or_table
        name, kind = "table", "arrow"
        columns = _edge_columns(table.schema, name)

        def batches():
            return table.select(columns).to_batches(max_chunksize=block_edges)

    else:
        name, kind = str(path_or_table), "parquet"
        try:
            schema = pq.read_schema(path_or_table)
        except pa.ArrowInvalid as e:
            raise InputError(f"not a Parquet file: {e}", file=name) from e
        columns = _edge_columns(schema, name)

        def batches():
            with pq.ParquetFile(path_or_table) as f:
                yield from f.iter_batches(batch_size=block_edges, columns=columns)

    provenance = {"source": name, "kind": kind}
    names = [f"column {c!r}" for c in columns]

    def blocks():
        rows = 0
        for batch in batches():

            def fail(i: int, problem: str) -> InputError:
                return InputError(f"row {rows + i + 1}: {problem}", file=name, line=rows + i + 1)

            for column, label in zip(batch.columns, names):
                if column.null_count:
                    first = column.is_null().to_numpy(zero_copy_only=False).argmax()
                    raise fail(int(first), f"null in {label}")
            arrays = [column.to_numpy() for column in batch.columns]
            yield checked_block(
                arrays[0],
                arrays[1],
                arrays[2] if len(arrays) == 3 else None,
                id_limit=id_limit,
                names=names,
                fail=fail,
            )
            rows += batch.num_rows
        provenance["rows"] = rows
        if kind == "parquet":
            with open(path_or_table, "rb") as f:
                provenance["sha256"] = hashlib.file_digest(f, "sha256").hexdigest()

    return EdgeSource(name, blocks, weighted=len(columns) == 3, provenance=provenance)
