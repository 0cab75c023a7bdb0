"""gt.build end to end: options, every store kind, bounded memory, atomic writes, info."""

from __future__ import annotations

import os

import numpy as np
import pytest
import zarr

import graphtier as gt
from graphtier.errors import InputError, StoreError

from .conftest import reference_csr


def stored_csr(g: gt.Graph):
    rows = g.edges()
    return rows[:, 0].astype(np.int64), rows[:, 1].astype(np.int64)


@pytest.fixture(scope="module")
def messy_edges() -> np.ndarray:
    rng = np.random.default_rng(7)
    e = rng.integers(0, 300, (5000, 2))
    return np.concatenate([e, e[:500], [[5, 5], [6, 6]]])  # duplicates and self-loops


@pytest.mark.parametrize("symmetrize", [False, True])
@pytest.mark.parametrize("drop_self_loops", [False, True])
def test_options_match_scipy(tmp_path, messy_edges, symmetrize, drop_self_loops):
    g = gt.build(messy_edges, tmp_path / "g.gt", symmetrize=symmetrize, drop_self_loops=drop_self_loops, chunk_edges=999)
    ref = reference_csr(messy_edges, g.n_vertices, symmetrize=symmetrize, drop_self_loops=drop_self_loops)
    _src, dst = stored_csr(g)
    np.testing.assert_array_equal(np.diff(g.indptr()), np.diff(ref.indptr))
    np.testing.assert_array_equal(dst, ref.indices)
    assert g.n_edges == ref.nnz and g.directed == (not symmetrize)
    build = g.info()["build"]
    assert build["duplicates_removed"] == (len(messy_edges) * (2 if symmetrize else 1) - build["self_loops_removed"] * (2 if symmetrize else 1) - ref.nnz)


def test_keep_duplicates(tmp_path):
    e = np.array([[0, 1], [0, 1], [1, 0]])
    g = gt.build(e, tmp_path / "g.gt", dedup=False)
    assert g.n_edges == 3
    np.testing.assert_array_equal(g.edges(), [[0, 1], [0, 1], [1, 0]])


def test_tiny_memory_budget_sorts_in_runs(tmp_path):
    rng = np.random.default_rng(3)
    e = rng.integers(0, 20_000, (100_000, 2))
    small = gt.build(e, tmp_path / "small.gt", memory_budget=64 << 10, chunk_edges=1 << 13)
    big = gt.build(e, tmp_path / "big.gt", chunk_edges=1 << 13)
    assert small.info()["build"]["sorted_runs"] > 20
    assert big.info()["build"]["sorted_runs"] == 0
    np.testing.assert_array_equal(small.edges(), big.edges())
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".")]


def test_relabel_keeps_original_ids(tmp_path):
    ids = np.array([2**63 + 5, 10, 2**40, 7], np.uint64)
    e = np.array([[ids[0], ids[1]], [ids[1], ids[2]], [ids[2], ids[3]]], np.uint64)
    g = gt.build(e, tmp_path / "g.gt", relabel=True)
    assert g.n_vertices == 4
    np.testing.assert_array_equal(g.perm, np.sort(ids))
    r = gt.bfs(g, int(ids[0]))
    df = r.to_pandas()
    got = dict(zip(df["vertex"].astype("uint64"), df["distance"]))
    assert [got[int(i)] for i in ids] == [0, 1, 2, 3]


def test_ids_beyond_32_bits_need_relabel(tmp_path):
    with pytest.raises(InputError, match="out of range"):
        gt.build(np.array([[0, 2**33]]), tmp_path / "g.gt")
    assert not os.listdir(tmp_path)


@pytest.mark.parametrize("kind", ["dir", "zip", "memory"])
def test_store_kinds_roundtrip(tmp_path, kind):
    e = gt.generators.grid(8, 9)
    target = {"dir": tmp_path / "g.gt", "zip": tmp_path / "g.zip", "memory": f"memory://graphtier-test-{os.getpid()}/g.gt"}[kind]
    g = gt.build(e, target, chunk_edges=50)
    assert gt.open(target).n_edges == len(e)
    np.testing.assert_array_equal(g.edges()[:, 1], reference_csr(e, 72).indices)
    assert gt.bfs(g, 0).distances.max() == 7 + 8


