"""EMOGI (Min et al., "EMOGI: Efficient Memory-access for Out-of-memory Graph-traversal in GPUs",
VLDB 2021), the published out-of-memory GPU traversal baseline: build its 32-bit programs, write a
graph in its input format, run one program and read what it prints.

EMOGI's code is not part of this repository: fetch github:illinois-impact/EMOGI, extract it into a
git-ignored folder (``.peers/EMOGI``) and pass that folder to ``build``. The build compiles copies
in a scratch folder, with two changes that leave its algorithms alone: a header that adapts its
``cudaMemAdvise(..., device)`` calls to CUDA 13 (which takes a ``cudaMemLocation``), and in
pagerank_32 the host edge list under ``-m 0``, which it allocates with ``cudaMalloc`` and then
writes from the host (a crash; bfs_32 and cc_32 ``malloc`` it).

Every run uses EMOGI's best kernel, ``-t 2`` (COALESCE_CHUNK: a warp per vertex, 8 vertices a warp,
reads aligned to 128 bytes), with the column indices (and weights) either in GPU memory (``-m 0``)
or in host memory the GPU reads in place (``-m 2``, UVM_DIRECT: managed memory with the GPU's
accessed-by mapping, EMOGI's zero-copy; row offsets and vertex state stay in GPU memory). Its
times are CUDA events around the iterations only (no load, no copy). ``-i N`` would run N sources
of EMOGI's choosing (0, n/N, 2n/N, ...), so each call runs one source given with ``-r``.

What EMOGI computes differs in places from graphtier:
- sssp_32: label-correcting Bellman-Ford with uint32 weights and distances; prints no distances,
  so nothing checks them.
- bfs_32: levels; its iteration count is the deepest level + 1 (the last pass finds nothing).
- cc_32: min-label hooking; prints the number of components.
- pagerank_32: push PageRank on residuals (Galois style): a vertex pushes while its residual
  exceeds the tolerance ``-l`` (default 1e-3, on ranks that start at 1 - alpha and are not
  normalised), so later iterations touch fewer vertices; graphtier iterates power steps over every
  vertex until the L1 change is below ``n * tol``. Neither its ranks nor a residual are printed:
  compare time per iteration, not iteration counts.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import numpy as np

PROGRAMS = ("sssp_32", "cc_32", "pagerank_32", "bfs_32")
NVCC = ["nvcc", "-O3", "-gencode", "arch=compute_90,code=sm_90"]  # the H100
MEMORY = {"gpu": 0, "zerocopy": 2}  # EMOGI's GPUMEM and UVM_DIRECT
COALESCE_CHUNK = 2
PER_SOURCE = ("sssp", "bfs")

_CUDA13 = """#include <cuda_runtime.h>
#if CUDART_VERSION >= 13000
static inline cudaError_t cudaMemAdvise(const void *p, size_t n, cudaMemoryAdvise advice, int device) {
    cudaMemLocation where = {};
    where.type = cudaMemLocationTypeDevice;
    where.id = device;
    return cudaMemAdvise(p, n, advice, where);
}
#endif
"""
_FIXES = {"pagerank_32": ("checkCudaErrors(cudaMalloc((void**)&edgeList_h, edge_size));", "edgeList_h = (EdgeT*)malloc(edge_size); checkCudaErrors(cudaMalloc((void**)&edgeList_d, edge_size));")}

# What the programs print after a run. sssp_32, bfs_32: "run   0: src  N, iteration  N, time  T ms";
# pagerank_32: "iteration  N, time  T ms"; cc_32: "total iterations: N", "total components: N",
# "total time: T ms". The first match counts (sssp_32 and bfs_32 print an average after it).
PRINTED = {"iterations": r"iterations?:? +(\d+)", "ms": r"time:? +([0-9.]+) ms", "source": r"src +(\d+),", "components": r"total components: (\d+)"}


def build(src: Path, out: Path) -> dict[str, Path]:
    """Compile EMOGI's 32-bit programs from ``src`` into ``out`` (copies there; ``src`` is only
    read). Returns program name -> executable."""
    from harness import compile_peers  # here: the tests load this module alone

    units = {}
    for name in PROGRAMS:
        code = (src / f"{name}.cu").read_text()
        if name in _FIXES:
            code = code.replace(*_FIXES[name])
        units[name] = (code, src, f"EMOGI's {name}")
    return compile_peers(units, _CUDA13, out, NVCC)


def write_bel(prefix: Path, indptr, indices, weights=None) -> None:
    """Write a CSR graph as ``<prefix>.col`` (row offsets), ``.dst`` (column indices) and, with
    ``weights``, ``.val``: each a 16-byte header (u64 element count, u64 unused) and the values,
    u64 for offsets and indices (the 32-bit programs narrow them) and u32 for weights, as sssp_32
    reads them (``typedef uint32_t WeightT``). Values that do not fit their type raise."""
    if indptr[-1] != len(indices) or (weights is not None and len(weights) != len(indices)):
        raise ValueError("indptr, indices and weights do not describe one CSR graph")
    _write(Path(f"{prefix}.col"), indptr, np.uint64)
    _write(Path(f"{prefix}.dst"), indices, np.uint64)
    if weights is not None:
        _write(Path(f"{prefix}.val"), weights, np.uint32)


def _write(path: Path, values, dtype, step: int = 1 << 24) -> None:
    with open(path, "wb") as f:
        f.write(np.array([len(values), 0], np.uint64).tobytes())
        for i in range(0, len(values), step):
            part = np.asarray(values[i : i + step])
            cast = part.astype(dtype)
            if not np.array_equal(cast, part):
                raise ValueError(f"{path.name}: values that {np.dtype(dtype).name} cannot hold")
            f.write(cast.tobytes())


def run(binary: Path, bel: Path, *, algorithm: str, source: int | None = None, memory: str = "gpu", extra=(), timeout: float = 300) -> dict:
    """Run one EMOGI program on ``<bel>.col/.dst/.val``: ``algorithm`` is sssp, bfs, cc or pagerank,
    ``source`` the root (sssp and bfs only), ``memory`` "gpu" or "zerocopy". Returns what it
    printed: ``ms`` (its CUDA-event time), ``iterations`` and for cc ``components``."""
    if (algorithm in PER_SOURCE) != (source is not None):
        raise ValueError(f"EMOGI's {algorithm} takes {'a source' if algorithm in PER_SOURCE else 'no source'}")
    if memory == "zerocopy":
        _check_managed_fits(bel, algorithm)
    cmd = [str(binary), "-f", str(bel), "-t", str(COALESCE_CHUNK), "-m", str(MEMORY[memory]), *(["-r", str(source)] if source is not None else []), *map(str, extra)]
    env = {**os.environ, "CUDA_MODULE_LOADING": "EAGER"}  # no module loading inside its timed loop
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, check=False)
    except subprocess.TimeoutExpired as e:
        raise RuntimeError(f"{' '.join(cmd)} ran past {timeout} s:\n{(e.stdout or b'').decode(errors='replace')}") from None
    output = done.stdout + done.stderr
    wanted = ["ms", "iterations"] + (["source"] if source is not None else []) + (["components"] if algorithm == "cc" else [])
    found = {key: re.search(PRINTED[key], output) for key in wanted}
    missing = [key for key, m in found.items() if m is None]
    if done.returncode or missing:
        raise RuntimeError(f"{' '.join(cmd)} exited with {done.returncode}; not found in its output: {missing}\n{output}")
    result = {key: float(m.group(1)) if key == "ms" else int(m.group(1)) for key, m in found.items()}
    if result.pop("source", source) != source:
        raise RuntimeError(f"{' '.join(cmd)} ran another source than {source}:\n{output}")
    return result


def _check_managed_fits(bel: Path, algorithm: str) -> None:
    """UVM_DIRECT takes the edges (and sssp's weights), 4 bytes each, as managed memory; asking for
    more managed memory than the card has free can hang the GPU, so refuse above half of it."""
    edges = int(np.fromfile(f"{bel}.dst", np.uint64, 1)[0])
    managed = edges * 4 * (2 if algorithm == "sssp" else 1)
    query = ["nvidia-smi", "--query-gpu=memory.free", "--format=csv,noheader,nounits", "-i", "0"]
    free = int(subprocess.run(query, capture_output=True, text=True, check=True).stdout.split()[0]) << 20
    if managed > free // 2:
        raise RuntimeError(f"EMOGI zero-copy would take {managed / 2**30:.1f} GiB of managed memory with {free / 2**30:.1f} GiB free on the GPU")
