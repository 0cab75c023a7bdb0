"""One graph split over several devices (runtime/parts.py), on the CPU backend, whose "devices" are
processes with a simulated device each: BFS and PageRank equal one device's (PageRank bit for bit,
BFS distances, with parents that make a valid BFS tree), under budgets smaller than a part, on
symmetric and directed graphs; what does not split says so before any process starts; a part
that fails or is killed fails the call and leaves no process or shared memory behind."""

from __future__ import annotations

import itertools
import multiprocessing
import signal
import threading
import time
from pathlib import Path

import numpy as np
import psutil
import pytest

import graphtier as gt
from graphtier.runtime import parts
from graphtier.runtime.parts import Part, split

from .test_algorithms import weighted


@pytest.fixture(scope="module")
def graphs(tmp_path_factory) -> dict[str, gt.Graph]:
    d = tmp_path_factory.mktemp("parts")
    sym = gt.generators.kronecker(10, edge_factor=8, seed=3)
    directed = weighted(gt.generators.urand(10, edge_factor=6, seed=4), 2)
    return {
        "kron-sym-ef": gt.build(sym, d / "sym.gt", symmetrize=True, format="ef", chunk_edges=600, progress=False),
        "urand-dir-csr": gt.build(directed, d / "dir.gt", reverse=True, format="csr", chunk_edges=600, progress=False),
    }


def test_split_balances_the_lists(graphs):
    g = graphs["kron-sym-ef"]
    bounds = split(g, 3)
    indptr = g.indptr()
    assert bounds[0] == 0 and bounds[-1] == g.n_vertices and bounds == sorted(bounds)
    shares = np.diff(indptr[bounds])
    assert shares.max() - shares.min() <= 2 * np.diff(indptr).max()
    chunks = [Part(r, 3, (bounds[r], bounds[r + 1]), None).chunks(indptr, g.chunk_edges) for r in range(3)]
    assert chunks[0].start == 0 and chunks[-1].stop == g.chunks().n_chunks
    assert all(a.stop - 1 <= b.start <= a.stop for a, b in itertools.pairwise(chunks))  # a boundary chunk is shared at most


@pytest.mark.parametrize("name", ["kron-sym-ef", "urand-dir-csr"])
def test_bfs_and_pagerank_over_parts_equal_one_device(graphs, name):
    """Three parts (one set of processes for both calls), each under a budget smaller than its share."""
    g = graphs[name]
    source = int(np.argmax(np.diff(g.indptr())))
    one = gt.bfs(g, source, device="cpu")
    parts = gt.bfs(g, source, device="cpu", devices=3, device_memory="80KB")
    np.testing.assert_array_equal(parts.distances, one.distances)
    assert g.perm is None  # store ids are the input's: the tree checks as stored
    gt.validate_bfs_tree(g.indptr(), g.edges()[:, 1], source, parts.distances, parts.parents)
    assert len(parts.stats["parts"]) == 3
    read = [p["bytes_store_read"] for p in parts.stats["parts"]]
    assert parts.stats["bytes_store_read"] == sum(read) and max(read) < one.stats["bytes_store_read"]  # each part reads its own
    weight = g.weighted or None
    ranks = gt.pagerank(g, weight=weight, device="cpu")
    split_ranks = gt.pagerank(g, weight=weight, device="cpu", devices=3, device_memory="160KB")
    np.testing.assert_array_equal(split_ranks.ranks, ranks.ranks)  # bit for bit
    assert split_ranks.iterations == ranks.iterations


def test_what_does_not_split_says_so(graphs):
    g = graphs["kron-sym-ef"]
    with pytest.raises(ValueError, match="does not run split over several devices"):
        gt.connected_components(g, device="cpu", devices=2)
    with pytest.raises(ValueError, match="devices must be"):
        gt.Config(devices=0)
    assert gt.Config(devices=[1, 0]).devices == (1, 0)


def test_a_failing_part_fails_the_call(graphs):
    with pytest.raises(ValueError, match="does not hold the vertex state"):
        gt.bfs(graphs["kron-sym-ef"], 0, device="cpu", devices=2, device_memory="1KB")


def test_parts_are_kept_for_the_next_call(graphs):
    """A second call on the same store and devices finds its parts running, their host tiers
    full: nothing is read from the store again; other devices replace them."""
    g = graphs["kron-sym-ef"]
    first = gt.pagerank(g, device="cpu", devices=2)
    again = gt.pagerank(g, device="cpu", devices=2)
    assert first.stats["bytes_store_read"] > 0 and again.stats["bytes_store_read"] == 0
    np.testing.assert_array_equal(again.ranks, first.ranks)
    kept = parts.kept_processes()
    assert len(kept) == 2 and all(p.is_alive() for p in kept)
    gt.pagerank(g, device="cpu", devices=3)
    assert not any(p.is_alive() for p in kept) and len(parts.kept_processes()) == 3
    parts.close()
    assert parts.kept_processes() == []


