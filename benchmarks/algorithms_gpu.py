"""Every algorithm on the GPU, in GPU memory and out of core, against the baselines the
algorithm-runtime issue and the five-algorithms issue name, side by side in one run.

    python benchmarks/algorithms_gpu.py [--scale 24] [--formats csr ef cgr] [--share 0.25] [--regions resident share zero-copy] [--sources 4] [--out DIR] [--emogi DIR] [--ecl DIR]

The graph is Graph500 Kronecker (edge factor 16, symmetrized, self-loops removed) with seeded
random integer weights in [1, 64), built in csr and recoded; SCC gets the same Kronecker edges
directed, with their reverse (built only when SCC is asked for). Betweenness centrality samples
``--bc-k`` sources (64; seed 0). Baselines measured in the same run:
pinned host-to-device copy bandwidth and device-to-device copy bandwidth (the floors), a plain
frontier Bellman-Ford in CuPy over the CSR arrays (SSSP in memory), and zero-copy CSR (every chunk
read in place from pinned host memory) for the out-of-core rows. Times are CUDA-event medians
after a warm-up run; ``wall_ms`` is what a caller of the Python function sees.

With ``--emogi DIR`` the same CSR (weights as uint32) and sources also run through EMOGI (VLDB
2021), the published out-of-memory GPU traversal code, in GPU memory and zero-copy: rows of format
``emogi`` for each algorithm asked (its bfs, sssp, cc and push PageRank; benchmarks/emogi.py says
how they differ, what they print and which checks that allows). EMOGI is not in this repository:
``fetch`` github:illinois-impact/EMOGI and extract it into the git-ignored ``.peers/EMOGI``
(``.peers/`` is in .git/info/exclude); the run compiles it with nvcc for sm_90 in the temp dir.

With ``--ecl DIR`` the same graphs (SCC: the directed one; weights as int32) also run through the
ECL codes of Burtscher's group, in GPU memory: rows of format ``ecl`` for color (ECL-GC), mis
(ECL-MIS), scc (ECL-SCC) and mst (ECL-MST) where asked, beside graphtier's answers
(benchmarks/ecl.py says what each times and prints, and which checks that allows). DIR holds
ECL-Suite, ECL-SCC and ECL-MST, ``fetch``-ed from github:burtscher/ and extracted into the
git-ignored ``.peers/``; the run compiles them with nvcc for sm_90 in the temp dir.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import ecl
import emogi
import numpy as np
from harness import RESULTS_DIR, copy_gbps, machine_info, publish, timed

import graphtier as gt
from graphtier.tiering.scheduler import fixed_bytes


def bellman_ford_cupy(indptr, indices, weights, source: int) -> tuple[object, float]:
    """A plain frontier Bellman-Ford over CSR arrays on the device, with CuPy's array operations:
    expand the frontier's edges, scatter-min the candidate distances, the improved vertices are
    the next frontier. Returns (distances, seconds by CUDA events)."""
    import cupy
    import cupyx

    n = len(indptr) - 1
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    start.record()
    dist = cupy.full(n, cupy.inf)
    dist[source] = 0
    frontier = cupy.array([source], cupy.int64)
    while frontier.size:
        lo, counts = indptr[frontier], indptr[frontier + 1] - indptr[frontier]
        total = int(counts.sum())
        if total == 0:
            break
        owner = cupy.repeat(cupy.arange(frontier.size), counts)
        first = cupy.cumsum(counts) - counts
        pos = lo[owner] + cupy.arange(total) - first[owner]
        dst = indices[pos]
        before = dist.copy()
        cupyx.scatter_min(dist, dst, dist[frontier[owner]] + weights[pos])
        frontier = cupy.flatnonzero(dist < before)
    end.record()
    end.synchronize()
    return dist, cupy.cuda.get_elapsed_time(start, end) / 1e3


def weighted_kronecker(scale: int, d: Path, formats: list[str]) -> tuple[gt.Graph, dict[str, gt.Graph]]:
    """The benchmarks' graph in ``d``: its csr store, and a store per format of ``formats``.
    Graph500 Kronecker (edge factor 16, seed 0), symmetrized, self-loops removed, with seeded
    integer weights in [1, 64)."""
    edges = gt.generators.kronecker(scale, seed=0)
    w = np.random.default_rng(0).integers(1, 64, len(edges)).astype(np.float64)
    csr = gt.build(np.column_stack([edges, w]), d / "csr.gt", symmetrize=True, drop_self_loops=True, memory_budget="24GiB", progress=False)
    del edges, w
    return csr, {f: csr if f == "csr" else gt.recode(csr, d / f"{f}.gt", format=f) for f in formats}


def chunk_bytes(g: gt.Graph) -> int:
    """The bytes of a store's chunks, its reverse graph's too where it has one."""
    graphs = (g.chunks(), g.chunks(reverse=True)) if g.directed and g.has_reverse else (g.chunks(),)
    return sum(h.total_bytes for c in graphs for h in c.headers(range(c.n_chunks)))


def emogi_rows(peer: Path, scratch: Path, csr, name: str, sources: list[int], algorithms: list[str], repeat: int, reference: dict) -> list[dict]:
    """EMOGI on the same CSR and sources, per algorithm asked, in GPU memory and zero-copy: the
    median over the sources (sssp, bfs) or over ``repeat`` runs (cc, pagerank), one process each.
    ``agrees``: bfs's iterations are the deepest level + 1, cc's components graphtier's count."""
    import cupy

    cupy.get_default_memory_pool().free_all_blocks()  # the device memory EMOGI's processes will need
    binaries = emogi.build(peer, scratch / "emogi")
    bel = scratch / f"{name}.bel"
    emogi.write_bel(bel, csr.indptr(), csr.edges()[:, 1], csr.group["weights"][:])
    expected = {
        "bfs": lambda s, r: r["iterations"] == reference[("bfs", s)].max() + 1,
        "cc": lambda s, r: r["components"] == reference[("cc", sources[0])].max() + 1,
    }
    rows = []
    for alg in [a for a in ("sssp", "cc", "pagerank", "bfs") if a in algorithms]:
        for region, memory in (("resident", "gpu"), ("zero-copy", "zerocopy")):
            runs = [(s, emogi.run(binaries[f"{alg}_32"], bel, algorithm=alg, source=s, memory=memory)) for s in (sources if alg in emogi.PER_SOURCE else [None] * repeat)]
            ms = statistics.median(r["ms"] for _, r in runs)
            its = int(statistics.median(r["iterations"] for _, r in runs))
            row = {"graph": name, "algorithm": alg, "format": "emogi", "region": region, "ms": round(ms, 3), "iterations": its}
            if alg == "pagerank":  # EMOGI prints its total only
                row["ms_per_iteration"] = round(ms / its, 3)
            if alg in expected:
                row["agrees"] = all(expected[alg](s, r) for s, r in runs)
                if not row["agrees"]:
                    print(f"EMOGI's {alg} disagrees with graphtier's: {runs}", flush=True)
            rows.append(row)
            print(row, flush=True)
    return rows


