"""The ``graphtier`` command line: generate, convert, advise, recode, approximate, info, verify, bfs, sssp, pagerank, cc, scc, mst, mis, color, bc, plot and demo.

Exit codes: 0 success, 2 bad arguments (a memory budget above what the machine has too), 3 bad
input data, 4 a store that is missing, exists already, is corrupt or was replaced while being
read, 5 out of memory (the GPU or the host refused an allocation), 130 interrupted (SIGINT or
SIGTERM).
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import signal
import sys
import tempfile
import threading
import time
import warnings
from pathlib import Path
from typing import NoReturn

import numpy as np

import graphtier as gt

from . import plot, temps
from .codecs import FORMATS
from .engine.advise import ALGORITHMS, GOALS, SAMPLE_EDGES
from .engine.approximate import TRANSFORMS
from .engine.build import AUTO, CHUNK_EDGES
from .errors import CorruptChunkError, DeviceError, EmptyGraphError, GraphtierError, InputError, PartDiedError, StoreError, StoreExistsError
from .partition.order import ORDERS
from .tiering.budget import parse_size

EXIT_INPUT, EXIT_STORE, EXIT_MEMORY, EXIT_PART, EXIT_INTERRUPTED, EXIT_PIPE = 3, 4, 5, 6, 130, 141  # 141: as a shell reports a tool SIGPIPE ended


def _emit(args, payload: dict, text: str) -> None:
    print(json.dumps(payload, indent=2, default=_jsonable) if getattr(args, "json", False) else text)


def _jsonable(x):
    if isinstance(x, np.generic):
        return x.item()
    raise TypeError(f"{type(x).__name__} is not JSON serializable")


def _generate_edges(args) -> np.ndarray:
    if args.kind == "grid":
        return gt.generators.grid(args.rows, args.cols)
    make = gt.generators.kronecker if args.kind == "kronecker" else gt.generators.urand
    return make(args.scale, edge_factor=args.edge_factor, seed=args.seed)


def cmd_generate(args) -> None:
    edges = _generate_edges(args)
    out = Path(args.output)
    if out.suffix == ".npy":
        np.save(out, edges)
    else:
        from .partition.export import write_text_edges

        write_text_edges(out, edges)
    _emit(args, {"output": str(out), "edges": len(edges)}, f"wrote {len(edges):,} edges to {out}")


def _graph_options(args) -> dict:
    """The options that shape a graph built from an input, as convert and advise take them."""
    return {
        "symmetrize": args.symmetrize,
        "drop_self_loops": args.drop_self_loops,
        "dedup": not args.keep_duplicates,
        "relabel": args.relabel,
        "reverse": args.reverse,
        "memory_budget": args.memory_budget,
        "progress": None if not args.json else False,
    }


def _build(args, source, store):
    return gt.build(source, store, format=args.format, chunk_edges=args.chunk_edges, order=args.order, root=args.root, overwrite=args.overwrite, allow_empty=args.allow_empty, **_graph_options(args))


def cmd_advise(args) -> None:
    advice = gt.advise(
        args.source,
        algorithm=args.algorithm,
        device=args.device,
        device_memory=args.device_memory,
        host_memory=args.host_memory,
        goal=args.goal,
        orders=args.orders,
        sample_edges=args.sample_edges,
        **_graph_options(args),
    )
    _emit(args, advice.to_dict(), str(advice))


def _bits(value: float | None) -> str:
    """Bits per edge as printed; a graph without edges has none to divide by."""
    return "n/a" if value is None else f"{value:.2f}"


def cmd_convert(args) -> None:
    t = time.perf_counter()
    g = _build(args, args.source, args.store)
    seconds = time.perf_counter() - t
    info = g.info()
    rate = info["build"]["edges_read"] / seconds if seconds else 0.0
    _emit(
        args,
        {**info, "seconds": seconds, "edges_read_per_second": rate},
        f"{g}\nbuilt in {seconds:.2f} s ({rate / 1e6:.1f} M input edges/s), {_bits(info['bits_per_edge']['total'])} bits per edge in all",
    )


def cmd_recode(args) -> None:
    t = time.perf_counter()
    g = gt.recode(args.source, args.store, format=args.format, chunk_edges=args.chunk_edges, overwrite=args.overwrite)
    seconds = time.perf_counter() - t
    info = g.info()
    _emit(args, {**info, "seconds": seconds}, f"{g}\nrecoded in {seconds:.2f} s, {_bits(info['bits_per_edge']['total'])} bits per edge in all")


def cmd_approximate(args) -> None:
    t = time.perf_counter()
    knobs = {k: getattr(args, k) for k in ("threshold", "share", "warp", "k", "slack", "limit", "size") if getattr(args, k) is not None}
    if unknown := sorted(set(knobs) - set(TRANSFORMS[args.transform])):
        raise ValueError(f"{', '.join('--' + k for k in unknown)}: not a knob of {args.transform}, which takes {', '.join('--' + k for k in TRANSFORMS[args.transform])}")
    g = gt.approximate(args.source, args.store, args.transform, overwrite=args.overwrite, **knobs)
    seconds = time.perf_counter() - t
    info = g.info()
    a = info["approximation"]
    _emit(args, {**info, "seconds": seconds}, f"{g}\n{a['transform']} of {a['source']} ({_knobs(a['knobs'])}): {_added(a)} in {seconds:.2f} s")


def _added(a: dict) -> str:
    replicas = f", {a['replicas']:,} replicas in {a['replicas'] + a['holes']:,} holes" if "replicas" in a else ""
    clusters = f" (sibling pairs, each both ways), {a['clusters']:,} clusters" if "clusters" in a else ""
    return f"{a['added_edges']:,} edges added{clusters}{replicas}"


def _knobs(knobs: dict) -> str:
    return ", ".join(f"{k} {v}" for k, v in knobs.items())


def cmd_info(args) -> None:
    info = gt.open(args.store).info()
    if args.json:
        _emit(args, {**info, "chunks_verified": False}, "")
        return
    b, deg = info["bits_per_edge"], info["degree"]
    lines = [
        f"store        {info['store']}",
        f"format       {info['format']} (schema {info['schema']}, {info['n_chunks']} chunks of {info['chunk_edges']:,} edges, {info['id_dtype']} ids)",
        f"vertices     {info['n_vertices']:,}",
        f"edges        {info['n_edges']:,} ({'directed' if info['directed'] else 'symmetric'}, {'weighted' if info['weighted'] else 'unweighted'})",
        f"degree       max {deg['max']:,}, mean {deg['mean']:.2f}",
        "bits/edge    " + (", ".join(f"{k} {_bits(b[k])}" for k in ("payload", "index", "indptr", "total")) if info["n_edges"] else "n/a (no edges)"),
        f"reverse      {'yes' if 'reverse' in info else 'no'}",
        *([f"layered      {info['layered']['layers']:,} layers from root {info['layered']['root']} ({info['layered']['reached']:,} vertices reached)"] if "layered" in info else []),
        *([f"approximate  {a['transform']} of {a['source']} ({_knobs(a['knobs'])}), {_added(a)}"] if (a := info.get("approximation")) else []),
        f"verified     no: info reads the metadata and chunk headers only; graphtier verify {args.store} reads every chunk",
    ]
    print("\n".join(lines))


def cmd_verify(args) -> int:
    report = gt.verify(args.store, progress=False if args.json else None)
    _emit(args, report.to_dict(), str(report))
    return 0 if report.ok else EXIT_STORE


def _size(text: str) -> str:
    """An argparse type: checks a memory size and passes it on as given."""
    try:
        parse_size(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def _devices(text: str) -> int | tuple[int, ...]:
    """An argparse type: a count of devices ("2") or device ids ("0,2")."""
    try:
        value = tuple(int(x) for x in text.split(",")) if "," in text else int(text)
        return gt.Config(devices=value).devices
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a count of devices (2) or device ids (0,2), got {text!r}") from None


def _write_json(path: str, payload) -> None:
    """Write JSON whole or not at all (``temps.replacing``)."""
    with temps.replacing(path) as f:
        f.write(json.dumps(payload, indent=2, default=_jsonable).encode())


def _stats_table(s: dict) -> str:
    """One row per iteration (hits and misses as device/host), then the totals."""
    mb = lambda x: f"{x / 1e6:.2f}"
    row = "{:>5} {:>6} {:>10} {:>6} {:>11} {:>11} {:>6} {:>9} {:>9} {:>9} {:>8} {:>8}"
    lines = [row.format("iter", "kind", "frontier", "rounds", "hits d/h", "misses d/h", "zc", "MB read", "MB h2d", "MB zc", "xfer ms", "comp ms")]
    for i, it in enumerate(s["iterations"]):
        hits, misses = f"{it['device_hits']}/{it['host_hits']}", f"{it['device_misses']}/{it['host_misses']}"
        moved = (mb(it[k]) for k in ("bytes_store_read", "bytes_host_to_device", "bytes_zero_copy"))
        ms = (f"{it[k] * 1e3:.1f}" for k in ("transfer_seconds", "compute_seconds"))
        kind = it.get("direction") or it.get("phase") or ""
        lines.append(row.format(i, kind, f"{it['frontier']:,}", it["rounds"], hits, misses, it["zero_copy_chunks"], *moved, *ms))
    lines.append(
        f"total: {s['rounds']} rounds, hits {s['device_hits']}/{s['host_hits']}, misses {s['device_misses']}/{s['host_misses']}, "
        f"{s['zero_copy_chunks']} zero-copy chunks; MB read {mb(s['bytes_store_read'])} (a chunk at most {s.get('store_reads_max', 0)} times), h2d {mb(s['bytes_host_to_device'])} "
        f"(indexes {mb(s['bytes_index_to_device'])}), "
        f"zero-copy {mb(s['bytes_zero_copy'])}; peak MB device {mb(s['device_peak_bytes'])} of {mb(s['device_memory'])}, "
        f"host {mb(s['host_peak_bytes'])} of {mb(s['host_memory'])}"
    )
    return "\n".join(lines)


def _execution(args) -> dict:
    """The execution options every algorithm command takes."""
    return {"device": args.device, "device_memory": args.device_memory, "host_memory": args.host_memory, "zero_copy": args.zero_copy, "devices": args.devices}


def _save(result, column: str | None, path: str) -> None:
    """``--out``: a .parquet or .csv table of every column (pyarrow, pandas), else ``column`` as .npy
    (with none, an edge table's: the whole table as a structured array)."""
    suffix = Path(path).suffix.lower()
    if suffix not in (".parquet", ".csv", ".npy"):
        path += ".npy"  # as np.save names it
    with temps.replacing(path) as f:  # whole or not at all, should the query be killed
        if suffix == ".parquet":
            import pyarrow.parquet as pq

            pq.write_table(result.to_arrow(), f)
        elif suffix == ".csv":
            result.to_pandas().to_csv(f, index=False)
        elif column is None:
            cols = result.columns()
            table = np.empty(len(next(iter(cols.values()))), [(k, v.dtype) for k, v in cols.items()])
            for k, v in cols.items():
                table[k] = v
            np.save(f, table)
        else:
            np.save(f, result.columns()[column])


def _report(args, result, column: str | None, payload: dict, text: str) -> None:
    """What every algorithm command prints: a summary (or JSON), where ``--out`` went, stats.
    ``column``: what a per-vertex .npy holds; None for an edge table."""
    s = result.stats
    if args.out:
        _save(result, column, args.out)
    if args.stats_json:
        _write_json(args.stats_json, s)
    if args.plot:
        plot.timeline([{**s, "algorithm": args.command}], args.plot)
    summary = {k: s[k] for k in ("device", "format", "seconds") if k in s}
    plural = "edges" if not column else f"{column[:-1]}ies" if column.endswith("y") else f"{column}s"
    where = f"; {plural} in {args.out}" if args.out else ""
    _emit(args, {**payload, **summary, "iterations": s["iterations"], "out": args.out}, f"{text}, {s['seconds'] * 1e3:.1f} ms on the {s['device']}{where}")
    if args.stats and not args.json:
        print(_stats_table(s))


def cmd_bfs(args) -> None:
    g = gt.open(args.store)
    r = gt.bfs(g, args.source, direction=args.direction, **_execution(args))
    s = r.stats
    _report(
        args,
        r,
        "distance",
        {"source": args.source, **{k: s[k] for k in ("levels", "reached", "edges_traversed", "teps", "traversal")}},
        f"BFS from {args.source}: reached {s['reached']:,} of {g.n_vertices:,} vertices in {s['levels']} levels ({s['teps'] / 1e6:.0f} M edges/s){_through(s)}",
    )


def _through(stats: dict) -> str:
    """On a layered store, which path a query took (and why not the layers)."""
    return "" if stats["traversal"] == "frontier" else f", by {stats['traversal']}"


def cmd_sssp(args) -> None:
    g = gt.open(args.store)
    r = gt.sssp(g, args.source, weight=not args.unweighted, delta=args.delta, predecessors=not args.no_parents, **_execution(args))
    far = float(np.max(r.distances[np.isfinite(r.distances)], initial=0.0))
    _report(
        args,
        r,
        "distance",
        {"source": args.source, "reached": r.reached, "farthest": far, "traversal": r.stats["traversal"]},
        f"SSSP from {args.source}: reached {r.reached:,} of {g.n_vertices:,} vertices, farthest at {far:g}{_through(r.stats)}",
    )


def cmd_pagerank(args) -> None:
    g = gt.open(args.store)
    r = gt.pagerank(g, alpha=args.alpha, tol=args.tol, max_iter=args.max_iter, weight=True if args.weighted else None, **_execution(args))
    top = int(np.argmax(r.ranks)) if len(r.ranks) else -1
    vertex = int(r.ids[top]) if r.ids is not None and top >= 0 else top
    _report(args, r, "rank", {"iterations_run": r.iterations, "top_vertex": vertex}, f"PageRank: {r.iterations} iterations, top vertex {vertex}")


def cmd_cc(args) -> None:
    g = gt.open(args.store)
    r = gt.connected_components(g, **_execution(args))
    sizes = np.bincount(r.labels) if len(r.labels) else np.zeros(0, np.int64)
    largest = int(sizes.max(initial=0))
    kind = "weakly connected components" if g.directed else "connected components"
    _report(args, r, "component", {"n_components": r.n_components, "largest": largest}, f"{r.n_components:,} {kind}, the largest of {largest:,} vertices")


def cmd_scc(args) -> None:
    g = gt.open(args.store)
    r = gt.strongly_connected_components(g, **_execution(args))
    largest = int(np.bincount(r.labels).max(initial=0)) if len(r.labels) else 0
    kind = "strongly connected components" if g.directed else "connected components (a symmetric graph)"
    _report(args, r, "component", {"n_components": r.n_components, "largest": largest}, f"{r.n_components:,} {kind}, the largest of {largest:,} vertices")


def cmd_mst(args) -> None:
    g = gt.open(args.store)
    r = gt.minimum_spanning_tree(g, weight=not args.unweighted, **_execution(args))
    payload = {"edges": len(r.sources), "total_weight": r.total_weight, "n_trees": r.n_trees}
    _report(args, r, None, payload, f"minimum spanning forest: {len(r.sources):,} edges in {r.n_trees:,} trees, total weight {r.total_weight:g}")


def cmd_mis(args) -> None:
    g = gt.open(args.store)
    r = gt.maximal_independent_set(g, seed=args.seed, **_execution(args))
    _report(args, r, "in_set", {"size": r.size, "seed": r.seed}, f"maximal independent set of {r.size:,} of {g.n_vertices:,} vertices (seed {r.seed})")


def cmd_color(args) -> None:
    g = gt.open(args.store)
    r = gt.greedy_color(g, seed=args.seed, **_execution(args))
    _report(args, r, "color", {"n_colors": r.n_colors, "seed": r.seed}, f"{r.n_colors:,} colours for {g.n_vertices:,} vertices, largest degree first (seed {r.seed})")


def cmd_bc(args) -> None:
    g = gt.open(args.store)
    r = gt.betweenness_centrality(g, k=args.k, seed=args.seed, normalized=not args.no_normalized, endpoints=args.endpoints, weight=True if args.weighted else None, **_execution(args))
    top = int(np.argmax(r.centrality)) if len(r.centrality) else -1
    vertex = int(r.ids[top]) if r.ids is not None and top >= 0 else top
    value = float(r.centrality[top]) if top >= 0 else 0.0
    sources = g.n_vertices if r.sources is None else len(r.sources)
    _report(args, r, "centrality", {"sources": sources, "top_vertex": vertex, "top_centrality": value}, f"betweenness centrality from {sources:,} sources: top vertex {vertex} ({value:g})")


def cmd_plot(args) -> None:
    source = Path(args.input)
    if source.is_file() and source.suffix.lower() == ".json":
        runs = plot.load_stats(source)
        drawn, what = plot.timeline(runs, args.output), f"the timeline of {len(runs)} run{'s' * (len(runs) > 1)}"
    else:
        drawn, what = plot.store(gt.open(args.input), args.output), f"{args.input}'s degrees and bits per edge"
    _emit(args, {"input": args.input, "output": str(drawn)}, f"drew {what} in {drawn}")


def cmd_demo(args) -> None:
    """Kronecker graph -> store -> BFS from its best-connected vertex, on an embedded default."""
    with tempfile.TemporaryDirectory(prefix="graphtier-demo-") as tmp:
        t = time.perf_counter()
        edges = gt.generators.kronecker(args.scale, edge_factor=16, seed=args.seed)
        t_gen = time.perf_counter() - t
        t = time.perf_counter()
        g = gt.build(edges, Path(tmp) / "demo.gt", symmetrize=True, drop_self_loops=True, progress=False)
        t_build = time.perf_counter() - t
        source = int(np.argmax(np.diff(g.indptr())))
        gt.bfs(g, source)  # compiles the kernels; the timed run follows
        r = gt.bfs(g, source)
        info = g.info()
    result = {
        "graph": f"kronecker scale {args.scale}, edge factor 16, seed {args.seed}, symmetrized",
        "vertices": g.n_vertices,
        "edges": g.n_edges,
        "bytes_per_edge": info["bits_per_edge"]["total"] / 8,
        "generate_seconds": t_gen,
        "build_seconds": t_build,
        "bfs_source": source,
        "bfs_seconds": r.stats["seconds"],
        "bfs_levels": r.stats["levels"],
        "bfs_reached": r.stats["reached"],
    }
    text = "\n".join(
        [
            f"graph        {result['graph']}",
            f"vertices     {g.n_vertices:,}",
            f"edges        {g.n_edges:,}",
            f"store        {result['bytes_per_edge']:.2f} bytes per edge ({g.format}), built in {t_build:.2f} s",
            f"BFS          from {source}: {r.stats['levels']} levels, {r.stats['reached']:,} vertices reached, {r.stats['seconds'] * 1e3:.1f} ms on the {r.stats['device']}",
        ]
    )
    _emit(args, result, text)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="graphtier", description=__doc__.split("\n")[0])
    p.add_argument("--version", action="version", version=f"graphtier {gt.__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, fn, help: str) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help, description=help)
        sp.set_defaults(func=fn)
        sp.add_argument("--json", action="store_true", help="print machine-readable JSON")
        return sp

    gen = command("generate", cmd_generate, "write a generated graph as an edge list (.txt, or .npy)")
    gen.add_argument("kind", choices=["kronecker", "urand", "grid"])
    gen.add_argument("-o", "--output", required=True, help="output file; .npy writes a NumPy array, anything else text")
    gen.add_argument("--scale", type=int, default=16, help="log2 of the vertex count (kronecker, urand)")
    gen.add_argument("--edge-factor", type=int, default=16, help="edges per vertex (kronecker, urand)")
    gen.add_argument("--seed", type=int, default=0)
    gen.add_argument("--rows", type=int, default=1024, help="grid rows")
    gen.add_argument("--cols", type=int, default=None, help="grid columns (default: rows)")

    def graph_options(sp: argparse.ArgumentParser) -> None:
        """What makes the graph from an input: convert's and advise's."""
        sp.add_argument("--symmetrize", action="store_true", help="store both directions of every edge")
        sp.add_argument("--drop-self-loops", action="store_true")
        sp.add_argument("--keep-duplicates", action="store_true", help="do not remove repeated edges")
        sp.add_argument("--relabel", action="store_true", help="map arbitrary 64-bit ids to dense ids (kept in perm)")
        sp.add_argument("--memory-budget", default=None, help="memory for sorting, e.g. 2GiB (default: a quarter of RAM, at most 8 GiB)")
        sp.add_argument("--reverse", action="store_true", help="also store the transposed graph (enables pull BFS)")

    def budgets(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
        sp.add_argument(
            "--device-memory",
            type=_size,
            metavar="SIZE",
            default=None,
            help="device budget, e.g. 4GiB, at most what the GPU (on the CPU: RAM) has (default: free GPU memory, or on the CPU RAM, less a margin)",
        )
        sp.add_argument("--host-memory", type=_size, metavar="SIZE", default=None, help="host budget, e.g. 16GiB, at most the RAM (default: RAM less a margin)")

    conv = command("convert", cmd_convert, "build a graph store from an edge list, MatrixMarket, Parquet or BVGraph file")
    conv.add_argument("source", help="input file (or BVGraph basename)")
    conv.add_argument("store", help="output store: a directory, a .zip file or an fsspec URL")
    conv.add_argument("--format", default="csr", choices=[*FORMATS, AUTO], help="auto: what graphtier advise recommends for BFS on this machine (default csr)")
    conv.add_argument("--chunk-edges", type=int, default=None, help=f"edges per chunk (default {CHUNK_EDGES}; with --format auto, the advice's)")
    graph_options(conv)
    conv.add_argument("--order", default=None, choices=list(ORDERS), help="renumber vertices for locality (default natural; with --format auto, the advice's); layered: BFS layers from --root")
    conv.add_argument("--root", type=int, default=None, help="with --order layered: the root, an input id (default a vertex no edge enters with the most out-edges, else the one with most)")
    conv.add_argument("--overwrite", action="store_true", help="replace an existing store")
    conv.add_argument("--allow-empty", action="store_true", help="build a graph without edges from an input that leaves none")

    adv = command("advise", cmd_advise, "recommend a format, vertex order, chunk size and budgets for a store or an input, and say why")
    adv.add_argument("source", help="a store (a directory, a .zip file or a URL), or an input file (or BVGraph basename) as convert reads it")
    adv.add_argument("--algorithm", default="bfs", choices=list(ALGORITHMS), help="the algorithm to run (default bfs)")
    budgets(adv)
    adv.add_argument("--goal", default="speed", choices=GOALS, help="speed: the best region, then the fastest decoder or the fewest bytes streamed; size: the smallest store (default speed)")
    adv.add_argument("--orders", nargs="+", default=None, choices=list(ORDERS), help="candidate orders (default natural degree bfs rcm; llp is slow to compute)")
    adv.add_argument("--sample-edges", type=int, default=SAMPLE_EDGES, help=f"edges encoded per order; a graph with no more is measured whole (default {SAMPLE_EDGES})")
    graph_options(adv)

    rec = command("recode", cmd_recode, "copy a store into another format or chunk size, chunk by chunk")
    rec.add_argument("source", help="existing store")
    rec.add_argument("store", help="new store")
    rec.add_argument("--format", default=None, choices=list(FORMATS), help="default: the source's")
    rec.add_argument("--chunk-edges", type=int, default=None, help="default: the source's")
    rec.add_argument("--overwrite", action="store_true", help="replace an existing store")

    approx = command("approximate", cmd_approximate, "write an approximate store (Graffix's transforms): faster on the GPU, answers a little off")
    approx.add_argument("source", help="existing store (left as it is)")
    approx.add_argument("store", help="new store")
    approx.add_argument(
        "--transform",
        default="divergence",
        choices=list(TRANSFORMS),
        help="divergence: 2-hop edges for vertices a little short of their warp's largest degree; coalesce: BFS levels renumbered in chunks of k, holes filled with replicas; latency: sibling edges raising clustering coefficients, clusters recorded for shared memory",
    )
    approx.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="divergence: top up vertices short by less than this share of their warp's largest degree (default 0.3); coalesce: replicate a vertex reaching this share of a chunk of the next level (default 0.6); latency: the clustering coefficient a cluster's centre reaches (default 0.7)",
    )
    approx.add_argument("--share", type=float, default=None, help="divergence: to this share of it (default 0.85)")
    approx.add_argument("--warp", type=int, default=None, help="divergence: vertices per warp (default 32)")
    approx.add_argument("--k", type=int, default=None, help="coalesce: slots a chunk holds, at most a warp (default 16)")
    approx.add_argument("--slack", type=float, default=None, help="latency: vertices this far under the threshold get sibling edges lifting them to it (default 0.1)")
    approx.add_argument("--limit", type=float, default=None, help="latency: the edges added at most, a share of the graph's (default 0.05)")
    approx.add_argument("--size", type=int, default=None, help="latency: the most neighbours a cluster's centre has (default 32)")
    approx.add_argument("--overwrite", action="store_true", help="replace an existing store")

    info = command("info", cmd_info, "describe a store: counts, degrees and bits per edge")
    info.add_argument("store")

    check = command("verify", cmd_verify, "read every chunk of a store and list every problem (exit 4 if any)")
    check.add_argument("store")

    def algorithm(name: str, fn, help: str, out: str, table: str | None = None) -> argparse.ArgumentParser:
        sp = command(name, fn, help)
        sp.add_argument("store")
        what = "the array" if table is None else "a structured array"
        sp.add_argument("--out", help=f"save {out}: .npy ({what}), .parquet or .csv ({table or 'a table with the vertex ids'})")
        budgets(sp)
        sp.add_argument("--zero-copy", default="auto", choices=["auto", "always", "never"], help="read chunks in place from host memory")
        sp.add_argument("--devices", type=_devices, metavar="N|IDS", help="split the graph over N devices or these GPU ids (0,2), a process each (bfs, pagerank); budgets are per device")
        sp.add_argument("--stats", action="store_true", help="print a table of per-iteration tiering statistics after the summary (not with --json)")
        sp.add_argument("--stats-json", metavar="FILE", help="write the whole stats dict as JSON to FILE")
        sp.add_argument("--plot", metavar="PNG", help="draw the run's per-iteration transfer and compute timeline (needs matplotlib)")
        return sp

    bfs = algorithm("bfs", cmd_bfs, "breadth-first search from one source", "distances (int32, -1 unreachable)")
    bfs.add_argument("--source", type=int, required=True, help="source vertex (as the input numbered it)")
    bfs.add_argument("--direction", default="auto", choices=["auto", "push", "pull"])

    sssp = algorithm("sssp", cmd_sssp, "shortest paths from one source over the edge weights", "distances (float64, inf unreachable)")
    sssp.add_argument("--source", type=int, required=True, help="source vertex (as the input numbered it)")
    sssp.add_argument("--unweighted", action="store_true", help="every edge weighs 1, whatever the store holds")
    sssp.add_argument("--delta", type=float, default=None, help="near-far bucket width (default: from the mean weight and degree)")
    sssp.add_argument("--no-parents", action="store_true", help="distances only: skip the pass that finds each vertex's parent")

    pr = algorithm("pagerank", cmd_pagerank, "PageRank by power iteration (networkx's semantics)", "ranks (float64)")
    pr.add_argument("--alpha", type=float, default=0.85, help="damping factor (default 0.85)")
    pr.add_argument("--tol", type=float, default=1e-6, help="stop when the L1 change is below n * tol (default 1e-6)")
    pr.add_argument("--max-iter", type=int, default=100, help="fail after this many iterations (default 100)")
    pr.add_argument("--weighted", action="store_true", help="edges weigh their stored weights (default: every edge 1)")

    algorithm("cc", cmd_cc, "connected components (weakly connected on a directed graph)", "component labels (int64)")
    algorithm("scc", cmd_scc, "strongly connected components (a directed store needs --reverse at convert)", "component labels (int64)")

    mst = algorithm("mst", cmd_mst, "minimum spanning forest of an undirected graph (Boruvka)", "the forest's edges", "source, destination, weight")
    mst.add_argument("--unweighted", action="store_true", help="every edge weighs 1, whatever the store holds")

    seed = "an integer in [0, 2**64) (default: drawn at random, and printed)"
    mis = algorithm("mis", cmd_mis, "a maximal independent set by ECL-MIS's rule: fewer neighbours first, then random priorities (the graph read as undirected)", "membership (bool)")
    mis.add_argument("--seed", type=int, default=None, help=f"the priorities' seed, {seed}")
    color = algorithm("color", cmd_color, "a greedy colouring, largest degree first (the graph read as undirected)", "colours (int64)")
    color.add_argument("--seed", type=int, default=None, help=f"the seed of tie-breaks among equal degrees, {seed}")
    bc = algorithm("bc", cmd_bc, "betweenness centrality (Brandes; networkx's semantics)", "centralities (float64)")
    bc.add_argument("-k", type=int, default=None, help="sample this many sources, as networkx does with --seed (default: every vertex)")
    bc.add_argument("--seed", type=int, default=None, help="the sampling's seed (networkx's; default: unseeded)")
    bc.add_argument("--no-normalized", action="store_true", help="the sums scaled to every pair, not divided by the pairs (networkx's normalized=False)")
    bc.add_argument("--endpoints", action="store_true", help="count each path's endpoints too")
    bc.add_argument("--weighted", action="store_true", help="shortest paths over the stored weights, which must be positive (default: every edge 1)")

    pic = command("plot", cmd_plot, "draw a run's timeline (from --stats-json) or a store's degrees and bits per edge, as a PNG")
    pic.add_argument("input", help="a stats JSON file written by --stats-json, or a store")
    pic.add_argument("-o", "--output", required=True, help="the PNG to write")

    demo = command("demo", cmd_demo, "generate a Kronecker graph, build a store, run BFS and summarize")
    demo.add_argument("--scale", type=int, default=18)
    demo.add_argument("--seed", type=int, default=0)
    return p


def _interrupt(signum, frame) -> None:
    """SIGINT and SIGTERM: unwind, so that every cleanup runs (a half-built store is removed). In
    llvmlite's ctypes callbacks (Numba compiling) an exception would be printed and dropped, and
    the process would go on: there the signal is sent again a moment later instead."""
    if frame is not None and "llvmlite" in frame.f_code.co_filename:
        threading.Timer(0.01, os.kill, (os.getpid(), signum)).start()
        return
    if "zarr" in sys.modules:  # its I/O in flight stops before the cleanups run
        from .store import stop_io

        stop_io()
    # a zarr call the signal cut short between making its coroutine and running it is not news
    warnings.filterwarnings("ignore", message="coroutine .* was never awaited", category=RuntimeWarning)
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if threading.current_thread() is not threading.main_thread():  # only the main thread takes signals
        return _run(args)
    previous = {sig: signal.signal(sig, _interrupt) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        return _run(args)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _run(args) -> int:
    try:
        code = args.func(args)
        sys.stdout.flush()  # here, so that a reader gone away is met below, not at exit
    except BrokenPipeError:  # the output's reader went away (`| head`): stop quietly, as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing left for Python's last flush
        return EXIT_PIPE
    except EmptyGraphError as e:
        hint = " (pass --allow-empty to build an empty graph)" if hasattr(args, "allow_empty") else ""
        print(f"graphtier: bad input: {e.file}: {e.finding}{hint}", file=sys.stderr)
        return EXIT_INPUT
    except InputError as e:
        print(f"graphtier: bad input: {e}", file=sys.stderr)
        return EXIT_INPUT
    except StoreExistsError as e:
        print(f"graphtier: {e.path} already exists (pass --overwrite to replace it)", file=sys.stderr)
        return EXIT_STORE
    except FileNotFoundError as e:
        # convert's and advise's input is data, not a store: missing, it is bad input (3); a missing store is 4
        missing_input = args.command in ("convert", "advise") and e.filename is not None and Path(e.filename) == Path(args.source)
        print(f"graphtier: {'bad input: ' if missing_input else ''}{e}", file=sys.stderr)
        return EXIT_INPUT if missing_input else EXIT_STORE
    except (StoreError, CorruptChunkError, FileExistsError) as e:
        print(f"graphtier: {e}", file=sys.stderr)
        return EXIT_STORE
    except (ValueError, NotImplementedError, DeviceError, gt.ConvergenceError) as e:
        print(f"graphtier: {e}", file=sys.stderr)
        return 2
    except ImportError as e:  # an optional dependency (matplotlib, pyarrow, ...) that is not installed
        print(f"graphtier: {e}", file=sys.stderr)
        return 2
    except MemoryError as e:  # a query's OutOfMemoryError names the allocation; any other is NumPy's or CuPy's own
        print(f"graphtier: {e}" if isinstance(e, GraphtierError) else f"graphtier: out of memory: {e}", file=sys.stderr)
        return EXIT_MEMORY
    except PartDiedError as e:
        print(f"graphtier: {e}", file=sys.stderr)
        return EXIT_PART
    except KeyboardInterrupt:
        print("graphtier: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return code or 0


def console() -> NoReturn:
    """The ``graphtier`` command: ``main``, its exit handlers (parts stopped, zarr's loop closed), then
    the exit itself, without the interpreter's teardown of every module and thread: a large share of
    a short command's time (benchmarks/results/cli_cost-2026-11-27-vm-notes.md)."""
    code = main()
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        code = EXIT_PIPE
    atexit._run_exitfuncs()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    console()
