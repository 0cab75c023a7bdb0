"""Out of memory, on the CPU backend (issue 14): a budget above what the machine has is refused
before any work (exit 2), and an allocation refused at run time, wherever it happens in a query,
ends as ``OutOfMemoryError`` naming what was being allocated, its size and the budgets (exit 5),
after which the same Graph handle runs the query again to the right result. The allocators are
made to refuse by stand-ins (the host has the memory); ``tests/test_gpu_oom.py`` does the same on
a GPU, where the memory really runs out. ``campaign`` refuses at random sites and calls, on one
handle throughout; ``python benchmarks/faults.py oom`` runs it longer."""

from __future__ import annotations

import importlib
import random
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import graphtier as gt
from graphtier.cli import main
from graphtier.tiering import memory, resident
from graphtier.tiering.budget import host_total

run_module = importlib.import_module("graphtier.runtime.run")  # the package's name `run` is its function

# Budgets under which every algorithm streams the store below (12 chunks) through the tiers.
STREAMED = {"device": "cpu", "device_memory": "150kB", "host_memory": "40kB"}
MODES = {"in core": {"device": "cpu"}, "streamed": STREAMED}
ALGORITHMS = {
    "bfs": lambda g, s, **kw: gt.bfs(g, s, **kw).distances,
    "sssp": lambda g, s, **kw: gt.sssp(g, s, **kw).distances,
    "pagerank": lambda g, s, **kw: gt.pagerank(g, **kw).ranks,
    "cc": lambda g, s, **kw: gt.connected_components(g, **kw).labels,
}


class Refusal:
    """Call number ``at`` of a function raises ``error``, as an allocator that cannot give the
    memory would (MemoryError), or as an interrupt landing there (KeyboardInterrupt)."""

    def __init__(self, function, at: int, error: type[BaseException]):
        self.function, self.at, self.error, self.calls = function, at, error, 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        if self.calls == self.at:
            raise self.error("Unable to allocate the memory (refused by the test)")
        return self.function(*args, **kwargs)


class RefusingNumpy:
    """NumPy as one module sees it, but with one of its allocating functions refusing (calls
    for no bytes pass uncounted: every allocator gives those)."""

    def __init__(self, name: str, refusal_at: int, error: type[BaseException]):
        self.name, self.refusal = name, Refusal(getattr(np, name), refusal_at, error)

    def __getattr__(self, attr: str):
        if attr != self.name:
            return getattr(np, attr)
        return lambda shape, *a, **k: self.refusal(shape, *a, **k) if np.prod(shape) else self.refusal.function(shape, *a, **k)


# Where a query allocates: (module or class, attribute, NumPy function or None for a method), the
# call that allocates what the error must name, and that name (where the site names none: the
# query's working memory, with the allocator's own words).
SITES = {
    "simulated device": (memory, "np", "zeros", 1, "the simulated device region"),
    "resident graph": (resident, "np", "empty", 1, "the whole graph (adj, every chunk and its weights)"),
    "vertex state": (run_module, "np", "empty", 1, "the query's working memory"),
    "host slot": (memory.CpuMemory, "host_view", None, 1, "the query's working memory"),  # a pinned slot, allocated on first use on a GPU
}


REACHED_IN = {"simulated device": "streamed", "host slot": "streamed", "resident graph": "in core"}  # the others: both


def refuse(patch: pytest.MonkeyPatch, site: str, at: int, error: type[BaseException] = MemoryError) -> Refusal:
    owner, attribute, function, _, _ = SITES[site]
    if function is None:
        refusal = Refusal(getattr(owner, attribute), at, error)
        patch.setattr(owner, attribute, lambda self, *a: refusal(self, *a))
        return refusal
    numpy = RefusingNumpy(function, at, error)
    patch.setattr(owner, attribute, numpy)
    return numpy.refusal


def same(name: str, a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.allclose(a, b, rtol=1e-9, atol=0)) if name == "pagerank" else bool(np.array_equal(a, b))


def weighted_store(directory: Path) -> tuple[str, int, dict]:
    """A weighted symmetric store of 12 chunks in ``directory``, its best-connected vertex, and every
    algorithm's result."""
    edges = gt.generators.kronecker(10, edge_factor=8, seed=3)
    weights = np.random.default_rng(0).integers(1, 10, len(edges))
    g = gt.build(np.column_stack([edges, weights]), directory / "g.gt", symmetrize=True, drop_self_loops=True, chunk_edges=1024, progress=False)
    source = int(np.argmax(np.diff(g.indptr())))
    return g.location, source, {name: f(g, source, device="cpu") for name, f in ALGORITHMS.items()}


