"""GPU BFS against the CPU backend and the Graph500 rules: every format the GPU reads, on
cnr-2000 and generated graphs. Skipped without cupy and a CUDA device (``pytest -m gpu``)."""

from __future__ import annotations

import numpy as np
import pytest

import graphtier as gt
from graphtier.kernels.cuda.runtime import DECODERS, unavailable

from .conftest import csr_to_edges

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(unavailable() is not None, reason=f"no GPU: {unavailable()}")]
GPU_FORMATS = sorted(DECODERS)
EVERY_DECODER = [(f, d) for f in GPU_FORMATS for d in DECODERS[f]]


def assert_same_bfs(g: gt.Graph, source: int, indptr: np.ndarray, indices: np.ndarray, direction: str = "auto", decoder: str | None = None) -> gt.BFSResult:
    gpu = gt.bfs(g, source, device="cuda", direction=direction, decoder=decoder)
    cpu = gt.bfs(g, source, device="cpu", direction=direction)
    assert gpu.stats["device"] == "cuda"
    np.testing.assert_array_equal(gpu.distances, cpu.distances)
    gt.validate_bfs_tree(indptr, indices, source, gpu.distances, gpu.parents)
    return gpu


@pytest.fixture(scope="module")
def cnr(tmp_path_factory, cnr_csr):
    indptr, indices = cnr_csr
    csr = gt.build(csr_to_edges(indptr, indices), tmp_path_factory.mktemp("cnr") / "csr.gt", reverse=True, chunk_edges=1 << 18)
    return {f: csr if f == "csr" else gt.recode(csr, tmp_path_factory.mktemp("cnr") / f"{f}.gt", format=f) for f in GPU_FORMATS}


@pytest.mark.parametrize("fmt, decoder", EVERY_DECODER)
@pytest.mark.parametrize("direction", ["push", "pull"])
def test_cnr2000(cnr, cnr_csr, fmt, decoder, direction):
    indptr, indices = cnr_csr
    for source in (100000, 0):
        r = assert_same_bfs(cnr[fmt], source, indptr, indices, direction=direction, decoder=decoder)
        assert r.reached == (325_557 if source == 100000 else 311) and r.stats["decoder"] == decoder


GENERATED = {
    "kron18": lambda: gt.generators.kronecker(18, seed=1),
    "kron19": lambda: gt.generators.kronecker(19, seed=1),
    "kron20": lambda: gt.generators.kronecker(20, seed=1),
    "urand18": lambda: gt.generators.urand(18, seed=1),
    "grid": lambda: gt.generators.grid(700, 500),
}


@pytest.fixture(scope="module", params=sorted(GENERATED))
def generated(request, tmp_path_factory):
    d = tmp_path_factory.mktemp(request.param)
    csr = gt.build(GENERATED[request.param](), d / "csr.gt", symmetrize=True, drop_self_loops=True, chunk_edges=1 << 20)
    return request.param, {f: csr if f == "csr" else gt.recode(csr, d / f"{f}.gt", format=f) for f in GPU_FORMATS}


@pytest.mark.parametrize("fmt", GPU_FORMATS)
def test_generated(generated, fmt):
    name, stores = generated
    g = stores[fmt]
    indptr, indices = g.indptr(), stores["csr"].edges()[:, 1]
    source = int(np.argmax(np.diff(indptr)))
    r = assert_same_bfs(g, source, indptr, indices)
    if name != "grid":  # a grid's frontier never grows enough to pull
        assert "pull" in {lvl["direction"] for lvl in r.stats["per_level"]}
    assert_same_bfs(g, source, indptr, indices, direction="push")


def test_unknown_decoder(cnr):
    with pytest.raises(ValueError, match="GPU decoders of 'csr'"):
        gt.bfs(cnr["csr"], 0, device="cuda", decoder="magic")
