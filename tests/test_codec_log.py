"""The log codec (MPLG's fixed-width packing): round trips, exact sizes, hostile bytes, and BFS over it."""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path

import numcodecs
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from graphtier.codecs.header import HEADER_BYTES, pad8, read_header
from graphtier.codecs.log import LogCodec, chunk_size, data_words, decode_list_log, payload_size
from graphtier.errors import CorruptChunkError
from graphtier.kernels.cpu.log import log_neighbors

from .conftest import csr_to_edges, doc_hex_dumps, kernel_distances, oracle_distances, reference_csr, resident_graph

_spec = importlib.util.spec_from_file_location("fuzz_log", Path(__file__).resolve().parents[1] / "benchmarks" / "fuzz_log.py")
fuzz_log = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fuzz_log)


def as_rows(lists, dtype) -> np.ndarray:
    rows = [(s, d) for s, ds in lists for d in sorted(ds)]
    return np.array(sorted(rows), dtype=dtype).reshape(-1, 2)


@st.composite
def chunks(draw, dtype=np.uint32, max_id=None):
    """Sources within a short span anywhere up to the largest id (empty sub-lists between them),
    destinations below a drawn bound, so every b from 1 to the id width comes up; duplicates too."""
    top = 2**32 - 2 if dtype == np.uint32 else 2**64 - 2
    max_id = top if max_id is None else max_id
    first = draw(st.one_of(st.just(0), st.just(top - 64), st.integers(0, top - 64)))
    bound = draw(st.one_of(st.just(max_id), st.integers(0, max_id), st.sampled_from([0, 1, 2**31, 2**32 - 2, 2**33])))
    bound = min(bound, max_id)
    sources = [first + o for o in draw(st.lists(st.integers(0, 64), max_size=8, unique=True))]
    ids = st.integers(0, bound)
    lists = [(s, draw(st.lists(st.one_of(ids, st.just(bound)), max_size=12))) for s in sources]
    if lists and draw(st.booleans()):  # a duplicated id
        s, ds = lists[0]
        lists[0] = (s, ds + ds[:1])
    return as_rows(lists, dtype)


def width(rows: np.ndarray) -> int:
    return max(1, int(rows[:, 1].max()).bit_length()) if len(rows) else 1


