"""The storage tier (issue 16): one BFS over a graph larger than the host tier, against reading the
store's bytes at the storage's own bandwidth.

    python benchmarks/storage_tier.py [--scale 24] [--format ef] [--host 0.2] [--device-share S]
                                      [--device cuda] [--sources 4] [--dir DIR]

The floor: every file of the store read once in order, cold (each file's pages first dropped from
the page cache with ``posix_fadvise(DONTNEED)``, so that they come from the disk) and warm (from the
page cache). Then a BFS from each of ``--sources`` seeded sources, each on a fresh handle under
``host_memory`` = ``--host`` x the CSR size (8 (n + 1) + 4 m bytes) and ``device_memory`` =
``--device-share`` x the CSR size (default: the device's free memory), cold and warm as the floor:
its wall seconds, the store bytes it read (x the store), the most times one chunk was read and
the share of the store read once, twice, ...
Targets: cold wall at most 2 x (store bytes / cold bandwidth), no chunk read more than twice. A
query under the same budgets from another source runs first, untimed (kernels compiled).
"""

from __future__ import annotations

import statistics
import sys
import time

from harness import drop_cached, kronecker_graph, kronecker_meta, kronecker_parser, picked, publish, storage_floor

import graphtier as gt


def main() -> None:
    p = kronecker_parser(__doc__.split("\n")[0], scale=24)
    p.add_argument("--device-share", type=float, default=None, help="device_memory as a share of the CSR size (default: the device's free memory)")
    p.add_argument("--sources", type=int, default=4)
    args = p.parse_args()
    path, g, csr, store_bytes = kronecker_graph(args)
    budgets = {"device": args.device, "host_memory": int(args.host * csr)}
    if args.device_share is not None:
        budgets["device_memory"] = int(args.device_share * csr)
    floor = storage_floor(path)
    *sources, spare = picked(g, args.sources + 1, seed=11)
    gt.bfs(gt.open(path), spare, **budgets)  # kernels compiled, not timed
    rows = []
    for state in ("cold", "warm"):
        for source in sources:
            if state == "cold":
                drop_cached(path)
            t = time.perf_counter()
            r = gt.bfs(gt.open(path), source, **budgets)
            wall = time.perf_counter() - t
            s = r.stats
            bound = store_bytes / (floor["cold"]["gbps"] * 1e9)
            rows.append(
                {
                    "state": state,
                    "source": source,
                    "wall_s": round(wall, 3),
                    "store_read_x": round(s["bytes_store_read"] / store_bytes, 2),
                    "reads_max": s["store_reads_max"],
                    "bytes_by_reads": " ".join(f"{times}x:{nbytes / store_bytes:.0%}" for times, nbytes in s["store_read_bytes"].items()),
                    "levels": s["levels"],
                    "floor_s": round(bound, 3),
                    "floor_from": "disk" if floor["cold"]["from_disk"] else "page cache",
                    "wall_over_floor": round(wall / bound, 2),
                    "host_misses": "/".join(str(it["host_misses"]) for it in s["iterations"]),
                }
            )
            print(rows[-1], file=sys.stderr, flush=True)
    for state in ("cold", "warm"):
        mine = [r for r in rows if r["state"] == state]
        rows.append({"state": f"{state}, median", "wall_s": round(statistics.median(r["wall_s"] for r in mine), 3), "wall_over_floor": round(statistics.median(r["wall_over_floor"] for r in mine), 2)})
    meta = kronecker_meta(args, g, csr, store_bytes) | {
        "budgets": {k: v for k, v in budgets.items() if k != "device"},
        "floor": floor,
    }
    publish(
        "storage_tier",
        rows,
        meta,
        out_dir=args.out,
        tag=args.tag,
        columns=["state", "source", "wall_s", "store_read_x", "reads_max", "bytes_by_reads", "levels", "floor_s", "floor_from", "wall_over_floor", "host_misses"],
    )


if __name__ == "__main__":
    main()
