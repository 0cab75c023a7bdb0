"""The ``graphtier`` command line: generate, convert, recode, info, bfs and demo.

Exit codes: 0 success, 2 bad arguments, 3 bad input data, 4 a store that is missing, exists
already, or is corrupt, 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import graphtier as gt

from .codecs import FORMATS
from .errors import CorruptChunkError, DeviceError, InputError, StoreError, StoreExistsError
from .partition.order import ORDERS
from .tiering.budget import parse_size

EXIT_INPUT, EXIT_STORE, EXIT_INTERRUPTED = 3, 4, 130


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


def _build(args, source, store):
    return gt.build(
        source,
        store,
        format=args.format,
        chunk_edges=args.chunk_edges,
        symmetrize=args.symmetrize,
        drop_self_loops=args.drop_self_loops,
        dedup=not args.keep_duplicates,
        relabel=args.relabel,
        order=args.order,
        memory_budget=args.memory_budget,
        reverse=args.reverse,
        overwrite=args.overwrite,
        progress=None if not args.json else False,
    )


def cmd_convert(args) -> None:
    t = time.perf_counter()
    g = _build(args, args.source, args.store)
    seconds = time.perf_counter() - t
    info = g.info()
    rate = info["build"]["edges_read"] / seconds if seconds else 0.0
    _emit(
        args,
        {**info, "seconds": seconds, "edges_read_per_second": rate},
        f"{g}\nbuilt in {seconds:.2f} s ({rate / 1e6:.1f} M input edges/s), {info['bits_per_edge']['total']:.2f} bits per edge in all",
    )


def cmd_recode(args) -> None:
    t = time.perf_counter()
    g = gt.recode(args.source, args.store, format=args.format, chunk_edges=args.chunk_edges, overwrite=args.overwrite)
    seconds = time.perf_counter() - t
    info = g.info()
    _emit(args, {**info, "seconds": seconds}, f"{g}\nrecoded in {seconds:.2f} s, {info['bits_per_edge']['total']:.2f} bits per edge in all")


def cmd_info(args) -> None:
    info = gt.open(args.store).info()
    if args.json:
        _emit(args, info, "")
        return
    b, deg = info["bits_per_edge"], info["degree"]
    lines = [
        f"store        {info['store']}",
        f"format       {info['format']} (schema {info['schema']}, {info['n_chunks']} chunks of {info['chunk_edges']:,} edges, {info['id_dtype']} ids)",
        f"vertices     {info['n_vertices']:,}",
        f"edges        {info['n_edges']:,} ({'directed' if info['directed'] else 'symmetric'}, {'weighted' if info['weighted'] else 'unweighted'})",
        f"degree       max {deg['max']:,}, mean {deg['mean']:.2f}",
        f"bits/edge    payload {b['payload']:.2f}, index {b['index']:.2f}, indptr {b['indptr']:.2f}, total {b['total']:.2f}",
        f"reverse      {'yes' if 'reverse' in info else 'no'}",
    ]
    print("\n".join(lines))


def _size(text: str) -> str:
    """An argparse type: checks a memory size and passes it on as given."""
    try:
        parse_size(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def _write_json(path: str, payload) -> None:
    """Write JSON atomically: a temporary file beside ``path``, then a rename over it."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    umask = os.umask(0)
    os.umask(umask)
    try:
        os.fchmod(fd, 0o666 & ~umask)  # mkstemp makes it private; give it an ordinary file's mode
        with os.fdopen(fd, "w") as f:
            json.dump(payload, f, indent=2, default=_jsonable)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def _stats_table(s: dict) -> str:
    """One row per BFS iteration (hits and misses as device/host), then the totals."""
    mb = lambda x: f"{x / 1e6:.2f}"
    row = "{:>5} {:>4} {:>10} {:>6} {:>11} {:>11} {:>6} {:>9} {:>9} {:>9} {:>8} {:>8}"
    lines = [row.format("level", "dir", "frontier", "rounds", "hits d/h", "misses d/h", "zc", "MB read", "MB h2d", "MB zc", "xfer ms", "comp ms")]
    for level, it in enumerate(s["iterations"]):
        hits, misses = f"{it['device_hits']}/{it['host_hits']}", f"{it['device_misses']}/{it['host_misses']}"
        moved = (mb(it[k]) for k in ("bytes_store_read", "bytes_host_to_device", "bytes_zero_copy"))
        ms = (f"{it[k] * 1e3:.1f}" for k in ("transfer_seconds", "compute_seconds"))
        lines.append(row.format(level, it["direction"], f"{it['frontier']:,}", it["rounds"], hits, misses, it["zero_copy_chunks"], *moved, *ms))
    lines.append(
        f"total: {s['rounds']} rounds, hits {s['device_hits']}/{s['host_hits']}, misses {s['device_misses']}/{s['host_misses']}, "
        f"{s['zero_copy_chunks']} zero-copy chunks; MB read {mb(s['bytes_store_read'])}, h2d {mb(s['bytes_host_to_device'])} "
        f"(indexes {mb(s['bytes_index_to_device'])}), "
        f"zero-copy {mb(s['bytes_zero_copy'])}; peak MB device {mb(s['device_peak_bytes'])} of {mb(s['device_memory'])}, "
        f"host {mb(s['host_peak_bytes'])} of {mb(s['host_memory'])}"
    )
    return "\n".join(lines)


