"""Out-of-core BFS on the CPU backend's simulated device, with budgets computed exactly.

Budgets are derived from what the engine charges (the vertex state, then indptr and the chunk
tables, then whole chunk slots), so each run is known to hold exactly k device slots and h host
slots. Under every budget the BFS must give the resident run's (and scipy's) distances and a valid
Graph500 tree, every byte counted must be a byte moved, and no budget may be exceeded.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import shutil
import threading
from dataclasses import dataclass

import numpy as np
import pytest

import graphtier as gt
from graphtier.algorithms.bfs import BFS, HEADS
from graphtier.codecs.header import pad8
from graphtier.runtime.run import state_of
from graphtier.tiering import memory, storage
from graphtier.tiering.budget import parse_size
from graphtier.tiering.memory import TABLE_RING
from graphtier.tiering.resident import (
    ABSENT,
    CHUNK_START,
    INDEX_START,
    PAYLOAD_START,
    TABLE_COLUMNS,
    pad_line,
)
from graphtier.tiering.scheduler import COUNTERS, INDEX_SLACK, Scheduler
from graphtier.tiering.slots import SlotCache

from .conftest import head_ids, oracle_distances, reference_csr

FORMATS = ["csr", "log", "ef", "cgr"]
CHUNK_EDGES = 2048


# --- graphs and the sizes the engine charges -------------------------------------------------


@dataclass
class Case:
    g: gt.Graph
    ref: object  # scipy csr of the graph as stored (original ids)
    source: int
    resident: gt.BFSResult

    @property
    def oracle(self) -> np.ndarray:
        return oracle_distances(self.ref, self.source)


def slot_bytes(g: gt.Graph, reverse: bool = False) -> int:
    """The largest chunk, in whole lines: every slot of both tiers is this large."""
    chunks = g.chunks(reverse)
    return pad_line(max(h.total_bytes for h in chunks.headers(range(chunks.n_chunks))))


def chunk_sizes(g: gt.Graph, reverse: bool = False) -> np.ndarray:
    chunks = g.chunks(reverse)
    return np.array([h.total_bytes for h in chunks.headers(range(chunks.n_chunks))])


def n_chunks(g: gt.Graph, reverse: bool = False) -> int:
    return g.chunks(reverse).n_chunks


def state_bytes(g: gt.Graph, pulls: bool) -> int:
    """What the CPU BFS charges to the device budget before any chunk: its vertex state, frontier
    and decode scratch."""
    direction = ("pull" if g.directed else "auto") if pulls else "push"
    return state_of(BFS(g, 0, direction), g, "cpu")[1]


def fixed_bytes(g: gt.Graph, reverse: bool = False) -> int:
    """What a scheduler takes on the device before any chunk slot: indptr and its round tables."""
    return 8 * (g.n_vertices + 1) + (TABLE_RING + 1) * n_chunks(g, reverse) * TABLE_COLUMNS * 8


def index_bytes(g: gt.Graph, zero_copy: str, reverse: bool = False) -> int:
    """The index arena, when chunks may be read in place and the format's kernels read indexes:
    every chunk's header and local index, and 8 bytes of slack."""
    if zero_copy == "never" or not g.codec.kernels_read_index:
        return 0
    chunks = g.chunks(reverse)
    return sum(h.payload_start + INDEX_SLACK for h in chunks.headers(range(chunks.n_chunks)))


def heads_bytes(g: gt.Graph, zero_copy: str, pulls: bool = True) -> int:
    """The heads, when chunks may be read in place and a BFS pulls: one id per vertex."""
    return pad8(g.n_vertices * np.dtype(HEADS.dtype).itemsize) if pulls and zero_copy != "never" else 0


def device_memory_for(g: gt.Graph, slots: int, pulls: bool = True, zero_copy: str = "never") -> int:
    """The device_memory that leaves a (symmetric graph's) scheduler exactly ``slots`` slots (and
    its index arena and heads, where it keeps them)."""
    return state_bytes(g, pulls) + fixed_bytes(g) + index_bytes(g, zero_copy) + heads_bytes(g, zero_copy, pulls) + slots * slot_bytes(g)


def build_symmetric(path, fmt: str, seed: int = 7):
    edges = gt.generators.kronecker(11, edge_factor=8, seed=seed)
    g = gt.build(edges, path, format=fmt, symmetrize=True, drop_self_loops=True, chunk_edges=CHUNK_EDGES, progress=False)
    ref = reference_csr(edges, g.n_vertices, symmetrize=True, drop_self_loops=True)
    return g, ref


@pytest.fixture(scope="module", params=FORMATS)
def sym(request, tmp_path_factory) -> Case:
    g, ref = build_symmetric(tmp_path_factory.mktemp(request.param) / "g.gt", request.param)
    source = int(np.argmax(np.diff(ref.indptr)))
    resident = gt.bfs(g, source, device="cpu")
    assert n_chunks(g) >= 8, "the sweep needs a graph of several chunks"
    return Case(g, ref, source, resident)


@pytest.fixture(scope="module", params=FORMATS)
def directed(request, tmp_path_factory) -> Case:
    edges = gt.generators.kronecker(11, edge_factor=8, seed=9)
    path = tmp_path_factory.mktemp(f"d-{request.param}") / "d.gt"
    g = gt.build(edges, path, format=request.param, reverse=True, chunk_edges=CHUNK_EDGES, progress=False)
    assert g.directed and g.has_reverse
    ref = reference_csr(edges, g.n_vertices)
    source = int(np.argmax(np.diff(ref.indptr)))
    return Case(g, ref, source, gt.bfs(g, source, device="cpu", direction="push"))


