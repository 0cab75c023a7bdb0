"""Ways to damage a graph store on disk, each returning where the damage is: (array, chunk or None).

A store here is a directory: ``ARRAY/zarr.json`` and chunk files ``ARRAY/c/K`` (``ARRAY/c/K/0`` for
``adj``). Damage that keeps the checksum right (rewritten chunks, headers, indptr) is written with
its crc32c recomputed, so that only the deeper checks can find it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import google_crc32c
import numpy as np
import zarr

from graphtier.codecs import NUMCODECS
from graphtier.codecs.header import HEADER_BYTES, HEADER_DTYPE

VECTORS = ("indptr", "weights", "perm", "reverse/indptr", "reverse/weights")
ARRAYS = ("adj", "reverse/adj", *VECTORS)


def chunk_file(store: Path, array: str, c: int) -> Path:
    key = store / array / "c" / str(c)
    return key / "0" if array.endswith("adj") else key


def body(store: Path, array: str, c: int) -> np.ndarray:
    """A chunk's stored bytes without their crc32c."""
    return np.frombuffer(chunk_file(store, array, c).read_bytes()[:-4], np.uint8).copy()


def rewrite(store: Path, array: str, c: int, data: np.ndarray) -> None:
    """Store ``data`` as the chunk, with a right crc32c."""
    data = np.ascontiguousarray(data, np.uint8).tobytes()
    chunk_file(store, array, c).write_bytes(data + np.uint32(google_crc32c.value(data)).tobytes())


def drop_metadata(store: Path, array: str) -> tuple[str, None]:
    (store / array / "zarr.json").unlink()
    return array, None


def garble_metadata(store: Path, array: str) -> tuple[str, None]:
    (store / array / "zarr.json").write_text('{"zarr_format": 3, "node_type": ')
    return array, None


def drop_chunk(store: Path, array: str, c: int) -> tuple[str, int]:
    chunk_file(store, array, c).unlink()
    return array, c


def truncate_chunk(store: Path, array: str, c: int) -> tuple[str, int]:
    f = chunk_file(store, array, c)
    f.write_bytes(f.read_bytes()[: f.stat().st_size // 2])
    return array, c


def flip_byte(store: Path, array: str, c: int) -> tuple[str, int]:
    f = chunk_file(store, array, c)
    data = bytearray(f.read_bytes())
    data[len(data) // 2] ^= 0x5A
    f.write_bytes(bytes(data))
    return array, c


def cut_chunk(store: Path, array: str, c: int) -> tuple[str, int]:
    """The chunk loses its last 3 bytes, its checksum recomputed."""
    rewrite(store, array, c, body(store, array, c)[:-3])
    return array, c


def set_header(store: Path, array: str, c: int, field: str, delta: int) -> tuple[str, int]:
    """Add ``delta`` to one field of an ``adj`` chunk's header (checksum kept right)."""
    data = body(store, array, c)
    header = data[:HEADER_BYTES].view(HEADER_DTYPE)
    header[field] = header[field][0] + delta
    rewrite(store, array, c, data)
    return array, c


def _codec(store: Path):
    return NUMCODECS[json.loads((store / "zarr.json").read_text())["attributes"]["format"]]()


def edit_rows(store: Path, array: str, c: int, edit) -> tuple[str, int]:
    """Re-encode an ``adj`` chunk after ``edit(rows)`` changed its decoded (src, dst) rows in place."""
    codec = _codec(store)
    rows = codec.decode(body(store, array, c)).copy()
    edit(rows)
    rewrite(store, array, c, codec.encode(rows))
    return array, c


def id_out_of_range(store: Path, array: str, c: int) -> tuple[str, int]:
    """The chunk's last destination becomes the vertex count (still sorted: it is the largest)."""
    n = json.loads((store / "zarr.json").read_text())["attributes"]["n_vertices"]
    return edit_rows(store, array, c, lambda rows: rows.__setitem__((-1, 1), n))


def retarget_edge(store: Path, array: str, c: int) -> tuple[str, int]:
    """One edge of the chunk points at another vertex, its list still sorted and its length the
    same: only a comparison with the forward graph can tell."""

    n = json.loads((store / "zarr.json").read_text())["attributes"]["n_vertices"]

    def edit(rows):
        for i in range(len(rows)):
            src, dst = rows[i]
            following = rows[i + 1, 1] if i + 1 < len(rows) and rows[i + 1, 0] == src else None
            if dst + 1 < n and (following is None or dst + 1 < following):
                rows[i, 1] = dst + 1
                return
        raise AssertionError("no edge to retarget")

    return edit_rows(store, array, c, edit)


def rewrite_vector(store: Path, array: str, edit) -> None:
    """Rewrite a whole 1-D array through Zarr (valid chunks, checksums right) after ``edit(values)``."""
    a = zarr.open_array(store / array, mode="r+")
    values = a[:]
    edit(values)
    a[:] = values


def shift_indptr(store: Path, chunk_edges: int) -> tuple[str, int]:
    """One edge moves from a vertex's list to the next vertex's in indptr alone (still monotone,
    same ends): the adj chunk holding that edge no longer matches."""
    indptr = zarr.open_array(store / "indptr")[:].astype(np.int64)
    v = int(np.flatnonzero(np.diff(indptr)[:-1] > 0)[0])
    rewrite_vector(store, "indptr", lambda values: values.__setitem__(v + 1, values[v + 1] - 1))
    return "adj", int(indptr[v + 1] - 1) // chunk_edges


def unsort_indptr(store: Path) -> tuple[str, int]:
    """indptr decreases somewhere (checksums right)."""
    rewrite_vector(store, "indptr", lambda values: values.__setitem__(1, values[-1] + 1))
    return "indptr", 0


def set_attribute(store: Path, where: str, name: str, value) -> tuple[str, None]:
    """Change one attribute in a group's zarr.json (``where``: "" for the root, or "reverse")."""
    path = store / where / "zarr.json"
    meta = json.loads(path.read_text())
    meta["attributes"][name] = value
    path.write_text(json.dumps(meta))
    return (f"{where}/zarr.json" if where else "zarr.json"), None


def damaged_copy(pristine: Path, to: Path, damage) -> tuple[Path, tuple[str | None, int | None]]:
    shutil.copytree(pristine, to)
    return to, damage(to)