def assert_exact_size(codec: LogCodec, rows: np.ndarray, buf: np.ndarray) -> None:
    """b bits per edge, rounded up to whole words, plus the b word, one padding word and headers."""
    n = len(rows)
    n_local = int(rows[-1, 0]) - int(rows[0, 0]) + 1 if n else 0
    w, b = rows.dtype.itemsize, width(rows)
    h = read_header(buf, "log")
    assert h.payload_bytes == w * (1 + (n * b + 8 * w - 1) // (8 * w) + 1) == payload_size(n, b, w)
    assert h.index_bytes == pad8(4 * (n_local + 1))
    assert len(buf) == chunk_size(n, n_local, b, w) == HEADER_BYTES + pad8(4 * (n_local + 1)) + pad8(payload_size(n, b, w))
    words = buf[h.payload_start : h.payload_start + h.payload_bytes].view(f"<u{w}")
    assert int(words[0]) == b and int(words[-1]) == 0


def roundtrip(rows: np.ndarray) -> None:
    codec = LogCodec()
    buf = np.frombuffer(codec.encode(rows), np.uint8)
    out = codec.decode(buf)
    assert out.dtype == rows.dtype
    np.testing.assert_array_equal(out, rows)
    assert_exact_size(codec, rows, buf)


@settings(max_examples=300, deadline=None)
@given(chunks())
def test_roundtrip_uint32(rows):
    roundtrip(rows)


@settings(max_examples=200, deadline=None)
@given(chunks(dtype=np.uint64))
def test_roundtrip_uint64(rows):
    roundtrip(rows)


@pytest.mark.parametrize("dtype, widths", [(np.uint32, range(1, 33)), (np.uint64, range(1, 65))])
def test_every_width_and_largest_ids(dtype, widths):
    rng = np.random.default_rng(7)
    top = np.iinfo(dtype).max - 1  # the largest id; the maximum itself is the fill value
    for b in widths:
        hi = min(2**b - 1, top)
        dst = np.sort(rng.integers(0, hi, 97, dtype=np.uint64, endpoint=True))
        dst[-1] = hi  # b is exactly bit_length(hi)
        src = np.sort(rng.integers(0, 5, 97)).astype(np.uint64)
        rows = np.stack([src, dst], 1)
        rows = rows[np.lexsort((rows[:, 1], rows[:, 0]))].astype(dtype)
        roundtrip(rows)
        assert width(rows) == b


def test_worked_example_from_the_digest():
    """nlist = [5, 9000, 12345]: b = 14, words 0x98CA0005 0x00000303 and the padding word."""
    rows = np.array([[0, 5], [0, 9000], [0, 12345]], np.uint32)
    buf = np.frombuffer(LogCodec().encode(rows), np.uint8)
    h = read_header(buf, "log")
    assert (h.n_edges, h.first_src, h.last_src, h.index_bytes, h.payload_bytes) == (3, 0, 0, 8, 16)
    assert buf[h.index_start : h.index_start + 8].view("<u4").tolist() == [0, 3]
    assert buf[h.payload_start :].view("<u4").tolist() == [14, 0x98CA0005, 0x00000303, 0]
    assert len(buf) == 64 == chunk_size(3, 1, 14)
    out = np.empty(3, np.uint32)
    words = buf[h.payload_start :].view("<u4")
    assert decode_list_log(words, 1, 3, 14, 2, 3, out) == 1 and out[0] == 12345
    # the hex dump in docs/formats.md's log section is this chunk
    assert doc_hex_dumps("log") == [buf.tobytes()]


def test_store_example_and_64_bit_words():
    rows = np.array([[5, 1], [5, 9], [7, 3]], np.uint32)
    buf = np.frombuffer(LogCodec().encode(rows), np.uint8)
    assert buf[40:56].view("<u4").tolist() == [0, 2, 2, 3]
    assert buf[56:].view("<u4").tolist() == [4, 1 | 9 << 4 | 3 << 8, 0, 0]  # b = 4
    wide = np.array([[0, 2**40 + 5], [0, 2**63 + 7]], np.uint64)
    buf = np.frombuffer(LogCodec().encode(wide), np.uint8)
    h = read_header(buf, "log")
    words = buf[h.payload_start :].view("<u8")
    assert words.tolist() == [64, 2**40 + 5, 2**63 + 7, 0]
    buf = np.frombuffer(LogCodec().encode(np.array([[0, 2**40 + 5], [0, 2**41 - 1]], np.uint64)), np.uint8)
    words = buf[read_header(buf, "log").payload_start :].view("<u8")
    assert words.tolist() == [41, (2**40 + 5) | ((2**41 - 1) & (2**23 - 1)) << 41, (2**41 - 1) >> 23, 0]


def test_empty_chunk_empty_lists_duplicates_and_many_sources():
    roundtrip(np.zeros((0, 2), np.uint32))
    roundtrip(np.zeros((0, 2), np.uint64))
    roundtrip(np.array([[1, 2], [1, 2], [1, 2], [3, 0], [9, 0], [9, 0]], np.uint32))
    roundtrip(np.array([[0, 0]] * 33, np.uint32))  # b = 1, all zero
    rng = np.random.default_rng(3)
    deg = rng.integers(0, 4, 20_000)
    src = np.repeat(np.arange(20_000, dtype=np.uint64) + 123_456, deg)
    dst = rng.integers(0, 1_000_000, len(src)).astype(np.uint64)
    rows = np.stack([src, dst], 1)
    roundtrip(rows[np.lexsort((rows[:, 1], rows[:, 0]))].astype(np.uint32))


def test_cnr2000_sizes_are_exact(cnr_csr):
    indptr, indices = cnr_csr
    rows = csr_to_edges(indptr, indices).astype(np.uint32)
    codec = LogCodec()
    total = payload = 0
    for a in range(0, len(rows), 1 << 20):
        buf = np.frombuffer(codec.encode(rows[a : a + (1 << 20)]), np.uint8)
        assert_exact_size(codec, rows[a : a + (1 << 20)], buf)
        total += len(buf)
        payload += read_header(buf, "log").payload_bytes
    assert payload == sum(4 * (data_words(len(rows[a : a + (1 << 20)]), 19) + 2) for a in range(0, len(rows), 1 << 20))
    assert 8 * payload / len(rows) < 19.001  # b = 19 for 325,557 vertices


def test_unsorted_rows_are_refused():
    with pytest.raises(ValueError, match="not sorted"):
        LogCodec().encode(np.array([[1, 5], [1, 4]], np.uint32))


def test_config_roundtrip_through_numcodecs_registry():
    numcodecs.register_codec(LogCodec)
    codec = numcodecs.get_codec(LogCodec().get_config())
    assert isinstance(codec, LogCodec) and codec.get_config() == {"id": "graphtier.log"}
    rows = np.array([[0, 3], [2, 1]], np.uint32)
    np.testing.assert_array_equal(codec.decode(codec.encode(rows)), rows)


def _payload(buf):
    h = read_header(buf, "log")
    return h, h.payload_start


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda b, p: b.__setitem__(p, 20), "payload is"),  # b larger: sizes no longer add up
        (lambda b, p: b.__setitem__(p, 0), "outside"),  # b = 0
        (lambda b, p: b.__setitem__(p, 33), "outside"),  # b beyond 32-bit ids
        (lambda b, p: b.__setitem__(len(b) - 1, 1), "not zero"),  # the padding word
        (lambda b, p: b.__setitem__(p + 5, b[p + 5] | 0x01), "not sorted"),  # first id 1 -> 257 > 200
        (lambda b, p: b.__setitem__(44, 0), "local index"),  # an offset
    ],
)
def test_targeted_corruption(edit, message):
    rows = np.array([[0, 1], [0, 200], [1, 3], [1, 900]], np.uint32)  # b = 10
    buf = np.frombuffer(LogCodec().encode(rows), np.uint8).copy()
    _, p = _payload(buf)
    edit(buf, p)
    with pytest.raises(CorruptChunkError, match=message):
        LogCodec().decode(buf)