@pytest.fixture()
def moved(monkeypatch):
    """Bytes really copied to the simulated device, and really read (with their crc) from the store."""
    seen = {"copied": 0, "copies": 0, "read": 0, "reads": 0}
    copy, read_into, lock = memory.CpuMemory.copy, storage.ChunkStore.read_into, threading.Lock()

    def counting_copy(self, dst, src, nbytes, after=None):
        seen["copied"] += nbytes
        seen["copies"] += 1
        return copy(self, dst, src, nbytes, after)

    def counting_read_into(self, c, out):
        read_into(self, c, out)
        with lock:  # threads read chunks at once
            seen["read"] += len(out) + storage.CRC_BYTES  # as stored: the crc included
            seen["reads"] += 1

    monkeypatch.setattr(memory.CpuMemory, "copy", counting_copy)
    monkeypatch.setattr(storage.ChunkStore, "read_into", counting_read_into)
    return seen


def run(case: Case, moved: dict, **kw) -> gt.BFSResult:
    """One BFS with the byte counters zeroed first."""
    for k in moved:
        moved[k] = 0
    return gt.bfs(case.g, case.source, device="cpu", **kw)


def check_result(case: Case, r: gt.BFSResult, expected: gt.BFSResult | None = None) -> None:
    expected = case.resident if expected is None else expected
    np.testing.assert_array_equal(r.distances, expected.distances)
    np.testing.assert_array_equal(r.distances, case.oracle)
    gt.validate_bfs_tree(case.ref.indptr, case.ref.indices, case.source, r.distances, r.parents)


def check_accounting(r: gt.BFSResult, moved: dict, device_memory: int, host_memory: int) -> None:
    """Counted bytes are moved bytes; iterations sum to the totals; budgets hold."""
    s = r.stats
    assert s["device_memory"] == device_memory and s["host_memory"] == host_memory
    assert s["bytes_host_to_device"] == moved["copied"], "bytes_host_to_device != bytes CpuMemory.copy moved"
    assert s["bytes_store_read"] == moved["read"], "bytes_store_read != bytes ChunkStore.fetch returned"
    assert len(s["iterations"]) == s["levels"]
    for key in COUNTERS:
        assert s[key] == sum(it[key] for it in s["iterations"]), key
    for it in s["iterations"]:
        assert it["transfer_seconds"] >= 0 and it["compute_seconds"] >= 0
    assert 0 < s["device_peak_bytes"] <= s["device_memory"], (s["device_peak_bytes"], s["device_memory"])
    assert 0 < s["host_peak_bytes"] <= s["host_memory"], (s["host_peak_bytes"], s["host_memory"])


def check_scheduler_counters(r: gt.BFSResult, sizes: np.ndarray, zero_copy: str, moved: dict, index_total: int) -> None:
    """What a streamed run's counters must satisfy given the chunk sizes and the sizes of the index
    arena and the heads (``index_total``)."""
    s = r.stats
    lo, hi = int(sizes.min()), int(sizes.max())
    chunk_bytes = s["bytes_host_to_device"] - s["bytes_index_to_device"]
    assert s["host_misses"] == moved["reads"]
    assert s["device_misses"] <= moved["copies"] <= s["device_misses"] + 2 * s["host_misses"]  # and index and heads copies
    assert pad_line(lo) * s["device_misses"] <= chunk_bytes <= pad_line(hi) * s["device_misses"]  # chunks travel in whole lines
    assert 0 <= s["bytes_index_to_device"] <= index_total  # each index and head loaded at most once
    assert (lo + 4) * s["host_misses"] <= s["bytes_store_read"] <= (hi + 4) * s["host_misses"]
    for it in s["iterations"]:
        # every chunk that goes through the host tier was either copied or read in place, once
        assert it["host_hits"] + it["host_misses"] == it["device_misses"] + it["zero_copy_chunks"], it
        if it["device_hits"] + it["device_misses"] + it["zero_copy_chunks"]:
            assert it["rounds"] >= 1
    if zero_copy == "never":
        assert s["zero_copy_chunks"] == 0 and s["bytes_zero_copy"] == 0
    if zero_copy == "always":
        assert chunk_bytes == 0 and s["device_hits"] == 0 and s["device_misses"] == 0
        assert s["zero_copy_chunks"] > 0 and s["bytes_zero_copy"] > 0


# --- 1-3: the same result, honest byte counts and budgets kept under every budget -------------


