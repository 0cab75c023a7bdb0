"""Killed commands leave nothing half-done: a ``graphtier`` process really killed (SIGKILL, SIGTERM)
leaves the old store, no store or a new complete one, and the next build into the same place
sweeps what it left (issue 14). ``campaign`` is also the body of ``benchmarks/faults.py``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import zarr
from scipy.sparse.csgraph import breadth_first_order
from zarr.core import sync as zarr_sync

import graphtier as gt
from graphtier import store, temps
from graphtier.errors import StoreExistsError
from graphtier.partition.export import write_text_edges
from tests.conftest import reference_csr

SCALE = 11
FORMATS = ("csr", "ef", "cgr")


def command(*argv) -> list[str]:
    return [sys.executable, "-m", "graphtier.cli", *map(str, argv)]


def leftovers(directory: Path) -> list[str]:
    """Everything hidden in ``directory``: graphtier's temporary siblings and sort runs are."""
    return sorted(e for e in os.listdir(directory) if e.startswith("."))


def check_store(path: Path, reference, source: int = 0) -> str:
    """The store at ``path`` verifies (every chunk of every array read and checked), and BFS from
    ``source`` reaches what scipy's does at the same depths; returns the store's format."""
    g = gt.open(path)
    report = g.verify(progress=False)
    assert report.ok, report
    distances = gt.bfs(g, source, device="cpu").distances
    order, preds = breadth_first_order(reference, source, directed=True, return_predecessors=True)
    expected = np.full(reference.shape[0], -1, np.int64)
    expected[source] = 0
    for v in order[1:]:
        expected[v] = expected[preds[v]] + 1
    np.testing.assert_array_equal(distances, expected)
    return g.format


def wait_for(proc: subprocess.Popen, ready, timeout: float = 60.0) -> bool:
    """Poll until ``ready()`` holds (True) or the process ends first (False)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if ready():
            return True
        if proc.poll() is not None:
            return ready()
        time.sleep(0.005)
    raise TimeoutError("the process neither reached the point nor ended")


def staging(directory: Path, name: str):
    return lambda: any(e.startswith(f".{name}.tmp-") for e in os.listdir(directory))


def spilled(directory: Path):
    """A sorted run on disk: the build is past reading into sorting."""
    return lambda: any(directory.glob(".graphtier-sort-*/runs-*/run*.keys"))


class Setup:
    """An input edge list, its reference graph, an old store to overwrite and a source store to recode."""

    def __init__(self, work: Path, scale: int = SCALE):
        self.work = work
        self.text = work / "k.txt"
        write_text_edges(self.text, gt.generators.kronecker(scale, seed=1))
        self.n = 1 << scale
        edges = np.loadtxt(self.text, dtype=np.int64, ndmin=2)
        self.reference = reference_csr(edges, int(edges.max()) + 1, symmetrize=True)
        self.dest = work / "k.gt"
        self.source = work / "source.gt"
        gt.build(self.text, self.source, symmetrize=True, chunk_edges=512)

    def args(self, op: str, fmt: str) -> list[str]:
        if op == "convert":
            return command("convert", self.text, self.dest, "--symmetrize", "--format", fmt, "--chunk-edges", 512, "--memory-budget", "256KiB", "--overwrite")
        if op == "recode":
            return command("recode", self.source, self.dest, "--format", fmt, "--chunk-edges", 256, "--overwrite")
        return command("bfs", self.dest, "--source", 0, "--device", "cpu", "--out", self.work / "d.npy")


def kill_once(setup: Setup, op: str, sig: int, rng: random.Random, span: float, formats=FORMATS) -> dict:
    """Run ``op`` and kill it with ``sig`` at a random moment within ``span`` seconds of its start of
    work (its stage appearing, or for a query its start); then check the destination and sweep."""
    before = check_store(setup.dest, setup.reference) if store._exists(setup.dest) else None
    fmt = rng.choice([f for f in formats if f != before])
    out = setup.work / "d.npy"
    out.unlink(missing_ok=True)
    proc = subprocess.Popen(setup.args(op, fmt), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=setup.work)
    if op != "bfs":
        wait_for(proc, staging(setup.work, setup.dest.name))
    time.sleep(rng.uniform(0, span))
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    assert b"Traceback" not in err, err.decode()
    assert proc.returncode in (0, -sig, 130), (proc.returncode, err.decode())
    after = check_store(setup.dest, setup.reference) if store._exists(setup.dest) else None
    assert after in (before, fmt) and (after is not None or before is None), (before, after, fmt)
    if op == "bfs":
        assert after == before
        if out.exists():  # a query's output is whole or absent
            np.testing.assert_array_equal(np.load(out), gt.bfs(gt.open(setup.dest), 0, device="cpu").distances)
    left = leftovers(setup.work)
    gt.recode(setup.source, setup.dest, format=fmt, chunk_edges=1024, overwrite=True)  # the next build into the same place
    if op == "bfs":  # a query's own leftovers are swept by its next write of the output
        with temps.replacing(out):
            pass
        out.unlink()
    assert leftovers(setup.work) == [], leftovers(setup.work)
    assert check_store(setup.dest, setup.reference) == fmt
    state = "old" if after == before and before is not None else "new" if after is not None else "absent"
    return {"op": op, "signal": signal.Signals(sig).name, "exit": proc.returncode, "state": state, "leftovers": len(left)}


def campaign(work: Path, *, seconds: float, seed: int = 0, scale: int = SCALE, formats=FORMATS, spans: dict | None = None) -> list[dict]:
    """Kill ``convert``, ``recode`` and ``bfs`` at random points for about ``seconds`` (each at least
    once); every kill is checked (``kill_once``). Without ``spans`` (seconds of work per command),
    each command's is measured first, uninterrupted."""
    rng = random.Random(seed)
    setup = Setup(work, scale)
    ops = ("convert", "recode", "bfs")
    if spans is None:
        spans = {}
        for op in ops:
            proc = subprocess.Popen(setup.args(op, formats[0]), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=work)
            t = time.monotonic()
            if op != "bfs":
                wait_for(proc, staging(work, setup.dest.name))
                t = time.monotonic()
            assert proc.wait(timeout=300) == 0, proc.stderr.read().decode()
            spans[op] = time.monotonic() - t
    records = []
    end = time.monotonic() + seconds
    while time.monotonic() < end or len(records) < len(ops):
        op = ops[len(records)] if len(records) < len(ops) else rng.choice(ops)
        records.append(kill_once(setup, op, rng.choice([signal.SIGKILL, signal.SIGTERM]), rng, spans[op], formats))
    return records


