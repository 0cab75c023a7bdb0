"""Pictures of what a run did and what a store holds, for people at a terminal (``graphtier plot``)
and for benchmarks. Needs matplotlib (the ``plot`` extra), imported only when drawing.

A run's timeline gives each iteration a lane as long as it took (grey), starting where the one
before ended, with a bar for its transfer time and one for its compute time (one above the other:
the scheduler may overlap them), annotated with the bytes it moved host-to-device and read
zero-copy. A store's picture shows its degree distribution (out-degrees, and in-degrees where it
has its reverse graph) and the bits per edge of its chunks.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from .temps import replacing


def _pyplot():
    try:
        import matplotlib
    except ImportError as e:
        raise ImportError("drawing needs matplotlib: pip install graphtier[plot]") from e
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def load_stats(path: str | Path) -> list[dict]:
    """The stats dicts in ``path``: one (``--stats-json``), an object whose "stats" key holds one,
    or a list of either."""
    try:
        data = json.loads(Path(path).read_text())
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not JSON ({e})") from None
    runs = data if isinstance(data, list) else [data]
    stats = [run.get("stats", run) if isinstance(run, dict) else run for run in runs]
    if not stats or not all(isinstance(s, dict) and "iterations" in s for s in stats):
        raise ValueError(f"{path}: no run statistics with 'iterations' (write them with --stats-json)")
    return stats


def _lanes(ax, stats: dict) -> None:
    """One run's iterations on ``ax``, times in milliseconds."""
    start, iterations = 0.0, stats["iterations"]
    for i, it in enumerate(iterations):
        transfer, compute, total = (it.get(k, 0.0) * 1e3 for k in ("transfer_seconds", "compute_seconds", "seconds"))
        first = i == 0
        ax.barh(i, total, left=start, height=0.9, color="0.9", label="iteration" if first else None)
        ax.barh(i - 0.2, transfer, left=start, height=0.4, color="tab:orange", label="transfer" if first else None)
        ax.barh(i + 0.2, compute, left=start, height=0.4, color="tab:blue", label="compute" if first else None)
        moved = f"{it.get('bytes_host_to_device', 0) / 1e6:.2f} MB h2d, {it.get('bytes_zero_copy', 0) / 1e6:.2f} MB zero-copy"
        end = start + max(transfer, compute, total)
        if len(iterations) <= 64:  # beyond, the labels would overlap
            ax.annotate(f"{it.get('direction', it.get('phase', ''))}  {moved}".strip(), (end, i), xytext=(4, 0), textcoords="offset points", va="center", fontsize=7)
        start = end
    ax.set_ylabel("iteration")
    ax.invert_yaxis()
    ax.set_xlim(0, start * 1.35 or 1)
    ax.set_xlabel("milliseconds since the first iteration")
    peak = f"device peak {stats.get('device_peak_bytes', 0) / 1e6:.3g} of {stats.get('device_memory', 0) / 1e6:.3g} MB"
    ax.set_title(f"{stats.get('algorithm', 'run')}: {stats.get('format', '?')} on {stats.get('device', '?')} ({peak})", fontsize=10)
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)


def timeline(runs: list[dict], path: str | Path) -> Path:
    """Draw the runs' timelines (one panel each) into the PNG ``path``."""
    plt = _pyplot()
    height = sum(1.0 + 0.35 * min(len(s["iterations"]), 64) for s in runs)
    fig, axes = plt.subplots(len(runs), 1, figsize=(10, max(3.0, height)), squeeze=False)
    for ax, stats in zip(axes[:, 0], runs):
        _lanes(ax, stats)
    return _save(fig, plt, path)


def store(graph, path: str | Path) -> Path:
    """Draw a store's degree distribution and its chunks' bits per edge into the PNG ``path``."""
    plt = _pyplot()
    fig, (degrees, bits) = plt.subplots(1, 2, figsize=(11, 4))
    for reverse, label in ((False, "out-degree"), (True, "in-degree")):
        if reverse and not (graph.directed and graph.has_reverse):
            continue
        counts = np.bincount(np.diff(graph.indptr(reverse)))
        d = np.flatnonzero(counts)
        d = d[d > 0]
        degrees.loglog(d, counts[d], ".", markersize=3, label=label)
    degrees.set_xlabel("degree")
    degrees.set_ylabel("vertices")
    degrees.set_title(f"{graph.n_vertices:,} vertices, {graph.n_edges:,} edges", fontsize=10)
    degrees.legend(fontsize=8)
    chunks = graph.chunks()
    headers = chunks.headers(range(chunks.n_chunks))
    per_chunk = [8 * h.total_bytes / h.n_edges for h in headers if h.n_edges]
    bits.plot(per_chunk, drawstyle="steps-mid", color="tab:green")
    mean = 8 * sum(h.total_bytes for h in headers) / max(graph.n_edges, 1)
    bits.axhline(mean, color="0.5", linestyle="--", linewidth=1, label=f"all chunks: {mean:.2f}")
    bits.set_xlabel("chunk")
    bits.set_ylabel("bits per edge (payload and index)")
    bits.set_title(f"{graph.format}, {chunks.n_chunks} chunks", fontsize=10)
    bits.legend(fontsize=8)
    fig.suptitle(str(graph.location), fontsize=10)
    return _save(fig, plt, path)


def _save(fig, plt, path: str | Path) -> Path:
    """Written whole or not at all (``temps.replacing``)."""
    try:
        fig.tight_layout()
        with replacing(path) as f:
            fig.savefig(f, format="png", dpi=120)
    finally:
        plt.close(fig)
    return Path(path)
