"""Importers: every input kind round-trips, and every bad input names its file and line."""

from __future__ import annotations

import bz2
import gzip
import hashlib
import lzma
import sys
import types
from collections import Counter

import networkx as nx
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import scipy.io
import scipy.sparse as sp

from graphtier.errors import InputError
from graphtier.partition.blocks import EdgeBlock
from graphtier.partition.matrixmarket import matrixmarket_source
from graphtier.partition.memory import array_source, networkx_source, scipy_source
from graphtier.partition.parquet import parquet_source
from graphtier.partition.source import EdgeSource
from graphtier.partition.sources import open_source
from graphtier.partition.text import text_source

LIMIT = 1000
OPENERS = {"gz": gzip.open, "bz2": bz2.open, "xz": lzma.open}


def read(source: EdgeSource, block_edges: int | None = None) -> Counter:
    """The edge multiset of a full pass, checking what every block promises."""
    found = Counter()
    for block in source.blocks():
        assert isinstance(block, EdgeBlock) and 0 < len(block)
        assert block_edges is None or len(block) <= block_edges
        assert block.src.dtype == block.dst.dtype == np.uint64
        assert (block.weight is not None) == source.weighted
        if block.weight is None:
            found.update(zip(block.src.tolist(), block.dst.tolist()))
        else:
            assert block.weight.dtype == np.float32
            found.update(zip(block.src.tolist(), block.dst.tolist(), block.weight.tolist()))
    return found


def multiset(src, dst, weight=None) -> Counter:
    columns = [np.asarray(src).tolist(), np.asarray(dst).tolist()]
    if weight is not None:
        columns.append(np.asarray(weight, np.float32).tolist())
    return Counter(zip(*columns))


@pytest.fixture
def edges():
    rng = np.random.default_rng(7)
    return rng.integers(0, LIMIT, (500, 2)), rng.random(500).astype(np.float32)


def write(path, text: str, compression: str | None = None):
    data = text.encode()
    with (OPENERS[compression] if compression else open)(path, "wb") as f:
        f.write(data)
    return path


# --- text --------------------------------------------------------------------------------------


@pytest.mark.parametrize("compression", [None, "gz", "bz2", "xz"])
def test_text_round_trip(tmp_path, edges, compression):
    e, _ = edges
    path = tmp_path / "g.txt"  # no telling suffix: compression is found by magic bytes
    body = "".join(f"{s}\t{d}\n" for s, d in e)
    write(path, "# Directed graph\n# FromNodeId\tToNodeId\n" + body, compression)
    source = text_source(path, id_limit=LIMIT, block_edges=64)
    assert not source.weighted
    assert read(source, 64) == multiset(e[:, 0], e[:, 1])
    assert source.provenance == {
        "source": str(path),
        "kind": "text",
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "lines": 502,
    }


def test_text_separators_comments_and_crlf(tmp_path):
    text = "% header\r\n0 1\r\n  1,2\r\n\r\n# note\n2\t\t3 \n3 , 4\n4,\t5\n \t\n5 6"
    source = text_source(write(tmp_path / "g.txt", text), id_limit=LIMIT)
    assert read(source) == multiset([0, 1, 2, 3, 4, 5], [1, 2, 3, 4, 5, 6])
    assert source.provenance["lines"] == 10


def test_text_weights(tmp_path):
    text = "0 1 1.5\n1 2 2e-3\n2 3 .5\n3 4 7\n4 5 1E2\n5 6 +3\n6 7 -0\n7 8 12.\n"
    source = text_source(write(tmp_path / "g.txt", text), id_limit=LIMIT)
    assert source.weighted
    weights = [1.5, 2e-3, 0.5, 7, 100, 3, 0, 12]
    assert read(source) == multiset(range(8), range(1, 9), weights)