def test_a_killed_part_stops_the_others_and_leaves_nothing(graphs, monkeypatch):
    """SIGKILL to one part mid-run: the call raises PartDiedError, the other parts are stopped, and
    the shared memory the merges and results went through is gone; the next call starts new parts.
    Only this call's shared memory is looked for: tests running beside it make their own."""
    made = []
    start = parts.Parts.__init__

    def recording(self, *args):
        try:
            start(self, *args)
        finally:
            made.extend(Path(p) for p in (f"/dev/shm/{self.memory.name}", getattr(self, "outbox", None)) if p)

    monkeypatch.setattr(parts.Parts, "__init__", recording)
    parts.close()  # parts another test kept would be the ones killed, and this call's would run on
    me = psutil.Process()
    killer = threading.Thread(target=_kill_a_part, args=(me,), daemon=True)
    killer.start()
    with pytest.raises(gt.PartDiedError, match="died"):
        gt.pagerank(graphs["kron-sym-ef"], device="cpu", devices=2, tol=0.0, max_iter=200_000)  # never converges: runs until killed (20,000 iterations take about a second)
    killer.join()
    assert parts.kept_processes() == [] and made and not [p for p in made if p.exists()]
    one = gt.bfs(graphs["kron-sym-ef"], 0, device="cpu")
    np.testing.assert_array_equal(gt.bfs(graphs["kron-sym-ef"], 0, device="cpu", devices=2).distances, one.distances)
    parts.close()


def test_large_results_come_back_through_a_slab_reused_once_let_go(tmp_path):
    """A part's arrays of a million bytes or more travel through a slab in its outbox that the
    caller maps for that result; once the result is let go the next one reuses the slab (no new
    pages), while a result still held keeps its own; without an offer (or room), the pipe."""
    mine, theirs = multiprocessing.Pipe()
    box, inbox = parts.Outbox(str(tmp_path), pins=False), parts.Inbox()

    def sent(array, offer):
        sender = threading.Thread(target=box.send, args=(theirs, ("ok", (array, {"seconds": 1.0})), offer))
        sender.start()
        message = mine.recv()
        sender.join()
        return message

    ranks = np.random.default_rng(0).random(1 << 18)
    message = sent(ranks, None)
    assert isinstance(message[1][0], bytearray)  # no offer: the bytes themselves
    first = sent(ranks, inbox.offer())
    slab = first[1][0][0]
    status, (got, stats) = inbox.receive(first)
    assert status == "ok" and stats == {"seconds": 1.0} and [p.name for p in tmp_path.iterdir()] == [Path(slab).name]
    np.testing.assert_array_equal(got, ranks)
    view = got[::2]
    del got
    held = inbox.receive(sent(ranks + 1, inbox.offer()))[1][0]  # the first result is still held (a view of it): a second slab
    assert len(list(tmp_path.iterdir())) == 2
    np.testing.assert_array_equal(view, ranks[::2])
    del view
    again = sent(ranks + 2, inbox.offer())
    assert again[1][0][0] == slab  # let go: reused
    np.testing.assert_array_equal(inbox.receive(again)[1][0], ranks + 2)
    np.testing.assert_array_equal(held, ranks + 1)
    held[0] = -1.0  # the caller's to keep and change


def test_every_part_writes_its_share_of_a_result_into_the_slab_offered(tmp_path):
    """Once a slab is free, the next call's parts each map it and copy their share of each array
    of the result there (the same places on every part); the first part's message then names
    where its arrays lie, and nothing is copied again. Arrays the slab has no room for go as before."""
    mine, theirs = multiprocessing.Pipe()
    boxes, inbox = [parts.Outbox(str(tmp_path), pins=False) for _ in range(3)], parts.Inbox()
    rng = np.random.default_rng(1)
    dist, parent = rng.integers(0, 9, 1 << 18).astype(np.int32), rng.integers(-1, 1 << 18, 1 << 18)

    def call(offer):
        slabs = [box.slab(offer, rank, 3) for rank, box in enumerate(boxes)]
        placed = [(s.place(dist, np.copyto), s.place(parent, np.copyto)) if s is not None else (dist, parent) for s in slabs]
        sender = threading.Thread(target=boxes[0].send, args=(theirs, ("ok", (placed[0], {})), offer))
        sender.start()
        message = mine.recv()
        sender.join()
        return slabs[0], message, inbox.receive(message)[1][0]

    slab, _, first = call(inbox.offer())  # no slab yet: the first part copies the result into a new one
    assert slab is None and len(list(tmp_path.iterdir())) == 1
    del first
    slab, message, (d, p) = call(inbox.offer())
    assert slab is not None and all(e[0] == slab.path for e in message[1])  # where every array lies: nothing copied
    assert len(list(tmp_path.iterdir())) == 1
    np.testing.assert_array_equal(d, dist)
    np.testing.assert_array_equal(p, parent)
    assert slab.place(np.zeros(len(slab.view)), np.copyto) is None  # no room left: the caller copies it


