"""Where the tiers' slots live and how bytes move between them: a GPU, or the CPU standing in for one.

The scheduler sees one interface: a device region it lays out itself (chunk slots, the index
arena, sidecars), host slot addresses, an asynchronous host-to-device copy (from a host slot or
from an array) that waits for a fence, marks
(events) on the copy and compute streams, the upload of a round's chunk table, and the array
module (``xp``) of the device, for statistics that stay there. ``CudaMemory`` does this with CuPy:
a device arena, mapped pinned host slots that kernels can also read in place, a copy stream beside
the compute stream. ``CpuMemory`` simulates it in one numpy buffer, so that CI exercises the same
scheduling, eviction and byte accounting.
"""

from __future__ import annotations

import ctypes
import time
from collections.abc import Callable

import numpy as np

from .budget import allocating
from .resident import TABLE_COLUMNS

HOST_ALLOC_PORTABLE, HOST_ALLOC_MAPPED = 1, 2  # cudaHostAlloc flags
HOST_TO_DEVICE = 1  # cudaMemcpyHostToDevice
TABLE_RING = 4  # round tables in flight: the host runs at most this many rounds ahead


class CpuMemory:
    """The device region and the host slots are parts of one buffer, so a CPU kernel reads a chunk
    wherever it is through one array; addresses are offsets into it. Copies are synchronous."""

    kind = "cpu"
    xp = np
    device_base = 0
    device_side = host_side = "host"  # where its allocations come from, for errors

    def __init__(self, slot_bytes: int, host_slots: int, n_chunks: int):
        self.slot_bytes, self.host_slots = slot_bytes, host_slots
        self.device_bytes = 0
        self.buffer = np.zeros(0, np.uint8)  # allocate_device lays out the device region and the host slots
        self.bytes_copied = 0  # every byte a copy moved, for tests to compare with the stats

    def allocate_device(self, nbytes: int) -> bool:
        """The simulated device region, before the host slots in the buffer; a CPU always has it
        (or a host that cannot give it raises ``OutOfMemoryError``)."""
        total = nbytes + self.host_slots * self.slot_bytes
        with allocating(f"the simulated device region ({nbytes:,} bytes) and {self.host_slots} host slots", total, self.host_side):
            self.buffer = np.zeros(total, np.uint8)
        self.device_bytes = nbytes
        return True

    def host_address(self, slot: int) -> int:
        return self.device_bytes + slot * self.slot_bytes

    def host_addresses(self, slots: np.ndarray) -> np.ndarray:
        return self.device_bytes + slots * self.slot_bytes

    def host_view(self, slot: int) -> np.ndarray:
        a = self.host_address(slot)
        return self.buffer[a : a + self.slot_bytes]

    def copy(self, dst: int, src, nbytes: int, after=None) -> None:
        """``nbytes`` to device address ``dst`` from host address ``src``, or from an array."""
        self.buffer[dst : dst + nbytes] = src.view(np.uint8)[:nbytes] if isinstance(src, np.ndarray) else self.buffer[src : src + nbytes]
        self.bytes_copied += nbytes

    def fill_device(self, offset: int, nbytes: int, value: int) -> None:
        self.buffer[offset : offset + nbytes] = value

    def device_view(self, offset: int, count: int, dtype) -> np.ndarray:
        """``count`` items of ``dtype`` of the device region from byte ``offset``."""
        return self.buffer[offset : offset + count * np.dtype(dtype).itemsize].view(dtype)

    def mark(self, stream: str) -> float:
        return time.perf_counter()

    def compute_waits(self, mark) -> None:
        pass

    def host_waits(self, mark) -> None:
        pass

    def synchronize(self) -> None:
        pass

    def upload(self, table: np.ndarray) -> np.ndarray:
        return table.copy()

    @staticmethod
    def seconds(start, end) -> float:
        return end - start

    def words(self, dtype) -> np.ndarray:
        return self.buffer.view(dtype)

    def array(self, a: np.ndarray) -> np.ndarray:
        return a

    @staticmethod
    def to_numpy(a) -> np.ndarray:
        return np.asarray(a)


