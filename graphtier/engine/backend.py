"""Which backend runs an algorithm."""

from __future__ import annotations

DEVICES = ("auto", "cpu", "cuda")


def resolve_device(device: str) -> str:
    """The backend for ``device``; only the CPU backend exists in this version."""
    if device not in DEVICES:
        raise ValueError(f"device must be one of {', '.join(DEVICES)}, got {device!r}")
    if device == "cuda":
        raise NotImplementedError("device='cuda': the GPU backend is not part of this version yet; use 'cpu' or 'auto'")
    return "cpu"