@pytest.mark.parametrize("read_bytes", [5, 16, 100])
def test_text_blocks_smaller_than_the_file(tmp_path, edges, read_bytes):
    e, w = edges
    body = "".join(f"{s} {d} {x!r}\n" for (s, d), x in zip(e.tolist(), w.tolist()))
    path = write(tmp_path / "g.txt", "# weighted\n" + body + "1 2 3")  # no final line end
    source = text_source(path, id_limit=LIMIT, block_edges=7, read_bytes=read_bytes)
    expected = multiset(e[:, 0], e[:, 1], w) + Counter({(1, 2, 3.0): 1})
    assert read(source, 7) == expected
    assert read(source, 7) == expected  # blocks() can be called again
    assert source.provenance["lines"] == 502


def test_text_error_line_across_blocks_and_threads(tmp_path):
    lines = [f"{i % LIMIT} {(i * 7) % LIMIT}" for i in range(60_000)]  # ~500 KiB: several threads
    lines[45_678] = "5 6x"
    path = write(tmp_path / "file.txt", "\n".join(lines) + "\n")
    for read_bytes in (64 << 20, 4096, 1 << 16):
        with pytest.raises(InputError, match=r"file\.txt:45679: column 2: '6x' is not a vertex id"):
            read(text_source(path, id_limit=LIMIT, read_bytes=read_bytes))


def test_text_compressed_error_line(tmp_path):
    path = write(tmp_path / "file.txt.xz", "#\n" * 6 + "0 1 2\n" * 5 + "0 1 nan\n", "xz")
    with pytest.raises(InputError, match=r"file\.txt\.xz:12: weight nan is NaN"):
        read(text_source(path, id_limit=LIMIT))


@pytest.mark.parametrize(
    "weighted, text, message",
    [
        (0, "12x 3", r"column 1: '12x' is not a vertex id"),
        (0, "abc 3", r"column 1: 'abc' is not a vertex id"),
        (0, "- 3", r"column 1: '-' is not a vertex id"),
        (0, "1-2 3", r"column 1: '1-2' is not a vertex id"),
        (0, "4,,5", r"column 2: '' is not a vertex id"),
        (0, "4", r"missing column 2: expected 2 columns \(src dst\)"),
        (0, "4,", r"missing column 2"),
        (1, "4 5", r"missing column 3: expected 3 columns \(src dst weight\)"),
        (1, "4 5 6 7", r"extra column '7': expected 3 columns \(src dst weight\)"),
        (0, "4 5 # comment", r"extra column '#'"),
        (0, "4 -3", r"column 2: negative vertex id -3 is out of range \[0, 1000\)"),
        (0, "4 1000", r"column 2: vertex id 1000 is out of range \[0, 1000\)"),
        (0, "4 99999999999999999999999", r"column 2: vertex id 9+ is out of range"),
        (1, "4 5 -1.5", r"negative weight -1.5"),
        (1, "4 5 NaN", r"weight NaN is NaN"),
        (1, "4 5 inf", r"weight inf is infinite"),
        (1, "4 5 1e39", r"weight 1e39 is infinite \(or too large for float32\)"),
        (1, "4 5 1.5.2", r"column 3: '1.5.2' is not a weight"),
        (1, "4 5 1e", r"column 3: '1e' is not a weight"),
    ],
)
def test_text_errors(tmp_path, weighted, text, message):
    edge = "1 2 1" if weighted else "1 2"
    lines = [edge, "# c", "", edge + "\r", "\r", "\r", text, "8 9"]  # the bad line is line 7
    path = write(tmp_path / "file.txt", "\n".join(lines))
    with pytest.raises(InputError, match=rf"file\.txt:7: {message}"):
        read(text_source(path, id_limit=LIMIT, read_bytes=8))


@pytest.mark.parametrize(
    "text, line, message",
    [("# c\n0 1 2 3\n", 2, "found 4 columns"), ("%\n\n5\n", 3, "found 1 column,")],
)
def test_text_first_data_line_fixes_the_columns(tmp_path, text, line, message):
    with pytest.raises(InputError, match=rf"file\.txt:{line}: {message}"):
        text_source(write(tmp_path / "file.txt", text), id_limit=LIMIT)


