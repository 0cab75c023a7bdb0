"""A fixed number of slots holding chunks, least recently used first out.

Both tiers are slot caches: pinned host slots and device arena slots. Slots are as large as the
largest chunk of the graph, so any chunk fits any slot and nothing fragments; or, when the device
arena holds every chunk, each chunk has a slot of its own size (its ``home``). Each slot has a
fence: the event after which its last reader is done, which a writer must wait for.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Collection


class SlotCache:
    def __init__(self, n_slots: int):
        self.n_slots = n_slots
        self._lru: OrderedDict[int, int] = OrderedDict()  # chunk -> slot, least recently used first
        self._free = list(range(n_slots - 1, -1, -1))
        self.fence: list[object] = [None] * n_slots
        self.peak = 0  # most slots held at once

    def __contains__(self, chunk: int) -> bool:
        return chunk in self._lru

    def __len__(self) -> int:
        return len(self._lru)

    def slot(self, chunk: int) -> int:
        return self._lru[chunk]

    def touch(self, chunk: int) -> None:
        self._lru.move_to_end(chunk)

    def place(self, chunk: int, keep: Collection[int] = (), home: int | None = None, last: Callable[[int], object] | None = None) -> tuple[int, int | None]:
        """A slot for ``chunk`` (not yet held): ``home`` if given (it must be free), else a free
        one, else that of a chunk not in ``keep``: the least recently used, or with ``last``, the
        one for which ``last(chunk)`` is largest (a sweep evicts the chunk it needs again last).
        Returns (slot, evicted chunk or None)."""
        if home is not None:
            self._free.remove(home)
            slot, evicted = home, None
        elif self._free:
            slot, evicted = self._free.pop(), None
        else:
            candidates = (c for c in self._lru if c not in keep)
            evicted = next(candidates, None) if last is None else max(candidates, key=last, default=None)
            if evicted is None:
                raise RuntimeError(f"all {self.n_slots} slots hold chunks that must stay")
            slot = self._lru.pop(evicted)
        self._lru[chunk] = slot
        self.peak = max(self.peak, len(self._lru))
        return slot, evicted

    def demote(self, chunk: int) -> None:
        """Make ``chunk`` the next to go (another tier holds it too)."""
        self._lru.move_to_end(chunk, last=False)

    def drop(self, chunk: int) -> None:
        """Forget ``chunk`` and free its slot: a chunk that failed to arrive whole in the slot
        ``place`` gave it must not be found there."""
        self._free.append(self._lru.pop(chunk))

    def chunks(self) -> list[int]:
        return list(self._lru)

    def clear(self) -> None:
        """Forget every chunk; fences stay, so writers still wait for the last readers."""
        self._lru.clear()
        self._free = list(range(self.n_slots - 1, -1, -1))
