"""CPU BFS over encoded chunks against scipy and the Graph500 rules."""

from __future__ import annotations

import numpy as np
import pytest

import graphtier as gt
from graphtier.codecs import FORMATS
from graphtier.errors import CorruptChunkError

from .conftest import csr_to_edges, oracle_distances, reference_csr


@pytest.fixture(scope="module")
def cnr(tmp_path_factory, cnr_csr):
    indptr, indices = cnr_csr
    return gt.build(csr_to_edges(indptr, indices), tmp_path_factory.mktemp("cnr") / "cnr.gt", reverse=True, chunk_edges=1 << 18)


@pytest.mark.parametrize("fmt", [f for f in FORMATS if f != "csr"])
def test_cnr2000_every_format_equals_csr(cnr, tmp_path, fmt):
    """Each format traversed in place gives csr's distances, pushing and pulling."""
    g = gt.recode(cnr, tmp_path / f"cnr-{fmt}.gt", format=fmt)
    for direction in ("push", "pull"):
        for source in (100000, 0):
            r, expected = gt.bfs(g, source, direction=direction), gt.bfs(cnr, source, direction=direction)
            np.testing.assert_array_equal(r.distances, expected.distances)
            gt.validate_bfs_tree(cnr.indptr(), cnr.edges()[:, 1], source, r.distances, r.parents)


@pytest.mark.parametrize("source, reached, levels", [(100000, 325_557, 38), (0, 311, None)])
@pytest.mark.parametrize("direction", ["push", "auto", "pull"])
def test_cnr2000_matches_scipy(cnr, cnr_csr, source, reached, levels, direction):
    indptr, indices = cnr_csr
    r = gt.bfs(cnr, source, direction=direction)
    assert r.reached == reached
    if levels:
        assert r.stats["levels"] == levels
    ref = reference_csr(csr_to_edges(indptr, indices), cnr.n_vertices)
    np.testing.assert_array_equal(r.distances, oracle_distances(ref, source))
    assert r.stats["edges_traversed"] == np.diff(indptr)[r.distances >= 0].sum()  # the reached vertices' out-edges
    gt.validate_bfs_tree(indptr, indices, cnr.vertex(source), r.distances, r.parents)


GENERATED = {
    "kronecker": lambda: gt.generators.kronecker(14, seed=2),
    "urand": lambda: gt.generators.urand(14, seed=2),
    "grid": lambda: gt.generators.grid(120, 90),
}


@pytest.mark.parametrize("kind", sorted(GENERATED))
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("fmt", FORMATS)
def test_generated_graphs(tmp_path, kind, reverse, fmt):
    e = GENERATED[kind]()
    g = gt.build(e, tmp_path / "g.gt", format=fmt, symmetrize=True, drop_self_loops=True, reverse=reverse, chunk_edges=1 << 14)
    ref = reference_csr(e, g.n_vertices, symmetrize=True, drop_self_loops=True)
    source = int(np.argmax(np.diff(ref.indptr)))
    r = gt.bfs(g, source)
    np.testing.assert_array_equal(r.distances, oracle_distances(ref, source))
    gt.validate_bfs_tree(ref.indptr, ref.indices, source, r.distances, r.parents)
    if kind != "grid":
        assert "pull" in {lvl["direction"] for lvl in r.stats["iterations"]}
    np.testing.assert_array_equal(gt.bfs(g, source, direction="push").distances, r.distances)


def test_bfs_arguments(tmp_path):
    g = gt.build(np.array([[0, 1], [1, 2]]), tmp_path / "g.gt")
    with pytest.raises(ValueError, match="not in the graph"):
        gt.bfs(g, 3)
    with pytest.raises(ValueError, match="reverse graph"):
        gt.bfs(g, 0, direction="pull")
    with pytest.raises(ValueError, match="device"):
        gt.bfs(g, 0, device="tpu")
    r = gt.bfs(g, 0, device="cpu")
    assert r.distances.tolist() == [0, 1, 2] and r.parents.tolist() == [0, 0, 1]
    assert r.to_arrow().num_rows == 3


def _corrupt_first_chunk(store, edit) -> None:
    path = store / "adj" / "c" / "0" / "0"
    data = bytearray(path.read_bytes())
    edit(data)
    path.write_bytes(bytes(data))


def test_corrupt_chunk_is_named_before_traversal(tmp_path):
    e = gt.generators.grid(30)
    gt.build(e, tmp_path / "g.gt", chunk_edges=1000)

    def flip(d):
        d[60] ^= 0xFF

    _corrupt_first_chunk(tmp_path / "g.gt", flip)
    with pytest.raises(CorruptChunkError, match=r"adj chunk 0: crc32c"):
        gt.bfs(gt.open(tmp_path / "g.gt"), 0)


def test_hostile_chunk_with_valid_crc_is_refused(tmp_path):
    """A chunk rewritten with out-of-range ids and a fresh checksum must not reach the kernel."""
    import google_crc32c

    e = gt.generators.grid(30)
    gt.build(e, tmp_path / "g.gt", chunk_edges=1000)

    def hostile(d):
        body = d[:-4]
        body[-4:] = (2**31).to_bytes(4, "little")  # last destination far beyond the graph
        d[:] = body + google_crc32c.value(bytes(body)).to_bytes(4, "little")

    _corrupt_first_chunk(tmp_path / "g.gt", hostile)
    with pytest.raises(CorruptChunkError, match="adj chunk 0: .*vertex id"):
        gt.bfs(gt.open(tmp_path / "g.gt"), 0)


def test_device_auto_falls_back_with_one_message(tmp_path, monkeypatch, capsys):
    from graphtier.runtime import config as backend

    monkeypatch.setattr(backend, "unavailable", lambda: "no CUDA device is visible")
    monkeypatch.setattr(backend, "_told", False)
    g = gt.build(np.array([[0, 1], [1, 2]]), tmp_path / "g.gt")
    assert gt.bfs(g, 0).stats["device"] == "cpu"
    assert gt.bfs(g, 0).stats["device"] == "cpu"
    assert capsys.readouterr().err.count("running on the CPU: no CUDA device is visible") == 1
    with pytest.raises(RuntimeError, match="device='cuda' but no CUDA device"):
        gt.bfs(g, 0, device="cuda")