def test_text_empty_and_corrupt(tmp_path):
    source = text_source(write(tmp_path / "e.txt", "# nothing\n"), id_limit=LIMIT)
    assert read(source) == Counter() and source.provenance["lines"] == 1
    path = tmp_path / "file.gz"
    path.write_bytes(gzip.compress(b"0 1\n" * 1000)[:-20])
    with pytest.raises(InputError, match=r"file\.gz: corrupt gzip data"):
        read(text_source(path, id_limit=LIMIT))


# --- MatrixMarket ------------------------------------------------------------------------------


@pytest.mark.parametrize("field, symmetry", [("real", "general"), ("integer", "general"), ("pattern", "symmetric")])
def test_matrixmarket_round_trip(tmp_path, field, symmetry):
    rng = np.random.default_rng(3)
    m = sp.random(50, 50, density=0.1, format="coo", random_state=rng, dtype=np.float64)
    if field == "integer":
        m.data = np.ceil(m.data * 10)
    if symmetry == "symmetric":
        m = sp.coo_matrix(sp.triu(m) + sp.triu(m, 1).T)
    path = tmp_path / "g.mtx"
    scipy.io.mmwrite(path, m, field=field, symmetry=symmetry, comment="a\ncomment")
    source = matrixmarket_source(path, id_limit=LIMIT, block_edges=16, read_bytes=64)
    assert (source.n_vertices, source.undirected) == (50, symmetry == "symmetric")
    lower = sp.tril(m).tocoo() if symmetry == "symmetric" else m
    weight = None if field == "pattern" else lower.data
    assert read(source, 16) == multiset(lower.row, lower.col, weight)
    assert source.provenance["kind"] == "matrixmarket"
    assert source.provenance["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()


def test_matrixmarket_compressed(tmp_path):
    text = "%%MatrixMarket matrix coordinate real general\n%c\n3 3 2\n1 2 0.5\n3 1 2\n"
    source = open_source(write(tmp_path / "g.mtx.gz", text, "gz"), id_limit=LIMIT)
    assert read(source) == multiset([0, 2], [1, 0], [0.5, 2])
    assert source.provenance["lines"] == 5


MM = "%%MatrixMarket matrix coordinate real general\n% c\n"


@pytest.mark.parametrize(
    "text, line, message",
    [
        ("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 1, "unsupported"),
        ("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", 1, "unsupported"),
        ("%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n", 1, "unsupported"),
        (MM + "3 4 1\n1 1 1\n", 3, r"the matrix is 3 x 4; a graph needs a square matrix"),
        (MM + "3 3 x\n", 3, "bad size line"),
        (MM + "2000 2000 0\n", 3, "2000 vertices exceed the id limit 1000"),
        (MM + "3 3 2\n1 1 1\n0 1 1\n", 5, r"column 1: vertex id 0 is out of range \[1, 3\]"),
        (MM + "3 3 2\n1 1 1\n1 4 1\n", 5, r"column 2: vertex id 4 is out of range \[1, 3\]"),
        (MM + "3 3 2\n1 1 1\n1 2 -1\n", 5, "negative weight -1"),
        (MM + "3 3 2\n1 1 1\n1 2\n", 5, "missing column 3"),
        (MM + "3 3 3\n1 1 1\n1 2 1\n", 3, "the size line declares 3 entries but the file has 2"),
        (MM + "3 3 1\n1 1 1\n1 2 1\n", 3, "the size line declares 1 entries but the file has 2"),
    ],
)
def test_matrixmarket_errors(tmp_path, text, line, message):
    with pytest.raises(InputError, match=rf"file\.mtx:{line}: {message}"):
        read(matrixmarket_source(write(tmp_path / "file.mtx", text), id_limit=LIMIT))


# --- Parquet -----------------------------------------------------------------------------------


def test_parquet_round_trip(tmp_path, edges):
    e, w = edges
    table = pa.table({"dst": e[:, 1], "weight": w, "src": e[:, 0], "extra": w})
    path = tmp_path / "g.parquet"
    pq.write_table(table, path, row_group_size=100)
    expected = multiset(e[:, 0], e[:, 1], w)
    source = parquet_source(path, id_limit=LIMIT, block_edges=30)
    assert source.weighted and read(source, 30) == expected
    assert source.provenance == {
        "source": str(path),
        "kind": "parquet",
        "rows": 500,
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
    }
    assert read(parquet_source(table, id_limit=LIMIT, block_edges=30), 30) == expected
    unnamed = pa.table({"a": e[:, 0].astype(np.uint32), "b": e[:, 1]})
    assert read(open_source(unnamed, id_limit=LIMIT)) == multiset(e[:, 0], e[:, 1])
    unnamed = unnamed.append_column("c", pa.array(w))
    assert read(open_source(unnamed, id_limit=LIMIT)) == expected


@pytest.mark.parametrize(
    "column, value, message",
    [
        ("src", None, "null in column 'src'"),
        ("dst", -3, r"negative vertex id -3 in column 'dst' is out of range \[0, 1000\)"),
        ("src", 1000, r"vertex id 1000 in column 'src' is out of range"),
        ("weight", float("nan"), "weight is NaN"),
        ("weight", -2.0, "negative weight -2.0"),
    ],
)
def test_parquet_errors(tmp_path, column, value, message):
    data = {"src": list(range(100)), "dst": list(range(100)), "weight": [1.0] * 100}
    data[column][66] = value
    path = tmp_path / "file.parquet"
    pq.write_table(pa.table(data), path, row_group_size=40)
    with pytest.raises(InputError, match=rf"file\.parquet:67: row 67: {message}"):
        read(parquet_source(path, id_limit=LIMIT, block_edges=25))


def test_parquet_float_ids_and_missing_pyarrow(tmp_path, monkeypatch):
    path = tmp_path / "file.parquet"
    pq.write_table(pa.table({"src": [0.0], "dst": [1.0]}), path)
    with pytest.raises(InputError, match=r"file\.parquet: column 'src' holds double"):
        parquet_source(path, id_limit=LIMIT)
    path.write_bytes(b"src,dst\n0,1\n")
    with pytest.raises(InputError, match=r"file\.parquet: not a Parquet file"):
        open_source(path, id_limit=LIMIT)
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(ImportError, match=r"pip install 'graphtier\[parquet\]'"):
        parquet_source(path, id_limit=LIMIT)


# --- in memory ---------------------------------------------------------------------------------


def test_array_round_trip(edges):
    e, w = edges
    assert read(array_source(e, id_limit=LIMIT, block_edges=64), 64) == multiset(e[:, 0], e[:, 1])
    weighted = np.column_stack([e, w])  # float array: ids must be whole numbers
    source = array_source(weighted, id_limit=LIMIT, block_edges=64)
    assert source.weighted and read(source, 64) == multiset(e[:, 0], e[:, 1], w)


@pytest.mark.parametrize(
    "row, value, message",
    [
        ([5, -3], None, r"array: row 17: negative vertex id -3 in column 1 is out of range"),
        ([5.5, 3], None, r"array: row 17: 5\.5 in column 0 is not an integer vertex id"),
        ([5, 3, np.nan], None, r"array: row 17: weight is NaN"),
        ([5, 3, -1], None, r"array: row 17: negative weight -1"),
        ([5, 3, 1e300], None, r"array: row 17: weight 1e\+300 is infinite"),
    ],
)
def test_array_errors(row, value, message):
    a = np.ones((40, len(row)), np.asarray(row).dtype)
    a[17] = row
    with pytest.raises(InputError, match=message):
        read(array_source(a, id_limit=LIMIT, block_edges=10))


def test_array_bad_shape():
    with pytest.raises(InputError, match=r"array: expected an \(E, 2\) or \(E, 3\) array"):
        array_source(np.zeros((3, 4)), id_limit=LIMIT)


def test_scipy(edges):
    e, w = edges
    m = sp.coo_array((w, (e[:, 0], e[:, 1])), shape=(LIMIT, LIMIT)).tocsr()
    m.sum_duplicates()
    coo = m.tocoo()
    source = open_source(m, id_limit=LIMIT, block_edges=100)
    assert (source.weighted, source.n_vertices) == (True, LIMIT)
    assert read(source, 100) == multiset(coo.row, coo.col, coo.data)
    ones = sp.csr_matrix((np.ones(3), ([0, 1, 2], [1, 2, 0])), shape=(4, 4))
    assert not scipy_source(ones, id_limit=LIMIT).weighted
    with pytest.raises(InputError, match=r"matrix: the matrix is 3 x 4"):
        scipy_source(sp.csr_matrix((3, 4)), id_limit=LIMIT)
    negative = sp.csr_matrix((np.array([1.0, -2.0]), ([0, 3], [1, 2])), shape=(4, 4))
    with pytest.raises(InputError, match=r"matrix: entry \(3, 2\): negative weight -2\.0"):
        read(scipy_source(negative, id_limit=LIMIT))


def test_networkx():
    g = nx.DiGraph([(0, 1), (1, 2)])
    g.add_node(9)
    g.edges[0, 1]["weight"] = 2.5
    source = open_source(g, id_limit=LIMIT)
    assert (source.weighted, source.undirected, source.n_vertices) == (True, False, 10)
    assert read(source) == multiset([0, 1], [1, 2], [2.5, 1.0])
    source = networkx_source(nx.path_graph(4), id_limit=LIMIT)
    assert (source.weighted, source.undirected, source.n_vertices) == (False, True, 4)
    assert read(source) == multiset([0, 1, 2], [1, 2, 3])
    with pytest.raises(InputError, match=r"graph: node 'a' .*convert_node_labels_to_integers"):
        networkx_source(nx.Graph([("a", "b")]), id_limit=LIMIT)
    with pytest.raises(InputError, match=r"graph: node 1000 is out of range"):
        networkx_source(nx.Graph([(0, 1000)]), id_limit=LIMIT)
    with pytest.raises(InputError, match=r"graph: edge \(1, 2\): negative weight -1\.0"):
        read(networkx_source(nx.Graph([(0, 1, {"weight": 1}), (1, 2, {"weight": -1})]), id_limit=LIMIT))


# --- dispatch ----------------------------------------------------------------------------------


def test_open_source_dispatch(tmp_path, edges, monkeypatch):
    e, _ = edges
    text = write(tmp_path / "g.edges", "0 1\n")
    header = "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n"
    banner = write(tmp_path / "g.txt", header + "1 2\n")  # found by content
    mm = write(tmp_path / "g.mm", header + "2 1\n")
    parquet = tmp_path / "g.pq"
    pq.write_table(pa.table({"src": [0], "dst": [1]}), parquet)
    kinds = {text: "text", banner: "matrixmarket", mm: "matrixmarket", parquet: "parquet"}
    for path, kind in kinds.items():
        assert open_source(str(path), id_limit=LIMIT).provenance["kind"] == kind
    assert open_source(e, id_limit=LIMIT).provenance["kind"] == "numpy"
    source = array_source(e, id_limit=LIMIT)
    assert open_source(source, id_limit=LIMIT) is source
    with pytest.raises(FileNotFoundError, match="missing.txt"):
        open_source(tmp_path / "missing.txt", id_limit=LIMIT)
    with pytest.raises(TypeError, match="accepted: a path"):
        open_source([(0, 1)], id_limit=LIMIT)

    calls = []
    fake = types.ModuleType("graphtier.partition.bvgraph")
    fake.bvgraph_source = lambda basename, **kw: calls.append((basename, kw))
    monkeypatch.setitem(sys.modules, "graphtier.partition.bvgraph", fake)
    for suffix in (".graph", ".properties"):
        write(tmp_path / f"web{suffix}", "")
    open_source(tmp_path / "web", id_limit=LIMIT, block_edges=5)
    open_source(tmp_path / "web.graph", id_limit=LIMIT, block_edges=5)
    expected = (str(tmp_path / "web"), {"id_limit": LIMIT, "block_edges": 5})
    assert calls == [expected, expected]
