"""recode: a store copied into another chunk size (or format) is the same graph."""

from __future__ import annotations

import numpy as np

import graphtier as gt


def test_recode_keeps_the_graph(tmp_path):
    rng = np.random.default_rng(5)
    e = gt.generators.kronecker(11, seed=5)
    weighted = np.column_stack([e, rng.random(len(e))])
    g = gt.build(weighted, tmp_path / "a.gt", reverse=True, relabel=True, chunk_edges=5000)
    r = gt.recode(g, tmp_path / "b.gt", chunk_edges=777)
    assert r.chunk_edges == 777 and r.info()["n_chunks"] == -(-g.n_edges // 777)
    np.testing.assert_array_equal(r.edges(), g.edges())
    np.testing.assert_array_equal(r.indptr(), g.indptr())
    np.testing.assert_array_equal(r.indptr(reverse=True), g.indptr(reverse=True))
    np.testing.assert_array_equal(r.group["weights"][:], g.group["weights"][:])
    np.testing.assert_array_equal(r.perm, g.perm)
    source = int(g.ids[np.argmax(np.diff(g.indptr()))])
    np.testing.assert_array_equal(gt.bfs(r, source).distances, gt.bfs(g, source).distances)
    assert r.info()["build"] == g.info()["build"]
