"""The format registry: for every codec, how the kernels of each backend read its chunks.

One entry per format, and every other table of formats derives from it: the CPU's neighbour
access (and fused push visitor, where decoding is a loop of its own), the GPU's decoders (C++
types in the format's header, the default first) and the CUDA sources' list of formats, which
``kernels/cuda/sources.py`` generates from here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..codecs import CODECS, CgrCodec, CsrCodec, EfCodec, GraphChunkCodec, LogCodec
from .cpu import cgr, csr, ef, log


@dataclass(frozen=True)
class FormatKernels:
    codec: type[GraphChunkCodec]
    neighbors: Callable  # (words, table, c, v, lo, hi, scratch) -> v's ids in chunk c, ascending
    word: type | None  # the arena view ``neighbors`` reads; None: words as wide as the ids
    decoders: dict[str, str]  # GPU decoder name -> C++ type in ``header``; the first is the default
    header: str
    push: Callable | None = None  # fused push visitor (kernels/cpu/operators.py), or None
    in_place: bool = False  # ``neighbors`` returns a view of the arena, decoding nothing

    @property
    def name(self) -> str:
        return self.codec.format

    def decoder_type(self, decoder: str | None) -> str:
        """The C++ type of a GPU decoder (the default when None)."""
        if decoder is None:
            return next(iter(self.decoders.values()))
        if decoder not in self.decoders:
            raise ValueError(f"the GPU decoders of {self.name!r} are {', '.join(self.decoders)}; got {decoder!r}")
        return self.decoders[decoder]


FORMATS: dict[str, FormatKernels] = {
    k.name: k
    for k in (
        FormatKernels(CsrCodec, csr.csr_neighbors, csr.WORD, {"balanced": "Csr", "warp": "CsrWarp"}, "csr.cuh", in_place=True),
        FormatKernels(LogCodec, log.log_neighbors, log.WORD, {"thread-warp-block": "Log", "warp": "LogWarp"}, "log.cuh"),
        FormatKernels(EfCodec, ef.ef_neighbors, ef.WORD, {"parallel": "Ef", "serial": "EfSerial"}, "ef.cuh", push=ef.ef_push),
        FormatKernels(CgrCodec, cgr.cgr_neighbors, cgr.WORD, {"warp-centric": "Cgr", "thread-centric": "CgrThread", "one-lane-residuals": "CgrOneLane"}, "cgr.cuh"),
    )
}
if set(FORMATS) != {c.format for c in CODECS}:
    raise ImportError(f"kernels/formats.py registers {sorted(FORMATS)}, the codecs are {sorted(c.format for c in CODECS)}")