def test_non_minimal_width_and_stray_bits_are_refused():
    rows = np.array([[0, 1], [0, 2]], np.uint32)  # b = 2: payload [2, 0b1001, 0]
    buf = np.frombuffer(LogCodec().encode(rows), np.uint8).copy()
    _, p = _payload(buf)
    buf[p + 4] |= 0x10  # bit 4, after the last id
    with pytest.raises(CorruptChunkError, match="not zero"):
        LogCodec().decode(buf)
    # The same ids at b = 3 would need no more words; the decoder refuses the wider b.
    wide = np.frombuffer(LogCodec().encode(np.array([[0, 1], [0, 4]], np.uint32)), np.uint8).copy()
    _, p = _payload(wide)
    wide[p + 4] = 1 | 2 << 3
    with pytest.raises(CorruptChunkError, match="bit length"):
        LogCodec().decode(wide)


def test_check_rejects_ids_beyond_the_graph():
    buf = LogCodec().encode(np.array([[0, 1], [1, 900]], np.uint32))
    header, offsets = LogCodec().check(buf, 901)
    assert header.n_edges == 2 and offsets.tolist() == [0, 1, 2]
    with pytest.raises(CorruptChunkError, match="vertex id"):
        LogCodec().check(buf, 900)


def test_decoder_bounds():
    words = np.array([5, 0xFFFFFFFF, 0], np.uint32)
    out = np.empty(8, np.uint32)
    assert decode_list_log(words, 1, 2, 5, 0, 6, out) == 6  # 30 bits in one data word
    assert decode_list_log(words, 1, 2, 5, 0, 7, out) < 0  # would need a third word
    assert decode_list_log(words, 1, 3, 5, 0, 2, out) < 0  # nwords past the array
    assert decode_list_log(words, 1, 2, 0, 0, 2, out) < 0  # b = 0
    assert decode_list_log(words, 1, 2, 33, 0, 1, out) < 0  # b > 32 with 32-bit words
    assert decode_list_log(words, 1, 2, 5, 0, 9, out) < 0  # out too short... and past the words
    assert decode_list_log(words, 1, 2, 5, 3, 3, out) == 0


