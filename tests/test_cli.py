"""The command line as a person or a script uses it: outputs, JSON and exit codes."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

import graphtier as gt
from graphtier import __main__ as launcher
from graphtier import cli
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
    assert len(result["iterations"]) == result["levels"] and "per_level" not in result


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


def test_the_command_exits_through_console(tmp_path):
    """The installed command, ``python -m graphtier`` and ``python -m graphtier.cli`` all run
    ``cli.console``: its output whole, exit handlers run (a split run's parts are stopped by one),
    then a quick exit with main's code."""
    scripts = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())["project"]["scripts"]
    module, name = scripts["graphtier"].split(":")
    assert getattr(importlib.import_module(module), name) is launcher.console
    store, mark = tmp_path / "g.gt", tmp_path / "handler-ran"
    gt.build(gt.generators.kronecker(8, seed=1), store, progress=False)
    code = f"import atexit, pathlib; atexit.register(pathlib.Path({str(mark)!r}).touch); from graphtier.cli import console; console()"
    done = subprocess.run([sys.executable, "-c", code, "info", str(store), "--json"], check=False, capture_output=True, text=True)
    assert done.returncode == 0 and json.loads(done.stdout)["n_vertices"] == 256 and mark.exists(), done.stderr
    done = subprocess.run([sys.executable, "-c", code, "info", str(tmp_path / "missing.gt")], check=False, capture_output=True, text=True)
    assert done.returncode == cli.EXIT_STORE and done.stderr.startswith("graphtier: "), done.stderr
    done = subprocess.run([sys.executable, "-m", "graphtier", "info", str(store), "--json"], check=False, capture_output=True, text=True)
    assert done.returncode == 0 and json.loads(done.stdout)["n_vertices"] == 256, done.stderr


@pytest.mark.parametrize(
    ("argv", "cpu"),
    [(["bfs", "g.gt", "--device", "cpu"], True), (["bfs", "g.gt", "--device=cpu"], True), (["bfs", "g.gt"], False), (["bfs", "g.gt", "--device", "cuda"], False), (["info", "cpu"], False)],
)
def test_the_command_starts_the_driver_unless_told_the_cpu(argv, cpu):
    assert launcher.on_cpu(argv) is cpu


def test_starting_the_driver_never_fails():
    """On a machine without CUDA's driver (this one, on CI) as on one with it."""
    launcher.start_driver()
    launcher.start_driver(context=True)


def test_a_query_on_the_default_device_starts_its_context():
    """The launcher's list of queries is the command line's algorithm commands (those with --devices)."""
    commands = cli._parser()._subparsers._group_actions[0].choices
    assert launcher.QUERIES == {name for name, sp in commands.items() if any("--devices" in a.option_strings for a in sp._actions)}
    assert launcher.default_device_query(["bfs", "g.gt", "--source", "0"])
    assert not launcher.default_device_query(["bfs", "g.gt", "--devices", "2"]) and not launcher.default_device_query(["bfs", "g.gt", "--devices=0,1"])
    assert not launcher.default_device_query(["convert", "e.txt", "g.gt"]) and not launcher.default_device_query([])


