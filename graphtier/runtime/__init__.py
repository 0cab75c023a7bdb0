"""The algorithm runtime, between the kernels and the engine: the execution config, the frontier,
one operator API over both backends, and the iteration loop every algorithm runs in."""

from ..tiering.scheduler import Sidecar
from .config import Config
from .frontier import ALL, Frontier, Queue, Span, Spans
from .functors import Advance, Combine, Compute, DepthFirst, Filter, Gather, Pull
from .run import BATCH, Algorithm, Edges, Run, run

__all__ = ["ALL", "BATCH", "Advance", "Algorithm", "Combine", "Compute", "Config", "DepthFirst", "Edges", "Filter", "Frontier", "Gather", "Pull", "Queue", "Run", "Sidecar", "Span", "Spans", "run"]
