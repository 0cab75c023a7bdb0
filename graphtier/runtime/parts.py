"""One graph over several devices (``Config(devices=...)``): a process per device, each running the
whole algorithm on a copy of the whole vertex state but reading only the lists of its own range of
vertices, so its own range of chunks (its *part*), from the store through its own tiers.

After every operator that reads edges, what it wrote is merged across the parts as its functor
declares (``combine``: sum, max or min per state array it writes), and its output queue becomes the
union of the parts' (each part keeping its own vertices of it, since only it holds their lists).
Every part then holds the same state and the same frontier sizes, so every part takes the same
decisions and the collectives line up. A gather over every vertex sums each vertex's list on the one
part that holds it, so a sum merged from zeros elsewhere equals one device's, bit for bit.

The merges go through NCCL between GPUs (``cupy.cuda.nccl``) and through shared memory otherwise
(the CPU backend, whose "devices" are processes with a simulated device each, or GPUs without NCCL).
The processes stay up between calls on the same store and devices (``Parts``), one set at a time.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import mmap
import multiprocessing
import os
import pickle
import shutil
import sys
import threading
import time
import traceback
import types
import uuid
import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, fields
from multiprocessing.connection import wait
from multiprocessing.shared_memory import SharedMemory

import numpy as np

from .. import temps
from ..errors import GraphtierError, PartDiedError
from ..tiering.scheduler import COUNTERS, reads_of
from .config import Config

SLOT_BYTES = 64 << 20  # each part's share of the shared memory a host merge goes through, a piece at a time
OUTBOX_BYTES = 1 << 20  # a result whose arrays reach this comes back through a slab, not the pipe
SLAB_ROUND = 16 << 20  # slabs are made in multiples of this, so results of about one size share them
COPY_THREADS, COPY_BYTES = 8, 16 << 20  # a result copied into its slab by threads, a piece each (NumPy lets go of the GIL)
MERGE_PIECE = 1 << 21  # a sparse merge's values, a piece at a time: its buffer stays small
REDUCE = {"sum": np.add, "max": np.maximum, "min": np.minimum, "or": np.bitwise_or}


@dataclass(frozen=True)
class Part:
    """This process's share of a run over several devices: its rank among ``size`` parts, the
    vertices whose lists it reads, and how it merges with the others."""

    rank: int
    size: int
    vertices: tuple[int, int]
    comm: object

    def chunks(self, indptr: np.ndarray, chunk_edges: int) -> range:
        """The chunks holding this part's lists, in a graph with offsets ``indptr``."""
        v0, v1 = self.vertices
        first, end = int(indptr[v0]), int(indptr[v1])
        return range(first // chunk_edges, -(-end // chunk_edges)) if end > first else range(0)


current: Part | None = None  # set in a part's process, for the run it serves


def split(graph, size: int) -> list[int]:
    """Vertex bounds of ``size`` parts with about equal shares of the lists an algorithm may read
    (out-lists, and in-lists where a directed graph stores its reverse): ``size + 1`` ids."""
    weight = graph.indptr().astype(np.float64)
    if graph.directed and graph.has_reverse:
        weight = weight + graph.indptr(reverse=True)
    targets = weight[-1] * np.arange(1, size) / size
    inner = np.searchsorted(weight, targets, side="left").clip(0, graph.n_vertices)
    return [0, *(int(v) for v in inner), graph.n_vertices]


class HostComm:
    """Merges through shared memory: each part writes its array into its slot, all wait, each
    reduces the slots in rank order (so every part gets the same bits), all wait again."""

    def __init__(self, name: str, barrier, rank: int, size: int):
        self.rank, self.size, self.barrier = rank, size, barrier
        self.memory = SharedMemory(name=name)
        self.slots = np.ndarray((size, SLOT_BYTES), np.uint8, self.memory.buf)

    def allreduce(self, a, op: str) -> None:
        host = a.get() if hasattr(a, "get") else a
        flat = host.reshape(-1)
        step = SLOT_BYTES // flat.itemsize
        for i in range(0, max(len(flat), 1), step):
            piece = flat[i : i + step]
            self.slots[self.rank, : piece.nbytes] = piece.view(np.uint8)
            self.barrier.wait()
            views = [self.slots[r, : piece.nbytes].view(piece.dtype) for r in range(self.size)]
            piece[:] = functools.reduce(REDUCE[op], views)
            self.barrier.wait()
        if host is not a:
            a.set(host)

    def host_sum(self, a: np.ndarray) -> np.ndarray:
        out = np.array(a)
        self.allreduce(out, "sum")
        return out

    def close(self) -> None:
        del self.slots
        self.memory.close()


class NcclComm:
    """Merges between GPUs through NCCL, on the current stream (no wait for the host). NCCL has no
    bitwise or: "or" gathers every part's array and ors them on the device."""

    def __init__(self, uid, rank: int, size: int):
        import cupy
        from cupy.cuda import nccl

        self.cupy, self.nccl, self.rank, self.size = cupy, nccl, rank, size
        self.comm = nccl.NcclCommunicator(size, uid, rank)
        self.types = {
            np.dtype(t): getattr(nccl, f"NCCL_{n}")
            for t, n in ((np.int32, "INT32"), (np.int64, "INT64"), (np.uint32, "UINT32"), (np.uint64, "UINT64"), (np.float32, "FLOAT32"), (np.float64, "FLOAT64"), (np.uint8, "UINT8"))
        }
        self.ops = {"sum": nccl.NCCL_SUM, "max": nccl.NCCL_MAX, "min": nccl.NCCL_MIN}

    def allreduce(self, a, op: str) -> None:
        words = a.view(np.uint8) if a.dtype == np.bool_ else a
        stream = self.cupy.cuda.get_current_stream().ptr
        if op != "or":
            self.comm.allReduce(words.data.ptr, words.data.ptr, words.size, self.types[words.dtype], self.ops[op], stream)
            return
        every = self.cupy.empty((self.size, words.size), words.dtype)
        self.comm.allGather(words.data.ptr, every.data.ptr, words.size, self.types[words.dtype], stream)
        merged = words.reshape(-1)
        merged[:] = every[0]
        for r in range(1, self.size):
            self.cupy.bitwise_or(merged, every[r], out=merged)

    def host_sum(self, a: np.ndarray) -> np.ndarray:
        d = self.cupy.asarray(a)
        self.allreduce(d, "sum")
        return d.get()

    def close(self) -> None:
        self.comm.destroy()


def merge_at(ids, writes: tuple, comm, n: int) -> None:
    """Merges arrays that an operator wrote at the vertices ``ids`` alone (the union of the parts'
    queues: the same ids in the same order on every part): their values there, a piece at a time,
    not whole arrays; whole arrays where the union holds a quarter of the ``n`` vertices or more."""
    if 4 * len(ids) >= n:
        for a, op in writes:
            comm.allreduce(a, op)
        return
    for a, op in writes:
        for i in range(0, len(ids), MERGE_PIECE):
            at = ids[i : i + MERGE_PIECE]
            values = a[at]
            comm.allreduce(values, op)
            a[at] = values


def device_ids(config: Config) -> list[int] | None:
    """The devices a run is split over, or None: one device, in this process."""
    d = config.devices
    if d is None or (isinstance(d, int) and d == 1):
        return None
    return list(range(d)) if isinstance(d, int) else list(d)


def gpu_names(devices: int | Sequence[int] | None) -> list[str]:
    """The GPUs ``devices`` names (a count: the first ones; None: every one) as a child process's
    ``CUDA_VISIBLE_DEVICES`` must name them: ids as this process numbers them (under its own
    ``CUDA_VISIBLE_DEVICES``, if set), checked against the GPUs it sees."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        names = [d.strip() for d in visible.split(",") if d.strip()]
    else:
        import cupy

        names = [str(i) for i in range(cupy.cuda.runtime.getDeviceCount())]
    ids = list(range(len(names) if devices is None else devices)) if devices is None or isinstance(devices, int) else list(devices)
    if not ids or len(set(ids)) != len(ids) or not all(isinstance(d, int) and 0 <= d < len(names) for d in ids):
        raise ValueError(f"devices={devices!r}, but this process sees {len(names)} GPU(s)")
    return [names[d] for d in ids]


def spreads(algorithm) -> Callable:
    """Decorates an algorithm's public function so that ``devices=`` runs it split over several
    devices, a process each, and returns the first part's result with every part's statistics;
    ``algorithm``'s operators that read edges must say how to combine what they write."""

    def decorate(function: Callable) -> Callable:
        @functools.wraps(function)
        def spread(graph, *args, config: Config | None = None, **options):
            names = {f.name for f in fields(Config)}
            config = Config.of(config, **{k: v for k, v in options.items() if k in names})
            options = {k: v for k, v in options.items() if k not in names}
            devices = device_ids(config)
            if current is not None or devices is None:
                return function(graph, *args, config=config, **options)
            missing = [f.cuda for f in algorithm.functors if f.reads_edges and not f.combine]
            if missing:
                raise ValueError(f"{function.__name__} does not run split over several devices: its operator {missing[0]} does not say how to combine the parts' writes")
            return _run_parts(spread, graph, args, options, config, devices)

        return spread

    return decorate


def _run_parts(function: Callable, graph, args: tuple, options: dict, config: Config, devices: list[int]):
    """Run ``function`` on every part of ``graph`` over ``devices`` and return the first part's
    result: in the processes kept from the last call where it split the same store over the same
    devices, else in new ones (which replace those)."""
    global _kept
    backend = config.backend()
    key = (graph.location, graph.build_id, tuple(devices), backend)
    with _calls:
        if _kept is not None and _kept.key != key:
            close()
        if _kept is None:
            _kept = Parts(key, graph, gpu_names(devices) if backend == "cuda" else devices, backend)
        try:
            return _kept.call(function, args, options, config)
        except BaseException:  # a part failed (the others may wait in a collective) or the caller gave up
            close(wait=False)
            raise


class Parts:
    """The processes of one graph split over devices, a part each: kept between calls, so that a
    part's graph handle keeps what it loaded (its host tier, the chunks on its device) and the
    next call starts nothing, as one Graph handle does for a run on one device."""

    def __init__(self, key: tuple, graph, devices: list, backend: str):
        self.key = key
        size = len(devices)
        context = multiprocessing.get_context("spawn")  # a forked child would inherit CUDA's state
        self.memory = SharedMemory(create=True, size=size * SLOT_BYTES)
        self.outbox = str(temps.workspace("graphtier-parts", "/dev/shm" if os.access("/dev/shm", os.W_OK) else None))
        self.inbox = Inbox()
        self.barrier, self.uids = barrier, uids = context.Barrier(size), context.Queue()  # held while the parts live
        self.pipes, self.processes = [], []
        try:
            for rank, device in enumerate(devices):
                mine, theirs = context.Pipe()
                plan = (rank, size, device, backend, self.memory.name, barrier, uids, self.outbox, time.time())
                p = context.Process(target=_part, args=(plan, graph.location, theirs), name=f"graphtier-part-{rank}", daemon=True)
                with _bare_main():
                    p.start()
                theirs.close()
                self.pipes.append(mine)
                self.processes.append(p)
            bounds = split(graph, size)  # while the parts start (importing graphtier takes them seconds)
            for rank, pipe in enumerate(self.pipes):
                pipe.send((bounds[rank], bounds[rank + 1]))
        except BaseException:
            self.close(wait=False)
            raise

    def call(self, function: Callable, args: tuple, options: dict, config: Config):
        offer = self.inbox.offer()
        for rank, pipe in enumerate(self.pipes):
            pipe.send((function, args, options, config if rank == 0 else Config.of(config, progress=False), offer))
        return _gather(self.pipes, self.processes, self.inbox)

    def close(self, wait: bool = True) -> None:
        """Stop the parts (asked to finish, or with ``wait`` False terminated) and free the
        shared memory."""
        for pipe, p in zip(self.pipes, self.processes):
            if wait and p.is_alive():
                with contextlib.suppress(OSError):
                    pipe.send(None)
        for p in self.processes:
            p.join(timeout=10 if wait else 0)
            if p.is_alive():
                p.terminate()
                p.join()
        for pipe in self.pipes:
            pipe.close()
        self.memory.close()
        self.memory.unlink()
        shutil.rmtree(self.outbox, ignore_errors=True)


_kept: Parts | None = None
_calls = threading.RLock()  # one call at a time goes to the kept parts (close() takes it too)


def close(wait: bool = True) -> None:
    """Stop the processes kept from the last run split over devices, and free what they hold."""
    global _kept
    with _calls:
        if _kept is not None:
            kept, _kept = _kept, None
            kept.close(wait)


def kept_processes() -> list:
    """The processes kept from the last run split over devices (none when stopped)."""
    return list(_kept.processes) if _kept is not None else []


atexit.register(close)


@contextlib.contextmanager
def _bare_main():
    """A spawned part imports graphtier only, not the caller's script, which spawn would run again
    (and a script without a ``__main__`` guard would start its parts again)."""
    main = sys.modules["__main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        sys.modules["__main__"] = main


def _gather(pipes: list, processes: list, inbox: Inbox):
    """Each part's (result, stats) as it comes; the first error (or a part that died) ends them all."""
    results: dict[int, tuple] = {}
    waiting = dict(enumerate(pipes))
    while waiting:
        ready = wait(list(waiting.values()) + [processes[r].sentinel for r in waiting])
        for rank, pipe in list(waiting.items()):
            if pipe in ready or processes[rank].sentinel in ready:
                try:
                    status, payload = inbox.receive(pipe.recv())
                except (EOFError, OSError):  # its end of the pipe closed (or reset) with its process
                    processes[rank].join()
                    raise PartDiedError(f"the process of part {rank} of {len(pipes)} died (exit code {processes[rank].exitcode}) before it returned; the others were stopped") from None
                if status == "error":
                    raise payload
                results[rank] = payload
                del waiting[rank]
    return _joined([results[r] for r in range(len(pipes))])


def _joined(results: list[tuple]):
    """The first part's result with every part's statistics; refused where the parts did not lay
    it out alike in the slab offered (each wrote a share of it there: one short of it, say a part
    that could not map the slab, would leave a share unwritten)."""
    result, _ = results[0]
    stats = [s for _, s in results]
    laid = [s.get("slab_bytes", 0) for s in stats]
    if len(set(laid)) > 1:
        raise GraphtierError(f"the parts laid their result out differently in the slab it comes back in (bytes each wrote there: {laid}); the parts were stopped")
    result.stats = {**stats[0], **{k: sum(s.get(k, 0) for s in stats) for k in COUNTERS}, **reads_of(stats), "seconds": max(s["seconds"] for s in stats), "parts": stats}
    return result


def _part(plan: tuple, location: str, pipe) -> None:
    """A part's process: join the others and open the graph, then run each call it receives,
    sending back (result, its statistics) from the first part and the statistics alone from the
    others; a failure is sent and ends the process (the others may wait in a collective)."""
    global current, outputs
    rank, size, device, backend, memory, barrier, uids, outbox, launched = plan
    started = {"imported": time.time() - launched}  # where a first call's time went before it ran
    box = Outbox(outbox, pins=backend == "cuda")
    try:
        if backend == "cuda":
            os.environ["CUDA_VISIBLE_DEVICES"] = device  # before CUDA starts in this process
        comm = _join(rank, size, backend, memory, barrier, uids)
        started["joined"] = time.time() - launched
        current = Part(rank, size, pipe.recv(), comm)  # its vertices, sent once the caller had split the graph
        import graphtier as gt

        graph = gt.open(location)
        started["opened"] = time.time() - launched
        while (call := pipe.recv()) is not None:
            function, args, options, config, offer = call
            start = time.perf_counter()
            outputs = box.slab(offer, rank, size)
            result = function(graph, *args, config=Config.of(config, device=backend), **options)
            result.stats["slab_bytes"] = 0 if outputs is None else outputs.used  # what it laid out in the slab offered
            outputs = None
            result.stats["call_seconds"] = time.perf_counter() - start  # the run's loop and what surrounds it here
            if started:
                result.stats["start_seconds"], started = started, {}  # seconds from launch to each step
            box.send(pipe, ("ok", (result if rank == 0 else None, result.stats)), offer if rank == 0 else None)
            del result  # its pinned host arrays back in CuPy's pool before the next call needs them
    except (EOFError, OSError) as e:  # the caller went away, or this part could not start
        if not isinstance(e, EOFError | ConnectionError):
            with contextlib.suppress(OSError):
                box.send(pipe, ("error", e))
        return
    except BaseException as e:  # noqa: BLE001 (sent to the caller, which raises it)
        try:
            box.send(pipe, ("error", e))
        except Exception:  # noqa: BLE001 (an exception that does not pickle goes as its text)
            box.send(pipe, ("error", GraphtierError(f"part {rank}: {''.join(traceback.format_exception_only(e)).strip()}")))


class Slab:
    """The slab a call's result is laid out in, as each part sees it: ``place`` gives each array
    of the result its place there (the same on every part: they make the same arrays in the same
    order) and copies this part's share of its rows into it, straight from the device, so that
    no part copies a whole result and nothing is copied again on the way to the caller."""

    def __init__(self, path: str, view: np.ndarray, rank: int, size: int):
        self.path, self.view, self.rank, self.size, self.used = path, view, rank, size, 0

    def place(self, values, copy_out: Callable) -> np.ndarray | None:
        """``values`` in the slab (its share of rows copied by ``copy_out(rows, out)``), or None
        where the slab has no room left for it."""
        start = -(-self.used // 64) * 64
        if start + values.nbytes > len(self.view):
            return None
        self.used = start + values.nbytes
        out = self.view[start : self.used].view(values.dtype).reshape(values.shape)
        n = len(values)
        rows = slice(n * self.rank // self.size, n * (self.rank + 1) // self.size)
        copy_out(values[rows], out[rows])
        return out


outputs: Slab | None = None  # set in a part's process, for the call it serves


class Outbox:
    """How the parts send a result back: through slabs (files in the set's shared-memory directory
    that the parts and the caller map), reused by later calls once the caller has let a result go,
    so no call pays for fresh pages on either side (a pipe moves about 1 GB/s, pickled and copied
    twice; a new file, 2 GB/s). Where the caller offers a free slab, every part writes its share of
    the result's arrays into it (``Slab``), from the GPU into pages it pinned once; else the first
    part copies them into one. Arrays under a million bytes, or where no slab can be made, go
    through the pipe."""

    def __init__(self, directory: str, pins: bool):
        self.directory, self.pins = directory, pins
        self.mapped: dict[str, np.ndarray] = {}  # slab path -> this part's view of it
        self.pinned: set[str] = set()  # the slabs this part pinned for its GPU's copies
        self.copier = ThreadPoolExecutor(COPY_THREADS, thread_name_prefix="graphtier-outbox")

    def slab(self, offer: tuple[list, list], rank: int, size: int) -> Slab | None:
        """The slab this call's result is laid out in: the largest that the caller offers free
        (every part picks the same); slabs the caller removed let go."""
        free, kept = offer
        for path in set(self.mapped) - set(kept):
            self._unmap(path)
        if not free:
            return None
        path, nbytes = min(free, key=lambda f: (-f[1], f[0]))
        view = self._map(path, nbytes)
        return None if view is None else Slab(path, view, rank, size)

    def send(self, pipe, message, offer: tuple[list, list] | None = None) -> None:
        """``message`` pickled once, its arrays out of band: each as its place in a slab where it
        lies in one already, else (with ``offer``, the first part's, when they come to a million
        bytes) copied into a free or new slab, else its bytes."""
        buffers = []
        data = pickle.dumps(message, protocol=5, buffer_callback=buffers.append)
        raws = [b.raw() for b in buffers]
        entries: list = [self._place_of(r) for r in raws]
        loose = [i for i, e in enumerate(entries) if e is None]
        ends = np.cumsum([0, *(-(-raws[i].nbytes // 64) * 64 for i in loose)])  # each array 64-byte aligned
        if offer is not None and loose and ends[-1] >= OUTBOX_BYTES:
            used = {e[0] for e in entries if e is not None}
            slab = self._slab([f for f in offer[0] if f[0] not in used], int(ends[-1]))
            if slab is not None:
                path, view = slab
                pieces = [(view[a : a + raws[i].nbytes], np.frombuffer(raws[i], np.uint8)) for a, i in zip(ends, loose)]
                list(self.copier.map(lambda p: np.copyto(*p), [(d[k : k + COPY_BYTES], s[k : k + COPY_BYTES]) for d, s in pieces for k in range(0, len(s), COPY_BYTES)]))
                for a, i in zip(ends, loose):
                    entries[i] = (path, int(a), raws[i].nbytes)
        pipe.send((data, [bytearray(r) if e is None else e for r, e in zip(raws, entries)]))  # writable, as arrays pickled whole would be

    def _place_of(self, raw) -> tuple[str, int, int] | None:
        """(slab, offset, length) of bytes that lie in a slab this part maps, else None."""
        if not raw.nbytes:
            return None
        address = np.frombuffer(raw, np.uint8).ctypes.data
        for path, view in self.mapped.items():
            offset = address - view.ctypes.data
            if 0 <= offset and offset + raw.nbytes <= len(view):
                return path, offset, raw.nbytes
        return None

    def _slab(self, free: list[tuple[str, int]], nbytes: int) -> tuple[str, np.ndarray] | None:
        """The smallest free slab that holds ``nbytes``, else a new one (None: no room for it)."""
        for path, size in sorted(free, key=lambda f: f[1]):
            if size >= nbytes and self._map(path, size) is not None:
                return path, self.mapped[path]
        path = os.path.join(self.directory, f"slab-{os.getpid()}-{uuid.uuid4().hex[:8]}")
        size = -(-nbytes // SLAB_ROUND) * SLAB_ROUND
        try:
            with open(path, "x+b") as f:
                os.posix_fallocate(f.fileno(), 0, size)  # the room taken now: a full tmpfs fails here, not as SIGBUS on a write
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(path)
            return None
        return path, self._map(path, size)

    def _map(self, path: str, size: int) -> np.ndarray | None:
        """This part's view of a slab (None: gone), mapped the first time, and then pinned where
        the part copies from a GPU (so its copies run at the link's speed; unpinned where CUDA
        refuses, slower but the same bytes)."""
        if path not in self.mapped:
            try:
                with open(path, "r+b") as f:
                    view = np.frombuffer(mmap.mmap(f.fileno(), size), np.uint8)
            except OSError:
                return None
            if self.pins:
                import cupy

                try:
                    cupy.cuda.runtime.hostRegister(view.ctypes.data, size, 0)
                    self.pinned.add(path)
                except cupy.cuda.runtime.CUDARuntimeError:  # a locked-memory limit, say
                    pass
            self.mapped[path] = view
        return self.mapped[path]

    def _unmap(self, path: str) -> None:
        view = self.mapped.pop(path)
        if path in self.pinned:
            import cupy

            self.pinned.discard(path)
            cupy.cuda.runtime.hostUnregister(view.ctypes.data)


class Inbox:
    """The caller's side of the parts' outboxes: each result that came through slabs maps them
    for itself (its arrays keep those mappings alive), and a slab is free again once they are gone."""

    KEEP_FREE = 2

    def __init__(self):
        self.users: dict[str, int] = {}  # slab path -> results still mapping it
        self.sizes: dict[str, int] = {}
        self.lock = threading.Lock()  # a result let go releases its slab in whichever thread drops it

    def offer(self) -> tuple[list, list]:
        """The free slabs (path, size) and every slab still kept, for the parts' next result;
        free slabs beyond ``KEEP_FREE`` removed first (never during a call: a part may be writing
        into one offered)."""
        with self.lock:
            free = [p for p, n in self.users.items() if n == 0]
            for p in free[: max(len(free) - self.KEEP_FREE, 0)]:
                del self.users[p], self.sizes[p]
                with contextlib.suppress(OSError):
                    os.unlink(p)
            return [(p, self.sizes[p]) for p, n in self.users.items() if n == 0], list(self.users)

    def receive(self, sent: tuple):
        """What ``Outbox.send`` sent: ``(pickle, [each array's bytes, or (slab, offset, length)])``."""
        data, entries = sent
        views: dict[str, memoryview] = {}
        for e in entries:
            if isinstance(e, tuple) and e[0] not in views:
                views[e[0]] = self._map(e[0])
        return pickle.loads(data, buffers=[views[e[0]][e[1] : e[1] + e[2]] if isinstance(e, tuple) else e for e in entries])

    def _map(self, path: str) -> memoryview:
        with open(path, "r+b") as f:
            size = os.fstat(f.fileno()).st_size
            view = memoryview(mmap.mmap(f.fileno(), size))
        with self.lock:
            self.users[path] = self.users.get(path, 0) + 1
            self.sizes[path] = size
        weakref.finalize(view.obj, self._release, path)
        return view

    def _release(self, path: str) -> None:
        with self.lock:
            self.users[path] -= 1


def _join(rank: int, size: int, backend: str, memory: str, barrier, uids):
    """The part's communicator: NCCL between GPUs where CuPy has it (the first part makes the id
    and hands it to the others), else shared memory."""
    if backend == "cuda":
        if rank == 0:
            try:
                from cupy.cuda import nccl

                uid = nccl.get_unique_id() if nccl.available else None
            except ImportError:
                uid = None
            for _ in range(size - 1):
                uids.put(uid)
        else:
            uid = uids.get()
        if uid is not None:
            return NcclComm(uid, rank, size)
    return HostComm(memory, barrier, rank, size)
