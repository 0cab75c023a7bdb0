"""CuPy plumbing for the CUDA kernels: finding a GPU, compiling sources, holding a graph on it.

Sources are compiled by NVRTC for the device at hand through ``cupy.RawModule``, once per process
(CuPy also caches the binaries on disk). Nothing here depends on the CUDA version of the CuPy
build: cupy-cuda12x and the CUDA 13 builds load the same sources.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...errors import DeviceError
from ...tiering.resident import ResidentGraph

SOURCES = Path(__file__).resolve().parent
# Each format's C++ type, in the order of FOR_EACH_FORMAT in formats.cuh.
FORMAT_TYPES = {"csr": "Csr", "log": "Log"}


@functools.cache
def unavailable() -> str | None:
    """Why the GPU backend cannot run here, or None when it can."""
    try:
        import cupy
    except ImportError:
        return "cupy is not installed (pip install 'graphtier[gpu]')"
    try:
        if cupy.cuda.runtime.getDeviceCount() == 0:
            return "no CUDA device is visible"
    except cupy.cuda.runtime.CUDARuntimeError as e:
        return f"no usable CUDA device ({e})"
    return None


@functools.cache
def _module(source: str, templates: tuple[str, ...]):
    import cupy

    names = [f"{t}<{f}>" for t in templates for f in FORMAT_TYPES.values()]
    return cupy.RawModule(code=(SOURCES / source).read_text(), options=("-std=c++17", f"-I{SOURCES}"), name_expressions=names)


def function(source: str, templates: tuple[str, ...], name: str, format: str | None = None):
    """Kernel ``name<Format>`` (or the plain kernel ``name`` when format is None) from ``source``,
    a file beside this one whose kernel templates are ``templates``; the module is compiled
    once per process, every format at once."""
    return _module(source, templates).get_function(name if format is None else f"{name}<{FORMAT_TYPES[format]}>")


@dataclass
class DeviceGraph:
    """A validated resident graph copied to the GPU unchanged: arena, chunk table and indptr."""

    words: object  # cupy uint32 array: the arena
    table: object  # cupy int64 (n_chunks * 5,)
    indptr: object  # cupy int64 (V + 1,)
    chunk_edges: int
    n_vertices: int
    format: str

    @classmethod
    def upload(cls, resident: ResidentGraph) -> DeviceGraph:
        import cupy

        if resident.format not in FORMAT_TYPES:
            raise DeviceError(f"the GPU backend does not read {resident.format!r} chunks yet")
        if resident.id_dtype != np.uint32:
            raise DeviceError(f"the GPU backend reads 32-bit ids; this graph has {resident.id_dtype} ids")
        return cls(
            cupy.asarray(resident.arena.view(np.uint32)),
            cupy.asarray(np.ascontiguousarray(resident.table).ravel()),
            cupy.asarray(resident.indptr),
            resident.chunk_edges,
            resident.n_vertices,
            resident.format,
        )

    @property
    def params(self) -> tuple:
        """The kernels' GRAPH_PARAMS, in order."""
        return (self.words, self.table, self.indptr, np.int64(self.chunk_edges), np.int64(self.n_vertices))

    @property
    def nbytes(self) -> int:
        return self.words.nbytes + self.table.nbytes + self.indptr.nbytes
