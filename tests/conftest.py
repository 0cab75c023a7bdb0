"""Shared fixtures: the datasets beside the repository and an independent BFS oracle."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import shortest_path

SHARED = Path(__file__).resolve().parents[2] / "shared"
CNR = SHARED / "datasets" / "cnr-2000"


@pytest.fixture(scope="session")
def cnr_csr() -> tuple[np.ndarray, np.ndarray]:
    """cnr-2000 as (indptr, indices), or a skip when ../shared is not beside the checkout."""
    path = CNR / "cnr-2000-csr.npz"
    if not path.exists():
        pytest.skip(f"dataset not found: {path}")
    z = np.load(path)
    return z["indptr"].astype(np.int64), z["indices"]


def csr_to_edges(indptr: np.ndarray, indices: np.ndarray) -> np.ndarray:
    src = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    return np.stack([src, indices.astype(np.int64)], axis=1)


def reference_csr(edges: np.ndarray, n: int, *, symmetrize: bool = False, drop_self_loops: bool = False) -> sp.csr_matrix:
    """The graph a build should store, made independently with scipy."""
    e = np.asarray(edges, np.int64)
    if symmetrize:
        e = np.concatenate([e, e[:, ::-1]])
    if drop_self_loops:
        e = e[e[:, 0] != e[:, 1]]
    m = sp.csr_matrix((np.ones(len(e)), (e[:, 0], e[:, 1])), shape=(n, n))
    m.sum_duplicates()
    m.data[:] = 1
    return m


def oracle_distances(m: sp.csr_matrix, source: int) -> np.ndarray:
    d = shortest_path(m, unweighted=True, indices=source)
    return np.where(np.isinf(d), -1, d).astype(np.int32)
