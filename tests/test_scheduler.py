"""The tiering scheduler on the CPU backend's simulated device: the same results under every
budget from one chunk slot to everything, byte counts equal to the bytes moved, budgets kept."""

from __future__ import annotations

import numpy as np
import pytest

import graphtier as gt
from graphtier.tiering import memory, storage
from graphtier.tiering.budget import parse_size
from graphtier.tiering.slots import SlotCache


@pytest.fixture(scope="module", params=["csr", "log", "ef", "cgr"])
def graph(request, tmp_path_factory):
    d = tmp_path_factory.mktemp(request.param)
    return gt.build(gt.generators.kronecker(11, edge_factor=8, seed=3), d / "g.gt", symmetrize=True, drop_self_loops=True, format=request.param, chunk_edges=2048, progress=False)


def smallest_device_memory(g: gt.Graph, source: int) -> int:
    """The least device_memory a streamed BFS accepts (one chunk slot), found by bisection."""
    lo, hi = 1, 1 << 26
    while lo < hi:
        mid = (lo + hi) // 2
        try:
            gt.bfs(g, source, device="cpu", device_memory=mid, host_memory="1GiB", zero_copy="never")
            hi = mid
        except ValueError:
            lo = mid + 1
    return lo


@pytest.fixture()
def moved(monkeypatch):
    """Bytes actually copied to the simulated device and read from the store."""
    seen = {"copied": 0, "read": 0}
    copy, read = memory.CpuMemory.copy, storage.ChunkStore.read

    def counting_copy(self, dst, src, nbytes, after=None):
        seen["copied"] += nbytes
        return copy(self, dst, src, nbytes, after)

    def counting_read(self, chunk_ids):
        blobs = read(self, chunk_ids)
        seen["read"] += sum(len(b) + storage.CRC_BYTES for b in blobs)
        return blobs

    monkeypatch.setattr(memory.CpuMemory, "copy", counting_copy)
    monkeypatch.setattr(storage.ChunkStore, "read", counting_read)
    return seen


def test_every_budget_same_result(graph, moved):
    g = graph
    source = int(np.argmax(np.diff(g.indptr())))
    resident = gt.bfs(g, source, device="cpu")
    least = smallest_device_memory(g, source)
    slot = max(h.total_bytes for h in g.chunks().headers(range(g.chunks().n_chunks)))
    n = g.chunks().n_chunks
    for slots in (1, 2, 3, n // 2, n, 2 * n):
        for host_slots, zero_copy in ((1, "never"), (2, "auto"), (n, "auto"), (n, "always")):
            moved.update(copied=0, read=0)
            r = gt.bfs(g, source, device="cpu", device_memory=least + (slots - 1) * slot, host_memory=host_slots * slot + 8, zero_copy=zero_copy)
            np.testing.assert_array_equal(r.distances, resident.distances)
            s = r.stats
            assert s["device_peak_bytes"] <= s["device_memory"] and s["host_peak_bytes"] <= s["host_memory"]
            assert s["bytes_host_to_device"] == moved["copied"] and s["bytes_store_read"] == moved["read"]
            for key in ("bytes_host_to_device", "bytes_store_read", "bytes_zero_copy", "rounds"):
                assert s[key] == sum(it[key] for it in s["iterations"])
            if zero_copy == "always":
                assert s["bytes_host_to_device"] == 0 and s["bytes_zero_copy"] > 0


def test_device_cache_lasts_across_queries(graph, moved):
    g = graph
    source = int(np.argmax(np.diff(g.indptr())))
    budget = {"device_memory": smallest_device_memory(g, source) + 2 * g.resident_size(), "host_memory": "1GiB", "zero_copy": "never"}
    first = gt.bfs(g, source, device="cpu", **budget)
    second = gt.bfs(g, source, device="cpu", **budget)
    assert first.stats["bytes_host_to_device"] > 0 and first.stats["bytes_store_read"] > 0
    assert second.stats["bytes_host_to_device"] == 0 and second.stats["bytes_store_read"] == 0  # all on the device: steps aside
    g.evict_device()
    third = gt.bfs(g, source, device="cpu", **budget)
    assert third.stats["bytes_host_to_device"] == first.stats["bytes_host_to_device"] and third.stats["bytes_store_read"] == 0


def test_directed_pull_splits_budgets(tmp_path):
    g = gt.build(gt.generators.kronecker(10, edge_factor=8, seed=4), tmp_path / "d.gt", reverse=True, chunk_edges=1024, progress=False)
    source = int(np.argmax(np.diff(g.indptr())))
    for direction in ("push", "pull"):
        resident = gt.bfs(g, source, device="cpu", direction=direction)
        r = gt.bfs(g, source, device="cpu", direction=direction, device_memory=2 * smallest_device_memory(g, source), host_memory="1GiB", zero_copy="never")
        np.testing.assert_array_equal(r.distances, resident.distances)
        assert r.stats["device_peak_bytes"] <= r.stats["device_memory"]


def test_budget_errors(graph):
    g = graph
    with pytest.raises(ValueError, match="vertex state"):
        gt.bfs(g, 0, device="cpu", device_memory=1000)
    with pytest.raises(ValueError, match="host_memory"):
        gt.bfs(g, 0, device="cpu", device_memory="1GiB", host_memory=100, zero_copy="never")
    with pytest.raises(ValueError, match="zero_copy"):
        gt.bfs(g, 0, device="cpu", zero_copy="sometimes")


def test_corrupt_chunk_named_when_it_enters_the_host_tier(tmp_path):
    g = gt.build(gt.generators.kronecker(10, edge_factor=8, seed=5), tmp_path / "c.gt", symmetrize=True, chunk_edges=1024, progress=False)
    key, source = g.chunks().key(3), int(np.argmax(np.diff(g.indptr())))  # its BFS needs every chunk
    path = tmp_path / "c.gt" / key
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    bad = gt.open(tmp_path / "c.gt")
    with pytest.raises(gt.CorruptChunkError, match="chunk 3"):
        gt.bfs(bad, source, device="cpu", device_memory="1GiB", host_memory="1GiB", zero_copy="always")
    path.unlink()
    with pytest.raises(gt.CorruptChunkError, match="chunk 3.*missing"):
        gt.bfs(gt.open(tmp_path / "c.gt"), source, device="cpu", device_memory="1GiB", host_memory="1GiB", zero_copy="always")


def test_parse_size():
    assert parse_size("1GiB") == 2**30 and parse_size("512MB") == 512 * 10**6 and parse_size("1.5 KiB") == 1536 and parse_size(7) == 7
    for bad in ("lots", -1, "1 XB"):
        with pytest.raises(ValueError):
            parse_size(bad)


def test_slot_cache_evicts_least_recently_used_outside_keep():
    cache = SlotCache(2)
    assert cache.place(10) == (0, None) and cache.place(11) == (1, None)
    cache.touch(10)
    assert cache.place(12) == (1, 11)  # 11 was used least recently
    assert cache.place(13, keep={12}) == (0, 10)
    with pytest.raises(RuntimeError):
        cache.place(14, keep={12, 13})
    assert cache.peak == 2 and sorted(cache.chunks()) == [12, 13]
