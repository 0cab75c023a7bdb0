"""The format advisor: its sizes against the stores a build writes, its choice against the smallest
measured, its regions against what the scheduler opens, and its command line."""

from __future__ import annotations

import json

import numpy as np
import pytest

import graphtier as gt
from graphtier.cli import main
from graphtier.engine.advise import ALGORITHMS, REGIONS, TIERS, tier_of
from graphtier.partition.export import write_text_edges
from graphtier.runtime import Config
from graphtier.runtime.run import Run
from graphtier.tiering.scheduler import Scheduler

from .conftest import CNR, recoded

ORDERS = ("natural", "degree", "bfs", "rcm")
GRAPHS = {
    "kron": lambda: (gt.generators.kronecker(11, seed=3), True),
    "grid": lambda: (gt.generators.grid(40, 40), False),
}


def built(tmp, name: str, chunk_edges: int = 1 << 12) -> gt.Graph:
    edges, symmetric = GRAPHS[name]()
    return gt.build(edges, tmp / f"{name}.gt", symmetrize=symmetric, drop_self_loops=symmetric, chunk_edges=chunk_edges, progress=False)


@pytest.fixture(scope="module")
def kron(tmp_path_factory) -> gt.Graph:
    return built(tmp_path_factory.mktemp("kron"), "kron")


def opened(store, algorithm: str, device, host) -> list:
    """What a query of ``algorithm`` on ``store`` opens under these budgets (a run's sources), or
    the ValueError that refuses it: the scheduler's own decision, without running the kernels."""
    g = gt.open(store)
    try:
        return list(Run(ALGORITHMS[algorithm](g, 0, "cpu"), g, Config(device="cpu", device_memory=device, host_memory=host)).sources.values())
    except ValueError as e:
        return [e]


def observed(store, algorithm: str, device, host) -> str:
    """The tier a query's graphs are read from (the worst of them), or "refused"."""
    sources = opened(store, algorithm, device, host)
    return "refused" if isinstance(sources[0], ValueError) else max(map(tier_of, sources), key=TIERS.index)


def every_store(tmp, edges, symmetric: bool, chunk_edges: int, orders, formats=gt.codecs.FORMATS) -> dict[tuple[str, str], gt.Graph]:
    """The store a build writes in each order and format, as the compression report builds them."""
    out = {}
    for order in orders:
        (tmp / order).mkdir()
        base = gt.build(edges, tmp / order / "csr.gt", symmetrize=symmetric, drop_self_loops=symmetric, chunk_edges=chunk_edges, order=order, progress=False)
        out |= {(order, fmt): store for fmt, store in recoded(base, tmp / order, formats).items()}
    return out


@pytest.mark.parametrize("name", GRAPHS)
def test_sizes_are_the_stores_and_the_pick_the_smallest(tmp_path, name):
    """Measured whole, every candidate's size is that of the store a build writes (as the
    compression report measures it), to the byte, and goal="size" picks the smallest."""
    g = built(tmp_path, name)
    advice = gt.advise(g, device="cpu", goal="size")
    assert advice.measured["whole"] and advice.chunk_edges == g.chunk_edges
    real = {k: store.info()["bytes"]["total"] for k, store in every_store(tmp_path, *GRAPHS[name](), g.chunk_edges, ORDERS).items()}
    assert {(c["order"], c["format"]): c["bytes"]["total"] for c in advice.candidates} == real
    assert (advice.order, advice.format) == min(real, key=real.get)


def test_sampled_sizes_are_close(tmp_path):
    """A graph larger than the sample: its own format and order exact, the others within 3%."""
    edges, _ = GRAPHS["kron"]()
    g = gt.build(edges, tmp_path / "k.gt", symmetrize=True, drop_self_loops=True, chunk_edges=1 << 10, progress=False)
    advice = gt.advise(g, device="cpu", orders=("natural", "degree"), sample_edges=4 << 10)
    assert not advice.measured["whole"] and advice.measured["chunks"] == 4
    real = {k: store.info()["bytes"]["total"] for k, store in every_store(tmp_path, edges, True, 1 << 10, ("natural", "degree")).items()}
    for c in advice.candidates:
        estimate, exact = c["bytes"]["total"], real[c["order"], c["format"]]
        assert estimate == exact if (c["order"], c["format"]) == ("natural", "csr") else abs(estimate / exact - 1) < 0.03, (c, exact)


