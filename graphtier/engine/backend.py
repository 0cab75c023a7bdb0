"""Which backend runs an algorithm: the GPU when asked for or when "auto" finds one, else the CPU."""

from __future__ import annotations

import sys

from ..errors import DeviceError
from ..kernels.cuda.runtime import unavailable

DEVICES = ("auto", "cpu", "cuda")
_told = False


def resolve_device(device: str) -> str:
    """ "cpu" or "cuda" for ``device``; "auto" says once per process why it falls back to the CPU."""
    global _told
    if device not in DEVICES:
        raise ValueError(f"device must be one of {', '.join(DEVICES)}, got {device!r}")
    if device == "cpu":
        return "cpu"
    reason = unavailable()
    if reason is None:
        return "cuda"
    if device == "cuda":
        raise DeviceError(f"device='cuda' but {reason}")
    if not _told:
        print(f"graphtier: running on the CPU: {reason}", file=sys.stderr)
        _told = True
    return "cpu"
