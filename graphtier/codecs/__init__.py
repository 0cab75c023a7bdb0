"""One numcodecs codec per graph format, each also registered as a Zarr v3 serializer.

Installing graphtier registers them through entry points; importing this package registers them
too, so a source checkout works without installation.
"""

from numcodecs.registry import register_codec
from zarr.registry import register_codec as register_zarr_codec

from .base import GraphChunkCodec
from .cgr import CgrCodec
from .csr import CsrCodec
from .ef import EfCodec
from .header import FORMAT_CODES, HEADER_BYTES, ChunkHeader, read_header
from .log import LogCodec
from .zarr3 import ZARR_CODECS, GraphZarrCodec

NUMCODECS = {"csr": CsrCodec, "log": LogCodec, "ef": EfCodec, "cgr": CgrCodec}
FORMATS = tuple(NUMCODECS)

for _fmt, _cls in NUMCODECS.items():
    register_codec(_cls)
    register_zarr_codec(_cls.codec_id, ZARR_CODECS[_fmt])

__all__ = [
    "FORMATS",
    "FORMAT_CODES",
    "HEADER_BYTES",
    "NUMCODECS",
    "ZARR_CODECS",
    "CgrCodec",
    "ChunkHeader",
    "CsrCodec",
    "EfCodec",
    "GraphChunkCodec",
    "GraphZarrCodec",
    "LogCodec",
    "read_header",
]