def test_fuzz_100k_inputs():
    """100,000 truncated, bit-flipped, field-edited and random inputs: each refused or consistent."""
    t0 = time.perf_counter()
    stats = fuzz_log.fuzz(100_000, seed=1)
    assert stats["refused"] > 50_000 and stats["accepted"] > 0
    assert time.perf_counter() - t0 < 60


# --- the CPU kernel through the operator layer -----------------------------------------------


@pytest.mark.parametrize("dtype", [np.uint32, np.uint64])
@pytest.mark.parametrize("chunk_edges", [7, 64, 1 << 12])
def test_bfs_over_log_chunks_matches_scipy(dtype, chunk_edges):
    rng = np.random.default_rng(chunk_edges)
    n = 3000
    e = rng.integers(0, n, (12_000, 2))
    e = np.concatenate([e, np.stack([np.arange(n - 1), np.arange(1, n)], 1)])  # a path, so most are reached
    ref = reference_csr(e, n)
    g = resident_graph(LogCodec(), ref.indptr, ref.indices, chunk_edges, dtype)
    for source in (0, int(np.argmax(np.diff(ref.indptr))), n - 1):
        np.testing.assert_array_equal(kernel_distances(g, source), oracle_distances(ref, source))


def test_bfs_on_cnr2000(cnr_csr):
    indptr, indices = cnr_csr
    g = resident_graph(LogCodec(), indptr, indices, 1 << 18)
    dist = kernel_distances(g, 100000)
    assert (dist >= 0).sum() == 325_557 and dist.max() == 37
    np.testing.assert_array_equal(dist, oracle_distances(reference_csr(csr_to_edges(indptr, indices), len(indptr) - 1), 100000))


@pytest.mark.parametrize("ids", [[3, 2**33 + 1, 2**33 + 1, 2**47], [0, 2**63, 2**64 - 2], [1, 2, 3]])
def test_kernel_decodes_wide_ids_from_the_arena(ids):
    """Sub-lists of 64-bit ids (b up to 64) decode in place from an arena of 64-bit words."""
    lists = [ids, [], ids[:1], ids[1:]]
    rows = as_rows(list(enumerate(lists)), np.uint64)
    indptr = np.concatenate([[0], np.cumsum([len(x) for x in lists])])
    codec = LogCodec()
    chunk = np.frombuffer(codec.encode(rows), np.uint8)
    h = read_header(chunk, "log")
    arena = np.zeros(8 + len(chunk), np.uint8)  # a chunk that is not the first in the arena
    arena[8:] = chunk
    table = np.array([[8, 8 + h.index_start, 8 + h.payload_start, h.n_edges, 0]], np.int64)

    @njit
    def one(words, table, lo, hi, scratch):
        return log_neighbors(words, table, 0, 0, lo, hi, scratch).copy()

    scratch = np.empty(16, np.uint64)
    for v in range(len(lists)):
        got = one(arena.view(np.uint64), table, indptr[v], indptr[v + 1], scratch)
        assert got.tolist() == sorted(lists[v])
