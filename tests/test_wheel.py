"""The package as users install it: a wheel built from this tree, installed alone into a fresh
folder and imported from there (not from the checkout), carries every CUDA source and header the
kernels are compiled from, its codecs' entry points, and its NetworkX backend, which networkx finds
through the wheel's own entry points."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A folder holding graphtier installed from its wheel (dependencies as the test environment has them)."""
    d = tmp_path_factory.mktemp("wheel")
    with open(tmp_path_factory.getbasetemp().parent / "graphtier-wheel.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one build at a time: setuptools builds in the tree's build/, which test workers share
        build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(d / "dist"), str(ROOT)], capture_output=True, text=True, check=False)
    if build.returncode != 0:
        pytest.fail(f"pip wheel failed:\n{build.stdout}{build.stderr}")
    (wheel,) = (d / "dist").glob("graphtier-*.whl")
    with zipfile.ZipFile(wheel) as z:
        z.extractall(d / "site")
    return d / "site"


def run_installed(site: Path, code: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, check=False)


def test_the_wheel_carries_every_cuda_source(installed, tmp_path):
    code = """
import pathlib, graphtier
from graphtier.kernels.cuda.sources import source
package = pathlib.Path(graphtier.__file__).parent
print(package)
units = sorted(package.rglob("*.cu"))
assert units, "no .cu files in the wheel"
for cu in units:
    assert "#include \\"" not in source(cu), cu  # every header found and inlined
print(len(units))
"""
    done = run_installed(installed, code, tmp_path)
    assert done.returncode == 0, done.stderr
    package, count = done.stdout.split()
    assert Path(package).is_relative_to(installed), "graphtier was imported from the checkout, not the wheel"
    assert int(count) == len(list((ROOT / "graphtier").rglob("*.cu")))


def test_the_wheel_registers_its_codecs(installed, tmp_path):
    code = "import numcodecs; print(type(numcodecs.get_codec({'id': 'graphtier.ef'})).__module__)"
    done = run_installed(installed, code, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "graphtier.codecs.ef"


def test_the_wheel_runs_a_query(installed, tmp_path):
    code = """
import numpy as np, graphtier as gt
g = gt.build(np.array([[0, 1], [1, 2], [2, 0], [3, 4]]), "g.gt", symmetrize=True, progress=False)
print(gt.bfs(g, 0, device="cpu").distances.tolist(), gt.__version__)
"""
    done = run_installed(installed, code, tmp_path)
    assert done.returncode == 0, done.stderr
    distances, version = done.stdout.rsplit(" ", 1)
    assert distances == "[0, 1, 1, -1, -1]"
    from graphtier import __version__

    assert version.strip() == __version__


def test_networkx_dispatches_to_the_wheel(installed, tmp_path):
    pytest.importorskip("networkx")
    code = """
import sys, networkx as nx
G = nx.karate_club_graph()
ranks = nx.pagerank(G, backend="graphtier")
expected = nx.pagerank(G)
assert max(abs(ranks[v] - expected[v]) for v in G) < 1e-6
print(sys.modules["graphtier"].__file__)
"""
    done = run_installed(installed, code, tmp_path)
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()).is_relative_to(installed), "networkx ran graphtier from the checkout, not the wheel"