def summary(records: list[dict]) -> str:
    by = Counter((r["op"], r["signal"], r["state"]) for r in records)
    lines = [f"{len(records)} kills, every one survived (destination old, absent or new and complete; next build left nothing)"]
    lines += [f"  {op:8} {sig:8} -> {state:6} {n}" for (op, sig, state), n in sorted(by.items())]
    lines.append(f"  leftovers swept by the next build after {sum(r['leftovers'] > 0 for r in records)} kills")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def setup(tmp_path_factory) -> Setup:
    return Setup(tmp_path_factory.mktemp("kills"))


def fresh(setup: Setup) -> None:
    """No store at the destination and nothing hidden beside it."""
    store.shutil.rmtree(setup.dest, ignore_errors=True)
    assert leftovers(setup.work) == []


def test_sigterm_cleans_up_like_sigint(setup):
    fresh(setup)
    proc = subprocess.Popen(setup.args("convert", "csr"), stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, cwd=setup.work)
    assert wait_for(proc, spilled(setup.work)), "the build ended before spilling a sorted run"
    proc.terminate()
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and err.decode().strip() == "graphtier: interrupted"
    assert not setup.dest.exists()
    gt.build(setup.text, setup.dest, symmetrize=True, chunk_edges=512)
    assert leftovers(setup.work) == [] and check_store(setup.dest, setup.reference) == "csr"


def test_an_interrupt_stops_zarr_io_in_flight(tmp_path):
    """What the CLI's interrupt does before unwinding: zarr's work in flight is cancelled and waited
    for, so no writer outlives the cleanups and no pending task is printed at exit."""
    pending = asyncio.run_coroutine_threadsafe(asyncio.sleep(60), zarr_sync._get_loop())
    store.stop_io()
    with pytest.raises(concurrent.futures.CancelledError):
        pending.result(timeout=5)
    array = zarr.create_array(tmp_path / "a", shape=(4,), dtype="i4")  # zarr starts afresh
    array[:] = 1
    assert array[:].sum() == 4


