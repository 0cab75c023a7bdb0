"""Zarr v3 adapters: each graph codec becomes an array-to-bytes codec named ``graphtier.<format>``.

Zarr hands the serializer whole chunks, the last one padded with the fill value (the largest id,
which no vertex has). The adapter strips that padding before encoding and restores it on decode,
so the numcodecs codec only ever sees real, sorted rows.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import numcodecs
import numpy as np
from zarr.abc.codec import ArrayBytesCodec
from zarr.core.array_spec import ArraySpec
from zarr.core.buffer import Buffer, NDBuffer
from zarr.core.common import JSON, parse_named_configuration

from ..errors import CorruptChunkError
from .base import GraphChunkCodec


@dataclass(frozen=True)
class GraphZarrCodec(ArrayBytesCodec):
    """Serializer for the ``adj`` array: one class for every format, which it finds by the
    codec's name (``graphtier.<format>``) in numcodecs' registry, so that a new format needs
    only its codec class."""

    name: str
    configuration: dict

    def __init__(self, name: str, **configuration: JSON) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "configuration", dict(configuration))

    @property
    def codec(self) -> GraphChunkCodec:
        return numcodecs.get_codec({"id": self.name, **self.configuration})

    @classmethod
    def from_dict(cls, data: dict[str, JSON]) -> GraphZarrCodec:
        name = data["name"]
        _, config = parse_named_configuration(data, name, require_configuration=False)
        return cls(name, **(config or {}))

    def to_dict(self) -> dict[str, JSON]:
        return {"name": self.name, "configuration": dict(self.configuration)}

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