def test_store_opens_as_plain_zarr(tmp_path):
    e = gt.generators.grid(5)
    gt.build(e, tmp_path / "g.gt", chunk_edges=7)
    group = zarr.open_group(tmp_path / "g.gt", mode="r")
    ref = reference_csr(e, 25)
    np.testing.assert_array_equal(group["adj"][10:30, 1], ref.indices[10:30])
    assert group.attrs["graphtier_schema"] == 1 and group.attrs["n_edges"] == len(e)


def test_failed_build_leaves_nothing(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("0 1\n1 2\n2 x\n")
    with pytest.raises(InputError, match=r"bad\.txt:3"):
        gt.build(bad, tmp_path / "g.gt")
    assert sorted(os.listdir(tmp_path)) == ["bad.txt"]


def test_existing_store_needs_overwrite(tmp_path):
    gt.build(np.array([[0, 1]]), tmp_path / "g.gt")
    with pytest.raises(FileExistsError):
        gt.build(np.array([[0, 1]]), tmp_path / "g.gt")
    g = gt.build(np.array([[0, 1], [1, 2]]), tmp_path / "g.gt", overwrite=True)
    assert g.n_edges == 2 and sorted(os.listdir(tmp_path)) == ["g.gt"]


def test_open_refuses_what_is_not_a_store(tmp_path):
    with pytest.raises(FileNotFoundError):
        gt.open(tmp_path / "missing")
    zarr.open_group(tmp_path / "plain.zarr", mode="w")
    with pytest.raises(StoreError, match="not a graphtier store"):
        gt.open(tmp_path / "plain.zarr")


def test_weights_are_stored_aligned(tmp_path):
    e = np.array([[1, 0, 2.5], [0, 1, 1.5], [0, 1, 0.5]])
    g = gt.build(e, tmp_path / "g.gt")
    assert g.weighted
    np.testing.assert_array_equal(g.edges(), [[0, 1], [1, 0]])
    np.testing.assert_array_equal(g.group["weights"][:], np.array([0.5, 2.5], np.float32))


def test_info_splits_bits_per_edge(tmp_path):
    g = gt.build(gt.generators.kronecker(10, seed=1), tmp_path / "g.gt", symmetrize=True, chunk_edges=4096)
    info = g.info()
    b = info["bits_per_edge"]
    assert b["payload"] == pytest.approx(32.0)
    assert b["total"] > b["payload"] + b["index"] + b["indptr"]
    assert info["bytes"]["total"] == sum(g.group[name].nbytes_stored() for name in ("adj", "indptr"))
    assert sum(h["vertices"] for h in info["degree"]["histogram"]) == g.n_vertices


@pytest.mark.parametrize("order", ["degree", "bfs", "rcm", "llp"])
def test_reordered_store_reports_original_ids(tmp_path, order):
    e = gt.generators.kronecker(10, seed=4)
    natural = gt.build(e, tmp_path / "n.gt", symmetrize=True, drop_self_loops=True)
    g = gt.build(e, tmp_path / "o.gt", symmetrize=True, drop_self_loops=True, order=order, reverse=True)
    assert g.info()["vertex_order"] == order and sorted(g.perm.tolist()) == list(range(g.n_vertices))
    source = int(np.argmax(np.diff(natural.indptr())))
    r, ref = gt.bfs(g, source), gt.bfs(natural, source)
    np.testing.assert_array_equal(r.distances, ref.distances)
    ref_csr = reference_csr(e, natural.n_vertices, symmetrize=True, drop_self_loops=True)
    gt.validate_bfs_tree(ref_csr.indptr, ref_csr.indices, source, r.distances, r.parents)


def test_unknown_order(tmp_path):
    with pytest.raises(ValueError, match="llp"):
        gt.build(np.array([[0, 1]]), tmp_path / "g.gt", order="random")
