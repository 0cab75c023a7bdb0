"""``overwrite`` replaces a graphtier store and nothing else: not a plain directory, a file, another
Zarr group, nor the input being converted (issue 14's data-loss finding)."""

from __future__ import annotations

import os
import zipfile

import numpy as np
import pytest
import zarr

import graphtier as gt
from graphtier.cli import main
from graphtier.errors import DestinationError, StoreExistsError
from graphtier.partition.export import write_text_edges
from tests.test_bvgraph import random_lists, write_bvgraph


@pytest.fixture
def edges_txt(tmp_path):
    path = tmp_path / "k8.txt"
    write_text_edges(path, gt.generators.kronecker(8, seed=0))
    return path


def run(capsys, *argv) -> tuple[int, str]:
    code = main(list(map(str, argv)))
    return code, capsys.readouterr().err


def plain_dir(path):
    path.mkdir()
    (path / "notes.txt").write_text("keep me")
    return path


def test_plain_directory_survives_build_and_convert(tmp_path, edges_txt, capsys):
    d = plain_dir(tmp_path / "plain")
    with pytest.raises(DestinationError, match=r"plain.*a directory without a readable zarr.json"):
        gt.build(edges_txt, d, overwrite=True)
    code, err = run(capsys, "convert", edges_txt, d, "--overwrite")
    assert code == 4 and str(d) in err and "a directory without" in err
    assert os.listdir(d) == ["notes.txt"] and (d / "notes.txt").read_text() == "keep me"


def test_regular_file_survives(tmp_path, edges_txt, capsys):
    f = tmp_path / "out.gt"
    f.write_text("not a store")
    with pytest.raises(DestinationError, match="a regular file"):
        gt.build(edges_txt, f, overwrite=True)
    assert run(capsys, "convert", edges_txt, f, "--overwrite")[0] == 4
    assert f.read_text() == "not a store"


def test_other_zarr_group_survives(tmp_path, edges_txt):
    zarr.open_group(tmp_path / "other.zarr", mode="w").attrs["mine"] = 1
    with pytest.raises(DestinationError, match="without graphtier_schema"):
        gt.build(edges_txt, tmp_path / "other.zarr", overwrite=True)
    assert zarr.open_group(tmp_path / "other.zarr", mode="r").attrs["mine"] == 1


def test_input_is_never_the_destination(tmp_path, edges_txt, capsys):
    before = edges_txt.read_bytes()
    with pytest.raises(DestinationError, match="is the input"):
        gt.build(edges_txt, edges_txt, overwrite=True)
    code, err = run(capsys, "convert", edges_txt, edges_txt, "--overwrite")
    assert code == 4 and "is the input" in err
    # a store that holds the input, even one reached through a symbolic link, is not replaced either
    store = tmp_path / "g.gt"
    gt.build(edges_txt, store)
    inside = store / "k8.txt"
    inside.write_bytes(before)
    with pytest.raises(DestinationError, match="holds the input"):
        gt.build(inside, store, overwrite=True)
    (tmp_path / "link.gt").symlink_to(store)
    with pytest.raises(DestinationError, match="holds the input"):
        gt.build(inside, tmp_path / "link.gt", overwrite=True)
    assert edges_txt.read_bytes() == before and inside.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["g.gt", "k8.txt", "link.gt"]


def test_bvgraph_basename_files_are_inputs(tmp_path):
    base = tmp_path / "web"
    write_bvgraph(base, random_lists(50, seed=0))
    files = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    for target in (base, tmp_path / "web.graph", tmp_path / "web.properties", tmp_path):
        with pytest.raises(DestinationError, match="the input"):
            gt.build(base, target, overwrite=True)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == files
    assert gt.build(tmp_path / "web.graph", tmp_path / "web.gt").n_vertices == 50


def test_existing_store_is_replaced_only_with_overwrite(tmp_path, edges_txt, capsys):
    store = tmp_path / "g.gt"
    gt.build(np.array([[0, 1]]), store)
    with pytest.raises(StoreExistsError, match="overwrite=True"):
        gt.build(edges_txt, store)
    code, err = run(capsys, "convert", edges_txt, store)
    assert code == 4 and "already exists" in err and "--overwrite" in err and "overwrite=True" not in err
    assert gt.open(store).n_edges == 1
    assert run(capsys, "convert", edges_txt, store, "--overwrite")[0] == 0
    assert gt.open(store).n_edges > 1 and sorted(os.listdir(tmp_path)) == ["g.gt", "k8.txt"]


