"""Readers while a store is rebuilt in place, and damage to stores that are no directory (issue 14):
a reader sees the old or the new complete store or a clear error, never garbage; a store on
fsspec's memory filesystem or in a zip fails under damage as a directory store does."""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
import uuid
import zipfile

import fsspec
import numpy as np
import pytest

import graphtier as gt
from graphtier.errors import CorruptChunkError, GraphtierError, StoreError

SEEDS = (1, 2)  # the two Kronecker graphs the rebuilder alternates, told apart by their edge counts
SCALE = 8


def edges(seed: int) -> np.ndarray:
    return gt.generators.kronecker(SCALE, seed=seed)


def read_loop(path: str, references: list[str], seconds: float, ready, go, out) -> None:
    """Open, describe and load the store over and over (every chunk validated into the arena a
    kernel reads); count what each attempt saw: one of the reference stores, whole, or an error."""
    refs = {}
    for r in references:
        g = gt.open(r)
        refs[g.n_edges] = (g.indptr(), g.resident().arena)
    ready.release()
    go.wait()
    seen: dict[str, int] = {}
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            g = gt.open(path)
            g.info()
            indptr, arena = refs.get(g.n_edges, (None, None))
            same = arena is not None and np.array_equal(g.indptr(), indptr) and np.array_equal(g.resident().arena, arena)
            kind = f"graph of {g.n_edges} edges" if same else "garbage"
        except (GraphtierError, FileNotFoundError) as e:  # clear errors: a StoreError, a damaged chunk, no store for a moment
            kind = type(e).__name__
        except Exception as e:  # noqa: BLE001 (anything else is a bug, counted by its kind)
            kind = f"unexpected {type(e).__name__}: {e}"
        seen[kind] = seen.get(kind, 0) + 1
    out.put(seen)


def test_readers_see_old_or_new_or_a_clear_error(tmp_path):
    path = tmp_path / "g.gt"
    build = lambda seed, where=path: gt.build(edges(seed), where, symmetrize=True, chunk_edges=256, overwrite=True)
    references = [str(build(seed, tmp_path / f"ref{seed}.gt").location) for seed in SEEDS]
    build(SEEDS[0])
    ctx = multiprocessing.get_context("spawn")  # Numba's thread pool does not survive a fork
    ready, go, out = ctx.Semaphore(0), ctx.Event(), ctx.Queue()
    readers = [ctx.Process(target=read_loop, args=(str(path), references, 2.0, ready, go, out)) for _ in range(2)]
    for r in readers:
        r.start()
    for _ in readers:
        assert ready.acquire(timeout=120)
    go.set()
    builds = 0
    end = time.monotonic() + 2.0
    while time.monotonic() < end:
        builds += 1
        build(SEEDS[builds % 2])
    seen = [out.get(timeout=120) for _ in readers]
    for r in readers:
        r.join(timeout=60)
    total = {k: sum(s.get(k, 0) for s in seen) for k in set().union(*seen)}
    graphs = {f"graph of {gt.open(r).n_edges} edges" for r in references}
    assert len(graphs) == 2 and builds >= 4 and all(r.exitcode == 0 for r in readers), (builds, total)
    assert set(total) <= graphs | {"StoreError", "StoreReplacedError", "CorruptChunkError", "FileNotFoundError"}, total
    assert sum(total.get(g, 0) for g in graphs) > 0, total


