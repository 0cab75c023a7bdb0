"""The CPU operators, compiled per functor, are found on disk by the next process
(``kernels/cpu/jit.py``): a second process running the same query compiles none of them; and what
keys a compiled operator tells apart what compiles differently."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np

import graphtier as gt
from graphtier.kernels.cpu import jit
from graphtier.kernels.cpu import operators as ops

QUERY = """
import gc, json, sys
import graphtier as gt
from numba.core.dispatcher import Dispatcher
g = gt.open(sys.argv[1])
gt.bfs(g, 0, direction="push", device="cpu")
operators = [d for d in gc.get_objects() if isinstance(d, Dispatcher) and d.py_func.__module__ == "graphtier.kernels.cpu.operators"]
print(json.dumps({"hits": sum(sum(d.stats.cache_hits.values()) for d in operators), "misses": sum(sum(d.stats.cache_misses.values()) for d in operators)}))
"""


def test_a_second_process_compiles_no_operator(tmp_path):
    g = gt.build(gt.generators.kronecker(8, seed=1), tmp_path / "k.gt", symmetrize=True, progress=False)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    runs = [json.loads(subprocess.run([sys.executable, "-c", QUERY, g.location], env=env, capture_output=True, text=True, check=True).stdout) for _ in range(2)]
    assert runs[0]["misses"] > 0 and runs[0]["hits"] == 0, runs
    assert runs[1] == {"hits": runs[0]["misses"], "misses": 0}, runs


def test_keys_tell_apart_what_compiles_differently():
    """Alike for the same operator, functor and options; apart for another functor or option, for
    a constant of another type; and never found again for what has no stable description."""
    from graphtier.algorithms.bfs import VISIT
    from graphtier.algorithms.sssp import RELAX
    from graphtier.kernels.cpu.csr import csr_neighbors

    def key(functor, weighted=False, dedup=False):
        return jit._cells(ops.advance_kernel(csr_neighbors, None, functor.fn, weighted, dedup).py_func)

    assert key(VISIT) == key(VISIT) and key(VISIT) != key(RELAX)
    assert len({key(VISIT, weighted, dedup) for weighted in (False, True) for dedup in (False, True)}) == 4
    assert jit._key(np.float32(1)) != jit._key(np.float64(1)) and jit._key(object())[0] == "unkeyed"
