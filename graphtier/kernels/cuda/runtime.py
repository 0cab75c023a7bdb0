"""CuPy plumbing for the CUDA kernels: finding a GPU, compiling sources, holding a graph on it.

Sources are compiled by NVRTC for the device at hand through ``cupy.RawModule``, once per process
(CuPy also caches the binaries on disk). Nothing here depends on the CUDA version of the CuPy
build: cupy-cuda12x and the CUDA 13 builds load the same sources.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...errors import DeviceError
from ...tiering.resident import CHUNK_START, INDEX_START, PAYLOAD_START, ResidentGraph

SOURCES = Path(__file__).resolve().parent
# Each format's decoders on the GPU, as C++ types instantiated by FOR_EACH_FORMAT (formats.cuh);
# the first is the default, the others switch one technique of the format's paper off, so that
# its effect can be measured.
DECODERS = {
    "csr": {"balanced": "Csr", "warp": "CsrWarp"},
    "log": {"thread-warp-block": "Log", "warp": "LogWarp"},
    "ef": {"parallel": "Ef", "serial": "EfSerial"},
    "cgr": {"warp-centric": "Cgr", "thread-centric": "CgrThread", "one-lane-residuals": "CgrOneLane"},
}


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

    names = [f"{t}<{f}>" for t in templates for decoders in DECODERS.values() for f in decoders.values()]
    return cupy.RawModule(code=(SOURCES / source).read_text(), options=("-std=c++17", f"-I{SOURCES}"), name_expressions=names)


def function(source: str, templates: tuple[str, ...], name: str, format: str | None = None, decoder: str | None = None):
    """Kernel ``name<Decoder>`` for ``format`` (its default decoder unless one is named), or the
    plain kernel ``name`` when format is None, from ``source``, a file beside this one whose
    kernel templates are ``templates``. The module is compiled once per process, for every
    decoder at once."""
    if format is None:
        return _module(source, templates).get_function(name)
    return _module(source, templates).get_function(f"{name}<{decoder_type(format, decoder)}>")


def decoder_type(format: str, decoder: str | None) -> str:
    decoders = DECODERS[format]
    if decoder is None:
        return next(iter(decoders.values()))
    if decoder not in decoders:
        raise ValueError(f"the GPU decoders of {format!r} are {', '.join(decoders)}; got {decoder!r}")
    return decoders[decoder]


@dataclass
class DeviceGraph:
    """A validated resident graph copied to the GPU unchanged, its table holding the addresses
    of its chunks: what kernels traverse when the whole graph fits (the scheduler steps aside)."""

    arena: object  # cupy uint8 array
    table: object  # cupy int64 (n_chunks * TABLE_COLUMNS,)
    indptr: object  # cupy int64 (V + 1,)
    chunk_edges: int
    n_vertices: int
    format: str
    host_bytes: int  # the resident graph kept in host memory
    unreported: dict = field(default_factory=dict)  # the upload, until a result reports it
    steps_aside = True
    heads = None  # every list is on the device: nothing to check before reading it

    @classmethod
    def upload(cls, resident: ResidentGraph) -> DeviceGraph:
        import cupy

        if resident.format not in DECODERS:
            raise DeviceError(f"the GPU backend does not read {resident.format!r} chunks yet")
        if resident.id_dtype != np.uint32:
            raise DeviceError(f"the GPU backend reads 32-bit ids; this graph has {resident.id_dtype} ids")
        arena = cupy.asarray(resident.arena)
        table = resident.table.copy()
        table[:, [CHUNK_START, INDEX_START, PAYLOAD_START]] += arena.data.ptr
        moved = {"bytes_host_to_device": resident.arena.nbytes, **resident.take_stats()}
        return cls(arena, cupy.asarray(table.ravel()), cupy.asarray(resident.indptr), resident.chunk_edges, resident.n_vertices, resident.format, resident.nbytes, moved)

    def rounds(self, demand=None):
        """Every chunk is here: one round, the whole table."""
        yield self.table

    def params(self, table) -> tuple:
        """The kernels' GRAPH_PARAMS, in order."""
        return (table, self.indptr, np.int64(self.chunk_edges), np.int64(self.n_vertices))

    def take_stats(self) -> dict:
        moved, self.unreported = self.unreported, {}
        return moved

    @property
    def nbytes(self) -> int:
        return self.arena.nbytes + self.table.nbytes + self.indptr.nbytes

    resident_bytes = nbytes


class Workspace:
    """Device arrays kept for algorithms that run again and again on one graph (vertex state)."""

    def __init__(self):
        self._buffers: dict = {}

    def buffer(self, name: str, shape: int | tuple, dtype) -> object:
        """An array with at least ``shape[0]`` rows (a larger one replaces it when more are asked
        for); its contents are whatever the last user left."""
        import cupy

        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        buf = self._buffers.get(name)
        if buf is None or len(buf) < shape[0] or buf.shape[1:] != shape[1:] or buf.dtype != dtype:
            buf = self._buffers[name] = cupy.empty(shape, dtype)
        return buf

    @property
    def nbytes(self) -> int:
        return sum(b.nbytes for b in self._buffers.values())
