"""The command line as a person or a script uses it: outputs, JSON and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import graphtier as gt
from graphtier.cli import main


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(map(str, argv)))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_generate_convert_info_bfs(tmp_path, capsys):
    edges = tmp_path / "g.txt"
    assert run(capsys, "generate", "kronecker", "--scale", 10, "-o", edges)[0] == 0
    store = tmp_path / "g.gt"
    code, out, _ = run(capsys, "convert", edges, store, "--symmetrize", "--reverse", "--json")
    assert code == 0 and json.loads(out)["n_edges"] > 0
    code, out, _ = run(capsys, "info", store, "--json")
    info = json.loads(out)
    assert code == 0 and set(info["bits_per_edge"]) == {"payload", "index", "indptr", "total"}
    code, out, _ = run(capsys, "info", store)
    assert "bits/edge" in out
    source = int(np.loadtxt(edges, max_rows=1, dtype=np.int64)[0])
    dist = tmp_path / "d.npy"
    code, out, _ = run(capsys, "bfs", store, "--source", source, "--out", dist, "--json")
    result = json.loads(out)
    assert code == 0 and result["reached"] == int((np.load(dist) >= 0).sum())


def test_exit_codes(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text("# header\n1 2\n3\n")
    code, _, err = run(capsys, "convert", bad, tmp_path / "x.gt")
    assert code == 3 and "bad.txt:3" in err
    code, _, err = run(capsys, "info", tmp_path / "missing.gt")
    assert code == 4 and "missing.gt" in err
    good = tmp_path / "good.txt"
    good.write_text("0 1\n")
    assert run(capsys, "convert", good, tmp_path / "g.gt")[0] == 0
    code, _, err = run(capsys, "convert", good, tmp_path / "g.gt")
    assert code == 4 and "already exists" in err
    code, _, err = run(capsys, "bfs", tmp_path / "g.gt", "--source", 9)
    assert code == 2 and "not in the graph" in err
    with pytest.raises(SystemExit) as e:
        main(["bfs"])
    assert e.value.code == 2


def test_demo_json(capsys):
    code, out, _ = run(capsys, "demo", "--scale", 12, "--json")
    result = json.loads(out)
    assert code == 0 and result["bfs_reached"] > 0.3 * result["vertices"] and result["bfs_levels"] > 2


def test_console_script_help():
    out = subprocess.run([sys.executable, "-m", "graphtier.cli", "--help"], capture_output=True, text=True, check=True)
    for command in ("generate", "convert", "info", "bfs", "demo"):
        assert command in out.stdout


def test_bfs_on_cuda_without_a_gpu_exits_2(tmp_path, monkeypatch, capsys):
    from graphtier.engine import backend

    monkeypatch.setattr(backend, "unavailable", lambda: "cupy is not installed")
    gt.build(np.array([[0, 1]]), tmp_path / "g.gt")
    assert main(["bfs", str(tmp_path / "g.gt"), "--source", "0", "--device", "cuda"]) == 2
    assert "device='cuda' but cupy is not installed" in capsys.readouterr().err