def test_orders_needing_every_edge_are_not_sampled(tmp_path):
    g = built(tmp_path, "kron", chunk_edges=1 << 10)
    advice = gt.advise(g, device="cpu", sample_edges=4 << 10)
    assert {c["order"] for c in advice.candidates} == {"natural", "degree"}
    assert any(n.startswith("bfs order not measured") for n in advice.notes)


@pytest.mark.parametrize("algorithm", ["bfs", "pagerank"])
def test_regions_match_the_scheduler(tmp_path, kron, algorithm):
    """Four budgets, one per region: the advice's region, and every candidate's tier, are what the
    scheduler opens for a query on that candidate's store under those budgets."""
    stores = recoded(kron, tmp_path, gt.codecs.FORMATS)
    big = "1GB"
    ask = lambda **kw: gt.advise(kron, device="cpu", algorithm=algorithm, orders=("natural",), **kw)
    csr = ask(device_memory=big, host_memory=big)
    small = ask(goal="size", device_memory=big, host_memory=big)  # the smallest format, and the least device memory for it
    assert (csr.format, csr.region, small.region) == ("csr", "fits", "fits") and small.format != "csr"
    fits_csr, fits_small, state = csr.budgets["device_memory"], small.budgets["device_memory"], csr.state_bytes
    assert state < fits_small < fits_csr
    streams = state + (fits_small - state) // 2
    budgets = {"fits": (fits_csr, big), "compressed": (fits_small, big), "streamed": (streams, big), "beyond-host": (streams, csr.budgets["host_memory"] // 2)}
    for region, (device, host) in budgets.items():
        advice = ask(device_memory=device, host_memory=host)
        assert advice.region == region, (region, advice.reasons)
        for c in advice.candidates:
            assert c["tier"] == observed(stores[c["format"]].location, algorithm, device, host), (region, c)
    assert observed(stores["csr"].location, algorithm, fits_csr - 1, big) != "device"  # the least budget is the least


def test_a_streamed_graph_gets_smaller_chunks(tmp_path):
    """Where chunks of the store's size leave the device fewer than three slots, the advice halves
    them, and a store built so is read from where the advice says, better placed than before."""
    edges = gt.generators.kronecker(13, seed=3)
    g = gt.build(edges, tmp_path / "k.gt", symmetrize=True, drop_self_loops=True, chunk_edges=1 << 16, progress=False)
    whole = gt.advise(g, device="cpu", orders=("natural",), device_memory="1GB", host_memory="1GB")
    device = whole.state_bytes + (whole.budgets["device_memory"] - whole.state_bytes) // 3
    advice = gt.advise(g, device="cpu", orders=("natural",), device_memory=device, host_memory="1GB")
    assert advice.chunk_edges < g.chunk_edges, advice.reasons
    advised = gt.build(edges, tmp_path / "advised.gt", symmetrize=True, drop_self_loops=True, **advice.build_options(), progress=False)
    plain = gt.recode(g, tmp_path / "plain.gt", format=advice.format)
    placed = []
    for store in (plain, advised):
        (source,) = {id(s): s for s in opened(store.location, "bfs", device, "1GB")}.values()
        slots = len(source.plan.slots) if isinstance(source, Scheduler) else source.table.shape[0]
        placed.append((TIERS.index(tier_of(source)), -slots))
    assert TIERS[placed[1][0]] == {"fits": "device", "compressed": "device", "streamed": "host"}[advice.region]
    assert placed[1] < placed[0]


def test_an_input_is_advised_as_its_store(tmp_path):
    edges, _ = GRAPHS["grid"]()
    text = tmp_path / "grid.txt"
    write_text_edges(text, edges)
    store = gt.build(text, tmp_path / "grid.gt", progress=False)
    a, b = (gt.advise(x, device="cpu", goal="size", orders=("natural", "bfs")) for x in (text, store))
    assert a.source == str(text) and [c["bytes"] for c in a.candidates] == [c["bytes"] for c in b.candidates]
    assert a.build_options() == b.build_options()
    auto = gt.build(text, tmp_path / "auto.gt", format="auto", progress=False)
    speed = gt.advise(text, device="cpu")
    assert (auto.format, auto.attrs["vertex_order"], auto.chunk_edges) == (speed.format, speed.order, speed.chunk_edges)
    assert auto.attrs["build"]["advised"]["region"] == speed.region
    assert gt.build(text, tmp_path / "given.gt", format="auto", order="rcm", progress=False).attrs["vertex_order"] == "rcm"


def test_refusals(tmp_path, kron):
    with pytest.raises(ValueError, match="unknown algorithm"):
        gt.advise(kron, algorithm="dfs")
    with pytest.raises(ValueError, match="goal"):
        gt.advise(kron, goal="fast")
    with pytest.raises(ValueError, match="unknown order"):
        gt.advise(kron, orders=("random",))
    with pytest.raises(ValueError, match="symmetrize, reverse shape a graph built from an input"):
        gt.advise(kron, symmetrize=True, reverse=True)
    directed = gt.build(np.array([[0, 1], [1, 2]]), tmp_path / "d.gt", progress=False)
    with pytest.raises(ValueError, match=f"reverse graph, which {directed.location} does not have"):
        gt.advise(directed, device="cpu", algorithm="pagerank")
    assert gt.advise(np.array([[0, 1], [1, 2]]), device="cpu", algorithm="pagerank", reverse=True).region == "fits"  # an input to build with its reverse
    refused = gt.advise(kron, device="cpu", orders=("natural",), device_memory=1000, host_memory="1GB")
    assert refused.region == "refused" and any("vertex state" in r for r in refused.reasons)
    assert set(REGIONS) == {"fits", "compressed", "streamed", "beyond-host", "refused"}


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(map(str, argv)))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli(tmp_path, capsys, kron):
    code, out, _ = run(capsys, "advise", kron.location, "--device", "cpu", "--orders", "natural", "degree", "--goal", "size", "--json")
    advice = json.loads(out)
    assert code == 0 and advice["format"] == "cgr" and advice["region_text"] == REGIONS[advice["region"]]
    assert {c["order"] for c in advice["candidates"]} == {"natural", "degree"}
    code, out, _ = run(capsys, "advise", kron.location, "--device", "cpu", "--orders", "natural")
    assert code == 0 and "advice       --format csr --order natural" in out and "region       fits" in out
    text = tmp_path / "g.txt"
    write_text_edges(text, np.array([[0, 1], [1, 2], [2, 0]]))
    code, out, _ = run(capsys, "convert", text, tmp_path / "auto.gt", "--format", "auto", "--symmetrize", "--json")
    assert code == 0 and json.loads(out)["build"]["advised"]["format"] == json.loads(out)["format"]


def test_cli_exit_codes(tmp_path, capsys):
    code, _, err = run(capsys, "advise", tmp_path / "missing.txt")
    assert code == 3 and "missing.txt" in err and "Traceback" not in err
    bad = tmp_path / "bad.txt"
    bad.write_text("0 1\n1 x\n")
    code, _, err = run(capsys, "advise", bad)
    assert code == 3 and "bad.txt:2" in err and "Traceback" not in err
    code, _, err = run(capsys, "advise", tmp_path / "missing.zip")
    assert code == 4 and "missing.zip" in err
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing\n")
    code, _, err = run(capsys, "advise", empty)
    assert code == 3 and "empty.txt" in err and "--allow-empty" not in err
    good = tmp_path / "good.txt"
    good.write_text("0 1\n")
    code, _, err = run(capsys, "advise", good, "--device", "cpu", "--device-memory", "1000TB")
    assert code == 2 and "device_memory" in err
    with pytest.raises(SystemExit) as e:
        main(["advise", str(good), "--algorithm", "dfs"])
    assert e.value.code == 2


@pytest.mark.skipif(not (CNR / "cnr-2000.graph").exists(), reason=f"dataset not found: {CNR}")
def test_cnr2000_as_the_compression_report_measured_it():
    """cnr-2000 (its BVGraph files, an input): measured whole, the bits per edge of
    benchmarks/results/compression-2026-11-22-vm.md, and cgr in natural order the smallest."""
    advice = gt.advise(CNR / "cnr-2000", device="cpu", goal="size", orders=("natural", "degree"))
    bits = {(c["order"], c["format"]): c["bits_per_edge"]["total"] for c in advice.candidates}
    report = {("natural", "csr"): 35.58, ("natural", "log"): 22.58, ("natural", "ef"): 19.1, ("natural", "cgr"): 6.437, ("degree", "ef"): 16.55, ("degree", "cgr"): 10.62}
    assert all(abs(bits[k] - v) < 0.006 for k, v in report.items()), bits
    assert (advice.order, advice.format) == ("natural", "cgr")