@pytest.mark.parametrize("zero_copy", ["auto", "never", "always"])
def test_every_budget_same_result_and_bytes(sym, moved, zero_copy):
    g = sym.g
    n, slot, sizes = n_chunks(g), slot_bytes(g), chunk_sizes(g)
    state = state_bytes(g, pulls=True)
    streamed = 0
    for k in sorted({1, 2, 3, n // 2, n}):
        D = device_memory_for(g, k, zero_copy=zero_copy)
        for h in sorted({1, 2, n // 2, n}):
            H = h * slot
            r = run(sym, moved, device_memory=D, host_memory=H, zero_copy=zero_copy)
            check_result(sym, r)
            check_accounting(r, moved, D, H)
            src = g.source("cpu", chunk_budget=D - state, host_budget=H, zero_copy=zero_copy, sidecars=(HEADS,))
            if not isinstance(src, Scheduler):  # the whole graph fit both budgets
                assert zero_copy == "auto" and g.resident_size() <= min(D - state, H)
                assert r.stats["rounds"] == 0 and r.stats["bytes_host_to_device"] == 0
                continue
            streamed += 1
            homes = zero_copy != "always" and sum(pad_line(int(b)) for b in sizes) <= D - state - fixed_bytes(g)
            assert src.plan.homes == homes  # every chunk at a place of its own, if they all fit
            assert src.device.n_slots == (n if homes else 0 if zero_copy == "always" else k), "device_memory_for gave another slot count"
            assert src.host.n_slots == h
            assert (src.plan.index is not None) == (index_bytes(g, zero_copy) > 0 and not src.plan.homes)
            assert ("heads" in src.plan.sidecars) == (heads_bytes(g, zero_copy) > 0 and not src.plan.homes)
            assert src.memory.bytes_copied == r.stats["bytes_host_to_device"]  # a fresh scheduler per budget
            check_scheduler_counters(r, sizes, zero_copy, moved, index_bytes(g, zero_copy) + heads_bytes(g, zero_copy))
            reads = r.stats["store_reads_max"]  # the most times a chunk came from the store
            assert r.stats["bytes_store_read"] <= reads * (int(sizes.sum()) + 4 * n) and (reads > 0) == (r.stats["bytes_store_read"] > 0)
            if h == n:  # nothing leaves the host tier: each chunk is read from the store at most once
                assert r.stats["host_misses"] <= n and r.stats["bytes_store_read"] <= int(sizes.sum()) + 4 * n and reads == 1
            if h == 1 and k == 1:  # one host slot: a chunk needed at two levels came twice at least
                assert reads > 1
            if k == n and zero_copy == "never":  # nothing leaves the device tier either
                assert r.stats["device_misses"] <= n
            if k == 1 and zero_copy != "always":
                assert r.stats["device_peak_bytes"] == D  # one slot: the budget is used to the byte
    assert streamed >= 16


def test_smallest_budgets_are_exact(sym):
    """One byte less than the vertex state, or than one slot of either tier, is refused."""
    g, s = sym.g, sym.source
    state, slot = state_bytes(g, pulls=True), slot_bytes(g)
    least = device_memory_for(g, 1)
    gt.bfs(g, s, device="cpu", device_memory=least, host_memory=slot, zero_copy="never")
    with pytest.raises(ValueError, match="less than one chunk slot"):
        gt.bfs(g, s, device="cpu", device_memory=least - 1, host_memory=slot, zero_copy="never")
    with pytest.raises(ValueError, match="host_memory"):
        gt.bfs(g, s, device="cpu", device_memory=least, host_memory=slot - 1, zero_copy="never")
    with pytest.raises(ValueError, match="vertex state"):
        gt.bfs(g, s, device="cpu", device_memory=state, host_memory="1GiB")
    with pytest.raises(ValueError, match="chunk slot") as e:
        gt.bfs(g, s, device="cpu", device_memory=state + 1, host_memory="1GiB", zero_copy="never")
    assert "does not hold the vertex state" not in str(e.value)
    # the resident path exactly when the whole graph fits what the state leaves and the host budget
    rs = g.resident_size()
    assert sym.resident.stats["device_peak_bytes"] == state + rs and sym.resident.stats["host_peak_bytes"] == rs
    for D, H, resident in ((state + rs, rs, True), (state + rs - 1, rs, False), (state + rs, rs - 1, False)):
        r = gt.bfs(g, s, device="cpu", device_memory=D, host_memory=H)
        np.testing.assert_array_equal(r.distances, sym.resident.distances)
        assert r.stats["device_peak_bytes"] <= D and r.stats["host_peak_bytes"] <= H
        src = g.source("cpu", chunk_budget=D - state, host_budget=H, zero_copy="auto", sidecars=(HEADS,))
        assert isinstance(src, Scheduler) != resident, (D - state, H, rs)
    # pushing only needs less vertex state
    push_least = state_bytes(g, pulls=False) + fixed_bytes(g) + slot
    r = gt.bfs(g, s, device="cpu", direction="push", device_memory=push_least, host_memory=slot, zero_copy="never")
    np.testing.assert_array_equal(r.distances, sym.resident.distances)
    with pytest.raises(ValueError, match="chunk slot"):
        gt.bfs(g, s, device="cpu", direction="push", device_memory=push_least - 1, host_memory=slot, zero_copy="never")


def test_zero_copy_always_keeps_device_budget(sym, moved):
    """zero_copy="always" holds no chunk on the device, but indptr and the round tables still go
    there: a device_memory that cannot hold them must be refused, not exceeded."""
    g = sym.g
    slot, state = slot_bytes(g), state_bytes(g, pulls=True)
    for D in (state + 1, state + fixed_bytes(g) // 2, state + fixed_bytes(g) - 1):
        try:
            r = run(sym, moved, device_memory=D, host_memory=slot, zero_copy="always")
        except ValueError:
            continue
        check_result(sym, r)
        assert r.stats["device_peak_bytes"] <= D, f"device_memory={D:,} accepted but {r.stats['device_peak_bytes']:,} bytes used"


@pytest.mark.parametrize("direction", ["push", "pull"])
def test_directed_every_budget(directed, moved, direction):
    """A directed graph: pushing streams the graph; pulling streams its reverse, and both share
    each budget half and half."""
    g = gt.open(directed.g.location)  # schedulers of its own (push and pull budgets can coincide)
    directed = Case(g, directed.ref, directed.source, directed.resident)
    pulls = direction == "pull"
    parts = [False, True] if pulls else [False]
    state = state_bytes(g, pulls)
    n = min(n_chunks(g, rev) for rev in parts)
    slot = max(slot_bytes(g, rev) for rev in parts)
    need = max(fixed_bytes(g, rev) for rev in parts)
    shares = len(parts)
    with pytest.raises(ValueError, match="chunk slot"):
        run(directed, moved, direction=direction, device_memory=state + shares * (need + slot) - shares, host_memory="1GiB", zero_copy="never")
    with pytest.raises(ValueError, match="host_memory"):
        run(directed, moved, direction=direction, device_memory="1GiB", host_memory=shares * slot - 1, zero_copy="never")
    for k in sorted({1, 2, n // 2, n}):
        D = state + shares * (need + k * slot)
        for h in (1, n):
            H = shares * h * slot
            for zero_copy in ("auto", "never", "always"):
                r = run(directed, moved, direction=direction, device_memory=D, host_memory=H, zero_copy=zero_copy)
                check_result(directed, r)
                check_accounting(r, moved, D, H)
                assert {lvl["direction"] for lvl in r.stats["iterations"]} == {direction}
                for rev in parts:
                    src = g.source("cpu", reverse=rev, chunk_budget=(D - state) // shares, host_budget=H // shares, zero_copy=zero_copy, sidecars=(HEADS,) if rev else ())
                    if isinstance(src, Scheduler):  # the index arena, where there is one, takes slots
                        assert src.device.n_slots >= (min(k, n_chunks(g, rev)) if zero_copy == "never" else 0 if zero_copy == "always" else 1)
                        assert src.host.n_slots >= min(h, n_chunks(g, rev))
                        if pulls and not rev:  # pulling never reads the forward graph's chunks
                            assert src.host.peak == 0 and src.memory.bytes_copied == 0
                if zero_copy == "never" and not pulls:
                    check_scheduler_counters(r, chunk_sizes(g), zero_copy, moved, 0)


@pytest.mark.parametrize("zero_copy", ["always", "never"])
def test_a_level_reads_what_the_host_tier_holds_first(sym, moved, zero_copy):
    """Chunks read in place or copied, from a host tier with room for half of them: a level uses the chunks
    the tier already holds before it reads the others, so that a level needing every chunk once
    the tier is full has a tier's worth of hits (read after the misses, they were evicted unused)."""
    g = gt.open(sym.g.location)
    case = Case(g, sym.ref, sym.source, sym.resident)
    n, h = n_chunks(g), n_chunks(g) // 2
    r = run(case, moved, device_memory=device_memory_for(g, 2, zero_copy=zero_copy), host_memory=h * slot_bytes(g), zero_copy=zero_copy)
    check_result(case, r)
    misses = np.cumsum([0] + [it["host_misses"] for it in r.stats["iterations"]])
    full = [it for it, before in zip(r.stats["iterations"], misses) if before >= h and it["device_hits"] + it["device_misses"] + it["zero_copy_chunks"] == n]
    assert full, "no level needing every chunk once the tier was full"
    if zero_copy == "always":
        assert all(it["host_hits"] == h for it in full), full
    else:  # copies pass through the tier and keep their rounds' chunks there: fewer hits, never none
        assert all(it["host_hits"] > 0 for it in full), full


# --- 4: the device cache lasts across queries -------------------------------------------------


def test_half_the_chunks_cached_across_queries(sym, moved):
    g = gt.open(sym.g.location)  # no scheduler cached yet
    case = Case(g, sym.ref, sym.source, sym.resident)
    n, slot = n_chunks(g), slot_bytes(g)
    budget = {"device_memory": device_memory_for(g, n // 2), "host_memory": n * slot, "zero_copy": "never"}
    first = run(case, moved, **budget)
    check_result(case, first)
    assert first.stats["bytes_host_to_device"] > 0 and first.stats["bytes_store_read"] > 0
    second = run(case, moved, **budget)
    check_result(case, second)
    check_accounting(second, moved, budget["device_memory"], budget["host_memory"])
    assert second.stats["device_hits"] > 0
    assert second.stats["bytes_host_to_device"] <= first.stats["bytes_host_to_device"]
    assert second.stats["bytes_store_read"] == 0 and second.stats["host_misses"] == 0  # the host tier holds all
    assert (first.stats["store_reads_max"], second.stats["store_reads_max"]) == (1, 0)
    # other sources, on the same warm tiers
    for source in np.flatnonzero(sym.resident.distances >= 0)[::97][:6]:
        other = Case(g, sym.ref, int(source), gt.bfs(g, int(source), device="cpu"))
        r = run(other, moved, **budget)
        check_result(other, r)
        check_accounting(r, moved, budget["device_memory"], budget["host_memory"])
        assert r.stats["bytes_store_read"] == 0


def test_every_chunk_on_device_steps_aside(sym, moved):
    g = gt.open(sym.g.location)
    case = Case(g, sym.ref, sym.source, sym.resident)
    n, slot = n_chunks(g), slot_bytes(g)
    budget = {"device_memory": device_memory_for(g, n), "host_memory": n * slot, "zero_copy": "never"}
    first = run(case, moved, **budget)
    check_result(case, first)
    check_accounting(first, moved, budget["device_memory"], budget["host_memory"])
    sched = g.source("cpu", chunk_budget=budget["device_memory"] - state_bytes(g, True), host_budget=n * slot, zero_copy="never", sidecars=(HEADS,))
    assert isinstance(sched, Scheduler)
    reached_chunks = len(sched.device)
    assert 0 < first.stats["device_misses"] == reached_chunks  # each loaded once, none evicted
    if reached_chunks < n:
        pytest.skip("this BFS does not touch every chunk, so the scheduler cannot step aside")
    assert sched.steps_aside
    for source in (sym.source, *np.flatnonzero(sym.resident.distances >= 0)[::211][:4]):
        other = Case(g, sym.ref, int(source), sym.resident if source == sym.source else gt.bfs(g, int(source), device="cpu"))
        r = run(other, moved, **budget)
        check_result(other, r)
        check_accounting(r, moved, budget["device_memory"], budget["host_memory"])
        s = r.stats
        assert s["bytes_host_to_device"] == 0 and s["bytes_store_read"] == 0 and s["rounds"] == 0
        assert all(it["rounds"] == 0 for it in s["iterations"])
    g.evict_device()  # cold device, warm host: everything copied again, nothing read again
    again = run(case, moved, **budget)
    check_result(case, again)
    assert again.stats["bytes_host_to_device"] == first.stats["bytes_host_to_device"]
    assert again.stats["bytes_store_read"] == 0


# --- the scheduler's rounds, driven directly --------------------------------------------------


@pytest.mark.parametrize("zero_copy", ["auto", "never", "always"])
def test_rounds_hold_each_needed_chunk_once_with_its_bytes(sym, zero_copy):
    """Every needed chunk is in exactly one round's table, at an address holding its exact bytes;
    chunks not needed are absent."""
    g = sym.g
    n, slot = n_chunks(g), slot_bytes(g)
    blobs = g.chunks().read(range(n))
    layout = np.array([(h.index_start, h.payload_start, h.n_edges) for h in g.chunks().headers(range(n))])
    rng = np.random.default_rng(1)
    for k, h in ((1, 1), (2, 1), (2, 3), (4, 2), (n // 2, n), (n, 2)):
        sched = Scheduler(g.stored(), "cpu", fixed_bytes(g) + k * slot, h * slot, zero_copy)
        for _ in range(12):
            need = np.where(rng.random(n) < 0.6, rng.integers(1, layout[:, 2] + 1), 0)
            seen = np.zeros(n, int)
            aside = sched.steps_aside  # every chunk already on the device: one round, the whole table
            for table in sched.rounds(lambda out, need=need: np.add(out, need, out=out)):
                words = sched.words(np.uint8)
                for c in np.flatnonzero(table[:, CHUNK_START] != ABSENT):
                    a = int(table[c, CHUNK_START])
                    assert bytes(words[a : a + len(blobs[c])]) == bytes(blobs[c]), f"chunk {c} has other bytes"
                    assert table[c, PAYLOAD_START] - a == layout[c, 1]
                    # the header and index, in the chunk or the index arena, with the slack after them
                    head = int(table[c, INDEX_START] - layout[c, 0])
                    span = min(layout[c, 1] + INDEX_SLACK, len(blobs[c]))
                    assert bytes(words[head : head + span]) == bytes(blobs[c][:span]), f"chunk {c}'s index has other bytes"
                    if head != a:
                        assert sched.plan.index is not None and head == sched.plan.index[c]
                    seen[c] += 1
            if aside:
                assert (seen == 1).all()
            else:
                np.testing.assert_array_equal(seen, (need > 0).astype(int))
        stats = sched.take_stats()
        assert len(stats["iterations"]) == 12
        assert sched.device.peak <= k and sched.host.peak <= h
        assert stats["bytes_host_to_device"] == sched.memory.bytes_copied


# --- 5: errors --------------------------------------------------------------------------------


def test_budget_and_argument_errors(sym):
    g, s = sym.g, sym.source
    with pytest.raises(ValueError, match="vertex state"):
        gt.bfs(g, s, device="cpu", device_memory=1000)
    with pytest.raises(ValueError, match="host_memory"):
        gt.bfs(g, s, device="cpu", device_memory="1GiB", host_memory=100)
    with pytest.raises(ValueError, match="host_memory"):
        gt.bfs(g, s, device="cpu", device_memory="1GiB", host_memory=100, zero_copy="always")
    for bad in ("sometimes", "Auto", None, True):
        with pytest.raises(ValueError, match="zero_copy"):
            gt.bfs(g, s, device="cpu", zero_copy=bad)
    with pytest.raises(ValueError, match="zero_copy"):
        g.source("cpu", chunk_budget=1 << 30, host_budget=1 << 30, zero_copy="sometimes")
    for bad in ("lots", -1, "-5MB"):
        with pytest.raises(ValueError):
            gt.bfs(g, s, device="cpu", device_memory=bad)
        with pytest.raises(ValueError):
            gt.bfs(g, s, device="cpu", host_memory=bad)


def test_parse_size():
    assert parse_size("1GiB") == 2**30
    assert parse_size("512MB") == 512 * 10**6
    assert parse_size("1.5 KiB") == 1536
    assert parse_size(" 2 gib ") == 2 * 2**30 and parse_size("3kb") == 3000 and parse_size("7B") == 7
    assert parse_size("1048576") == 1 << 20 and parse_size("1 TiB") == 2**40 and parse_size("2T") == 2 * 10**12
    assert parse_size(12345) == 12345 and parse_size(0) == 0 and parse_size(np.int64(8)) == 8
    for bad in ("lots", -1, "", "1 XB", "GiB", "1.5.5MB", "-1", "1e9", True):
        with pytest.raises(ValueError):
            parse_size(bad)


def corrupted_copy(case: Case, tmp_path, edit):
    """A copy of the store with one chunk needed by the BFS's first level edited; that chunk."""
    g = case.g
    store = tmp_path / "copy.gt"
    shutil.copytree(g.location, store)
    c = int(g.indptr()[case.source] // g.chunk_edges)  # holds the source's edges: the first level needs it
    path = store / g.chunks().key(c)
    assert path.is_file(), path
    edit(path)
    return store, c


def flip_middle(path):
    data = bytearray(path.read_bytes())
    size = len(data)
    mid = size // 2
    data[mid : mid + 16] = bytes(b ^ 0x5A for b in data[mid : mid + 16])
    path.write_bytes(bytes(data))
    assert path.stat().st_size == size


@pytest.mark.parametrize("zero_copy", ["never", "always"])
def test_corrupt_chunk_named_when_the_scheduler_loads_it(sym, tmp_path, zero_copy):
    store, c = corrupted_copy(sym, tmp_path, flip_middle)
    g = gt.open(store)
    budget = {"device_memory": device_memory_for(g, 1), "host_memory": slot_bytes(g), "zero_copy": zero_copy}
    with pytest.raises(gt.CorruptChunkError, match=rf"chunk {c}\b.*crc32c") as e:
        gt.bfs(g, sym.source, device="cpu", **budget)
    assert e.value.chunk == c
    # the resident path refuses it too
    with pytest.raises(gt.CorruptChunkError, match=rf"chunk {c}\b"):
        gt.bfs(gt.open(store), sym.source, device="cpu")


def test_missing_chunk_named(sym, tmp_path):
    store, c = corrupted_copy(sym, tmp_path, lambda p: p.unlink())
    g = gt.open(store)
    with pytest.raises(gt.CorruptChunkError, match=rf"chunk {c}\b.*missing") as e:
        gt.bfs(g, sym.source, device="cpu", device_memory=device_memory_for(g, 1), host_memory=slot_bytes(g), zero_copy="never")
    assert e.value.chunk == c


def test_chunks_read_into_a_buffer_are_the_stored_ones_checked(sym, tmp_path):
    """``ChunkStore.read_into`` (the resident load's read, straight from a local store's file)
    gives what Zarr's read gives, from a directory and from a zip; a chunk whose file changed size
    since the sizes were listed, or whose bytes changed, is refused naming it."""
    zipped = tmp_path / "g.zip"
    gt.recode(sym.g, zipped)
    for location in (sym.g.location, zipped):
        g = gt.open(location)
        chunks, sizes = g.chunks(), g.chunk_sizes()
        for c in range(chunks.n_chunks):
            out = np.empty(sizes[c], np.uint8)
            chunks.read_into(c, out)
            assert np.array_equal(out, chunks.read([c])[0]), (location, c)
        with pytest.raises(gt.CorruptChunkError, match=r"chunk 0\b.*changed in the store since its size was read"):
            chunks.read_into(0, np.empty(sizes[0] + 8, np.uint8))
    store, c = corrupted_copy(sym, tmp_path, flip_middle)
    g = gt.open(store)
    with pytest.raises(gt.CorruptChunkError, match=rf"chunk {c}\b.*crc32c"):
        g.chunks().read_into(c, np.empty(g.chunk_sizes()[c], np.uint8))


# --- 6: the slot caches -----------------------------------------------------------------------


def test_slot_cache_lru_order():
    cache = SlotCache(3)
    assert [cache.place(c) for c in (10, 11, 12)] == [(0, None), (1, None), (2, None)]
    assert cache.chunks() == [10, 11, 12] and len(cache) == 3 and 11 in cache and 13 not in cache
    cache.touch(10)
    assert cache.chunks() == [11, 12, 10]
    assert cache.place(13) == (1, 11)  # 11 was least recently used; 13 takes its slot
    assert cache.slot(13) == 1 and 11 not in cache
    assert cache.chunks() == [12, 10, 13]
    assert cache.place(14) == (2, 12)
    assert cache.place(15) == (0, 10)
    assert cache.chunks() == [13, 14, 15] and cache.peak == 3
    cache.demote(15)  # held by another tier too: the next to go
    assert cache.place(16) == (0, 15) and cache.chunks() == [13, 14, 16]


def test_slot_cache_keep_and_exhaustion():
    cache = SlotCache(3)
    for c in (1, 2, 3):
        cache.place(c)
    assert cache.place(4, keep={1, 2}) == (2, 3)  # 1 and 2 are older but must stay
    assert cache.chunks() == [1, 2, 4]
    assert cache.place(5, keep=[1, 4]) == (1, 2)
    before = cache.chunks()
    with pytest.raises(RuntimeError, match="3 slots"):
        cache.place(6, keep={1, 4, 5})
    assert cache.chunks() == before and 6 not in cache  # a refused placement changes nothing
    with pytest.raises(RuntimeError):
        SlotCache(0).place(1)


def test_slot_cache_peak_clear_and_fences():
    cache = SlotCache(4)
    cache.place(1)
    cache.place(2)
    assert cache.peak == 2
    cache.fence[1] = "event"
    cache.clear()
    assert len(cache) == 0 and cache.peak == 2 and cache.fence[1] == "event"  # fences outlive the chunks
    assert [cache.place(c)[0] for c in (7, 8, 9)] == [0, 1, 2]  # free slots again, lowest first
    assert cache.peak == 3
    cache.place(10)
    cache.place(11)
    assert cache.peak == 4 and len(cache) == 4


# --- 7: the index arena, static rounds, free slots, slots of their own ------------------------


def fresh(case: Case) -> Case:
    """The same graph opened again, with no scheduler cached."""
    return Case(gt.open(case.g.location), case.ref, case.source, case.resident)


def heads_copied(g: gt.Graph) -> int:
    """Bytes of heads a scheduler copies once every chunk has been validated: those of every vertex
    from its chunk's first source on (the empty lists between a chunk's first source and the next
    chunk's included)."""
    indptr, e = g.indptr(), g.chunk_edges
    headers = g.chunks().headers(range(n_chunks(g)))
    owners = sum(int(np.searchsorted(indptr, e * c + h.n_edges)) - max(int(np.searchsorted(indptr, e * c)), h.first_src) for c, h in enumerate(headers))
    return owners * g.id_dtype.itemsize


def scheduler_of(g: gt.Graph, device_memory: int, host_memory: int, zero_copy: str) -> Scheduler:
    src = g.source("cpu", chunk_budget=device_memory - state_bytes(g, pulls=True), host_budget=host_memory, zero_copy=zero_copy, sidecars=(HEADS,))
    assert isinstance(src, Scheduler)
    return src


def test_indexes_load_once_then_rounds_are_static(sym, moved):
    """Reading in place: each chunk's header and index (formats whose kernels read indexes only)
    and the heads of its lists go to the device once, with the chunk's first trip to the host
    tier; once the host tier holds every chunk, each iteration is one static round that moves
    nothing, and counts what it reads in place as the streamed rounds did."""
    case = fresh(sym)
    g = case.g
    n = n_chunks(g)
    D, H = device_memory_for(g, 0, zero_copy="always"), n * slot_bytes(g)
    budget = {"device_memory": D, "host_memory": H, "zero_copy": "always"}
    first = run(case, moved, **budget)
    check_result(case, first)
    check_accounting(first, moved, D, H)
    sched = scheduler_of(g, D, H, "always")
    assert len(sched.host) == n and sched.steps_aside
    s = first.stats
    heads = heads_copied(g)
    if g.codec.kernels_read_index:
        spans = [min(sched.layout[c, 2] + INDEX_SLACK, sched.chunk_bytes[c]) for c in range(n)]
        assert sched.indexed.all() and s["bytes_index_to_device"] == sum(spans) + heads == s["bytes_host_to_device"]
        assert moved["copies"] == 2 * n
    else:
        assert sched.plan.index is None and s["bytes_index_to_device"] == heads == s["bytes_host_to_device"]
        assert moved["copies"] == n
    assert sched.derived.all()
    np.testing.assert_array_equal(sched.sidecar("heads"), head_ids(g))  # every list's head, the rest unknown
    second = run(case, moved, **budget)
    check_result(case, second)
    check_accounting(second, moved, D, H)
    t = second.stats
    assert t["bytes_host_to_device"] == t["bytes_store_read"] == moved["copies"] == 0
    assert [it["rounds"] for it in t["iterations"]] == [1] * t["levels"]
    for a, b in zip(s["iterations"], t["iterations"]):  # same source: the same pushes; pulls find the heads now
        assert b["zero_copy_chunks"] == b["host_hits"] and b["device_hits"] == 0
        if a["direction"] == "push":
            assert a["zero_copy_chunks"] == b["zero_copy_chunks"] and abs(a["bytes_zero_copy"] - b["bytes_zero_copy"]) <= 1
        else:
            assert b["bytes_zero_copy"] <= a["bytes_zero_copy"]
    pulled = [(a["bytes_zero_copy"], b["bytes_zero_copy"]) for a, b in zip(s["iterations"], t["iterations"]) if a["direction"] == "pull"]
    assert pulled and sum(b for _, b in pulled) < sum(a for a, _ in pulled)


def test_an_arena_too_small_for_every_index_keeps_the_first_chunks(sym, moved):
    """Room for half the indexes (and not the heads): the arena holds those of the first chunks
    that fit (read from there), the others' are read in the chunk, and results are unchanged."""
    case = fresh(sym)
    g = case.g
    if not g.codec.kernels_read_index:
        pytest.skip(f"{g.format}'s kernels read no index")
    n = n_chunks(g)
    D = device_memory_for(g, 0, zero_copy="always") - heads_bytes(g, "always") - index_bytes(g, "always") // 2
    H = n * slot_bytes(g)
    result = run(case, moved, device_memory=D, host_memory=H, zero_copy="always")
    check_result(case, result)
    sched = scheduler_of(g, D, H, "always")
    kept = np.flatnonzero(sched.plan.index >= 0)
    assert 0 < len(kept) < n and (kept == np.arange(len(kept))).all() and not sched.plan.sidecars
    spans = [min(sched.layout[c, 2] + INDEX_SLACK, sched.chunk_bytes[c]) for c in kept]
    assert result.stats["bytes_index_to_device"] == sum(spans)
    (table,) = sched.rounds(None) if sched.steps_aside else [None]
    if table is not None:
        base = sched.memory.host_addresses(np.array([sched.host.slot(c) for c in range(n)]))
        in_arena = table[:, INDEX_START] != base + sched.layout[:, INDEX_START]
        assert (in_arena == (sched.plan.index >= 0)).all()


def test_auto_reads_in_place_once_the_host_tier_holds_the_graph(sym, moved):
    """With zero_copy="auto" and a device that cannot hold every chunk, an iteration copies one
    batch at most; once the host tier holds the graph, iterations are static (nothing moves: the
    device's chunks are hits, the rest are read in place). When every chunk fits the device, it
    fills instead, and later queries step aside."""
    case = fresh(sym)
    g = case.g
    n, slot = n_chunks(g), slot_bytes(g)
    sizes = sum(pad_line(int(b)) for b in chunk_sizes(g))
    k = next(k for k in range(n // 2, 0, -1) if device_memory_for(g, k, zero_copy="auto") < state_bytes(g, pulls=True) + fixed_bytes(g) + sizes)
    D, H = device_memory_for(g, k, zero_copy="auto"), n * slot  # the chunks do not fit whole
    first = run(case, moved, device_memory=D, host_memory=H, zero_copy="auto")
    check_result(case, first)
    check_accounting(first, moved, D, H)
    sched = scheduler_of(g, D, H, "auto")
    batch = max(1, k // 2)
    assert all(it["device_misses"] <= batch for it in first.stats["iterations"])  # one batch of copies
    assert len(sched.host) == n and sched.steps_aside and len(sched.device) <= k
    for source in (case.source, *np.flatnonzero(case.resident.distances >= 0)[::131][:3]):
        other = Case(g, case.ref, int(source), gt.bfs(g, int(source), device="cpu"))
        r = run(other, moved, device_memory=D, host_memory=H, zero_copy="auto")
        check_result(other, r)
        check_accounting(r, moved, D, H)
        s = r.stats
        assert s["bytes_host_to_device"] == s["bytes_store_read"] == moved["copies"] == s["device_misses"] == 0
        assert s["zero_copy_chunks"] > 0 and [it["rounds"] for it in s["iterations"]] == [1] * s["levels"]
    # every chunk fits at its own place: the device fills, then the scheduler steps aside
    case = fresh(sym)
    g = case.g
    D = state_bytes(g, pulls=True) + fixed_bytes(g) + sizes
    run(case, moved, device_memory=D, host_memory=H, zero_copy="auto")
    sched = scheduler_of(g, D, H, "auto")
    assert sched.plan.homes and len(sched.device) == n and sched.steps_aside
    again = run(case, moved, device_memory=D, host_memory=H, zero_copy="auto")
    check_result(case, again)
    assert again.stats["rounds"] == again.stats["bytes_host_to_device"] == again.stats["zero_copy_chunks"] == 0


def test_two_tiers_that_hold_the_graph_together_read_it_once(sym, moved):
    """A host tier smaller than the graph and device slots that hold the rest: chunks read from the
    store also go to free device slots, and the host tier lets go of chunks the device holds first,
    so each chunk comes from the store once; then iterations are static and later queries read
    nothing from the store. With a host tier and slots short of the graph, each level reads no more
    than what they cannot hold."""
    case = fresh(sym)
    g = case.g
    n = n_chunks(g)
    for k in (n // 2 + 1, n // 4):  # device slots: with a host tier of half the chunks, enough and too few
        h = n - n // 2
        case = fresh(sym)
        D, H = device_memory_for(case.g, k, zero_copy="auto"), h * slot_bytes(g)
        first = run(case, moved, device_memory=D, host_memory=H, zero_copy="auto")
        check_result(case, first)
        check_accounting(first, moved, D, H)
        s = first.stats
        assert sum(times * nbytes for times, nbytes in s["store_read_bytes"].items()) == s["bytes_store_read"]
        if k + h >= n:
            assert s["store_reads_max"] == 1 and s["host_misses"] <= n and list(s["store_read_bytes"]) == [1]
            again = run(case, moved, device_memory=D, host_memory=H, zero_copy="auto")
            check_result(case, again)
            assert again.stats["bytes_store_read"] == again.stats["bytes_host_to_device"] == again.stats["host_misses"] == 0
        else:
            assert all(it["host_misses"] <= max(n - k - h, 0) + n * (i < 2) for i, it in enumerate(s["iterations"]))


def test_sweeps_keep_in_the_host_tier_what_the_device_does_not(sym):
    """Sweeps over a graph larger than the two tiers together: the host tier keeps chunks the
    device does not (least recently used, it would keep the sweep's last chunks and lose each one
    before the next sweep reaches it), so later sweeps find them there; ranks as in memory."""
    g = fresh(sym).g
    n = n_chunks(g)
    k = h = n // 4
    tol = 1e-4 / g.n_vertices  # several sweeps
    resident = gt.pagerank(g, tol=tol, device="cpu")
    D = resident.stats["state_bytes"] + fixed_bytes(g) + k * slot_bytes(g)
    r = gt.pagerank(fresh(sym).g, tol=tol, device="cpu", device_memory=D, host_memory=h * slot_bytes(g))
    np.testing.assert_array_equal(r.ranks, resident.ranks)
    later = r.stats["iterations"][1:]
    assert later and all(it["host_hits"] >= h // 2 for it in later), [it["host_hits"] for it in later]


def test_every_chunk_in_a_slot_of_its_own(sym, moved):
    """A budget that holds every chunk at its own size, though not as many slots of the largest
    chunk's size: each chunk is loaded once and stays; later queries step aside."""
    case = fresh(sym)
    g = case.g
    sizes = np.array([pad_line(int(b)) for b in chunk_sizes(g)])
    n, slot = n_chunks(g), slot_bytes(g)
    assert sizes.sum() < n * slot, "needs chunks of different sizes (the last one is short)"
    D, H = state_bytes(g, pulls=True) + fixed_bytes(g) + int(sizes.sum()), n * slot
    first = run(case, moved, device_memory=D, host_memory=H, zero_copy="never")
    check_result(case, first)
    check_accounting(first, moved, D, H)
    assert first.stats["device_peak_bytes"] == D
    sched = scheduler_of(g, D, H, "never")
    assert sched.plan.homes and sched.device.n_slots == n
    assert first.stats["device_misses"] == len(sched.device) == n and all(sched.device.slot(c) == c for c in range(n))
    second = run(case, moved, device_memory=D, host_memory=H, zero_copy="never")
    check_result(case, second)
    assert second.stats["rounds"] == second.stats["bytes_host_to_device"] == 0
    equal = scheduler_of(fresh(sym).g, D - 1, H, "never")  # a byte less: slots of the largest chunk's size
    assert not equal.plan.homes and equal.device.n_slots == (D - 1 - state_bytes(g, pulls=True) - fixed_bytes(g)) // slot < n


def test_a_device_that_cannot_give_the_arena_gets_a_smaller_one(sym, moved, monkeypatch, capsys):
    """A failed device allocation halves the arena, says so, and the result is the same; a device
    that cannot give even one slot is an OutOfMemoryError."""
    case = fresh(sym)
    g = case.g
    n, slot = n_chunks(g), slot_bytes(g)
    allocate = memory.CpuMemory.allocate_device
    monkeypatch.setattr(memory.CpuMemory, "allocate_device", lambda self, nbytes: nbytes <= 2 * slot and allocate(self, nbytes))
    D, H = device_memory_for(g, n - 1), n * slot
    r = run(case, moved, device_memory=D, host_memory=H, zero_copy="never")
    check_result(case, r)
    check_accounting(r, moved, D, H)
    assert "could not give" in capsys.readouterr().err
    assert 1 <= scheduler_of(g, D, H, "never").device.n_slots <= 2
    monkeypatch.setattr(memory.CpuMemory, "allocate_device", lambda self, nbytes: nbytes == 0)
    with pytest.raises(gt.OutOfMemoryError, match="one chunk slot"):
        gt.bfs(fresh(sym).g, sym.source, device="cpu", device_memory=D, host_memory=H, zero_copy="never")


def _arena_in_child(location: str, out) -> None:
    out.put(hashlib.sha256(gt.open(location).resident().arena).hexdigest())


def test_a_forked_child_checks_chunks_with_threads_of_its_own(tmp_path):
    """The threads that check and place chunks are per process: a child forked after its parent used
    them loads a graph too (handed to the parent's threads, which fork does not copy, the work would
    wait forever)."""
    g = gt.build(gt.generators.kronecker(10, seed=1), tmp_path / "g.gt", symmetrize=True, chunk_edges=1 << 12, progress=False)
    expected = hashlib.sha256(g.resident().arena).hexdigest()
    fork = multiprocessing.get_context("fork")
    out = fork.Queue()
    child = fork.Process(target=_arena_in_child, args=(g.location, out))
    child.start()
    child.join(30)
    hung = child.is_alive()
    if hung:
        child.kill()
    assert not hung and child.exitcode == 0
    assert out.get(timeout=5) == expected
