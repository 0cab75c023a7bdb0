"""Device and host memory budgets for one run, the graph sources they lead to, and what moved."""

from __future__ import annotations

from dataclasses import dataclass

from ..tiering.budget import device_available, host_available, parse_size
from ..tiering.scheduler import COUNTERS, ZERO_COPY
from .graph import Graph


@dataclass(frozen=True)
class Budgets:
    backend: str
    device: int  # bytes: the vertex state first, then chunks
    host: int  # bytes of host memory for chunks
    zero_copy: str

    @classmethod
    def of(cls, backend: str, device_memory: int | str | None, host_memory: int | str | None, zero_copy: str) -> Budgets:
        """Budgets as given, else what the machine has less a margin (the CPU backend simulates
        a device as large as its host memory)."""
        if zero_copy not in ZERO_COPY:
            raise ValueError(f"zero_copy must be one of {', '.join(ZERO_COPY)}, got {zero_copy!r}")
        if device_memory is not None:
            device = parse_size(device_memory)
        else:
            device = device_available() if backend == "cuda" else host_available()
        host = parse_size(host_memory) if host_memory is not None else host_available()
        return cls(backend, device, host, zero_copy)

    def sources(self, graph: Graph, pulls: bool, state_bytes: int) -> tuple:
        """(out-edges, in-edges or None) under the device memory the vertex state leaves; a
        directed graph that pulls splits both budgets between the graph and its reverse. The
        in-edges keep their heads on the device where chunks are read in place."""
        left = self.device - state_bytes
        if left <= 0:
            raise ValueError(f"device_memory ({self.device:,} bytes) does not hold the vertex state ({state_bytes:,} bytes) of {graph.location}")
        both = pulls and graph.directed
        split = {"chunk_budget": left // (1 + both), "host_budget": self.host // (1 + both), "zero_copy": self.zero_copy}
        if not pulls:
            return graph.source(self.backend, **split), None
        if not both:
            fwd = graph.source(self.backend, heads=True, **split)
            return fwd, fwd
        return graph.source(self.backend, **split), graph.source(self.backend, reverse=True, heads=True, **split)

    def report(self, levels: list[dict], fwd, rev, state_bytes: int) -> dict:
        """Bytes moved per tier, in total and per level (``iterations``), and the peaks, taken
        from the sources (which then start counting again)."""
        sources = [fwd] if rev is None or rev is fwd else [fwd, rev]
        moved = [src.take_stats() for src in sources]
        per_source = {id(src): m.get("iterations", []) for src, m in zip(sources, moved)}
        for lvl in levels:
            mine = per_source[id(rev if lvl["direction"] == "pull" else fwd)]
            lvl.update({**dict.fromkeys(COUNTERS, 0), "transfer_seconds": 0.0, "compute_seconds": lvl["seconds"]})
            lvl.update(mine.pop(0) if mine else {})
            if not lvl["rounds"]:  # the scheduler stepped aside: the level was all compute
                lvl["compute_seconds"] = lvl["seconds"]
        return {
            **{k: sum(m.get(k, 0) for m in moved) for k in COUNTERS},
            "device_memory": self.device,
            "host_memory": self.host,
            "device_peak_bytes": state_bytes + sum(src.resident_bytes for src in sources),
            "host_peak_bytes": sum(src.host_bytes for src in sources),
            "iterations": levels,
        }