class CudaMemory:
    """A device arena of slots, mapped pinned host slots allocated on first use, and a copy stream.

    Kernels run on CuPy's current stream (the compute stream); copies run on their own stream and
    each waits for the fence of the slot it overwrites, so copies overlap the kernels of earlier
    rounds. Round tables go up from a small ring of pinned buffers, on the copy stream."""

    kind = "cuda"
    device_side, host_side = "GPU", "pinned host"

    def __init__(self, slot_bytes: int, host_slots: int, n_chunks: int):
        import cupy

        self.cupy = self.xp = cupy
        self.slot_bytes = slot_bytes
        self.arena = cupy.empty(0, cupy.uint8)
        self._pinned: list = [None] * host_slots
        self._pointers = np.zeros(host_slots, np.int64)  # of the pinned slots allocated so far
        self.copy_stream = cupy.cuda.Stream(non_blocking=True)
        table_bytes = n_chunks * TABLE_COLUMNS * 8
        self._staging = [self._pin(table_bytes, "a round table's staging buffer") for _ in range(TABLE_RING)]
        with allocating(f"{TABLE_RING} round tables", TABLE_RING * table_bytes, self.device_side):
            self._tables = [cupy.empty(n_chunks * TABLE_COLUMNS, cupy.int64) for _ in range(TABLE_RING)]
        self._uploaded = [None] * TABLE_RING
        self._released = [None] * TABLE_RING  # after the kernels that read each device table
        self._round = 0
        self._sources: list = []  # (event, array): arrays being copied from, kept until copied

    def allocate_device(self, nbytes: int) -> bool:
        """The device region (chunk slots, index arena, sidecars) in one allocation; False when the GPU
        cannot give that much."""
        try:
            self.arena = self.cupy.empty(nbytes, self.cupy.uint8)
        except self.cupy.cuda.memory.OutOfMemoryError:
            return False
        return True

    @property
    def device_base(self) -> int:
        return self.arena.data.ptr

    @property
    def device_bytes(self) -> int:
        return self.arena.nbytes

    def _pin(self, nbytes: int, what: str):
        with allocating(what, nbytes, self.host_side):
            mem = self.cupy.cuda.PinnedMemory(nbytes, HOST_ALLOC_PORTABLE | HOST_ALLOC_MAPPED)
        view = np.ctypeslib.as_array((ctypes.c_uint8 * nbytes).from_address(mem.ptr))
        return mem, view

    def host_address(self, slot: int) -> int:
        return self._host(slot)[0].ptr

    def host_addresses(self, slots: np.ndarray) -> np.ndarray:
        """Addresses of host slots that hold chunks (so are allocated)."""
        return self._pointers[slots]

    def host_view(self, slot: int) -> np.ndarray:
        return self._host(slot)[1]

    def _host(self, slot: int):
        if self._pinned[slot] is None:
            self._pinned[slot] = self._pin(self.slot_bytes, f"host slot {slot}")
            self._pointers[slot] = self._pinned[slot][0].ptr
        return self._pinned[slot]

    def copy(self, dst: int, src, nbytes: int, after=None) -> None:
        """``nbytes`` to device address ``dst`` from host address ``src``, or from an array (held
        until the copy is done: CUDA may read pageable memory after the call returns)."""
        if after is not None:
            self.copy_stream.wait_event(after)
        array = isinstance(src, np.ndarray)
        self.cupy.cuda.runtime.memcpyAsync(dst, src.ctypes.data if array else src, nbytes, HOST_TO_DEVICE, self.copy_stream.ptr)
        if array:
            self._sources = [(e, a) for e, a in self._sources if not e.done] + [(self.mark("copy"), src)]

    def fill_device(self, offset: int, nbytes: int, value: int) -> None:
        """Bytes of the device region set to ``value`` before any later copy (it waits)."""
        self.arena[offset : offset + nbytes].fill(value)
        self.cupy.cuda.get_current_stream().synchronize()

    def device_view(self, offset: int, count: int, dtype):
        return self.arena[offset : offset + count * np.dtype(dtype).itemsize].view(dtype)

    def mark(self, stream: str):
        event = self.cupy.cuda.Event()
        event.record(self.copy_stream if stream == "copy" else self.cupy.cuda.get_current_stream())
        return event

    def compute_waits(self, mark) -> None:
        self.cupy.cuda.get_current_stream().wait_event(mark)

    def host_waits(self, mark) -> None:
        if mark is not None:
            mark.synchronize()

    def synchronize(self) -> None:
        self.cupy.cuda.get_current_stream().synchronize()
        self.copy_stream.synchronize()

    def upload(self, table: np.ndarray):
        """The round's table on the device, copied from a pinned buffer whose previous upload has
        finished, on the copy stream after the round's chunks (on the compute stream it would wait
        for the kernels before it, and hold up the copies queued behind it), once the kernels that
        read that device table last are done."""
        if self._round:  # the previous round's kernels are launched: its table is free once they end
            self._released[(self._round - 1) % TABLE_RING] = self.mark("compute")
        i = self._round % TABLE_RING
        self._round += 1
        self.host_waits(self._uploaded[i])
        staging, device = self._staging[i][1].view(np.int64), self._tables[i]
        staging[:] = table.ravel()
        if self._released[i] is not None:
            self.copy_stream.wait_event(self._released[i])
        self.cupy.cuda.runtime.memcpyAsync(device.data.ptr, staging.ctypes.data, staging.nbytes, HOST_TO_DEVICE, self.copy_stream.ptr)
        self._uploaded[i] = self.mark("copy")
        self.compute_waits(self._uploaded[i])
        return device

    def seconds(self, start, end) -> float:
        return self.cupy.cuda.get_elapsed_time(start, end) / 1e3

    def derive(self, derive: Callable, offsets: np.ndarray, dst: np.ndarray, indptr, at: int) -> int:
        """A sidecar's values for the lists ``offsets`` delimits in ``dst``, derived on the GPU
        (``Sidecar.cuda``, on the compute stream) from those lists copied there, into the device
        region at offset ``at``; the bytes copied for it."""
        lists = self.cupy.asarray(offsets - offsets[0], dtype=self.cupy.int64)
        ids = self.cupy.asarray(dst[int(offsets[0]) : int(offsets[-1])])
        derive(lists, ids, indptr, self.device_base + at)
        return lists.nbytes + ids.nbytes

    def array(self, a: np.ndarray):
        return self.cupy.asarray(a)

    def to_numpy(self, a) -> np.ndarray:
        return self.cupy.asnumpy(a)