def ecl_rows(peers: Path, scratch: Path, csr, dcsr, name: str, results: dict, repeat: int) -> list[dict]:
    """The ECL codes on the same graphs (SCC: the directed one), per algorithm in ``results``
    (graphtier's result of each), the median over ``repeat`` runs, one process each. ``result``:
    the code's answer (colours, set size, SCCs, forest weight), beside ``graphtier``'s; ``checked``:
    the code's own check passed; ``agrees``: scc's count and sizes of components, mst's weight
    equal graphtier's. A code that fails gives a row with its ``error``, not the end of the run."""
    import cupy

    cupy.get_default_memory_pool().free_all_blocks()  # the device memory the ECL processes will need
    binaries = ecl.build(peers, scratch / "ecl", list(results))
    egr = {alg: scratch / f"{name}-directed.egr" if alg == "scc" else scratch / f"{name}.egr" for alg in results}
    if results.keys() - {"scc"}:  # one weighted file: ECL-GC and ECL-MIS read the weights and leave them
        ecl.write_egr(scratch / f"{name}.egr", csr.indptr(), csr.edges()[:, 1], csr.group["weights"][:])
    if "scc" in results:
        ecl.write_egr(scratch / f"{name}-directed.egr", dcsr.indptr(), dcsr.edges()[:, 1])
    answers = {"color": lambda r: r.n_colors, "mis": lambda r: r.size, "scc": lambda r: r.n_components, "mst": lambda r: int(r.total_weight)}  # integers: write_egr takes no others
    rows = []
    for alg, r in results.items():
        row = {"graph": name, "algorithm": alg, "format": "ecl", "region": "resident"}
        try:
            runs = [ecl.run(binaries[alg], egr[alg], algorithm=alg) for _ in range(repeat)]
        except RuntimeError as e:
            print(e, flush=True)
            rows.append(row | {"error": str(e).splitlines()[0]})
            continue
        found = sorted({run["result"] for run in runs})
        row |= {"ms": round(statistics.median(run["ms"] for run in runs), 3), "result": found[0] if len(found) == 1 else found, "graphtier": answers[alg](r)}
        if alg in ecl.PASSED:
            row["checked"] = all(run["checked"] for run in runs)
        if alg == "scc":
            sizes, counts = np.unique(np.bincount(r.labels), return_counts=True)
            row["agrees"] = all(run["result"] == r.n_components and run["sizes"] == dict(zip(sizes.tolist(), counts.tolist())) for run in runs)
        elif alg == "mst":
            row["agrees"] = found == [row["graphtier"]]
        if row.get("agrees") is False or row.get("checked") is False:
            print(f"ECL's {alg} fails its check or disagrees with graphtier's: {runs}", flush=True)
        rows.append(row)
        print(row, flush=True)
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--scale", type=int, default=24)
    p.add_argument("--formats", nargs="+", default=["csr", "ef", "cgr"])
    p.add_argument("--share", type=float, default=0.25)
    p.add_argument("--sources", type=int, default=4)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument(
        "--algorithms",
        nargs="+",
        default=["bfs", "sssp", "sssp_dist", "cc", "pagerank", "scc", "mst", "mis", "color", "bc"],
        help="sssp_dist: SSSP without its parent pass (distances only, as EMOGI's); bc_weighted: betweenness over the weights, one source at a time",
    )
    p.add_argument("--bc-k", type=int, default=64, help="betweenness centrality's sampled sources")
    p.add_argument("--regions", nargs="+", default=["resident", "share", "zero-copy"], choices=["resident", "share", "zero-copy"], help="share: the device budget at --share of the CSR size")
    p.add_argument("--out", type=Path, default=RESULTS_DIR)
    p.add_argument("--emogi", type=Path, metavar="DIR", help="EMOGI's source folder (e.g. .peers/EMOGI): also time EMOGI on the same graph and sources")
    p.add_argument("--ecl", type=Path, metavar="DIR", help="the folder holding ECL-Suite, ECL-SCC and ECL-MST (e.g. .peers): also time the ECL codes on the same graphs")
    args = p.parse_args()
    import cupy

    pcie, hbm = copy_gbps(True), copy_gbps(False)
    print(f"pinned host-to-device {pcie:.1f} GB/s, device-to-device {hbm:.0f} GB/s", flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as d:
        t = time.perf_counter()
        csr, graphs = weighted_kronecker(args.scale, Path(d), args.formats)
        name = f"kron{args.scale}"
        print(f"{name}: {csr.n_vertices:,} vertices, {csr.n_edges:,} edges, weighted, {args.formats} built in {time.perf_counter() - t:.1f} s", flush=True)
        sizes = {f: chunk_bytes(g) for f, g in graphs.items()}
        weights_bytes = 4 * csr.n_edges
        degree = np.diff(csr.indptr())
        sources = np.random.default_rng(1).choice(np.flatnonzero(degree), args.sources, replace=False).tolist()
        calls = {
            "bfs": lambda g, s, **b: gt.bfs(g, s, device="cuda", **b),
            "sssp": lambda g, s, **b: gt.sssp(g, s, device="cuda", **b),
            "sssp_dist": lambda g, s, **b: gt.sssp(g, s, predecessors=False, device="cuda", **b),
            "cc": lambda g, s, **b: gt.connected_components(g, device="cuda", **b),
            "pagerank": lambda g, s, **b: gt.pagerank(g, tol=1e-9, device="cuda", **b),  # ~40 iterations
            "scc": lambda g, s, **b: gt.strongly_connected_components(g, device="cuda", **b),
            "mst": lambda g, s, **b: gt.minimum_spanning_tree(g, device="cuda", **b),
            "mis": lambda g, s, **b: gt.maximal_independent_set(g, seed=1, device="cuda", **b),
            "color": lambda g, s, **b: gt.greedy_color(g, seed=1, device="cuda", **b),
            "bc": lambda g, s, **b: gt.betweenness_centrality(g, k=args.bc_k, seed=0, batch=min(args.bc_k, 64), device="cuda", **b),  # one width in every region
            "bc_weighted": lambda g, s, **b: gt.betweenness_centrality(g, k=args.bc_k, seed=0, weight=True, device="cuda", **b),
        }
        directed, dcsr = {}, None
        if "scc" in args.algorithms:
            edges = gt.generators.kronecker(args.scale, seed=0)
            dcsr = gt.build(edges, Path(d) / "directed-csr.gt", reverse=True, memory_budget="24GiB", progress=False)
            del edges
            directed = {f: dcsr if f == "csr" else gt.recode(dcsr, Path(d) / f"directed-{f}.gt", format=f) for f in args.formats}
        reference, ecl_results = {}, {}
        for alg in args.algorithms:
            per_source = alg in ("bfs", "sssp", "sssp_dist")
            weighted = alg.startswith("sssp") or alg in ("mst", "bc_weighted")
            for fmt, g in (directed if alg == "scc" else graphs).items():
                graph_bytes = (chunk_bytes(g) if alg == "scc" else sizes[fmt]) + (weights_bytes if weighted else 0)
                csr_bytes = chunk_bytes(directed["csr"]) if alg == "scc" else sizes["csr"] + (weights_bytes if weighted else 0)
                regions = [("resident", {})] if "resident" in args.regions else []
                state = calls[alg](g, sources[0]).stats["state_bytes"]
                if "share" in args.regions:
                    regions.append((f"{args.share:.0%} of csr", {"device_memory": state + int(args.share * csr_bytes) + (64 << 20), "host_memory": "100GiB"}))
                if fmt == "csr" and "zero-copy" in args.regions:  # EMOGI's method: the vertex state and indptr on the device, no index arena or sidecar
                    fixed = sum(fixed_bytes(g.n_vertices, g.chunks(reverse=r).n_chunks) for r in ((False, True) if alg == "scc" else (False,)))  # SCC reads both directions
                    regions.append(("zero-copy", {"device_memory": state + fixed, "host_memory": "100GiB", "zero_copy": "always"}))
                for region, budget in regions:
                    ms, wall, its = [], [], []
                    for s in sources if per_source else sources[:1]:
                        m, wl, r = timed(lambda g=g, s=s, budget=budget: calls[alg](g, s, **budget), args.repeat)
                        values = next(iter(r.columns().values()))
                        key = (alg.removesuffix("_dist"), s)
                        if key not in reference:
                            reference[key] = values
                        elif alg == "pagerank":
                            assert np.abs(values - reference[key]).sum() < 1e-6, f"{alg} {fmt} {region}: ranks differ"
                        elif alg.startswith("bc"):  # sums of doubles in another order out of core
                            assert np.allclose(values, reference[key], rtol=1e-9, atol=0), f"{alg} {fmt} {region}: centralities differ"
                        else:
                            assert np.array_equal(values, reference[key]), f"{alg} {fmt} {region}: results differ from resident csr's"
                        if args.ecl and alg in ecl.PROGRAMS:
                            ecl_results.setdefault(alg, r)
                        ms.append(m)
                        wall.append(wl)
                        its.append(len(r.stats["iterations"]))
                    row = {
                        "graph": name,
                        "algorithm": alg,
                        "format": fmt,
                        "region": region,
                        "ms": round(statistics.median(ms), 3),
                        "wall_ms": round(statistics.median(wall), 2),
                        "iterations": int(statistics.median(its)),
                        "graph_mb": round(graph_bytes / 1e6, 1),
                    }
                    st = r.stats
                    row["iteration_ms"] = [round(it["seconds"] * 1e3, 3) for it in st["iterations"]]
                    row["h2d_mb"] = round((st["bytes_host_to_device"] + st["bytes_zero_copy"]) / 1e6, 1)
                    if alg == "pagerank":  # per iteration, the first (which loads W) left out
                        per_iteration = statistics.median(row["iteration_ms"][1:] or row["iteration_ms"])
                        row["ms_per_iteration"] = round(per_iteration, 3)
                        row["hbm_floor_ms"] = round(graph_bytes / (hbm / 2) / 1e6, 3)  # reading the graph's bytes once
                        moved = statistics.median([it["bytes_host_to_device"] + it["bytes_zero_copy"] for it in r.stats["iterations"][1:]] or [0])
                        row["pcie_share"] = round(moved / (per_iteration / 1e3) / 1e9 / pcie, 2)
                        for key in ("rounds", "transfer_seconds", "compute_seconds"):  # the scheduler's, per iteration
                            row[key.replace("_seconds", "_ms")] = round(statistics.median([it.get(key, 0) for it in st["iterations"][1:]] or [0]) * (1e3 if "seconds" in key else 1), 3)
                    rows.append(row)
                    print(row, flush=True)
        if {"sssp", "sssp_dist"} & set(args.algorithms):
            indptr = cupy.asarray(csr.indptr())
            indices = cupy.asarray(csr.edges()[:, 1].astype(np.int64))
            weights = cupy.asarray(csr.group["weights"][:].astype(np.float64))
            bf = []
            for s in sources:
                bellman_ford_cupy(indptr, indices, weights, s)
                dist, seconds = bellman_ford_cupy(indptr, indices, weights, s)
                assert np.array_equal(dist.get(), reference[("sssp", s)]), "Bellman-Ford's distances differ"
                bf.append(seconds * 1e3)
            rows.append({"graph": name, "algorithm": "sssp", "format": "csr", "region": "cupy bellman-ford", "ms": round(statistics.median(bf), 3)})
            print(rows[-1], flush=True)
        if args.emogi:
            rows += emogi_rows(args.emogi, Path(d), csr, name, sources, args.algorithms, args.repeat, reference)
        if ecl_results:
            rows += ecl_rows(args.ecl, Path(d), csr, dcsr, name, ecl_results, args.repeat)
    machine = machine_info()
    meta = {"command": " ".join(sys.argv), "pinned_h2d_gbps": round(pcie, 1), "d2d_gbps": round(hbm, 1), "timing": "CUDA events, median after a warm-up", "machine": machine}
    if args.emogi:
        meta["emogi"] = f"{args.emogi}: -t {emogi.COALESCE_CHUNK}, -m {emogi.MEMORY['gpu']} (resident) or {emogi.MEMORY['zerocopy']} (zero-copy), one process a run, no warm-up run"
    if args.ecl:
        meta["ecl"] = f"{args.ecl}: {', '.join(source for source, _ in ecl.PROGRAMS.values())}, {' '.join(ecl.NVCC)}, one process a run, no warm-up run"
    publish(
        "algorithms_gpu",
        rows,
        meta,
        out_dir=args.out,
        columns=[
            "algorithm",
            "format",
            "region",
            "ms",
            "wall_ms",
            "iterations",
            "h2d_mb",
            "ms_per_iteration",
            "hbm_floor_ms",
            "pcie_share",
            "rounds",
            "transfer_ms",
            "result",
            "graphtier",
            "checked",
            "agrees",
            "error",
        ],
    )


if __name__ == "__main__":
    main()
