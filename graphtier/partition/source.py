"""What the build reads from: any input turned into a re-iterable stream of edge blocks."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from .blocks import EdgeBlock


@dataclass
class EdgeSource:
    """A re-iterable edge stream plus the facts about it that the store records.

    ``blocks()`` may be called more than once (relabelling reads the input twice). ``provenance``
    is filled in by the readers during a full pass: at least ``{"source": name, "kind": ...}``, and
    ``"sha256"`` of the file bytes for file inputs. ``n_vertices`` is a lower bound the input
    declares (MatrixMarket size, BVGraph node count, scipy shape, networkx node count) or None.
    ``undirected`` means each edge stands for both directions (networkx Graph, symmetric
    MatrixMarket): the build then symmetrizes.
    """

    name: str
    make_blocks: Callable[[], Iterator[EdgeBlock]]
    weighted: bool = False
    undirected: bool = False
    n_vertices: int | None = None
    provenance: dict = field(default_factory=dict)

    def blocks(self) -> Iterator[EdgeBlock]:
        return self.make_blocks()
