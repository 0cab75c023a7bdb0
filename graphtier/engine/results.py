"""Algorithm results: NumPy arrays first, with Arrow and pandas views for pipelines."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class BFSResult:
    """``distances`` (int32, -1 unreachable) and ``parents`` (int64; the source is its own parent,
    -1 unreachable), indexed by the input's vertex ids, whatever order the store keeps. When the
    build relabelled arbitrary ids, rows follow the original ids ascending, listed in ``ids``, and
    parents are row numbers. ``stats`` describes the run."""

    source: int
    distances: np.ndarray
    parents: np.ndarray
    stats: dict = field(default_factory=dict)
    ids: np.ndarray | None = None

    @property
    def reached(self) -> int:
        return int(np.count_nonzero(self.distances >= 0))

    def to_pandas(self):
        """Columns vertex, distance, parent; with original ids, a missing parent is <NA>."""
        import pandas as pd

        vertex, parent, missing = self._columns()
        if missing is not None:
            parent = pd.arrays.IntegerArray(parent, missing)
        return pd.DataFrame({"vertex": vertex, "distance": self.distances, "parent": parent})

    def to_arrow(self):
        """The same columns as an Arrow table; with original ids, a missing parent is null."""
        import pyarrow as pa

        vertex, parent, missing = self._columns()
        return pa.table({"vertex": vertex, "distance": self.distances, "parent": pa.array(parent, mask=missing)})

    def _columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        if self.ids is None:
            return np.arange(len(self.distances)), self.parents, None
        return self.ids, self.ids[np.maximum(self.parents, 0)], self.parents < 0
