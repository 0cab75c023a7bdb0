"""Every CUDA source compiles for the GPU machines' architecture (sm_90) with nvcc, as NVRTC will
see it: one unit, its headers inlined and the registry's headers generated
(kernels/cuda/sources.py), every kernel of every functor instantiated for every decoder. Needs no
GPU; skipped where nvcc is not installed."""

from __future__ import annotations

import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from graphtier.kernels.cuda.sources import generated, source

PACKAGE = Path(__file__).resolve().parents[1] / "graphtier"
SOURCES = sorted(PACKAGE.rglob("*.cu"))


def test_generated_headers_hold_the_registries():
    from graphtier.kernels.formats import FORMATS
    from graphtier.tiering.resident import TABLE

    made = generated()
    assert all(f"{name} = {i}" in made["registry.cuh"] for i, name in enumerate(TABLE))
    assert all(f"X({t}, A)" in made["formats.cuh"] for f in FORMATS.values() for t in f.decoders.values())


def test_every_source_compiles(tmp_path):
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("nvcc is not installed")

    def compile(cu: Path) -> tuple[Path, subprocess.CompletedProcess]:
        unit = tmp_path / cu.name
        unit.write_text(source(cu))
        # to PTX, unoptimised: the front end, where source errors are found (half the time of optimised PTX)
        return cu, subprocess.run([nvcc, "-arch=sm_90", "-std=c++17", "--ptx", "-Xcicc", "-O0", str(unit), "-o", str(unit.with_suffix(".ptx"))], capture_output=True, text=True, check=False)

    assert SOURCES, "no .cu files found"
    with ThreadPoolExecutor(2) as pool:
        for cu, done in pool.map(compile, SOURCES):
            assert done.returncode == 0, f"{cu.relative_to(PACKAGE)}:\n{done.stderr}"
