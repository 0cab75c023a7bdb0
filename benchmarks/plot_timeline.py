"""Per-iteration timeline of a BFS run: where each level spent its time moving chunks and computing.

    python benchmarks/plot_timeline.py STATS.json -o timeline.png

STATS.json is what ``graphtier bfs --stats-json`` writes (``BFSResult.stats``), a JSON object
whose "stats" key holds one, or a list of either (one panel each). Each BFS iteration gets a lane
as long as it took (grey), starting where the previous one ended, with a bar for its transfer
time and one for its compute time (one above the other: the scheduler may overlap them),
annotated with the MB it moved host-to-device and read zero-copy. The first run of a process
includes compiling the kernels. Needs matplotlib (``pip install graphtier[plot]``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def load(path: str | Path) -> list[dict]:
    """The stats dicts in ``path``."""
    data = json.loads(Path(path).read_text())
    runs = data if isinstance(data, list) else [data]
    stats = [run.get("stats", run) for run in runs]
    if not stats or not all("iterations" in s for s in stats):
        raise ValueError(f"{path}: no BFS stats with 'iterations' (write them with graphtier bfs --stats-json)")
    return stats


def draw(ax, stats: dict) -> None:
    """One run's lanes on ``ax``, times in milliseconds."""
    start = 0.0
    for level, it in enumerate(stats["iterations"]):
        transfer, compute, total = (it[k] * 1e3 for k in ("transfer_seconds", "compute_seconds", "seconds"))
        ax.barh(level, total, left=start, height=0.9, color="0.9", label="iteration" if level == 0 else None)
        ax.barh(level - 0.2, transfer, left=start, height=0.4, color="tab:orange", label="transfer" if level == 0 else None)
        ax.barh(level + 0.2, compute, left=start, height=0.4, color="tab:blue", label="compute" if level == 0 else None)
        mb = f"{it['bytes_host_to_device'] / 1e6:.2f} MB h2d, {it['bytes_zero_copy'] / 1e6:.2f} MB zero-copy"
        end = start + max(transfer, compute, total)
        ax.annotate(f"{it['direction']}  {mb}", (end, level), xytext=(4, 0), textcoords="offset points", va="center", fontsize=7)
        start = end
    ax.set_yticks(range(len(stats["iterations"])))
    ax.set_ylabel("BFS level")
    ax.invert_yaxis()
    ax.set_xlim(0, start * 1.35 or 1)
    ax.set_xlabel("milliseconds since the first level")
    peak = f"device peak {stats.get('device_peak_bytes', 0) / 1e6:.3g} of {stats.get('device_memory', 0) / 1e6:.3g} MB"
    ax.set_title(f"BFS timeline: {stats.get('format', '?')} on {stats.get('device', '?')} ({peak})", fontsize=10)
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("stats", help="stats JSON from graphtier bfs --stats-json")
    p.add_argument("-o", "--output", default="timeline.png", help="PNG to write (default timeline.png)")
    args = p.parse_args(argv)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = load(args.stats)
    height = sum(1.0 + 0.35 * len(s["iterations"]) for s in runs)
    fig, axes = plt.subplots(len(runs), 1, figsize=(10, max(3.0, height)), squeeze=False)
    for ax, stats in zip(axes[:, 0], runs):
        draw(ax, stats)
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)
    plt.close(fig)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
