"""Every CUDA source compiles for the GPU machines' architecture (sm_90) with nvcc, as NVRTC will
see it: one unit, its headers inlined and the registry's headers generated
(kernels/cuda/sources.py), every kernel of every functor instantiated for every decoder. Needs no
GPU; skipped where nvcc is not installed."""

from __future__ import annotations

import re
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
            params = kernel_params((tmp_path / cu.name).with_suffix(".ptx").read_text())
            odd = [f"{kernel}: {p}" for kernel, p in params if not re.fullmatch(r"\.param\s+\.[usbf]64\s+\S+", p)]
            assert params and not odd, f"{cu.relative_to(PACKAGE)}: kernel parameters that are not one 8-byte word, as the launcher packs them: {odd[:3]}"


def kernel_params(ptx: str) -> list[tuple[str, str]]:
    """(kernel, parameter declaration) of every kernel entry of a PTX file."""
    entries = re.findall(r"\.entry\s+(\S+)\(\s*(.*?)\)", ptx, re.DOTALL)
    return [(name, p.strip()) for name, params in entries for p in params.split(",") if p.strip()]


def test_kernel_params_are_read_from_ptx():
    ptx = ".visible .entry k(\n\t.param .u64 k_param_0,\n\t.param .u32 k_param_1\n)\n{ .param .b64 param0; }"
    assert kernel_params(ptx) == [("k", ".param .u64 k_param_0"), ("k", ".param .u32 k_param_1")]
