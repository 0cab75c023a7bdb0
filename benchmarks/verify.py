"""``graphtier verify`` on a store larger than the chunks it holds at once: time, bytes read and peak memory.

    python benchmarks/verify.py [--scale 20] [--formats csr ef] [--chunk-edges 1048576] [--out DIR]

Builds a Graph500 Kronecker graph of ``--scale`` (seed 0, symmetrized, self-loops dropped) with
random float32 weights and its reverse graph, once per format, then verifies each store in a fresh
process (``gt.verify``), twice: as built (no problem may be found) and with one byte of one
``reverse/adj`` chunk flipped (exactly that problem must be found). Recorded per format: the
store's size on disk, the verify's seconds and MB/s over the bytes it read, and the process's
peak resident memory (``VmHWM``), which must stay near the interpreter and libraries plus
``indptr`` and the in-degree counts (8 bytes a vertex each) and a few chunks, whatever the
store's size. Results go to ``benchmarks/results/verify-<date>-<host>.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from harness import RESULTS_DIR, machine_info, print_table, write_results

# Peak memory from the process's own address space (VmHWM): ru_maxrss would count the parent's
# pages too, which a child started by vfork or fork records before it execs.
PROBE = """
import json, re, sys
import graphtier as gt
r = gt.verify(sys.argv[1], progress=False)
peak = int(re.search(r"VmHWM:\\s+(\\d+) kB", open("/proc/self/status").read()).group(1))
print(json.dumps({**r.to_dict(), "peak_rss_mb": peak / 1024}))
"""


def verify_in_child(store: Path) -> dict:
    """``gt.verify(store)`` in a fresh interpreter, so that its peak memory is its own."""
    out = subprocess.run([sys.executable, "-c", PROBE, str(store)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def flip_one_byte(store: Path, chunk: int) -> None:
    path = store / "reverse" / "adj" / "c" / str(chunk) / "0"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x5A
    path.write_bytes(bytes(data))


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--scale", type=int, default=20)
    p.add_argument("--formats", nargs="+", default=["csr", "ef"])
    p.add_argument("--chunk-edges", type=int, default=1 << 20)
    p.add_argument("--out", default=RESULTS_DIR)
    args = p.parse_args(argv)

    import graphtier as gt

    edges = gt.generators.kronecker(args.scale, edge_factor=16, seed=0)
    weights = np.random.default_rng(0).random(len(edges)).astype(np.float32)
    rows = []
    with tempfile.TemporaryDirectory(prefix="verify-bench-", dir=".") as tmp:
        for fmt in args.formats:
            store = Path(tmp) / f"kron{args.scale}-{fmt}.gt"
            g = gt.build(np.column_stack([edges, weights]), store, format=fmt, chunk_edges=args.chunk_edges, symmetrize=True, drop_self_loops=True, reverse=True, progress=False)
            size = sum(f.stat().st_size for f in store.rglob("*") if f.is_file())
            clean = verify_in_child(store)
            assert clean["ok"], clean["problems"]
            damaged_chunk = g.chunks(reverse=True).n_chunks // 2
            flip_one_byte(store, damaged_chunk)
            damaged = verify_in_child(store)
            found = [(q["array"], q["chunk"]) for q in damaged["problems"]]
            assert found == [("reverse/adj", damaged_chunk)], found
            rows.append(
                {
                    "graph": f"kron{args.scale}",
                    "format": fmt,
                    "vertices": g.n_vertices,
                    "edges": g.n_edges,
                    "store_mb": size / 1e6,
                    "chunks_read": clean["chunks_read"],
                    "seconds": clean["seconds"],
                    "read_mb_per_s": clean["bytes_read"] / 1e6 / clean["seconds"],
                    "peak_rss_mb": clean["peak_rss_mb"],
                    "damage_found": f"{found[0][0]} chunk {found[0][1]}",
                }
            )
    print_table(rows)
    meta = {"command": " ".join(sys.argv), "graph": f"kronecker scale {args.scale}, edge factor 16, seed 0, symmetrized, float32 weights, reverse stored", "machine": machine_info()}
    json_path, md_path = write_results("verify", rows, meta, out_dir=args.out)
    print(f"wrote {json_path} and {md_path}")


if __name__ == "__main__":
    main()