def test_symlink_to_a_store_replaces_that_store(tmp_path, edges_txt):
    store = tmp_path / "real.gt"
    gt.build(np.array([[0, 1]]), store)
    (tmp_path / "link.gt").symlink_to(store)
    gt.build(edges_txt, tmp_path / "link.gt", overwrite=True)
    assert (tmp_path / "link.gt").is_symlink() and gt.open(store).n_edges > 1
    (tmp_path / "elsewhere").symlink_to(plain_dir(tmp_path / "plain"))
    with pytest.raises(DestinationError, match="symbolic link"):
        gt.build(edges_txt, tmp_path / "elsewhere", overwrite=True)
    assert os.listdir(tmp_path / "plain") == ["notes.txt"]


def test_recode(tmp_path, edges_txt, capsys):
    src, dst = tmp_path / "src.gt", tmp_path / "dst.gt"
    g = gt.build(edges_txt, src)
    with pytest.raises(DestinationError, match="is the input"):
        gt.recode(src, src, format="log", overwrite=True)
    code, err = run(capsys, "recode", src, src, "--format", "log", "--overwrite")
    assert code == 4 and "is the input" in err
    with pytest.raises(DestinationError, match="lies inside the input"):
        gt.recode(src, src / "sub.gt", overwrite=True)
    assert gt.open(src).format == "csr" and gt.open(src).n_edges == g.n_edges
    plain = plain_dir(dst)
    assert run(capsys, "recode", src, plain, "--overwrite")[0] == 4 and os.listdir(plain) == ["notes.txt"]
    (plain / "notes.txt").unlink()
    plain.rmdir()
    gt.build(np.array([[0, 1]]), dst)
    code, err = run(capsys, "recode", src, dst, "--format", "log")
    assert code == 4 and "--overwrite" in err
    assert run(capsys, "recode", src, dst, "--format", "log", "--overwrite")[0] == 0
    assert gt.open(dst).format == "log" and gt.open(dst).n_edges == g.n_edges


def test_zip_targets(tmp_path, edges_txt):
    store = tmp_path / "g.zip"
    gt.build(np.array([[0, 1]]), store)
    gt.build(edges_txt, store, overwrite=True)
    assert gt.open(store).n_edges > 1
    other = tmp_path / "other.zip"
    with zipfile.ZipFile(other, "w") as zf:
        zf.writestr("photo.jpg", b"\xff\xd8")
    with pytest.raises(DestinationError, match="a zip file without a readable zarr.json"):
        gt.build(edges_txt, other, overwrite=True)
    with zipfile.ZipFile(other) as zf:
        assert zf.namelist() == ["photo.jpg"]
    (tmp_path / "text.zip").write_text("hello")
    with pytest.raises(DestinationError, match="not a zip archive"):
        gt.build(edges_txt, tmp_path / "text.zip", overwrite=True)
    assert (tmp_path / "text.zip").read_text() == "hello"


def test_url_targets(edges_txt):
    base = f"memory://graphtier-overwrite-{os.getpid()}"
    gt.build(np.array([[0, 1]]), f"{base}/g.gt")
    gt.build(edges_txt, f"{base}/g.gt", overwrite=True)
    assert gt.open(f"{base}/g.gt").n_edges > 1
    gt.recode(f"{base}/g.gt", f"{base}/g-log.gt", format="log")
    with pytest.raises(DestinationError, match="is the input"):
        gt.recode(f"{base}/g.gt", f"{base}/g.gt", overwrite=True)
    import fsspec

    fs = fsspec.filesystem("memory")
    fs.pipe(f"/graphtier-overwrite-{os.getpid()}/plain/notes.txt", b"keep me")
    with pytest.raises(DestinationError, match="a directory without"):
        gt.build(edges_txt, f"{base}/plain", overwrite=True)
    assert fs.cat(f"/graphtier-overwrite-{os.getpid()}/plain/notes.txt") == b"keep me"
    fs.rm(f"/graphtier-overwrite-{os.getpid()}", recursive=True)


def test_missing_input_is_bad_input(tmp_path, capsys):
    code, err = run(capsys, "convert", tmp_path / "missing.txt", tmp_path / "out.gt")
    assert code == 3 and "missing.txt" in err
    code, err = run(capsys, "info", tmp_path / "missing.gt")
    assert code == 4 and "missing.gt" in err
    assert not os.listdir(tmp_path)
