"""Algorithm results: NumPy arrays first, with Arrow and pandas views for pipelines.

Per-vertex arrays are indexed by the input's vertex ids, whatever order the store keeps; they are
CuPy arrays where the run asked for ``output="device"`` (the tables copy them to the host). When the
build relabelled arbitrary ids, rows follow the original ids ascending (listed in ``ids``), vertex
references such as parents are row numbers, and the tables give them as original ids (a missing
one as null). ``stats`` describes the run: device, format, time, bytes moved per tier, and one
dict per iteration.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np


def on_host(values) -> np.ndarray:
    """A NumPy array of ``values`` (a CuPy array copied from the GPU)."""
    return values.get() if hasattr(values, "get") and not isinstance(values, np.ndarray) else values


@dataclass
class VertexResult:
    stats: dict = field(default_factory=dict, kw_only=True)
    ids: np.ndarray | None = field(default=None, kw_only=True)

    def columns(self) -> dict[str, np.ndarray]:
        """The per-vertex columns after ``vertex``, in order."""
        raise NotImplementedError

    references: ClassVar[tuple[str, ...]] = ()  # columns that name vertices

    def _table(self) -> dict[str, tuple[np.ndarray, np.ndarray | None]]:
        """column -> (values, mask of missing values or None)."""
        cols = {name: on_host(values) for name, values in self.columns().items()}
        n = len(next(iter(cols.values())))
        table = {"vertex": (np.arange(n) if self.ids is None else self.ids, None)}
        for name, values in cols.items():
            if name in self.references and self.ids is not None:
                table[name] = (self.ids[np.maximum(values, 0)], values < 0)
            else:
                table[name] = (values, None)
        return table

    def to_pandas(self):
        """A DataFrame: ``vertex``, then the result's columns; a missing reference is <NA>. Its
        columns share the result's arrays (copying and consolidating them cost seconds a call on
        graphs of millions of vertices)."""
        import pandas as pd

        return pd.DataFrame({k: v if m is None else pd.arrays.IntegerArray(v, m) for k, (v, m) in self._table().items()}, copy=False)

    def to_arrow(self):
        """The same columns as an Arrow table; a missing reference is null."""
        import pyarrow as pa

        return pa.table({k: pa.array(v, mask=m) for k, (v, m) in self._table().items()})


@dataclass
class TreeResult(VertexResult):
    """Distances from ``source`` and the parents of a tree of paths (int64; the source is its own
    parent, -1 unreachable; None when the caller did not ask for them)."""

    source: int
    distances: np.ndarray
    parents: np.ndarray | None
    references = ("parent",)

    def columns(self) -> dict[str, np.ndarray]:
        return {"distance": self.distances} | ({} if self.parents is None else {"parent": self.parents})


@dataclass
class BFSResult(TreeResult):
    """``distances`` int32, -1 unreachable."""

    @property
    def reached(self) -> int:
        return int((self.distances >= 0).sum())


@dataclass
class SSSPResult(TreeResult):
    """``distances`` float64, inf unreachable: a shortest-path tree."""

    @property
    def reached(self) -> int:
        return int((self.distances < np.inf).sum())


@dataclass
class PageRankResult(VertexResult):
    """``ranks`` (float64, summing to 1) after ``iterations`` power iterations."""

    ranks: np.ndarray
    iterations: int

    def columns(self) -> dict[str, np.ndarray]:
        return {"rank": self.ranks}


@dataclass
class BetweennessResult(VertexResult):
    """``centrality`` (float64) of every vertex; ``sources``: the sources sampled or given (the
    input's ids, in the order their sums were added), None when every vertex was one."""

    centrality: np.ndarray
    sources: np.ndarray | None

    def columns(self) -> dict[str, np.ndarray]:
        return {"centrality": self.centrality}


@dataclass
class ComponentsResult(VertexResult):
    """``labels`` (int64): the component of each vertex, numbered 0 .. ``n_components - 1`` in the
    order of each component's smallest vertex id (as scipy.sparse.csgraph numbers them)."""

    labels: np.ndarray
    n_components: int

    def columns(self) -> dict[str, np.ndarray]:
        return {"component": self.labels}


@dataclass
class MSTResult:
    """A minimum spanning forest: one row per edge, ``sources`` < ``destinations`` (int64, row
    numbers as per-vertex results number vertices; the tables give the input's ids), sorted, with
    their ``weights`` (float64, the stored float32 values); ``total_weight`` their sum and
    ``n_trees`` the trees (isolated vertices included)."""

    sources: np.ndarray
    destinations: np.ndarray
    weights: np.ndarray
    total_weight: float
    n_trees: int
    stats: dict = field(default_factory=dict, kw_only=True)
    ids: np.ndarray | None = field(default=None, kw_only=True)

    def columns(self) -> dict[str, np.ndarray]:
        """The edge table's columns, in the input's ids."""
        ends = (self.sources, self.destinations) if self.ids is None else (self.ids[self.sources], self.ids[self.destinations])
        return {"source": ends[0], "destination": ends[1], "weight": self.weights}

    def to_pandas(self):
        """A DataFrame: ``source``, ``destination``, ``weight``."""
        import pandas as pd

        return pd.DataFrame(self.columns())

    def to_arrow(self):
        """The same columns as an Arrow table."""
        import pyarrow as pa

        return pa.table(self.columns())


@dataclass
class IndependentSetResult(VertexResult):
    """``in_set`` (bool): whether each vertex is in the maximal independent set, of ``size``
    vertices, chosen by the priorities of ``seed``."""

    in_set: np.ndarray
    size: int
    seed: int

    def columns(self) -> dict[str, np.ndarray]:
        return {"in_set": self.in_set}


@dataclass
class ColoringResult(VertexResult):
    """``colors`` (int64): each vertex's colour, 0 .. ``n_colors - 1``, no edge joining two of one
    colour; ties among equal degrees broken by the priorities of ``seed``."""

    colors: np.ndarray
    n_colors: int
    seed: int

    def columns(self) -> dict[str, np.ndarray]:
        return {"color": self.colors}
