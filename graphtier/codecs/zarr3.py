"""Zarr v3 adapters: each graph codec becomes an array-to-bytes codec named ``graphtier.<format>``.

Zarr hands the serializer whole chunks, the last one padded with the fill value (the largest id,
which no vertex has). The adapter strips that padding before encoding and restores it on decode,
so the numcodecs codec only ever sees real, sorted rows.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from zarr.abc.codec import ArrayBytesCodec
from zarr.core.array_spec import ArraySpec
from zarr.core.buffer import Buffer, NDBuffer
from zarr.core.common import JSON, parse_named_configuration

from ..errors import CorruptChunkError
from .base import GraphChunkCodec
from .cgr import CgrCodec
from .csr import CsrCodec
from .ef import EfCodec
from .log import LogCodec


@dataclass(frozen=True)
class GraphZarrCodec(ArrayBytesCodec):
    """Serializer for the ``adj`` array, wrapping one :class:`GraphChunkCodec`."""

    codec_class: ClassVar[type[GraphChunkCodec]]
    configuration: dict

    def __init__(self, **configuration: JSON) -> None:
        object.__setattr__(self, "configuration", dict(configuration))

    @property
    def codec(self) -> GraphChunkCodec:
        return self.codec_class(**self.configuration)

    @classmethod
    def from_dict(cls, data: dict[str, JSON]) -> GraphZarrCodec:
        _, config = parse_named_configuration(data, cls.codec_class.codec_id, require_configuration=False)
        return cls(**(config or {}))

    def to_dict(self) -> dict[str, JSON]:
        return {"name": self.codec_class.codec_id, "configuration": dict(self.configuration)}

    def compute_encoded_size(self, input_byte_length: int, chunk_spec: ArraySpec) -> int:
        raise NotImplementedError("graph chunks are variable-size")

    async def _encode_single(self, chunk_array: NDBuffer, chunk_spec: ArraySpec) -> Buffer | None:
        return await asyncio.to_thread(self._encode_sync, chunk_array, chunk_spec)

    async def _decode_single(self, chunk_bytes: Buffer, chunk_spec: ArraySpec) -> NDBuffer:
        return await asyncio.to_thread(self._decode_sync, chunk_bytes, chunk_spec)

    def _encode_sync(self, chunk_array: NDBuffer, chunk_spec: ArraySpec) -> Buffer:
        rows = np.asarray(chunk_array.as_ndarray_like())
        fill = rows.dtype.type(np.iinfo(rows.dtype).max)
        n = int(np.count_nonzero(rows[:, 0] != fill))
        if not (rows[n:] == fill).all():
            raise ValueError("padding rows (the fill value) must come after every real row")
        return chunk_spec.prototype.buffer.from_array_like(self.codec.encode(rows[:n]))

    def _decode_sync(self, chunk_bytes: Buffer, chunk_spec: ArraySpec) -> NDBuffer:
        out_dtype = chunk_spec.dtype.to_native_dtype()
        rows = self.codec.decode(chunk_bytes.as_numpy_array())
        n_rows = chunk_spec.shape[0]
        if len(rows) > n_rows or rows.dtype.itemsize != out_dtype.itemsize:
            raise CorruptChunkError(f"chunk holds {len(rows)} rows of {rows.dtype}, more than {n_rows} rows of {out_dtype}")
        out = np.full(chunk_spec.shape, np.iinfo(out_dtype).max, out_dtype)
        out[: len(rows)] = rows
        return chunk_spec.prototype.nd_buffer.from_ndarray_like(out)


class CsrZarrCodec(GraphZarrCodec):
    codec_class = CsrCodec


class LogZarrCodec(GraphZarrCodec):
    codec_class = LogCodec


class EfZarrCodec(GraphZarrCodec):
    codec_class = EfCodec


class CgrZarrCodec(GraphZarrCodec):
    codec_class = CgrCodec


ZARR_CODECS: dict[str, type[GraphZarrCodec]] = {
    "csr": CsrZarrCodec,
    "log": LogZarrCodec,
    "ef": EfZarrCodec,
    "cgr": CgrZarrCodec,
}
