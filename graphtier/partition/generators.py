"""Deterministic synthetic graphs for tests and benchmarks.

Each generator returns an ``(E, 2)`` int64 array of directed ``(src, dst)`` edges, duplicates and
self-loops included as generated: the build removes them on request, so what it reports removing
matches the published recipes (BENCHMARKS.md).
"""

from __future__ import annotations

import numbers
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np

_PIECE_EDGES = 1 << 20  # edges per independently seeded random stream: the unit of parallel work
_BLOCK_EDGES = 1 << 12  # edges per draw of random bits: keeps them in cache and temporaries small


def kronecker(
    scale: int,
    edge_factor: int = 16,
    seed: int = 0,
    *,
    a: float = 0.57,
    b: float = 0.19,
    c: float = 0.19,
) -> np.ndarray:
    """The Graph500 Kronecker graph: ``edge_factor * 2**scale`` edges on ``2**scale`` vertices.

    Follows the Graph500 reference generator (``kronecker_generator.m``): at each bit level the
    source bit is 1 with probability ``c + d`` and the target bit is chosen given it, so the edge
    falls in quadrant A, B, C or D with probability a, b, c, d = 1 - a - b - c. Then the vertex
    labels are randomly permuted and the edge order shuffled. Everything derives from
    ``Generator(PCG64(seed))``: the master stream draws the permutations, and pieces of
    ``_PIECE_EDGES`` edges draw their bits from child streams spawned from the same seed, in
    parallel threads, so the result does not depend on the thread count. The edge shuffle is
    numpy's serial in-place one: about half the time at scale 23, and no extra memory.
    """
    _check_int("scale", scale, 1, 40)
    _check_int("edge_factor", edge_factor, 1)
    _check_int("seed", seed, 0)
    if not (a > 0 and b >= 0 and c >= 0 and a + b + c < 1):
        raise ValueError(f"kronecker needs a > 0, b >= 0, c >= 0 and a + b + c < 1 (d = 1 - a - b - c > 0), got a={a}, b={b}, c={c}")
    n_vertices, n_edges = 1 << scale, edge_factor << scale
    # The reference draws rand() > p; with 32-bit uniforms u: u > p <=> u * 2**32 > floor(p * 2**32)
    t_ab, t_a, t_c = (np.uint64(int(p * 2**32)) for p in (a + b, a / (a + b), c / (1 - a - b)))

    seq = np.random.SeedSequence(seed)
    rng = np.random.Generator(np.random.PCG64(seq))
    perm = rng.permutation(n_vertices)
    edges = np.empty((n_edges, 2), dtype=np.int64)
    starts = range(0, n_edges, _PIECE_EDGES)

    def fill(start: int, child: np.random.SeedSequence) -> None:
        bits = np.random.PCG64(child)
        for begin in range(start, min(start + _PIECE_EDGES, n_edges), _BLOCK_EDGES):
            block = edges[begin : begin + _BLOCK_EDGES]
            raw = bits.random_raw(scale * len(block)).reshape(scale, len(block))
            _kronecker_block(raw, t_ab, t_a, t_c, perm, block)

    with ThreadPoolExecutor(numba.get_num_threads()) as pool:
        list(pool.map(fill, starts, seq.spawn(len(starts))))
    rng.shuffle(edges.view(np.complex128).reshape(-1))  # whole rows, through numpy's fast 1-D path
    return edges


@numba.njit(nogil=True, cache=True)
def _kronecker_block(raw, t_ab, t_a, t_c, perm, out):
    """One uint64 per level and edge: the high 32 bits pick the source bit, the low 32 the target's.

    Level-major and branch-free (a select by mask), so the inner loop vectorizes.
    """
    scale, n = raw.shape
    src = np.zeros(n, np.uint64)
    dst = np.zeros(n, np.uint64)
    flip = t_a ^ t_c
    for level in range(scale):
        for i in range(n):
            r = raw[level, i]
            src_bit = np.uint64((r >> np.uint64(32)) > t_ab)
            threshold = t_a ^ (flip & (np.uint64(0) - src_bit))  # t_c where src_bit, else t_a
            dst_bit = np.uint64((r & np.uint64(0xFFFFFFFF)) > threshold)
            src[i] |= src_bit << np.uint64(level)
            dst[i] |= dst_bit << np.uint64(level)
    for i in range(n):
        out[i, 0] = perm[src[i]]
        out[i, 1] = perm[dst[i]]


def urand(scale: int, edge_factor: int = 16, seed: int = 0) -> np.ndarray:
    """GAP's uniform random graph: ``edge_factor * 2**scale`` edges, endpoints uniform in the
    ``2**scale`` vertices.

    The low-skew, low-locality counterpart of ``kronecker`` at the same size.
    """
    _check_int("scale", scale, 1, 40)
    _check_int("edge_factor", edge_factor, 1)
    _check_int("seed", seed, 0)
    rng = np.random.Generator(np.random.PCG64(seed))
    return rng.integers(0, 1 << scale, size=(edge_factor << scale, 2), dtype=np.int64)


def grid(rows: int, cols: int | None = None) -> np.ndarray:
    """A ``rows x cols`` 4-neighbour grid, both directions of every edge; vertex ``r * cols + c``.

    Road-like: bounded degree and a diameter of ``rows + cols - 2``, the case where a BFS runs many
    thin levels.
    """
    cols = rows if cols is None else cols
    _check_int("rows", rows, 1)
    _check_int("cols", cols, 1)
    ids = np.arange(rows * cols, dtype=np.int64).reshape(rows, cols)
    pairs = [(ids[:, :-1], ids[:, 1:]), (ids[:-1, :], ids[1:, :])]  # right and down neighbours
    src = np.concatenate([x.ravel() for p, q in pairs for x in (p, q)])
    dst = np.concatenate([x.ravel() for p, q in pairs for x in (q, p)])
    return np.stack([src, dst], axis=1)


def _check_int(name: str, value: object, low: int, high: int | None = None) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low or (high is not None and value > high):
        bounds = f"in [{low}, {high}]" if high is not None else f">= {low}"
        raise ValueError(f"{name} must be an integer {bounds}, got {value!r}")
