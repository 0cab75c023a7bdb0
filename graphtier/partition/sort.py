"""Sort and deduplicate an edge stream of any length within a memory budget.

Edges (dense ids below 2**32) are packed into uint64 keys ``src << 32 | dst``. Keys gather in a
buffer sized from the budget; a full buffer is radix-sorted and spilled as a run. At the end the
runs are merged window by window, so memory stays bounded however many edges come in.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from numba import njit

from .radix import radix_sort

SHIFT = np.uint64(32)
LOW = np.uint64(0xFFFFFFFF)
NONE = np.uint64(0xFFFFFFFFFFFFFFFF)  # "no previous key": 2**64 - 1 is never a packed edge


def pack(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    return (src.astype(np.uint64) << SHIFT) | dst.astype(np.uint64)


def unpack(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return keys >> SHIFT, keys & LOW


@njit(cache=True)
def _dedup(keys, weights, has_w, after):
    """Compact equal neighbours in sorted keys in place, keeping the least weight; drop keys <= after."""
    n = 0
    for i in range(len(keys)):
        k = keys[i]
        if after != NONE and k <= after:
            continue
        if n > 0 and keys[n - 1] == k:
            if has_w and weights[i] < weights[n - 1]:
                weights[n - 1] = weights[i]
            continue
        keys[n] = k
        if has_w:
            weights[n] = weights[i]
        n += 1
    return n


class ExternalSorter:
    """Accumulate edges with ``add``; iterate to get sorted, optionally deduplicated key blocks."""

    def __init__(self, *, memory_budget: int, spill_dir: Path, weighted: bool, dedup: bool, block_edges: int = 1 << 22):
        per_edge = 24 if weighted else 16  # the buffer and the radix sort's scratch
        self.capacity = max(1 << 12, memory_budget // per_edge)
        self.spill_dir = Path(tempfile.mkdtemp(prefix="runs-", dir=spill_dir))
        self.weighted, self.dedup, self.block_edges = weighted, dedup, block_edges
        self._keys = np.empty(self.capacity, np.uint64)
        self._w = np.empty(self.capacity if weighted else 0, np.float32)
        self._n = 0
        self._runs: list[tuple[Path, Path | None]] = []
        self.n_added = 0
        self.duplicates_removed = 0

    @property
    def n_runs(self) -> int:
        return len(self._runs)

    def add(self, keys: np.ndarray, weights: np.ndarray | None = None) -> None:
        i = 0
        while i < len(keys):
            take = min(len(keys) - i, self.capacity - self._n)
            self._keys[self._n : self._n + take] = keys[i : i + take]
            if self.weighted:
                self._w[self._n : self._n + take] = weights[i : i + take]
            self._n += take
            i += take
            if self._n == self.capacity:
                self._spill()
        self.n_added += len(keys)

    def _sorted_buffer(self) -> tuple[np.ndarray, np.ndarray | None]:
        keys, w = self._keys[: self._n], (self._w[: self._n] if self.weighted else None)
        radix_sort(keys, w)
        self._n = 0
        return self._compact(keys, w, NONE)

    def _compact(self, keys, w, after):
        if not self.dedup:
            return keys, w
        n = _dedup(keys, w if w is not None else np.empty(0, np.float32), w is not None, after)
        self.duplicates_removed += len(keys) - n
        return keys[:n], (w[:n] if w is not None else None)

    def _spill(self) -> None:
        keys, w = self._sorted_buffer()
        i = len(self._runs)
        kpath = self.spill_dir / f"run{i:05d}.keys"
        keys.tofile(kpath)
        wpath = None
        if w is not None:
            wpath = self.spill_dir / f"run{i:05d}.weights"
            w.tofile(wpath)
        self._runs.append((kpath, wpath))

    def __iter__(self) -> Iterator[tuple[np.ndarray, np.ndarray | None]]:
        if self._runs:
            if self._n:
                self._spill()
            self._keys = self._w = None  # the merge below has the budget to itself
            sorted_parts = self._merge()
        else:
            sorted_parts = iter([self._sorted_buffer()])
        for keys, w in sorted_parts:
            for i in range(0, len(keys), self.block_edges):
                yield keys[i : i + self.block_edges], (w[i : i + self.block_edges] if w is not None else None)

    def _merge(self) -> Iterator[tuple[np.ndarray, np.ndarray | None]]:
        # Runs are read in windows with plain reads: mapped pages would count against the budget.
        runs = [_Run(k, w) for k, w in self._runs]
        window = max(1 << 8, self.capacity // (2 * len(runs)))
        last = NONE
        while live := [r for r in runs if not r.done]:
            # Everything up to the smallest window end is final: no run can still produce a smaller key.
            bound = min(r.peek(window)[-1] for r in live)
            taken = [r.take_through(bound, window) for r in live]
            keys = np.concatenate([k for k, _ in taken])
            w = np.concatenate([w for _, w in taken]) if self.weighted else None
            radix_sort(keys, w)
            keys, w = self._compact(keys, w, last)
            if len(keys):
                last = keys[-1]
                yield keys, w


class _Run:
    """A sorted run on disk, consumed front to back."""

    def __init__(self, keys: Path, weights: Path | None):
        self.keys, self.weights = keys, weights
        self.length = keys.stat().st_size // 8
        self.pos = 0

    @property
    def done(self) -> bool:
        return self.pos >= self.length

    def peek(self, count: int) -> np.ndarray:
        return np.fromfile(self.keys, np.uint64, count=min(count, self.length - self.pos), offset=8 * self.pos)

    def take_through(self, bound: int, window: int) -> tuple[np.ndarray, np.ndarray | None]:
        """Every remaining key <= ``bound`` (copies of ``bound`` may run past one window)."""
        end = self.pos
        while end < self.length:
            part = np.fromfile(self.keys, np.uint64, count=min(window, self.length - end), offset=8 * end)
            stop = int(np.searchsorted(part, bound, side="right"))
            end += stop
            if stop < len(part):
                break
        keys = np.fromfile(self.keys, np.uint64, count=end - self.pos, offset=8 * self.pos)
        w = None
        if self.weights is not None:
            w = np.fromfile(self.weights, np.float32, count=end - self.pos, offset=4 * self.pos)
        self.pos = end
        return keys, w
