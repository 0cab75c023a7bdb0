"""Write edges as a text edge list quickly, for generators and benchmarks that need big inputs."""

from __future__ import annotations

import os

import numpy as np
from numba import njit


@njit(cache=True)
def _format(edges, out):
    """Decimal ``src dst\\n`` lines into ``out``; returns the bytes used."""
    n = 0
    digits = np.empty(20, np.uint8)
    for i in range(edges.shape[0]):
        for j in range(2):
            x = edges[i, j]
            k = 0
            while True:
                digits[k] = 48 + x % 10
                x //= 10
                k += 1
                if x == 0:
                    break
            while k > 0:
                k -= 1
                out[n] = digits[k]
                n += 1
            out[n] = 32 if j == 0 else 10
            n += 1
    return n


def write_text_edges(path: str | os.PathLike, edges: np.ndarray, *, block: int = 1 << 22) -> None:
    """One ``src dst`` line per row of an (E, 2) non-negative integer array."""
    edges = np.asarray(edges)
    if edges.ndim != 2 or edges.shape[1] != 2 or (len(edges) and edges.min() < 0):
        raise ValueError("expected an (E, 2) array of non-negative ids")
    with open(path, "wb") as f:
        for i in range(0, len(edges), block):
            part = np.ascontiguousarray(edges[i : i + block], np.uint64)
            buf = np.empty(len(part) * 42, np.uint8)
            f.write(buf[: _format(part, buf)].tobytes())
