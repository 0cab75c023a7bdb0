"""benchmarks/ecl.py without a GPU or the ECL sources: the .egr files it writes, the changes it
makes to a code before building it, and how it reads what a code prints (stand-in scripts that
print as the ECL codes' printf calls do)."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

spec = importlib.util.spec_from_file_location("ecl", Path(__file__).resolve().parents[1] / "benchmarks" / "ecl.py")
ecl = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ecl)


def test_write_egr_layout(tmp_path):
    indptr, indices, weights = np.array([0, 2, 3, 3]), np.array([1, 2, 0], np.uint32), np.array([5.0, 63.0, 1.0], np.float32)
    ecl.write_egr(tmp_path / "w.egr", indptr, indices, weights, step=2)
    assert np.fromfile(tmp_path / "w.egr", np.int32).tolist() == [3, 3, 0, 2, 3, 3, 1, 2, 0, 5, 63, 1]
    ecl.write_egr(tmp_path / "u.egr", indptr, indices)
    assert np.fromfile(tmp_path / "u.egr", np.int32).tolist() == [3, 3, 0, 2, 3, 3, 1, 2, 0]
    with pytest.raises(ValueError, match="eweight"):
        ecl.write_egr(tmp_path / "h.egr", indptr, indices, [1.5, 2.0, 3.0])
    with pytest.raises(ValueError, match="nlist"):
        ecl.write_egr(tmp_path / "h.egr", indptr, np.array([1, 2**31, 0]))
    with pytest.raises(ValueError, match="one CSR graph"):
        ecl.write_egr(tmp_path / "h.egr", indptr, indices[:2])


def test_patched():
    banner = 'printf("%.1f MHz and %.1f MHz", deviceProp.clockRate * 0.001, deviceProp.memoryClockRate * 0.001);'
    assert "deviceProp." not in ecl.patched("color", banner)
    verify = "  if ((gpuMSTweight != cpuMSTweight) || (onlyGpuMST != 0)) {"
    assert ecl.patched("mst", verify).startswith('  printf("MST weight: %llu\\n", gpuMSTweight);\n  if ((gpuMSTweight')
    with pytest.raises(RuntimeError, match="weight"):
        ecl.patched("mst", banner)


def fake_program(tmp_path, printed: str, status: int = 0) -> Path:
    exe = tmp_path / "fake"
    exe.write_text(f'#!/bin/sh\necho "$@" > {tmp_path}/args\ncat <<"EOF"\n{printed}\nEOF\nexit {status}\n')
    exe.chmod(0o755)
    return exe


@pytest.mark.parametrize(
    "algorithm, printed, expected",
    [
        ("color", f"runtime:    {0.0125:.9f} s\nresult verification passed\ncolors used: 87\ncol  0: ...", {"ms": 12.5, "result": 87, "checked": True}),
        ("mis", f"compute time: {0.002:.9f} s\nelements in set: 4015 (39.2%)", {"ms": 2.0, "result": 4015, "checked": True}),
        ("mst", f"Dev+: {0.5:12.9f} s\nHost: {3.0:12.9f} s\nMST weight: 157079\nERROR: results differ!", {"ms": 500.0, "result": 157079, "checked": False}),
        ("scc", f"compute time: {0.25:.6f} s\n\nresult:\n1 SCCs of size 900\n2 SCCs of size 3\n70 SCCs of size 1\nnumber of SCCs: 73", {"ms": 250.0, "result": 73, "sizes": {900: 1, 3: 2, 1: 70}}),
    ],
    ids=["color", "mis", "mst", "scc"],
)
def test_run_reads_what_a_code_prints(tmp_path, algorithm, printed, expected):
    exe = fake_program(tmp_path, printed)
    assert ecl.run(exe, tmp_path / "g.egr", algorithm=algorithm) == expected
    assert (tmp_path / "args").read_text().split() == [str(tmp_path / "g.egr")]


def test_run_shows_a_failure(tmp_path):
    exe = fake_program(tmp_path, f"compute time: {0.002:.9f} s\nelements in set: 4015 (39.2%)\nERROR: set is not maximal", status=255)
    with pytest.raises(RuntimeError, match=r"(?s)exited with 255.*not maximal"):
        ecl.run(exe, tmp_path / "g.egr", algorithm="mis")
    exe = fake_program(tmp_path, "CUDA error 700: an illegal memory access was encountered")
    with pytest.raises(RuntimeError, match=r"(?s)colors used.*illegal memory access"):
        ecl.run(exe, tmp_path / "g.egr", algorithm="color")