def damage_cases():
    """(name, what to do to the store's files as a dict path -> bytes, the error it must raise)."""

    def flip(files, key):
        b = bytearray(files[key])
        b[len(b) // 2] ^= 0xFF
        files[key] = bytes(b)

    return {
        "adj chunk flipped": (lambda f: flip(f, "adj/c/1/0"), CorruptChunkError, r"adj chunk 1: .*crc32c"),
        "indptr chunk flipped": (lambda f: flip(f, "indptr/c/0"), CorruptChunkError, r"indptr chunk 0: decoding it failed"),
        "adj metadata missing": (lambda f: f.pop("adj/zarr.json"), StoreError, r"adj/zarr.json is missing"),
        "adj metadata garbage": (lambda f: f.update({"adj/zarr.json": b"\x00garbage"}), StoreError, r"adj/zarr.json is unreadable"),
        "root attributes damaged": (lambda f: f.update({"zarr.json": f["zarr.json"].replace(b'"n_vertices"', b'"n_vertexes"')}), StoreError, r"n_vertices"),
    }


def run_queries(location: str) -> None:
    g = gt.open(location)
    g.info()
    gt.bfs(g, 0, device="cpu")


@pytest.mark.parametrize("case", list(damage_cases()))
def test_damage_reads_the_same_in_a_directory_a_zip_and_memory(tmp_path, case):
    damage, error, message = damage_cases()[case]
    directory = tmp_path / "g.gt"
    gt.build(edges(1), directory, symmetrize=True, chunk_edges=256)
    files = {p.relative_to(directory).as_posix(): p.read_bytes() for p in directory.rglob("*") if p.is_file()}
    damage(files)
    for p in list(directory.rglob("*")):
        if p.is_file() and p.relative_to(directory).as_posix() not in files:
            p.unlink()
    for key, data in files.items():
        (directory / key).write_bytes(data)
    packed = tmp_path / "g.zip"
    with zipfile.ZipFile(packed, "w") as zf:
        for key, data in files.items():
            zf.writestr(key, data)
    url = f"memory://damaged-{uuid.uuid4().hex}"
    fs = fsspec.filesystem("memory")
    for key, data in files.items():
        fs.pipe(f"{url[len('memory://') :]}/{key}", data)
    try:
        for location in (str(directory), str(packed), url):
            with pytest.raises(error, match=message):
                run_queries(location)
    finally:
        fs.rm(url[len("memory://") :], recursive=True)


def successor(name: str, edges: np.ndarray) -> np.ndarray:
    """A graph to rebuild the store with: ``same lists``, every vertex with as many out-edges as in
    ``edges`` but to other vertices (the same indptr, so every chunk of it passes the checks made
    against the first build's; read mid-query, its chunks mix into the first's unseen), or
    ``another graph`` (chunks that disagree with the first build's indptr, or are missing)."""
    if name == "same lists":
        relabel = np.random.default_rng(1).permutation(int(edges.max()) + 1)
        return np.column_stack([edges[:, 0], relabel[edges[:, 1]]])
    return gt.generators.kronecker(SCALE + 3, edge_factor=4, seed=8)


@pytest.mark.parametrize("name", ["same lists", "another graph"])
def test_a_store_replaced_between_reads_of_a_query_is_refused(tmp_path, monkeypatch, name):
    """A rebuild with overwrite lands between two batches of a streamed query's chunk reads
    (deterministically: just before the third). The query stops with StoreReplacedError rather
    than finish on chunks of two builds, and the store opened again gives the new graph's result."""
    from graphtier.tiering import storage

    first = gt.generators.kronecker(SCALE + 3, edge_factor=8, seed=7)
    path, new = tmp_path / "g.gt", successor(name, first)
    kw = {"chunk_edges": 2048, "progress": False}
    g = gt.build(first, path, **kw)
    source = int(np.argmax(np.diff(g.indptr())))
    budgets = {"device": "cpu", "device_memory": 150_000, "host_memory": 30_000, "direction": "push"}
    expected = gt.bfs(gt.build(new, tmp_path / "new.gt", **kw), source, device="cpu", direction="push").distances
    read_into, reads, lock = storage.ChunkStore.read_into, [], threading.Lock()

    def replacing(self, c, out):
        with lock:  # threads read chunks at once: one of them, the third to read, rebuilds the store
            reads.append(c)
            if len(reads) == 3:
                gt.build(new, path, overwrite=True, **kw)
        return read_into(self, c, out)

    monkeypatch.setattr(storage.ChunkStore, "read_into", replacing)
    with pytest.raises(gt.StoreReplacedError, match=f"{path} was replaced while it was being read; open it again"):
        gt.bfs(g, source, **budgets)
    assert len(reads) >= 3
    monkeypatch.undo()
    np.testing.assert_array_equal(gt.bfs(gt.open(path), source, **budgets).distances, expected)


@pytest.mark.parametrize("budgets", [{}, {"device_memory": 150_000, "host_memory": 30_000}], ids=["resident", "streamed"])
def test_a_store_rebuilt_after_its_chunks_were_listed_is_refused(tmp_path, budgets):
    """A handle lists its chunks' sizes (sizing a query), then a rebuild with overwrite replaces
    the store before the graph is loaded: the load finds chunks not as listed, and the query
    stops with StoreReplacedError rather than call the new build's chunks damaged."""
    first = gt.generators.kronecker(SCALE + 3, edge_factor=8, seed=7)
    path, kw = tmp_path / "g.gt", {"chunk_edges": 2048, "progress": False}
    g = gt.build(first, path, **kw)
    g.indptr(), g.resident_size()  # indptr and the sizes, read and kept
    gt.build(successor("another graph", first), path, overwrite=True, **kw)
    with pytest.raises(gt.StoreReplacedError, match=f"{path} was replaced while it was being read; open it again"):
        gt.bfs(g, 0, device="cpu", direction="push", **budgets)


def test_the_store_is_checked_once_per_batch_of_reads(tmp_path, monkeypatch):
    """What the check costs: one read of the root metadata after each operator call that read
    chunks from the store, however many it read (and one more when a read fails)."""
    from graphtier.tiering import storage

    g = gt.build(edges(1), tmp_path / "g.gt", symmetrize=True, chunk_edges=256, progress=False)
    check, checks = storage.ChunkStore.check_unchanged, []
    monkeypatch.setattr(storage.ChunkStore, "check_unchanged", lambda self: checks.append(1) or check(self))
    r = gt.bfs(g, int(np.argmax(np.diff(g.indptr()))), device="cpu", device_memory=40_000, host_memory=8_000, direction="push")
    reading = sum(it["host_misses"] > 0 for it in r.stats["iterations"])
    assert 0 < len(checks) == reading < r.stats["host_misses"], (len(checks), reading, r.stats["host_misses"])


def test_work_mapped_ahead_keeps_its_order_and_stops_with_the_caller():
    """What validates chunks out of core: results in the items' order whatever order the threads
    finish in, at most two items per core worked ahead of the one taken, nothing started after
    the caller stops, and nothing still under way once it has (the scheduler's threads write into
    host slots that a failed iteration frees)."""
    from graphtier.tiering.storage import mapped_ahead

    started, finished, lock = [], [], threading.Lock()

    def square(i: int) -> int:
        with lock:
            started.append(i)
        time.sleep(0.002 * (i % 3))  # later items often finish first
        with lock:
            finished.append(i)
        return i * i

    assert list(mapped_ahead("test", square, ((i,) for i in range(60)))) == [i * i for i in range(60)]
    started.clear()
    finished.clear()
    results = mapped_ahead("test", square, ((i,) for i in range(1000)))
    assert next(results) == 0
    results.close()
    assert sorted(started) == sorted(finished)
    time.sleep(0.05)
    assert len(started) <= 2 * (os.cpu_count() or 1) + 1
