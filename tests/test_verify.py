"""``gt.verify`` and ``graphtier verify``: every problem listed, the transpose checked in every
format, stores in zips and at URLs, and what ``info`` says about verification."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

import graphtier as gt
from graphtier.cli import main
from graphtier.codecs import FORMATS

from . import damage as d

CHUNK_EDGES = 16


@pytest.fixture(scope="module")
def weighted(tmp_path_factory):
    rng = np.random.default_rng(3)
    edges = gt.generators.urand(5, edge_factor=4, seed=2)
    store = tmp_path_factory.mktemp("verify") / "w.gt"
    gt.build(np.column_stack([edges, rng.random(len(edges))]), store, chunk_edges=CHUNK_EDGES, reverse=True, progress=False)
    return store


def test_clean_store_passes(weighted):
    g = gt.open(weighted)
    report = g.verify(progress=False)
    assert report.ok and report.problems == [] and report.chunks_read == 4 * g.chunks().n_chunks
    assert "no problems" in str(report) and report.to_dict()["ok"] is True


def test_every_problem_is_listed(weighted, tmp_path):
    store, _ = d.damaged_copy(weighted, tmp_path / "d.gt", lambda s: d.flip_byte(s, "adj", 1))
    d.drop_chunk(store, "adj", 3)
    d.truncate_chunk(store, "weights", 2)
    d.set_header(store, "reverse/adj", 0, "n_edges", 1)
    d.flip_byte(store, "reverse/indptr", 0)
    report = gt.verify(store, progress=False)
    found = {(p.array, p.chunk) for p in report.problems}
    assert found == {("adj", 1), ("adj", 3), ("weights", 2), ("reverse/adj", 0), ("reverse/indptr", 0)}, report
    assert "crc32c mismatch" in str(report) and "missing" in str(report)


@pytest.mark.parametrize("fmt", FORMATS)
def test_transpose_checked_in_every_format(fmt, tmp_path):
    edges = gt.generators.kronecker(6, edge_factor=4, seed=1)
    store = tmp_path / "g.gt"
    gt.build(edges, store, format=fmt, chunk_edges=CHUNK_EDGES, reverse=True, progress=False)
    assert gt.verify(store, progress=False).ok
    d.retarget_edge(store, "reverse/adj", 2)
    problems = gt.verify(store, progress=False).problems
    assert [(p.array, p.chunk) for p in problems] == [("reverse/adj", None)] and "turned round" in problems[0].message


def test_in_degrees_compared(weighted, tmp_path):
    """A reverse graph consistent in itself, of as many vertices and edges, but of another graph."""
    g = gt.open(weighted)
    rows = np.column_stack([g.edges().astype(np.float64), g.group["weights"][:]])
    present = {(int(s), int(t)) for s, t in rows[:, :2]}
    i = next(i for i, (s, t, _) in enumerate(rows) if (int(s), (int(t) + 1) % g.n_vertices) not in present)
    rows[i, 1] = (rows[i, 1] + 1) % g.n_vertices
    other = gt.build(rows, tmp_path / "o.gt", chunk_edges=CHUNK_EDGES, reverse=True, progress=False)
    assert (other.n_vertices, other.n_edges) == (g.n_vertices, g.n_edges)
    shutil.copytree(weighted, tmp_path / "d.gt")
    shutil.rmtree(tmp_path / "d.gt" / "reverse")
    shutil.copytree(tmp_path / "o.gt" / "reverse", tmp_path / "d.gt" / "reverse")
    problems = gt.verify(tmp_path / "d.gt", progress=False).problems
    assert [(p.array, p.chunk) for p in problems] == [("reverse/indptr", 0)] and "in-degrees" in problems[0].message


def test_zip_and_url_stores(tmp_path):
    edges = gt.generators.grid(4, 5)
    zipped = gt.build(edges, tmp_path / "g.zip", chunk_edges=8, progress=False)
    assert zipped.verify(progress=False).ok
    url = f"memory://verify-{tmp_path.name}/g.gt"
    assert gt.build(edges, url, chunk_edges=8, reverse=True, progress=False).verify(progress=False).ok


def test_truncated_zip(tmp_path, capsys):
    gt.build(gt.generators.grid(4, 5), tmp_path / "g.zip", chunk_edges=8, progress=False)
    (tmp_path / "t.zip").write_bytes((tmp_path / "g.zip").read_bytes()[:300])
    for command in ("info", "verify"):
        assert main([command, str(tmp_path / "t.zip")]) == 4
        out = capsys.readouterr()
        assert f"{tmp_path / 't.zip'} is not a readable zip file" in out.err + out.out


def test_missing_store(tmp_path):
    report = gt.verify(tmp_path / "none.gt")
    assert not report.ok and "none.gt" in str(report.problems[0])


def test_chunks_of_zero_weights_are_stored(tmp_path):
    """Zarr leaves out chunks of fill values (0.0 for weights); a store must hold every chunk."""
    edges = np.array([[0, 1, 0.0], [1, 2, 0.0], [2, 3, 1.0], [3, 0, 2.0]])
    g = gt.build(edges, tmp_path / "z.gt", chunk_edges=2, progress=False)
    assert g.verify(progress=False).ok
    assert np.array_equal(gt.sssp(g, 0, device="cpu").distances, [0.0, 0.0, 0.0, 1.0])


def test_cli(weighted, tmp_path, capsys):
    assert main(["verify", str(weighted)]) == 0
    assert "no problems" in capsys.readouterr().out
    store, _ = d.damaged_copy(weighted, tmp_path / "d.gt", lambda s: d.flip_byte(s, "weights", 1))
    assert main(["verify", str(store)]) == 4
    assert "weights chunk 1: crc32c mismatch" in capsys.readouterr().out
    assert main(["info", str(store)]) == 0
    assert f"verified     no: info reads the metadata and chunk headers only; graphtier verify {store} reads every chunk" in capsys.readouterr().out
    assert main(["info", str(store), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["chunks_verified"] is False


def test_progress_bar(weighted, capsys):
    gt.verify(weighted, progress=True)
    assert "verifying" in capsys.readouterr().err