def test_output_reader_gone_away_is_no_traceback(tmp_path):
    """`graphtier info STORE | head`, with the reader gone before anything is written."""
    store = tmp_path / "g.gt"
    gt.build(gt.generators.kronecker(6, seed=1), store, progress=False)
    proc = subprocess.Popen([sys.executable, "-m", "graphtier.cli", "info", str(store)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait() == 141 and "Traceback" not in err and "Exception ignored" not in err, err


def test_bfs_on_cuda_without_a_gpu_exits_2(tmp_path, monkeypatch, capsys):
    from graphtier.runtime import config as backend

    monkeypatch.setattr(backend, "unavailable", lambda: "cupy is not installed")
    gt.build(np.array([[0, 1]]), tmp_path / "g.gt")
    assert main(["bfs", str(tmp_path / "g.gt"), "--source", "0", "--device", "cuda"]) == 2
    assert "device='cuda' but cupy is not installed" in capsys.readouterr().err


# Budgets under which the tiering scheduler streams a kron12 store of 13 chunks of 4096 edges:
# the vertex state and a few chunks fit the "device", a few more the host.
BUDGETS = ("--device", "cpu", "--device-memory", "400kB", "--host-memory", "100kB")


@pytest.fixture(scope="module")
def streamed(tmp_path_factory) -> tuple[Path, int]:
    """A small store that does not fit BUDGETS, and its best-connected vertex."""
    edges = gt.generators.kronecker(12, edge_factor=8, seed=1)
    store = tmp_path_factory.mktemp("cli") / "k12.gt"
    g = gt.build(edges, store, symmetrize=True, drop_self_loops=True, chunk_edges=4096, progress=False)
    return store, int(np.argmax(np.diff(g.indptr())))


def test_bfs_stats_table_under_budgets(streamed, capsys):
    store, source = streamed
    code, out, _ = run(capsys, "bfs", store, "--source", source, *BUDGETS, "--stats")
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith(f"BFS from {source}") and "frontier" in lines[1] and "MB h2d" in lines[1]
    levels = int(lines[0].split(" levels")[0].rsplit(" ", 1)[1])
    assert len(lines) == 1 + 1 + levels + 1 and lines[-1].startswith("total:") and "of 0.40" in lines[-1]


def test_bfs_stats_json(streamed, tmp_path, capsys):
    store, source = streamed
    path = tmp_path / "stats.json"
    code, out, _ = run(capsys, "bfs", store, "--source", source, *BUDGETS, "--stats-json", path, "--json")
    stats = json.loads(path.read_text())
    assert code == 0 and json.loads(out)["iterations"] == stats["iterations"]
    keys = {"bytes_store_read", "bytes_host_to_device", "bytes_zero_copy", "device_peak_bytes", "host_peak_bytes", "iterations"}
    assert keys <= set(stats) and stats["device_memory"] == 400_000 and stats["host_memory"] == 100_000
    assert stats["device_misses"] + stats["host_misses"] > 0 and stats["rounds"] > stats["levels"]  # it streamed
    assert 0 < stats["device_peak_bytes"] <= 400_000 and 0 < stats["host_peak_bytes"] <= 100_000
    assert [p.name for p in tmp_path.iterdir()] == ["stats.json"]  # no temporary file left


def test_bfs_bad_memory_size_exits_2(streamed, capsys):
    store, source = streamed
    with pytest.raises(SystemExit) as e:
        main(["bfs", str(store), "--source", str(source), "--device-memory", "lots"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "--device-memory" in err and "'lots'" in err


def test_plot(streamed, tmp_path, capsys):
    """``--plot`` draws a run's timeline; ``graphtier plot`` draws one from ``--stats-json`` (as
    written, or a list of results holding "stats", the benchmarks' layout) and a store's picture;
    input that is neither is refused with a message, the PNG not written."""
    pytest.importorskip("matplotlib")
    store, source = streamed
    stats, drawn = tmp_path / "stats.json", tmp_path / "run.png"
    assert run(capsys, "bfs", store, "--source", source, *BUDGETS, "--stats-json", stats, "--plot", drawn)[0] == 0
    wrapped = tmp_path / "results.json"
    wrapped.write_text(json.dumps([{"stats": json.loads(stats.read_text())}]))
    pngs = [drawn]
    for i, src in enumerate((stats, wrapped, store)):
        png = tmp_path / f"{i}.png"
        code, out, _ = run(capsys, "plot", src, "-o", png, "--json")
        assert code == 0 and json.loads(out)["output"] == str(png)
        pngs.append(png)
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and p.stat().st_size > 1000 for p in pngs)
    bad = tmp_path / "bad.json"
    bad.write_text('{"rows": []}')
    code, _, err = run(capsys, "plot", bad, "-o", tmp_path / "bad.png")
    assert code == 2 and "bad.json" in err and "--stats-json" in err and not (tmp_path / "bad.png").exists()


def test_mis_and_color(streamed, tmp_path, capsys):
    """Both read the graph as undirected: the set's and the colouring's JSON, --out as .npy and
    .parquet, text with the seed drawn, and a directed store without its reverse refused (exit 2)."""
    store, _ = streamed
    members = tmp_path / "m.npy"
    code, out, _ = run(capsys, "mis", store, "--seed", 3, "--device", "cpu", "--out", members, "--json")
    result = json.loads(out)
    assert code == 0 and result["seed"] == 3 and result["size"] == int(np.load(members).sum()) > 0
    colors = tmp_path / "c.parquet"
    code, out, _ = run(capsys, "color", store, "--seed", 3, *BUDGETS, "--out", colors, "--json")
    result = json.loads(out)
    table = pytest.importorskip("pyarrow.parquet").read_table(colors)
    assert code == 0 and table.column_names == ["vertex", "color"] and result["n_colors"] == max(table.column("color").to_pylist()) + 1
    code, out, _ = run(capsys, "color", store, "--device", "cpu")
    assert code == 0 and " vertices, largest degree first (seed " in out
    gt.build(np.array([[0, 1]]), tmp_path / "d.gt", progress=False)
    code, _, err = run(capsys, "mis", tmp_path / "d.gt", "--device", "cpu")
    assert code == 2 and "d.gt is directed without its reverse graph" in err and "symmetrize=True" in err
    code, _, err = run(capsys, "mis", store, "--seed", -1, "--device", "cpu")
    assert code == 2 and "seed must be in" in err


def test_bfs_split_over_devices(streamed, tmp_path, capsys):
    """``--devices 2``: the same distances as one device, each part's statistics; an algorithm that
    does not split, or devices named twice, exit 2 with the reason."""
    store, source = streamed
    one, two = tmp_path / "one.npy", tmp_path / "two.npy"
    assert run(capsys, "bfs", store, "--source", source, "--device", "cpu", "--out", one)[0] == 0
    stats = tmp_path / "stats.json"
    code, _, _ = run(capsys, "bfs", store, "--source", source, "--devices", "2", *BUDGETS, "--out", two, "--stats-json", stats)
    assert code == 0 and len(json.loads(stats.read_text())["parts"]) == 2
    np.testing.assert_array_equal(np.load(two), np.load(one))
    code, _, err = run(capsys, "cc", store, "--device", "cpu", "--devices", "2")
    assert code == 2 and "does not run split over several devices" in err
    with pytest.raises(SystemExit) as e:
        main(["bfs", str(store), "--source", str(source), "--devices", "0,0"])
    assert e.value.code == 2 and "--devices" in capsys.readouterr().err


def test_layered_and_approximate_stores(tmp_path, capsys):
    edges = tmp_path / "g.txt"
    run(capsys, "generate", "grid", "--rows", 12, "--cols", 9, "-o", edges)
    layered = tmp_path / "l.gt"
    assert run(capsys, "convert", edges, layered, "--order", "layered", "--root", 0)[0] == 0
    code, out, _ = run(capsys, "info", layered)
    assert code == 0 and "layered      20 layers from root 0 (108 vertices reached)" in out
    code, out, _ = run(capsys, "bfs", layered, "--source", 0, "--device", "cpu")
    assert code == 0 and "by layers" in out
    code, out, _ = run(capsys, "sssp", layered, "--source", 5, "--device", "cpu", "--json")
    assert code == 0 and json.loads(out)["traversal"] == "frontier (source 5 is not the layered store's root 0)"
    approx = tmp_path / "a.gt"
    code, out, _ = run(capsys, "approximate", layered, approx, "--threshold", 0.6, "--json")
    made = json.loads(out)["approximation"]
    assert code == 0 and made["transform"] == "divergence" and made["knobs"]["threshold"] == 0.6 and made["source"] == str(layered)
    code, out, _ = run(capsys, "info", approx)
    assert f"approximate  divergence of {layered} (threshold 0.6, share 0.85, warp 32), {made['added_edges']:,} edges added" in out
    coalesced = tmp_path / "c.gt"
    code, out, _ = run(capsys, "approximate", layered, coalesced, "--transform", "coalesce", "--k", 8, "--threshold", 0.3)
    facts = gt.open(coalesced).attrs["approximation"]
    assert code == 0 and f"coalesce of {layered} (k 8, threshold 0.3): {facts['added_edges']:,} edges added, {facts['replicas']:,} replicas in " in out
    code, _, err = run(capsys, "approximate", layered, tmp_path / "w.gt", "--transform", "coalesce", "--warp", 16)
    assert code == 2 and "--warp: not a knob of coalesce, which takes --k, --threshold" in err and not (tmp_path / "w.gt").exists()
    clustered = tmp_path / "s.gt"  # a grid has no triangles: every vertex is 0.5 under the threshold
    code, out, _ = run(capsys, "approximate", layered, clustered, "--transform", "latency", "--threshold", 0.5, "--slack", 0.5, "--limit", 0.2)
    facts = gt.open(clustered).attrs["approximation"]
    assert code == 0 and facts["knobs"] == {"threshold": 0.5, "slack": 0.5, "limit": 0.2, "size": 32} and 0 < facts["added_edges"] and facts["clusters"] > 0
    assert f"latency of {layered} (threshold 0.5, slack 0.5, limit 0.2, size 32): {facts['added_edges']:,} edges added (sibling pairs, each both ways), {facts['clusters']:,} clusters in " in out
    code, out, _ = run(capsys, "info", clustered)
    assert code == 0 and f"{facts['clusters']:,} clusters" in out
    code, _, err = run(capsys, "approximate", layered, tmp_path / "k.gt", "--transform", "latency", "--k", 8)
    assert code == 2 and "--k: not a knob of latency, which takes --threshold, --slack, --limit, --size" in err