def test_sigkill_leftovers_are_swept_by_the_next_build(setup):
    fresh(setup)
    proc = subprocess.Popen(setup.args("convert", "csr"), stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, cwd=setup.work)
    assert wait_for(proc, spilled(setup.work)), "the build ended before spilling a sorted run"
    proc.kill()
    proc.wait(timeout=60)
    left = leftovers(setup.work)
    assert any(e.startswith(".k.gt.tmp-") for e in left) and any(e.startswith(".graphtier-sort-") for e in left), left
    assert not setup.dest.exists()
    gt.build(setup.text, setup.dest, symmetrize=True, format="log", chunk_edges=512)
    assert leftovers(setup.work) == [] and check_store(setup.dest, setup.reference) == "log"


def dead_owner_name(name: str, kind: str) -> str:
    """A sibling name owned by a process that has since exited."""
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        return temps.sibling_name(name, kind, pid=child.pid)
    finally:
        child.communicate()


def test_store_moved_aside_by_a_killed_build_is_restored(setup):
    """Killed between moving the old store aside and the new one in: the next build puts it back."""
    fresh(setup)
    gt.build(setup.text, setup.dest, symmetrize=True, chunk_edges=512)
    aside = setup.work / dead_owner_name(setup.dest.name, "old")
    os.replace(setup.dest, aside)
    with pytest.raises(StoreExistsError):
        gt.build(setup.text, setup.dest, symmetrize=True)
    assert leftovers(setup.work) == [] and check_store(setup.dest, setup.reference) == "csr"
    # with a store in place, one moved aside is only a leftover
    gt.build(setup.text, aside, symmetrize=True, format="log")
    gt.build(setup.text, setup.dest, symmetrize=True, format="log", overwrite=True)
    assert leftovers(setup.work) == [] and check_store(setup.dest, setup.reference) == "log"


def test_live_owners_and_other_names_are_never_swept(setup, tmp_path):
    host, pid, start = temps.owner_tag().split("-")
    dead = dead_owner_name("k.gt", "tmp")
    kept = [
        temps.sibling_name("k.gt", "tmp"),  # this process's: alive
        f".k.gt.tmp-00000000-{pid}-1-0badc0de",  # another host's
        dead.replace("k.gt", "other.gt"),  # another destination's
        ".k.gt.tmp-notours",
        ".graphtier-sort-abc",
        "k.gt.tmp-1234",
    ]
    swept = [dead, f".k.gt.old-{host}-{pid}-{int(start) + 1}-0badc0de", dead_owner_name("k.gt", "tmp").replace(".k.gt.tmp-", ".graphtier-sort-")]
    for name in kept + swept:
        (tmp_path / name).mkdir()
    gt.build(setup.text, tmp_path / "k.gt", symmetrize=True)
    assert sorted(os.listdir(tmp_path)) == sorted([*kept, "k.gt"])


def test_kill_campaign_short(tmp_path):
    records = campaign(tmp_path, seconds=0, seed=14, scale=10, formats=("csr", "log"), spans={"convert": 0.3, "recode": 0.2, "bfs": 5.0})
    assert [r["op"] for r in records] == ["convert", "recode", "bfs"]


def test_remote_leftovers_are_swept(setup):
    """A URL destination: a killed build's temporary keys beside it go at the next build there."""
    import fsspec

    fs = fsspec.filesystem("memory")
    dead_tmp, dead_old = (dead_owner_name("k.gt", kind)[1:] for kind in ("tmp", "old"))  # remote names have no dot
    for name in (dead_tmp, dead_old, "k.gt.tmp-notours"):
        fs.pipe(f"/sweep/{name}/zarr.json", b"{}")
    try:
        gt.build(setup.text, "memory://sweep/k.gt", symmetrize=True)
        assert sorted(p.rsplit("/", 1)[1] for p in fs.ls("/sweep", detail=False)) == ["k.gt", "k.gt.tmp-notours"]
    finally:
        fs.rm("/sweep", recursive=True)
