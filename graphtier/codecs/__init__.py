"""One numcodecs codec per graph format, each also a Zarr v3 serializer (``graphtier.<format>``).

Installing graphtier registers them through entry points; importing this package registers them
too, so a source checkout works without installation. ``CODECS`` is the one list of formats: every
other table of formats (the kernels' registry, the CLI's choices) is derived from it.
"""

from numcodecs.registry import register_codec
from zarr.registry import register_codec as register_zarr_codec

from .base import GraphChunkCodec
from .cgr import CgrCodec
from .csr import CsrCodec
from .ef import EfCodec
from .header import FORMAT_CODES, HEADER_BYTES, ChunkHeader, read_header
from .log import LogCodec
from .zarr3 import GraphZarrCodec

CODECS: tuple[type[GraphChunkCodec], ...] = (CsrCodec, LogCodec, EfCodec, CgrCodec)
NUMCODECS = {c.format: c for c in CODECS}
FORMATS = tuple(NUMCODECS)

for _cls in CODECS:
    register_codec(_cls)
    register_zarr_codec(_cls.codec_id, GraphZarrCodec)

__all__ = [
    "CODECS",
    "FORMATS",
    "FORMAT_CODES",
    "HEADER_BYTES",
    "NUMCODECS",
    "CgrCodec",
    "ChunkHeader",
    "CsrCodec",
    "EfCodec",
    "GraphChunkCodec",
    "GraphZarrCodec",
    "LogCodec",
    "read_header",
]
