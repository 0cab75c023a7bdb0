"""MatrixMarket coordinate files: a header read in Python, then the body through the text parser."""

from __future__ import annotations

import os
from dataclasses import dataclass

from ..errors import InputError
from .source import EdgeSource
from .text import Input, parse_lines


@dataclass(frozen=True)
class _Header:
    field: str  # real, integer or pattern
    symmetric: bool
    n: int  # rows = columns
    nnz: int
    lines: int  # header, comment and size lines before the entries


def _read_header(inp: Input, id_limit: int) -> _Header:
    """Read the banner, comments and size line, leaving `inp` at the first entry."""
    banner = inp.readline().decode("utf-8", "replace").strip()
    words = banner.split()
    lowered = [w.lower() for w in words[1:]]
    if len(words) != 5 or words[0] != "%%MatrixMarket" or lowered[:2] != ["matrix", "coordinate"] or lowered[2] not in ("real", "integer", "pattern") or lowered[3] not in ("general", "symmetric"):
        raise InputError(
            f"unsupported MatrixMarket header {banner!r}: graphtier reads '%%MatrixMarket matrix coordinate real|integer|pattern general|symmetric'",
            file=inp.name,
            line=1,
        )
    line = 1
    while raw := inp.readline():
        line += 1
        text = raw.decode("utf-8", "replace").strip()
        if text and not text.startswith("%"):
            break
    else:
        raise InputError("missing the size line 'rows columns entries'", file=inp.name, line=line)
    size = text.split()
    if len(size) != 3 or not all(s.isdigit() for s in size):
        raise InputError(f"bad size line {text!r}: expected 'rows columns entries'", file=inp.name, line=line)
    rows, columns, nnz = map(int, size)
    if rows != columns:
        raise InputError(
            f"the matrix is {rows} x {columns}; a graph needs a square matrix",
            file=inp.name,
            line=line,
        )
    if rows > id_limit:
        raise InputError(f"{rows} vertices exceed the id limit {id_limit}", file=inp.name, line=line)
    return _Header(lowered[2], lowered[3] == "symmetric", rows, nnz, line)


def matrixmarket_source(
    path: str | os.PathLike,
    *,
    id_limit: int,
    block_edges: int = 1 << 22,
    read_bytes: int = 64 << 20,
) -> EdgeSource:
    """A square coordinate matrix (optionally compressed): entry (i, j) is the edge i-1 -> j-1.

    Symmetric files store each undirected edge once, so the source is marked undirected.
    """
    name = str(path)
    with Input(path) as inp:
        header = _read_header(inp, id_limit)
    weighted = header.field != "pattern"
    provenance = {"source": name, "kind": "matrixmarket"}

    def blocks():
        with Input(path) as inp:
            _read_header(inp, id_limit)
            lines, entries = yield from parse_lines(
                inp,
                ncols=3 if weighted else 2,
                lo=1,
                hi=header.n + 1,
                id_range=f"[1, {header.n}]",
                block_edges=block_edges,
                read_bytes=read_bytes,
                first_line=header.lines,
            )
            if entries != header.nnz:
                raise InputError(
                    f"the size line declares {header.nnz} entries but the file has {entries}",
                    file=name,
                    line=header.lines,
                )
            provenance.update(sha256=inp.sha256(), lines=lines)

    return EdgeSource(
        name=name,
        make_blocks=blocks,
        weighted=weighted,
        undirected=header.symmetric,
        n_vertices=header.n,
        provenance=provenance,
    )