@pytest.mark.parametrize("order", ["natural", "degree"])
def test_a_result_written_by_every_part_equals_one_copied_by_the_first(tmp_path, order):
    """A result of over a million bytes: the first call's comes back copied by the first part into
    a new slab; the next calls' parts each write their share of it into that slab (in the input's
    order of ids, where the store keeps another)."""
    g = gt.build(gt.generators.urand(17, edge_factor=2, seed=5), tmp_path / "u.gt", symmetrize=True, format="ef", order=order, progress=False)
    source = int(np.argmax(np.diff(g.indptr())))
    first = gt.bfs(g, source, device="cpu", devices=2)
    assert first.distances.nbytes + first.parents.nbytes >= parts.OUTBOX_BYTES
    dist, parent = np.array(first.distances), np.array(first.parents)
    np.testing.assert_array_equal(dist, gt.bfs(g, source, device="cpu").distances)
    del first  # its slab free for the next call
    for _ in range(2):
        again = gt.bfs(g, source, device="cpu", devices=2)
        np.testing.assert_array_equal(again.distances, dist)
        np.testing.assert_array_equal(again.parents, parent)
        assert len(list(Path(parts._kept.outbox).iterdir())) == 1  # the parts wrote into the one slab
        del again
    parts.close()


def test_parts_that_laid_a_result_out_differently_fail_the_call():
    """Were a part unable to write its share into the slab the others wrote theirs in, the result
    would lack that share: the call fails instead."""

    class Result:
        stats: dict

    stats = {"seconds": 1.0, "slab_bytes": 64}
    assert parts._joined([(Result(), stats), (None, stats)]).stats["slab_bytes"] == 64
    with pytest.raises(gt.GraphtierError, match="laid their result out differently"):
        parts._joined([(Result(), stats), (None, stats | {"slab_bytes": 0})])


def _kill_a_part(me: psutil.Process) -> None:
    """Kills the second spawned child (a part) once both run."""
    for _ in range(600):
        parts = [c for c in me.children() if "multiprocessing" in " ".join(c.cmdline()) and "resource_tracker" not in " ".join(c.cmdline())]
        if len(parts) >= 2:
            time.sleep(1.0)
            parts[-1].send_signal(signal.SIGKILL)
            return
        time.sleep(0.05)


@pytest.mark.parametrize("written", [3, 40])
def test_a_merge_at_the_queued_vertices_equals_merging_whole_arrays(written):
    """Two parts (threads here) that wrote a few vertices each merge their values there alone
    (whole arrays once the union holds a quarter of the vertices) into what a whole merge gives."""
    from multiprocessing.shared_memory import SharedMemory

    n, rng = 100, np.random.default_rng(written)
    memory = SharedMemory(create=True, size=2 * parts.SLOT_BYTES)
    barrier = threading.Barrier(2)
    base = rng.integers(0, 50, n)
    arrays, queued = [base.copy(), base.copy()], []
    for a in arrays:
        at = rng.choice(n, written, replace=False)
        a[at] = rng.integers(50, 100, written)
        queued.append(at)
    union = np.union1d(*queued)
    assert (4 * len(union) >= n) == (written == 40)
    expected = np.maximum(*arrays)

    def merge(rank):
        comm = parts.HostComm(memory.name, barrier, rank, 2)
        parts.merge_at(union, ((arrays[rank], "max"),), comm, n)
        comm.close()

    threads = [threading.Thread(target=merge, args=(r,)) for r in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    memory.close()
    memory.unlink()
    for a in arrays:
        np.testing.assert_array_equal(a, expected)


def test_free_slabs_beyond_two_are_removed_before_the_next_call(tmp_path):
    """Results held at once each take a slab; once let go, the caller keeps two free slabs for
    the next calls and removes the others (before an offer, never during a call)."""
    mine, theirs = multiprocessing.Pipe()
    box, inbox = parts.Outbox(str(tmp_path), pins=False), parts.Inbox()
    held = []
    for i in range(4):
        sender = threading.Thread(target=box.send, args=(theirs, ("ok", (np.full(1 << 18, float(i)), {})), inbox.offer()))
        sender.start()
        held.append(inbox.receive(mine.recv())[1][0])
        sender.join()
    assert len(list(tmp_path.iterdir())) == 4 and [a[0] for a in held] == [0.0, 1.0, 2.0, 3.0]
    held.clear()
    free, kept = inbox.offer()
    assert len(free) == len(kept) == parts.Inbox.KEEP_FREE == len(list(tmp_path.iterdir()))
