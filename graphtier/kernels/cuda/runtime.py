"""CuPy plumbing for the CUDA kernels: finding a GPU, compiling sources, holding a graph on it.

Sources (``sources.py`` inlines their headers) are compiled by NVRTC for the device at hand
through ``cupy.RawModule``, once per process (CuPy also caches the binaries on disk). Nothing
here depends on the CUDA version of the CuPy build: cupy-cuda12x and the CUDA 13 builds load the
same sources.
"""

from __future__ import annotations

import contextlib
import functools
import struct
import threading
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...errors import DeviceError
from ...tiering.resident import ABSENT, CHUNK_START, INDEX_START, PAYLOAD_START, WEIGHTS_START, ResidentGraph, Whole
from ..formats import FORMATS
from .sources import source


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
def module(path: Path, names: tuple[str, ...]):
    """The kernels ``names`` (C++ name expressions, such as ``gather_kernel<Ef, Gather>``) of the
    source at ``path``, compiled by NVRTC for the device at hand, once per process (CuPy also
    caches the binary on disk, keyed by the inlined source)."""
    import cupy

    return cupy.RawModule(code=source(path), options=("-std=c++17",), name_expressions=names)


MAX_WORDS = 32  # the most parameters a kernel takes (operators.cuh's take at most 20)
_BUFFER_POINTER, _BUFFER_SIZE, _END = 1, 2, 0  # cuLaunchKernel's ``extra`` keys (CU_LAUNCH_PARAM_*)


class Launcher:
    """Kernel launches through the driver's ``cuLaunchKernel``, the parameters packed into one
    buffer of 8-byte words: every kernel of the sources takes only 8-byte parameters (pointers,
    i64, u64, double; ``tests/test_cuda_sources.py`` checks), so a launch packs integers where
    CuPy's kernel call converts each argument on its own, which costs the host about twice the
    time with the runtime's 20 arguments (``benchmarks/results/launch_probe-*``)."""

    def __init__(self):
        from cupy.cuda import driver, get_current_stream

        self._driver_launch, self._stream = driver.launchKernel, get_current_stream
        self._words = np.zeros(MAX_WORDS, np.uint64)
        self._size = np.zeros(1, np.uint64)  # a size_t: the buffer's bytes
        self._extra = np.array([_BUFFER_POINTER, self._words.ctypes.data, _BUFFER_SIZE, self._size.ctypes.data, _END], np.uint64)
        self._extra_address = int(self._extra.ctypes.data)

    def __call__(self, function: int, grid: int, block: int, words: tuple) -> None:
        """``function`` (a CUfunction's address) on ``grid`` blocks of ``block`` threads with
        ``words``: non-negative integers below 2**64 (addresses, counts, ``functor_words``)."""
        _packer(len(words)).pack_into(self._words, 0, *words)
        self._size[0] = 8 * len(words)
        self._driver_launch(function, grid, 1, 1, block, 1, 1, 0, self._stream().ptr, 0, self._extra_address)


@functools.cache
def _packer(n: int) -> struct.Struct:
    if n > MAX_WORDS:
        raise ValueError(f"a kernel takes at most {MAX_WORDS} parameters, got {n}")
    return struct.Struct(f"<{n}Q")


class DeviceArena:
    """Where ``load_resident`` places a graph's chunks for the GPU, with no copy of the whole graph
    on the host: each thread reads a chunk into pinned memory of its own, checks it there, and the
    copy engine moves it to its place on the device."""

    where = "GPU"

    def __init__(self, nbytes: int):
        import cupy

        self.cupy = cupy
        self.bytes = cupy.zeros(nbytes, np.uint8)  # what pads the chunks stays zero
        self._staging = threading.local()

    @contextlib.contextmanager
    def chunk(self, start: int, nbytes: int, end: int):
        """This thread's pinned buffer for a chunk's ``nbytes``, copied to ``start`` once checked."""
        host, stream = self._stage(nbytes)
        yield host
        with self.bytes.device:
            self.bytes[start : start + nbytes].set(host, stream=stream)
            stream.synchronize()  # the buffer serves the thread's next chunk

    def _stage(self, nbytes: int) -> tuple[np.ndarray, object]:
        local = self._staging
        if getattr(local, "nbytes", 0) < nbytes:
            with self.bytes.device:
                local.memory, local.nbytes = self.cupy.cuda.alloc_pinned_memory(nbytes), nbytes
                local.stream = getattr(local, "stream", None) or self.cupy.cuda.Stream(non_blocking=True)
        return np.ndarray(nbytes, np.uint8, buffer=local.memory), local.stream

    def put(self, start: int, data: np.ndarray, end: int) -> None:
        with self.bytes.device:
            self.bytes[start : start + len(data)].set(data)


@dataclass
class DeviceGraph(Whole):
    """A validated resident graph copied to the GPU unchanged, its table holding the addresses
    of its chunks: what kernels traverse when the whole graph fits (the scheduler steps aside)."""

    arena: object  # cupy uint8 array
    table: object  # cupy int64 (n_chunks * TABLE_COLUMNS,)
    indptr: object  # cupy int64 (V + 1,)
    chunk_edges: int
    n_vertices: int
    format: str
    host_bytes: int  # the resident graph kept in host memory
    weighted: bool  # each chunk followed by its edges' weights
    unreported: dict = field(default_factory=dict)  # the upload, until a result reports it
    _params: dict = field(default_factory=dict)

    @classmethod
    def upload(cls, resident: ResidentGraph) -> DeviceGraph:
        import cupy

        if resident.format not in FORMATS:
            raise DeviceError(f"the GPU backend does not read {resident.format!r} chunks")
        if resident.id_dtype != np.uint32:
            raise DeviceError(f"the GPU backend reads 32-bit ids; this graph has {resident.id_dtype} ids")
        arena = cupy.asarray(resident.arena)
        table = resident.table.copy()
        table[:, [CHUNK_START, INDEX_START, PAYLOAD_START]] += arena.data.ptr
        weighted = table[:, WEIGHTS_START] != ABSENT
        table[weighted, WEIGHTS_START] += arena.data.ptr
        moved = {"bytes_host_to_device": resident.arena.nbytes, **resident.take_stats()}
        return cls(arena, cupy.asarray(table.ravel()), cupy.asarray(resident.indptr), resident.chunk_edges, resident.n_vertices, resident.format, resident.nbytes, resident.weighted, moved)

    def params(self, table, weighted: bool) -> tuple:
        """The kernels' GRAPH_PARAMS as words, in order (the same every round: made once for each ``weighted``)."""
        params = self._params.get(weighted)
        if params is None:
            params = self._params[weighted] = (self.table.data.ptr, self.indptr.data.ptr, self.chunk_edges, self.n_vertices, int(weighted))
        return params

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