@pytest.fixture(scope="module")
def weighted(tmp_path_factory) -> tuple[str, int, dict]:
    return weighted_store(tmp_path_factory.mktemp("oom"))


def test_budgets_above_the_machine_are_refused_before_any_work(weighted):
    location, source, expected = weighted
    g, total = gt.open(location), host_total()
    for name, f in ALGORITHMS.items():
        with pytest.raises(gt.BudgetError, match=rf"device_memory={total + 1} \({total + 1:,} bytes\) is more than this machine has .* \({total:,} bytes\)"):
            f(g, source, device="cpu", device_memory=total + 1)
        with pytest.raises(gt.BudgetError, match=r"host_memory=1000TB \(1,000,000,000,000,000 bytes\) is more than this machine has"):
            f(g, source, device="cpu", host_memory="1000TB")
        assert same(name, f(g, source, device="cpu"), expected[name])
    assert same("bfs", ALGORITHMS["bfs"](g, source, device="cpu", device_memory=total, host_memory=total), expected["bfs"])  # all of it is no error


def test_cli_refuses_a_budget_above_the_machine(weighted, capsys):
    location, source, _ = weighted
    for argv in (["bfs", location, "--source", source, "--device-memory", "999TB"], ["cc", location, "--host-memory", "999TB"]):
        code = main([*map(str, argv), "--device", "cpu"])
        err = capsys.readouterr().err
        assert code == 2 and "=999TB (999,000,000,000,000 bytes) is more than this machine has" in err and "Traceback" not in err, err


@pytest.mark.parametrize("site", list(SITES))
def test_an_allocation_refused_is_named_and_the_handle_recovers(weighted, site, monkeypatch):
    location, source, expected = weighted
    g = gt.open(location)
    mode = REACHED_IN.get(site, "streamed")
    with monkeypatch.context() as patch:
        refusal = refuse(patch, site, at=SITES[site][3])
        with pytest.raises(gt.OutOfMemoryError) as e:
            gt.sssp(g, source, **MODES[mode])
    message = str(e.value)
    assert refusal.calls == SITES[site][3] and message.startswith(f"out of memory in sssp on {location}: could not allocate ") and SITES[site][4] in message
    assert "device_memory" in message and "host_memory" in message and e.value.where == "host"
    for name, f in ALGORITHMS.items():  # the same handle, every algorithm, both ways
        for kw in MODES.values():
            assert same(name, f(g, source, **kw), expected[name]), (name, kw)


def test_a_query_interrupted_mid_copy_leaves_no_half_held_chunk(weighted, monkeypatch):
    """An interrupt (or any failure) between a host slot given to a chunk and the chunk's bytes in
    it: the slot is freed, so the next query on the same handle, which keeps its scheduler and what
    its tiers hold, does not read the bytes of the chunk the slot held before."""
    location, source, expected = weighted
    tight = {**STREAMED, "device_memory": "120kB"}  # the two tiers hold less than the graph: a second SSSP reads chunks again
    for at in (1, 3):
        g = gt.open(location)
        assert same("sssp", ALGORITHMS["sssp"](g, source, **tight), expected["sssp"])
        kept = list(g._loaded.values())
        with monkeypatch.context() as patch:
            refuse(patch, "host slot", at=at, error=KeyboardInterrupt)
            with pytest.raises(KeyboardInterrupt):
                gt.sssp(g, source, **tight)
        assert list(g._loaded.values()) == kept  # only an allocation failure lets go of what the handle holds
        for name in ("sssp", "bfs", "cc", "pagerank"):
            assert same(name, ALGORITHMS[name](g, source, **STREAMED), expected[name]), name


def test_store_reads_counted_by_the_byte(weighted):
    """A query's stats say how many of the store's bytes (chunks and their weights) it read how many
    times: they add up to the bytes it read, the most times to its ``store_reads_max``."""
    location, source, expected = weighted
    for budget in (STREAMED, {**STREAMED, "device_memory": "120kB"}, {"device": "cpu"}):
        g = gt.open(location)
        r = gt.sssp(g, source, **budget)
        assert same("sssp", r.distances, expected["sssp"])
        s = r.stats
        assert sum(times * nbytes for times, nbytes in s["store_read_bytes"].items()) == s["bytes_store_read"] > 0
        assert max(s["store_read_bytes"]) == s["store_reads_max"]


