"""benchmarks/emogi.py without a GPU: the .bel files it writes, and how it calls an EMOGI program
and reads what it prints (a stand-in script that prints as EMOGI's printf calls do)."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

spec = importlib.util.spec_from_file_location("emogi", Path(__file__).resolve().parents[1] / "benchmarks" / "emogi.py")
emogi = importlib.util.module_from_spec(spec)
spec.loader.exec_module(emogi)


def test_write_bel_layout(tmp_path):
    indptr, indices, weights = np.array([0, 2, 3, 3]), np.array([1, 2, 0]), np.array([5.0, 63.0, 1.0])
    emogi.write_bel(tmp_path / "g.bel", indptr, indices, weights)
    for suffix, values, dtype in ((".col", indptr, np.uint64), (".dst", indices, np.uint64), (".val", weights, np.uint32)):
        raw = (tmp_path / f"g.bel{suffix}").read_bytes()
        assert np.frombuffer(raw[:16], np.uint64).tolist() == [len(values), 0]
        assert np.frombuffer(raw[16:], dtype).tolist() == values.tolist()
    with pytest.raises(ValueError, match="uint32"):
        emogi.write_bel(tmp_path / "h.bel", indptr, indices, [1.5, 2.0, 3.0])
    with pytest.raises(ValueError, match="uint64"):
        emogi.write_bel(tmp_path / "h.bel", indptr, np.array([1, -2, 0]))


def fake_program(tmp_path, printed: str) -> Path:
    exe = tmp_path / "fake"
    exe.write_text(f'#!/bin/sh\necho "$@" > {tmp_path}/args\ncat <<"EOF"\n{printed}\nEOF\n')
    exe.chmod(0o755)
    return exe


def test_run_reads_a_source_run(tmp_path):
    printed = f"g.bel\nVertex: 3, Edge: 3, Weight: 3\nrun {0:3d}: src {5:12d}, iteration {7:3d}, time {1.5:12f} ms\nAverage run time {1.5:f} ms"
    exe = fake_program(tmp_path, printed)
    assert emogi.run(exe, tmp_path / "g.bel", algorithm="sssp", source=5) == {"ms": 1.5, "iterations": 7}
    assert (tmp_path / "args").read_text().split() == ["-f", str(tmp_path / "g.bel"), "-t", "2", "-m", "0", "-r", "5"]
    with pytest.raises(RuntimeError, match="another source"):
        emogi.run(exe, tmp_path / "g.bel", algorithm="bfs", source=6)


def test_run_reads_cc_and_shows_what_it_could_not_read(tmp_path):
    exe = fake_program(tmp_path, f"total iterations: 4\ntotal components: 2\ntotal time: {0.25:f} ms")
    assert emogi.run(exe, tmp_path / "g.bel", algorithm="cc") == {"ms": 0.25, "iterations": 4, "components": 2}
    exe = fake_program(tmp_path, "4-byte edge PageRank\n\t-f | input file name (must end with .bel)")
    with pytest.raises(RuntimeError, match=r"(?s)\['ms', 'iterations'\].*4-byte edge PageRank"):
        emogi.run(exe, tmp_path / "g.bel", algorithm="pagerank")
