"""Shared fixtures: the datasets beside the repository, an independent BFS oracle and the docs' hex dumps."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import shortest_path

import graphtier as gt

SHARED = Path(__file__).resolve().parents[2] / "shared"
CNR = SHARED / "datasets" / "cnr-2000"
FORMATS_DOC = Path(__file__).resolve().parents[1] / "docs" / "formats.md"


def recoded(csr: gt.Graph, d: Path, formats) -> dict[str, gt.Graph]:
    """``csr`` and its recodings into each other of ``formats`` (stores beside it in ``d``), by format."""
    return {f: csr if f == "csr" else gt.recode(csr, d / f"{f}.gt", format=f) for f in formats}


@pytest.fixture(scope="session")
def cnr_csr() -> tuple[np.ndarray, np.ndarray]:
    """cnr-2000 as (indptr, indices), or a skip when ../shared is not beside the checkout."""
    path = CNR / "cnr-2000-csr.npz"
    if not path.exists():
        pytest.skip(f"dataset not found: {path}")
    z = np.load(path)
    return z["indptr"].astype(np.int64), z["indices"]


def doc_hex_dumps(fmt: str) -> list[bytes]:
    """The bytes of each hex dump (``  8: 03 00 ...`` lines in one code block) in the section of
    ``docs/formats.md`` on ``fmt`` (the ``## `fmt`...`` heading up to the next one at that level)."""
    sections = re.split(r"^## ", FORMATS_DOC.read_text(), flags=re.MULTILINE)
    (section,) = [s for s in sections if s.startswith(f"`{fmt}`")]
    dumps = []
    for block in re.findall(r"^```\n(.*?)^```", section, re.MULTILINE | re.DOTALL):
        lines = re.findall(r"^ *(\d+): ((?:[0-9a-f]{2} ){7}[0-9a-f]{2})(?: |$)", block, re.MULTILINE)
        if lines:
            assert [int(at) for at, _ in lines] == list(range(0, 8 * len(lines), 8)), f"{fmt}: dump offsets"
            dumps.append(bytes.fromhex("".join(hexes for _, hexes in lines)))
    return dumps


def csr_to_edges(indptr: np.ndarray, indices: np.ndarray) -> np.ndarray:
    src = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    return np.stack([src, indices.astype(np.int64)], axis=1)


def reference_csr(edges: np.ndarray, n: int, *, symmetrize: bool = False, drop_self_loops: bool = False) -> sp.csr_matrix:
    """The graph a build should store, made independently with scipy."""
    e = np.asarray(edges, np.int64)
    if symmetrize:
        e = np.concatenate([e, e[:, ::-1]])
    if drop_self_loops:
        e = e[e[:, 0] != e[:, 1]]
    m = sp.csr_matrix((np.ones(len(e)), (e[:, 0], e[:, 1])), shape=(n, n))
    m.sum_duplicates()
    m.data[:] = 1
    return m


def oracle_distances(m: sp.csr_matrix, source: int) -> np.ndarray:
    d = shortest_path(m, unweighted=True, indices=source)
    return np.where(np.isinf(d), -1, d).astype(np.int32)


class MemoryChunks:
    """Just enough of ``tiering.storage.ChunkStore`` for ``load_resident``: encoded chunks in memory."""

    def __init__(self, blobs: list):
        self.blobs, self.name, self.n_chunks = [np.frombuffer(b, np.uint8) for b in blobs], "adj", len(blobs)

    def read_into(self, c: int, out: np.ndarray) -> None:
        out[:] = self.blobs[c]

    def stored_bytes(self, ids) -> list[int]:
        from graphtier.tiering.storage import CRC_BYTES

        return [len(self.blobs[c]) + CRC_BYTES for c in ids]

    def corrupt(self, message: str, c: int):
        from graphtier.errors import CorruptChunkError

        return CorruptChunkError(message, array=self.name, chunk=c)


def resident_from_blobs(codec, blobs: list, indptr, chunk_edges: int, dtype=np.uint32):
    """Encoded chunks loaded, and validated, exactly as the engine loads a store's."""
    from graphtier.tiering.resident import load_resident
    from graphtier.tiering.stored import StoredGraph

    indptr = np.asarray(indptr, np.int64)
    return load_resident(StoredGraph(MemoryChunks(blobs), codec, indptr, len(indptr) - 1, chunk_edges, np.dtype(dtype)))


def resident_graph(codec, indptr, indices, chunk_edges: int, dtype=np.uint32):
    """A graph's CSR encoded by ``codec`` in chunks of ``chunk_edges``, ready for the kernels."""
    rows = csr_to_edges(indptr, indices).astype(dtype)
    blobs = [codec.encode(rows[a : a + chunk_edges]) for a in range(0, len(rows), chunk_edges)]
    return resident_from_blobs(codec, blobs, indptr, chunk_edges, dtype)


def kernel_distances(g, source: int) -> np.ndarray:
    """BFS distances through the CPU's advance kernel and the format's decoder, with BFS's functor."""
    from graphtier.algorithms.bfs import visit
    from graphtier.kernels.cpu import operators as ops
    from graphtier.kernels.formats import FORMATS

    fmt = FORMATS[g.format]
    advance = ops.advance_kernel(fmt.neighbors, fmt.push, visit, False, False)
    dist = np.full(g.n_vertices, -1, np.int32)
    parent = np.full(g.n_vertices, -1, np.int64)
    dist[source], parent[source] = 0, source
    queue = np.empty(g.n_vertices, np.int64)
    queue[0] = source
    a, b, level = 0, 1, 1
    scratch = ops.scratch_for(g.chunk_edges, g.id_dtype)
    while a < b:
        found = advance(queue[a:b], b - a, False, g.indptr, g.words(fmt.word), np.ones(1, np.float32), g.table, g.chunk_edges, (dist, parent, level), queue[b:], np.zeros(1, np.bool_), scratch)
        a, b, level = b, b + found, level + 1
    return dist


def head_ids(g) -> np.ndarray:
    """Every vertex's head as a scheduler's heads hold it (the id dtype's largest value for a
    vertex with no list): of the ids its list holds in the chunk where it starts, the one whose own
    list is longest, the first of those on a tie."""
    indptr, dst = g.indptr().astype(np.int64), g.edges()[:, 1].astype(np.int64)
    degree = np.diff(indptr)
    heads = np.full(g.n_vertices, np.iinfo(g.id_dtype).max, g.id_dtype)
    for v in np.flatnonzero(degree):
        start = indptr[v]
        ids = dst[start : min(indptr[v + 1], (start // g.chunk_edges + 1) * g.chunk_edges)]
        heads[v] = ids[np.argmax(degree[ids])]  # argmax takes the first of equals
    return heads
