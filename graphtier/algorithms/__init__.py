"""One module per algorithm: functors, a driver and the public function, CUDA functors beside it."""

from .bfs import bfs

__all__ = ["bfs"]
