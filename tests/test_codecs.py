"""The csr codec on its own, through Zarr, and against corrupt or hostile bytes."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import zarr
from hypothesis import given, settings
from hypothesis import strategies as st

from graphtier.codecs import CsrCodec, read_header
from graphtier.errors import CorruptChunkError

from .conftest import doc_hex_dumps


def sorted_rows(draw_lists, dtype=np.uint32) -> np.ndarray:
    rows = [(s, d) for s, ds in draw_lists for d in sorted(ds)]
    return np.array(sorted(rows), dtype=dtype).reshape(-1, 2)


@st.composite
def chunks(draw, max_id=2**32 - 2, dtype=np.uint32):
    """Sources within a short span anywhere up to the largest id (a chunk's local index has an
    entry per source in its span, as indptr has one per vertex); destinations anywhere."""
    first = draw(st.one_of(st.just(0), st.just(max_id - 64), st.integers(0, max_id - 64)))
    sources = [first + o for o in draw(st.lists(st.integers(0, 64), max_size=8, unique=True))]
    lists = [(s, draw(st.lists(st.integers(0, max_id), max_size=12))) for s in sources]
    return sorted_rows(lists, dtype)


@settings(max_examples=200, deadline=None)
@given(chunks())
def test_roundtrip_uint32(rows):
    codec = CsrCodec()
    np.testing.assert_array_equal(codec.decode(codec.encode(rows)), rows)


@settings(max_examples=100, deadline=None)
@given(chunks(max_id=2**64 - 2, dtype=np.uint64))
def test_roundtrip_uint64_extremes(rows):
    codec = CsrCodec()
    out = codec.decode(codec.encode(rows))
    assert out.dtype == np.uint64
    np.testing.assert_array_equal(out, rows)


def test_empty_chunk_and_duplicates():
    codec = CsrCodec()
    empty = np.zeros((0, 2), np.uint32)
    assert codec.decode(codec.encode(empty)).shape == (0, 2)
    dups = np.array([[1, 2], [1, 2], [3, 0]], np.uint32)
    np.testing.assert_array_equal(codec.decode(codec.encode(dups)), dups)


def test_unsorted_rows_are_refused():
    with pytest.raises(ValueError, match="not sorted"):
        CsrCodec().encode(np.array([[2, 0], [1, 0]], np.uint32))


def test_header_is_self_describing():
    rows = np.array([[5, 1], [5, 9], [7, 3]], np.uint32)
    buf = np.frombuffer(CsrCodec().encode(rows), np.uint8)
    h = read_header(buf, "csr")
    assert (h.n_edges, h.first_src, h.last_src, h.id_bytes) == (3, 5, 7, 4)
    assert h.total_bytes == len(buf)
    # the hex dump in docs/formats.md's csr section is this chunk
    assert doc_hex_dumps("csr") == [buf.tobytes()]


def test_config_roundtrip_through_numcodecs_registry():
    from numcodecs import get_codec

    codec = get_codec(CsrCodec().get_config())
    assert isinstance(codec, CsrCodec)


def test_corrupt_bytes_raise_never_crash():
    """Truncations and bit flips of a valid chunk raise CorruptChunkError or decode to some rows."""
    rng = np.random.default_rng(0)
    rows = np.array(sorted({(int(s), int(d)) for s, d in rng.integers(0, 500, (300, 2))}), np.uint32)
    good = np.frombuffer(CsrCodec().encode(rows), np.uint8)
    codec = CsrCodec()
    for cut in range(0, len(good), 7):
        with pytest.raises(CorruptChunkError):
            codec.decode(good[:cut])
    for _ in range(3000):
        bad = good.copy()
        for pos in rng.integers(0, len(bad), rng.integers(1, 4)):
            bad[pos] ^= np.uint8(1 << rng.integers(0, 8))
        try:
            out = codec.decode(bad)
        except CorruptChunkError:
            continue
        assert out.shape[1] == 2 and len(out) <= len(bad)
    for _ in range(3000):
        noise = rng.integers(0, 256, rng.integers(0, 200), dtype=np.uint8)
        noise[: min(8, len(noise))] = np.frombuffer(b"GTCK\x01\x00\x04\x00", np.uint8)[: min(8, len(noise))]
        try:
            out = codec.decode(noise)
        except CorruptChunkError:
            continue
        assert out.shape[1] == 2 and len(out) <= len(noise)


def test_check_rejects_ids_beyond_the_graph():
    rows = np.array([[0, 1], [1, 900]], np.uint32)
    buf = CsrCodec().encode(rows)
    header, offsets = CsrCodec().check(buf, 901)
    assert header.n_edges == 2 and offsets.tolist() == [0, 1, 2]
    with pytest.raises(CorruptChunkError, match="vertex id"):
        CsrCodec().check(buf, 900)


def test_zarr_reads_rows_without_importing_graphtier(tmp_path):
    """The serializer is found through the installed entry point, as for any zarr user."""
    g = zarr.open_group(tmp_path / "s.zarr", mode="w")
    from graphtier.store import create_adj

    a = create_adj(g, fmt="csr", chunk_edges=3, dtype=np.dtype(np.uint32))
    rows = np.array([[0, 1], [0, 2], [1, 0], [2, 2], [4, 1]], np.uint32)
    a.resize((5, 2))
    a[:] = rows
    code = f"import sys, zarr; assert 'graphtier' not in sys.modules; a = zarr.open_group({str(tmp_path / 's.zarr')!r})['adj']; print(a[1:5].tolist())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(rows[1:5].tolist())
