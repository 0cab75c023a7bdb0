"""Inputs that leave no edges: refused (exit 3) unless an empty graph is asked for, and then an
empty store that ``info``, ``verify`` and the algorithms describe sensibly; a missing input exits 3."""

from __future__ import annotations

import json

import numpy as np
import pytest

import graphtier as gt
from graphtier.cli import main


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize(
    "text, options, finding",
    [("", [], "the input holds no edges"), ("# only a comment\n", [], "the input holds no edges"), ("3 3\n5 5\n", ["--drop-self-loops"], "no edges are left of the 2 read (2 self-loops dropped)")],
)
def test_cli_refuses_empty_input(tmp_path, capsys, text, options, finding):
    source = tmp_path / "e.txt"
    source.write_text(text)
    code, _, err = run(capsys, "convert", source, tmp_path / "e.gt", *options)
    assert code == 3 and f"bad input: {source}: {finding} (pass --allow-empty to build an empty graph)" in err
    assert not (tmp_path / "e.gt").exists() and sorted(p.name for p in tmp_path.iterdir()) == ["e.txt"]


def test_api_refuses_empty_input(tmp_path):
    with pytest.raises(gt.EmptyGraphError, match=r"the input holds no edges \(pass allow_empty=True to build an empty graph\)"):
        gt.build(np.zeros((0, 2), np.int64), tmp_path / "e.gt")
    assert not (tmp_path / "e.gt").exists()


def test_empty_graph_when_asked(tmp_path, capsys):
    source = tmp_path / "e.txt"
    source.write_text("# nothing\n")
    store = tmp_path / "e.gt"
    code, out, _ = run(capsys, "convert", source, store, "--allow-empty")
    assert code == 0 and "n/a bits per edge" in out
    code, out, _ = run(capsys, "info", store)
    assert code == 0 and "bits/edge    n/a (no edges)" in out and "vertices     0" in out
    code, out, _ = run(capsys, "info", store, "--json")
    assert code == 0 and set(json.loads(out)["bits_per_edge"].values()) == {None}
    assert run(capsys, "verify", store)[0] == 0
    code, _, err = run(capsys, "bfs", store, "--source", 0, "--device", "cpu")
    assert code == 2 and "vertex 0 is not in the graph (it has no vertices)" in err
    g = gt.build(np.array([[4, 4]]), tmp_path / "loops.gt", drop_self_loops=True, allow_empty=True, progress=False)
    assert (g.n_vertices, g.n_edges) == (5, 0) and g.verify(progress=False).ok
    assert gt.connected_components(g, device="cpu").n_components == 5


def test_missing_input_exits_3(tmp_path, capsys):
    code, _, err = run(capsys, "convert", tmp_path / "nothere.txt", tmp_path / "x.gt")
    assert code == 3 and "bad input" in err and "nothere.txt" in err
