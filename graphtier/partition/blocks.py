"""The unit every importer yields: a block of edges with the provenance that error messages need."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class EdgeBlock:
    """Up to a few million edges from one source, in source order.

    ``src`` and ``dst`` are uint64 ids as the source wrote them (dense or not: the build relabels
    on request). ``weight`` is float32 or None. Readers have already checked every id against the
    limit they were given and every weight for sign and NaN, naming the file and line.
    """

    src: np.ndarray
    dst: np.ndarray
    weight: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.src)