def test_cli_out_of_memory_exits_5(weighted, monkeypatch, capsys):
    location, source, _ = weighted
    refuse(monkeypatch, "simulated device", at=1)
    code = main(["bfs", location, "--source", str(source), "--device", "cpu", "--device-memory", "150kB", "--host-memory", "40kB"])
    err = capsys.readouterr().err
    assert code == 5 and err.startswith(f"graphtier: out of memory in bfs on {location}: could not allocate ") and "Traceback" not in err, err
    assert "the simulated device region" in err and "device_memory=150kB (150,000 bytes), host_memory=40kB (40,000 bytes)" in err


def test_vertex_state_beyond_free_memory_is_out_of_memory(weighted, monkeypatch):
    """With no budget given the device budget is what is free now: a vertex state larger than that
    is out of memory (exit 5), not a bad argument; the same state beyond a budget given is a ValueError."""
    location, source, expected = weighted
    g = gt.open(location)
    monkeypatch.setattr("graphtier.runtime.config.host_available", lambda: 1000)
    with pytest.raises(gt.OutOfMemoryError, match=r"the vertex state of .* \(1,000 bytes free, less a margin\)"):
        gt.bfs(g, source, device="cpu")
    with pytest.raises(ValueError, match="does not hold the vertex state"):
        gt.bfs(g, source, device="cpu", device_memory=1000, host_memory="1MB")
    monkeypatch.undo()
    assert same("bfs", ALGORITHMS["bfs"](g, source, device="cpu"), expected["bfs"])


def campaign(location: str, source: int, expected: dict, *, seconds: float, seed: int = 0) -> list[dict]:
    """Queries on one handle for about ``seconds`` (every site at least once): each with one
    allocation refused at a random site and call (MemoryError, or now and then an interrupt there),
    or a budget above the machine; each followed by the same query unrefused, which must give the
    expected result. A record per query: what it ended in, and that the handle recovered."""
    rng = random.Random(seed)
    g = gt.open(location)
    records: list[dict] = []
    end = time.monotonic() + seconds
    while time.monotonic() < end or len(records) < len(SITES) + 1:
        name = rng.choice(list(ALGORITHMS))
        site = list(SITES)[len(records)] if len(records) < len(SITES) else rng.choice([*SITES, "budget"])
        mode = REACHED_IN.get(site) or rng.choice(list(MODES))
        f, kw = ALGORITHMS[name], MODES[mode]
        outcome = "completed"
        with pytest.MonkeyPatch.context() as patch:
            if site != "budget":
                refuse(patch, site, rng.randint(1, 4), rng.choice([MemoryError] * 4 + [KeyboardInterrupt]))
            try:
                result = f(g, source, **(kw | {"device_memory": host_total() + 1} if site == "budget" else kw))
            except gt.OutOfMemoryError as e:
                assert str(e).startswith("out of memory in ") and location in str(e), e
                outcome = "OutOfMemoryError"
            except gt.BudgetError:
                outcome = "BudgetError"
            except KeyboardInterrupt:
                outcome = "interrupted"
        assert outcome != "completed" or same(name, result, expected[name]), (name, mode, site)
        assert same(name, f(g, source, **kw), expected[name]), (name, mode, site, outcome)
        records.append({"algorithm": name, "mode": mode, "site": site, "outcome": outcome})
    return records


def summary(records: list[dict]) -> str:
    by = Counter((r["site"], r["outcome"]) for r in records)
    lines = [f"{len(records)} queries on one handle, each refused once (or over budget) and then run again: every one ended in a graphtier error or its result, and the next equalled the reference"]
    lines += [f"  {site:17} -> {outcome:16} {n}" for (site, outcome), n in sorted(by.items())]
    return "\n".join(lines)


def test_oom_campaign_short(weighted):
    location, source, expected = weighted
    records = campaign(location, source, expected, seconds=3.0, seed=1)
    outcomes = {r["outcome"] for r in records}
    assert {"OutOfMemoryError", "BudgetError"} <= outcomes, summary(records)
