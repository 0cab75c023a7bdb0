"""Bits per edge and push BFS time from 100000 for every format and two orders on cnr-2000.

    python benchmarks/cnr_formats.py
"""
import numpy as np, tempfile, graphtier as gt, time, sys, json
from pathlib import Path
from harness import machine_info, write_results
z = np.load(Path(__file__).resolve().parents[2] / "shared" / "datasets" / "cnr-2000" / "cnr-2000-csr.npz")
src = np.repeat(np.arange(len(z["indptr"])-1), np.diff(z["indptr"]))
e = np.stack([src, z["indices"]], 1)
rows = []
with tempfile.TemporaryDirectory() as d:
    base = {o: gt.build(e, Path(d)/f"{o}.gt", order=o) for o in ("natural", "llp")}
    for o, g0 in base.items():
        for fmt in ("csr", "log", "ef", "cgr"):
            g = g0 if fmt == "csr" else gt.recode(g0, Path(d)/f"{o}-{fmt}.gt", format=fmt)
            b = g.info()["bits_per_edge"]
            s = 100000
            gt.bfs(g, s, direction="push")
            ms = 1e3 * np.median([gt.bfs(g, s, direction="push").stats["seconds"] for _ in range(9)])
            rows.append({"graph": "cnr-2000", "order": o, "format": fmt, **{k: round(v, 3) for k, v in b.items()}, "push_bfs_ms": round(ms, 2)})
            print(rows[-1], flush=True)
for r in rows:
    r["bfs_vs_csr"] = round(r["push_bfs_ms"] / next(x["push_bfs_ms"] for x in rows if x["order"] == r["order"] and x["format"] == "csr"), 2)
write_results("cnr2000-formats", rows, {"command": "bits per edge and push BFS from 100000 per format and order, 1 process, 2 threads", "machine": machine_info()})
