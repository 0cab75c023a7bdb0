"""The ECL codes (Burtscher's group, Texas State University), the published fast GPU codes for
colouring, maximal independent sets, strongly connected components and minimum spanning forests,
which the five-algorithms issue names as the bar in GPU memory: write a graph in their binary CSR
format, build each code, run it and read what it prints.

They are not part of this repository: fetch github:burtscher/ECL-SCC, github:burtscher/ECL-MST and
github:burtscher/ECL-Suite and extract each into the git-ignored ``.peers/<name>``. ECL-GC and
ECL-MIS are published on the group's web pages, not on GitHub; ECL-Suite (IISWC 2024) holds their
latest versions, ECL-GC v1.2 and ECL-MIS v1.3, as its baselines (``src/baseline``, with
``ECLgraph.h`` in ``library``). The build compiles copies in a scratch folder with two changes
that leave the algorithms alone: CUDA 13 took ``clockRate`` and ``memoryClockRate`` out of
``cudaDeviceProp``, which each code prints in its banner, so the copies ask
``cudaDeviceGetAttribute``; and ECL-MST, which sums its forest's weight to check it against its
host Kruskal but does not print it, prints it.

Each run is one process on device 0 that reads the file, copies the graph to the GPU, then starts
its timer (no transfer of the graph is timed, no warm-up run):
- ECL-GC: ``runtime: S s``, CUDA events around its three kernels; it checks the colouring (exits
  nonzero where it fails, else ``result verification passed``) and prints ``colors used: N``.
  Priorities: higher degree first, ties by a hash; graphtier's greedy colouring breaks ties by its
  seed, so the colourings differ: their colour counts are shown side by side.
- ECL-MIS: ``compute time: S s``, CUDA events around its two kernels; ``elements in set: N``, then
  its check (exits nonzero where it fails). Priorities favour low degree: another set than
  graphtier's, sizes side by side.
- ECL-SCC: ``compute time: S s`` (microseconds), CUDA events around the whole loop (its flag copies
  included); ``number of SCCs: N`` and ``N SCCs of size S`` lines, which must equal graphtier's; no
  check of its own.
- ECL-MST: ``Dev+: S s`` (its filtered variant, average degree >= 4) or ``Dev-: S s``,
  gettimeofday around the GPU part, which ends with a device synchronize (its memsets and
  worklist-size copies inside); then a serial Kruskal on the host checks it (``all good`` or
  ``ERROR: results differ!``; seconds on large graphs). The forest's weight must equal graphtier's.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import numpy as np

# algorithm -> (the source, the folder with its ECLgraph.h), under the folder holding the peers
PROGRAMS = {
    "color": ("ECL-Suite/src/baseline/egr-input/GC/ECL-GC_12.cu", "ECL-Suite/library"),
    "mis": ("ECL-Suite/src/baseline/egr-input/MIS/ECL-MIS.cu", "ECL-Suite/library"),
    "scc": ("ECL-SCC/source/ECL-SCC_10.cu", "ECL-SCC/source"),
    "mst": ("ECL-MST/source/ECL-MST_10.cu", "ECL-MST/source"),
}
NVCC = ["nvcc", "-O3", "-arch=sm_90"]  # the H100 and H200

_CUDA13 = "#include <cuda_runtime.h>\nstatic inline int eclAttribute(cudaDeviceAttr what) {int v = 0; cudaDeviceGetAttribute(&v, what, 0); return v;}\n"
_ATTRIBUTES = (("deviceProp.clockRate", "eclAttribute(cudaDevAttrClockRate)"), ("deviceProp.memoryClockRate", "eclAttribute(cudaDevAttrMemoryClockRate)"))
_MST_WEIGHT = ("  if ((gpuMSTweight != cpuMSTweight)", '  printf("MST weight: %llu\\n", gpuMSTweight);\n  if ((gpuMSTweight != cpuMSTweight)')

# What a run prints: its time in seconds and its answer (colours, set size, SCCs, forest weight).
PRINTED = {
    "color": (r"runtime: +([0-9.]+) s", r"colors used: (\d+)"),
    "mis": (r"compute time: +([0-9.]+) s", r"elements in set: (\d+)"),
    "scc": (r"compute time: +([0-9.]+) s", r"number of SCCs: (\d+)"),
    "mst": (r"Dev[+-]: +([0-9.]+) s", r"MST weight: (\d+)"),
}
# What a code prints once its own check has passed (ECL-MIS prints nothing then, and exits nonzero
# after this line where it fails); ECL-SCC has no check.
PASSED = {"color": "result verification passed", "mis": "elements in set", "mst": "all good"}


def patched(algorithm: str, code: str) -> str:
    """The source that ``build`` compiles: the CUDA 13 change, and ECL-MST printing its weight."""
    for old, new in _ATTRIBUTES:
        code = code.replace(old, new)
    if algorithm == "mst":
        if _MST_WEIGHT[0] not in code:
            raise RuntimeError("ECL-MST's verify no longer reads as expected: cannot make it print the forest's weight")
        code = code.replace(*_MST_WEIGHT)
    return code


def build(peers: Path, out: Path, algorithms) -> dict[str, Path]:
    """Compile the codes of ``algorithms`` from ``peers`` (the folder holding ECL-Suite, ECL-SCC and
    ECL-MST; only read) into ``out``. Returns algorithm -> executable."""
    from harness import compile_peers  # here: the tests load this module alone

    units = {alg: (patched(alg, (peers / PROGRAMS[alg][0]).read_text()), peers / PROGRAMS[alg][1], PROGRAMS[alg][0]) for alg in algorithms}
    return compile_peers(units, _CUDA13, out, NVCC)


def write_egr(path: Path, indptr, indices, weights=None, step: int = 1 << 24) -> None:
    """Write a CSR graph as ECLgraph.h reads it: int32 nodes, int32 edges (arcs: an undirected edge
    counts twice), int32 nindex[nodes + 1], int32 nlist[edges] and, with ``weights``, int32
    eweight[edges] (the reader takes weights when any follow), native byte order. Values that
    int32 cannot hold raise."""
    n = len(indptr) - 1
    if n < 1 or indptr[-1] != len(indices) or (weights is not None and len(weights) != len(indices)):
        raise ValueError("indptr, indices and weights do not describe one CSR graph of at least one vertex")
    with open(path, "wb") as f:
        for name, values in (("counts", [n, len(indices)]), ("nindex", indptr), ("nlist", indices), ("eweight", weights)):
            for i in range(0, 0 if values is None else len(values), step):
                part = np.asarray(values[i : i + step])
                cast = part.astype(np.int32)
                if not np.array_equal(cast, part):
                    raise ValueError(f"{path.name}: {name} has values that int32 cannot hold")
                f.write(cast.tobytes())


def run(binary: Path, egr: Path, *, algorithm: str, timeout: float = 300) -> dict:
    """Run one ECL code on ``egr``. Returns ``ms`` (the time it prints), ``result`` (its answer),
    ``checked`` (its own check passed; not for scc) and for scc ``sizes`` (SCC size -> how many)."""
    cmd = [str(binary), str(egr)]
    env = {**os.environ, "CUDA_MODULE_LOADING": "EAGER"}  # no module loading inside its timed part
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, check=False)
    except subprocess.TimeoutExpired as e:
        raise RuntimeError(f"{' '.join(cmd)} ran past {timeout} s:\n{(e.stdout or b'').decode(errors='replace')}") from None
    output = done.stdout + done.stderr
    found = [re.search(pattern, output) for pattern in PRINTED[algorithm]]
    if done.returncode or None in found:
        raise RuntimeError(f"{' '.join(cmd)} exited with {done.returncode}; not found in its output: {[p for p, m in zip(PRINTED[algorithm], found) if m is None]}\n{output}")
    result = {"ms": float(found[0].group(1)) * 1e3, "result": int(found[1].group(1))}
    if algorithm in PASSED:
        result["checked"] = PASSED[algorithm] in output
    if algorithm == "scc":
        result["sizes"] = {int(size): int(count) for count, size in re.findall(r"(\d+) SCCs of size (\d+)", output)}
    return result
