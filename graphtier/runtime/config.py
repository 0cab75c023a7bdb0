"""How an algorithm runs: one picklable configuration that every algorithm takes the same way."""

from __future__ import annotations

import sys
from dataclasses import dataclass, fields

from ..errors import DeviceError
from ..kernels.cuda.runtime import unavailable
from ..tiering.budget import device_available, host_available, parse_size
from ..tiering.scheduler import ZERO_COPY

DEVICES = ("auto", "cpu", "cuda")
OUTPUTS = ("host", "device")
_told = False


@dataclass(frozen=True)
class Config:
    """``device``: "cpu", "cuda" or "auto" (the GPU when cupy finds one). ``device_memory``,
    ``host_memory``: budgets ("1GiB", bytes), by default what the machine has less a margin; the
    vertex state takes its share of ``device_memory`` first, and a graph that does not fit what
    is left streams through the tiers (on the CPU, a simulated device of that size).
    ``zero_copy``: "auto" (the cost model), "always" (read every chunk in place from host memory)
    or "never". ``decoder``: one of the format's GPU decoders (kernels/formats.py; the default is
    the fastest, the others switch one technique off). ``progress``: a progress bar over the
    iterations (default: when stderr is a terminal). ``devices``: split the graph over several
    devices, a process each (runtime/parts.py): a count (the first GPUs, or simulated devices on
    the CPU) or GPU ids; the budgets are each device's. ``output``: "host" (results as NumPy
    arrays, copied from the GPU into pinned memory) or "device" (per-vertex results left on the
    GPU as CuPy arrays, for a pipeline that goes on there). Plain values only, so it pickles (Dask)."""

    device: str = "auto"
    device_memory: int | str | None = None
    host_memory: int | str | None = None
    zero_copy: str = "auto"
    decoder: str | None = None
    progress: bool | None = None
    devices: int | tuple[int, ...] | None = None
    output: str = "host"

    def __post_init__(self):
        d = self.devices
        if isinstance(d, list):
            object.__setattr__(self, "devices", d := tuple(d))
        count = isinstance(d, int) and not isinstance(d, bool) and d >= 1
        ids = isinstance(d, tuple) and len(d) >= 1 and len(set(d)) == len(d) and all(isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in d)
        if d is not None and not (count or ids):
            raise ValueError(f"devices must be a count of at least 1 or distinct device ids, got {d!r}")
        if self.device not in DEVICES:
            raise ValueError(f"device must be one of {', '.join(DEVICES)}, got {self.device!r}")
        if self.output not in OUTPUTS:
            raise ValueError(f"output must be one of {', '.join(OUTPUTS)}, got {self.output!r}")
        if self.output == "device" and self.devices is not None:
            raise ValueError("output='device' leaves results on one GPU; a run split over devices (devices=) returns them to the host")
        if self.zero_copy not in ZERO_COPY:
            raise ValueError(f"zero_copy must be one of {', '.join(ZERO_COPY)}, got {self.zero_copy!r}")
        for budget in (self.device_memory, self.host_memory):
            if budget is not None:
                parse_size(budget)

    @classmethod
    def of(cls, config: Config | None = None, **options) -> Config:
        """``config`` with ``options`` (its field names) replacing its values."""
        names = {f.name for f in fields(cls)}
        unknown = set(options) - names
        if unknown:
            raise TypeError(f"unknown option {min(unknown)!r}; the execution options are {', '.join(sorted(names))}")
        base = {f.name: getattr(config, f.name) for f in fields(cls)} if config is not None else {}
        return cls(**{**base, **options})

    def backend(self) -> str:
        """ "cpu" or "cuda"; "auto" says once per process why it falls back to the CPU."""
        backend = self._backend()
        if backend == "cpu" and self.output == "device":
            raise ValueError("output='device' leaves results on the GPU as CuPy arrays; this run is on the CPU")
        return backend

    def _backend(self) -> str:
        global _told
        if self.device == "cpu":
            if self.decoder is not None:
                raise ValueError("decoder= chooses a GPU decoder; this run is on the CPU")
            return "cpu"
        reason = unavailable()
        if reason is None:
            return "cuda"
        if self.device == "cuda":
            raise DeviceError(f"device='cuda' but {reason}")
        if not _told:
            print(f"graphtier: running on the CPU: {reason}", file=sys.stderr)
            _told = True
        if self.decoder is not None:
            raise ValueError("decoder= chooses a GPU decoder; this run is on the CPU")
        return "cpu"

    def budgets(self, backend: str) -> tuple[int, int]:
        """(device bytes, host bytes): as given, else what the machine has less a margin (the CPU
        backend simulates a device as large as its host memory)."""
        if self.device_memory is not None:
            device = parse_size(self.device_memory)
        else:
            device = device_available() if backend == "cuda" else host_available()
        host = parse_size(self.host_memory) if self.host_memory is not None else host_available()
        return device, host
