"""The self-describing header that starts every encoded `adj` chunk (layout version 1).

A chunk is ``header | local index | payload``; every section starts on an 8-byte boundary, so a
kernel can view the index and payload as 32- or 64-bit words wherever the chunk lands.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import CorruptChunkError

MAGIC = b"GTCK"
LAYOUT_VERSION = 1
# format name <-> the byte that names it in a header, filled by each codec class as it is declared
# (``GraphChunkCodec.__init_subclass__``), so that a format's code is written down once, beside it.
FORMAT_CODES: dict[str, int] = {}


def register_format(name: str, code: int) -> None:
    if FORMAT_CODES.get(name, code) != code or code in {c for f, c in FORMAT_CODES.items() if f != name}:
        raise ValueError(f"format code {code} of {name!r} clashes with {FORMAT_CODES}")
    FORMAT_CODES[name] = code


HEADER_DTYPE = np.dtype(
    [
        ("magic", "S4"),
        ("version", "u1"),
        ("format", "u1"),
        ("id_bytes", "u1"),
        ("reserved", "u1"),
        ("n_edges", "<u4"),
        ("index_bytes", "<u4"),
        ("first_src", "<u8"),
        ("last_src", "<u8"),
        ("payload_bytes", "<u8"),
    ]
)
HEADER_BYTES = HEADER_DTYPE.itemsize  # 40


def pad8(n: int) -> int:
    return (n + 7) & ~7


@dataclass(frozen=True)
class ChunkHeader:
    format: str
    id_bytes: int
    n_edges: int
    first_src: int
    last_src: int
    index_bytes: int
    payload_bytes: int

    @property
    def n_local(self) -> int:
        """Sources from first to last inclusive; the local index has an entry for each."""
        return self.last_src - self.first_src + 1 if self.n_edges else 0

    @property
    def index_start(self) -> int:
        return HEADER_BYTES

    @property
    def payload_start(self) -> int:
        return HEADER_BYTES + self.index_bytes

    @property
    def total_bytes(self) -> int:
        return HEADER_BYTES + self.index_bytes + pad8(self.payload_bytes)

    def pack(self) -> bytes:
        h = np.zeros((), HEADER_DTYPE)
        h["magic"] = MAGIC
        h["version"] = LAYOUT_VERSION
        h["format"] = FORMAT_CODES[self.format]
        h["id_bytes"] = self.id_bytes
        h["n_edges"] = self.n_edges
        h["index_bytes"] = self.index_bytes
        h["first_src"] = self.first_src
        h["last_src"] = self.last_src
        h["payload_bytes"] = self.payload_bytes
        return h.tobytes()


def read_header(buf: np.ndarray, expected_format: str, nbytes: int | None = None) -> ChunkHeader:
    """Parse and check a header against the chunk's size (``len(buf)`` unless given); trusts no field."""
    nbytes = len(buf) if nbytes is None else nbytes
    if len(buf) < HEADER_BYTES or nbytes < HEADER_BYTES:
        raise CorruptChunkError(f"chunk is {nbytes} bytes, shorter than its {HEADER_BYTES}-byte header")
    h = np.frombuffer(buf[:HEADER_BYTES].tobytes(), HEADER_DTYPE)[0]
    if h["magic"] != MAGIC:
        raise CorruptChunkError(f"bad magic {bytes(h['magic'])!r}, expected {MAGIC!r}")
    if h["version"] != LAYOUT_VERSION:
        raise CorruptChunkError(f"unsupported chunk layout version {int(h['version'])}")
    codes = {v: k for k, v in FORMAT_CODES.items()}
    fmt = codes.get(int(h["format"]))
    if fmt != expected_format:
        raise CorruptChunkError(f"chunk holds format {fmt or int(h['format'])!r}, expected {expected_format!r}")
    if h["id_bytes"] not in (4, 8) or h["reserved"] != 0:
        raise CorruptChunkError(f"bad id width {int(h['id_bytes'])} or reserved byte")
    header = ChunkHeader(
        format=fmt,
        id_bytes=int(h["id_bytes"]),
        n_edges=int(h["n_edges"]),
        first_src=int(h["first_src"]),
        last_src=int(h["last_src"]),
        index_bytes=int(h["index_bytes"]),
        payload_bytes=int(h["payload_bytes"]),
    )
    if header.index_bytes % 8 or header.total_bytes != nbytes:
        raise CorruptChunkError(f"section sizes (index {header.index_bytes}, payload {header.payload_bytes}) do not add up to the chunk's {nbytes} bytes")
    if header.n_edges and header.last_src >= 1 << (8 * header.id_bytes):
        raise CorruptChunkError(f"last source {header.last_src} does not fit {header.id_bytes}-byte ids")
    if header.n_edges and header.first_src > header.last_src:
        raise CorruptChunkError(f"first source {header.first_src} after last source {header.last_src}")
    return header