def cmd_bfs(args) -> None:
    g = gt.open(args.store)
    budgets = {"device_memory": args.device_memory, "host_memory": args.host_memory, "zero_copy": args.zero_copy}
    r = gt.bfs(g, args.source, device=args.device, direction=args.direction, **budgets)
    if args.out:
        np.save(args.out, r.distances)
    s = r.stats
    if args.stats_json:
        _write_json(args.stats_json, s)
    summary = {k: s[k] for k in ("device", "format", "seconds", "levels", "reached", "edges_traversed", "teps")}
    _emit(
        args,
        {"source": args.source, **summary, "iterations": s["iterations"], "distances": args.out},
        f"BFS from {args.source}: reached {s['reached']:,} of {g.n_vertices:,} vertices in {s['levels']} levels, "
        f"{s['seconds'] * 1e3:.1f} ms ({s['teps'] / 1e6:.0f} M edges/s)" + (f"; distances in {args.out}" if args.out else ""),
    )
    if args.stats and not args.json:
        print(_stats_table(s))


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

    conv = command("convert", cmd_convert, "build a graph store from an edge list, MatrixMarket, Parquet or BVGraph file")
    conv.add_argument("source", help="input file (or BVGraph basename)")
    conv.add_argument("store", help="output store: a directory, a .zip file or an fsspec URL")
    conv.add_argument("--format", default="csr", choices=list(FORMATS))
    conv.add_argument("--chunk-edges", type=int, default=1 << 20, help="edges per chunk (default 1048576)")
    conv.add_argument("--symmetrize", action="store_true", help="store both directions of every edge")
    conv.add_argument("--drop-self-loops", action="store_true")
    conv.add_argument("--keep-duplicates", action="store_true", help="do not remove repeated edges")
    conv.add_argument("--relabel", action="store_true", help="map arbitrary 64-bit ids to dense ids (kept in perm)")
    conv.add_argument("--order", default="natural", choices=list(ORDERS), help="renumber vertices for locality (default natural)")
    conv.add_argument("--memory-budget", default=None, help="memory for sorting, e.g. 2GiB (default: a quarter of RAM, at most 8 GiB)")
    conv.add_argument("--reverse", action="store_true", help="also store the transposed graph (enables pull BFS)")
    conv.add_argument("--overwrite", action="store_true", help="replace an existing store")

    rec = command("recode", cmd_recode, "copy a store into another format or chunk size, chunk by chunk")
    rec.add_argument("source", help="existing store")
    rec.add_argument("store", help="new store")
    rec.add_argument("--format", default=None, choices=list(FORMATS), help="default: the source's")
    rec.add_argument("--chunk-edges", type=int, default=None, help="default: the source's")
    rec.add_argument("--overwrite", action="store_true", help="replace an existing store")

    info = command("info", cmd_info, "describe a store: counts, degrees and bits per edge")
    info.add_argument("store")

    bfs = command("bfs", cmd_bfs, "breadth-first search from one source")
    bfs.add_argument("store")
    bfs.add_argument("--source", type=int, required=True, help="source vertex (as the input numbered it)")
    bfs.add_argument("--out", help="save distances (int32, -1 unreachable) to this .npy file")
    bfs.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    bfs.add_argument("--direction", default="auto", choices=["auto", "push", "pull"])
    bfs.add_argument("--device-memory", type=_size, metavar="SIZE", default=None, help="device budget, e.g. 4GiB (default: free GPU memory, or on the CPU RAM, less a margin)")
    bfs.add_argument("--host-memory", type=_size, metavar="SIZE", default=None, help="host budget, e.g. 16GiB (default: RAM less a margin)")
    bfs.add_argument("--zero-copy", default="auto", choices=["auto", "always", "never"], help="read chunks in place from host memory")
    bfs.add_argument("--stats", action="store_true", help="print a table of per-iteration tiering statistics after the summary (not with --json)")
    bfs.add_argument("--stats-json", metavar="FILE", help="write the whole stats dict as JSON to FILE")

    demo = command("demo", cmd_demo, "generate a Kronecker graph, build a store, run BFS and summarize")
    demo.add_argument("--scale", type=int, default=18)
    demo.add_argument("--seed", type=int, default=0)
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        args.func(args)
    except InputError as e:
        print(f"graphtier: bad input: {e}", file=sys.stderr)
        return EXIT_INPUT
    except StoreExistsError as e:
        print(f"graphtier: {e.path} already exists (pass --overwrite to replace it)", file=sys.stderr)
        return EXIT_STORE
    except FileNotFoundError as e:
        # convert's input is data, not a store: missing, it is bad input (3); a missing store is 4
        missing_input = args.command == "convert" and e.filename is not None and Path(e.filename) == Path(args.source)
        print(f"graphtier: {'bad input: ' if missing_input else ''}{e}", file=sys.stderr)
        return EXIT_INPUT if missing_input else EXIT_STORE
    except (StoreError, CorruptChunkError, FileExistsError) as e:
        print(f"graphtier: {e}", file=sys.stderr)
        return EXIT_STORE
    except (ValueError, NotImplementedError, DeviceError) as e:
        print(f"graphtier: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("graphtier: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return 0


if __name__ == "__main__":
    sys.exit(main())
