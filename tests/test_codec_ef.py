"""The ef codec (EFG's Elias-Fano): paper examples byte for byte, round trips, the closed-form size,
the CPU kernel through the operators, and a fuzz of hostile bytes."""

from __future__ import annotations

import time

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit
from scipy.sparse.csgraph import shortest_path

from graphtier.codecs.base import local_offsets
from graphtier.codecs.ef import EfCodec, chunk_nbytes, ef_decode_list
from graphtier.codecs.header import HEADER_BYTES, pad8, read_header
from graphtier.errors import CorruptChunkError
from graphtier.kernels.cpu.ef import WORD, ef_neighbors, ef_push

from .conftest import doc_hex_dumps, kernel_distances, resident_graph

# ---------------------------------------------------------------------------------------------
# An independent reading of the format, in plain Python integers (docs/formats.md, section `ef`)


def lower_width(u: int, n: int) -> int:
    return 0 if u < n else (u // n).bit_length() - 1


def fwd_width(n: int) -> int:
    return 1 if 2 * n < 2**8 else 2 if 2 * n < 2**16 else 4 if 2 * n < 2**32 else 8


def list_bytes(lst: list[int], q: int) -> int:
    n = len(lst)
    if n == 0:
        return 0
    u = lst[-1]
    l = lower_width(u, n)
    return (n // q if q else 0) * fwd_width(n) + (l * n + 7) // 8 + ((u >> l) + n + 7) // 8


def closed_form(lists: list[list[int]], q: int) -> int:
    """Total chunk bytes from the degrees and last values alone, as docs/formats.md (section `ef`) states it."""
    if not any(lists):
        return HEADER_BYTES + 8 + 8  # preamble, then the slack
    while not lists[-1]:
        lists = lists[:-1]
    while not lists[0]:
        lists = lists[1:]
    p = sum(list_bytes(x, q) for x in lists)
    wo = p.bit_length()
    wl = max(lower_width(x[-1], len(x)) if x else 0 for x in lists).bit_length()
    wd = max(len(x) for x in lists).bit_length()
    index = 8 + (len(lists) * (wo + wl + wd) + wo + 7) // 8
    return HEADER_BYTES + pad8(index) + pad8(p + 8)


def bits(buf: bytes, pos: int, width: int) -> int:
    return (int.from_bytes(buf, "little") >> pos) & ((1 << width) - 1)


def parse_index(chunk: np.ndarray) -> tuple[list[int], list[int], list[int], int]:
    """(byte offsets incl. the final one, low-bit widths, degrees, quantum) read bit by bit."""
    h = read_header(chunk, "ef")
    index = chunk[h.index_start : h.payload_start].tobytes()
    wo, wl, wd, q = index[0], index[1], index[2], int.from_bytes(index[4:8], "little")
    w = wo + wl + wd
    recs = index[8:]
    offs = [bits(recs, i * w, wo) for i in range(h.n_local + 1)]
    ls = [bits(recs, i * w + wo, wl) for i in range(h.n_local)]
    degs = [bits(recs, i * w + wo + wl, wd) for i in range(h.n_local)]
    return offs, ls, degs, q


def sublists(rows: np.ndarray) -> list[list[int]]:
    if len(rows) == 0:
        return []
    first, last = int(rows[0, 0]), int(rows[-1, 0])
    out = [[] for _ in range(last - first + 1)]
    for s, d in rows.tolist():
        out[s - first].append(d)
    return out


def rows_of(lists_by_src: list[tuple[int, list[int]]], dtype) -> np.ndarray:
    rows = [(s, d) for s, ds in lists_by_src for d in sorted(ds)]
    return np.array(sorted(rows), dtype=dtype).reshape(-1, 2)


# ---------------------------------------------------------------------------------------------
# The paper's examples (digest 002-efg.md, sections 1.2 and 1.5)


def test_fig2_bytes():
    rows = rows_of([(0, [1, 3, 4, 12, 15, 20, 23, 32])], np.uint32)
    chunk = np.frombuffer(EfCodec().encode(rows), np.uint8)
    h = read_header(chunk, "ef")
    payload = chunk[h.payload_start : h.payload_start + h.payload_bytes]
    assert payload[:4].tolist() == [0b00001101, 0b00110011, 0b11001011, 0b10001100]
    assert payload[4:].tolist() == [0] * 8  # slack
    offs, ls, degs, q = parse_index(chunk)
    assert (offs, ls, degs, q) == ([0, 4], [2], [8], 512)


def test_fig3_bytes_offsets_and_lower_bits():
    vlist = [0, 2, 3, 4, 6, 9, 9, 9, 11, 12, 12, 14]
    elist = [1, 2, 4, 3, 5, 6, 2, 3, 7, 8, 9, 1, 0, 3]
    src = np.repeat(np.arange(11), np.diff(vlist))
    rows = np.stack([src, elist], axis=1).astype(np.uint32)
    chunk = np.frombuffer(EfCodec().encode(rows), np.uint8)
    h = read_header(chunk, "ef")
    payload = chunk[h.payload_start : h.payload_start + h.payload_bytes]
    printed = "00001010 00000000 00000010 00000001 00000010 00000001 00010100 00000110 00100110 00000100 00001100 00000010 00010001"
    assert payload[:13].tolist() == [int(b, 2) for b in printed.split()]
    offs, ls, degs, _ = parse_index(chunk)
    assert offs == [0, 1, 3, 5, 7, 9, 9, 9, 11, 12, 12, 13]
    assert ls == [0, 2, 1, 1, 1, 0, 0, 2, 0, 0, 0]
    assert degs == np.diff(vlist).tolist()
    assert h.index_bytes == 24 and h.payload_bytes == 13 + 8
    assert len(chunk) == closed_form(sublists(rows), 512) == 40 + 24 + 24
    np.testing.assert_array_equal(EfCodec().decode(chunk), rows)
    # vertex 4, x_2: select1(2) = 5 in the upper byte 00100110, 5 - 2 = 3 = 11b, lower bit 1 -> 7
    upper = payload[8]
    ones = [k for k in range(8) if upper >> k & 1]
    assert ones[2] - 2 == 0b11 and (payload[7] >> 2) & 1 == 1
    # the hex dump in docs/formats.md's ef section is this chunk
    assert doc_hex_dumps("ef") == [chunk.tobytes()]


def test_forward_pointers_hold_select1_minus_i():
    """Fig. 6's convention with k = 8: pointer j is select1(i) - i = x_i >> l at i = 8 (j + 1) - 1."""
    rng = np.random.default_rng(6)
    lst = np.sort(rng.integers(0, 200, 30)).tolist()
    chunk = np.frombuffer(EfCodec(quantum=8).encode(rows_of([(3, lst)], np.uint32)), np.uint8)
    h = read_header(chunk, "ef")
    payload = chunk[h.payload_start :].tobytes()
    l = lower_width(lst[-1], 30)
    assert [payload[j] for j in range(3)] == [lst[7] >> l, lst[15] >> l, lst[23] >> l]
    upper = int.from_bytes(payload[3 + (l * 30 + 7) // 8 : h.payload_bytes - 8], "little")
    select = [k for k in range(upper.bit_length()) if upper >> k & 1]
    assert [select[i] - i for i in (7, 15, 23)] == [payload[j] for j in range(3)]


# ---------------------------------------------------------------------------------------------
# Round trips and the closed form


@st.composite
def id_lists(draw, max_id):
    kind = draw(st.sampled_from(["any", "dense", "dups", "top", "long"]))
    if kind == "any":
        xs = draw(st.lists(st.integers(0, max_id), max_size=20))
    elif kind == "dense":
        lo = draw(st.integers(0, max_id - 100))
        xs = draw(st.lists(st.integers(lo, lo + 100), max_size=40))
    elif kind == "dups":
        xs = [draw(st.integers(0, max_id))] * draw(st.integers(1, 30))
    elif kind == "top":
        xs = draw(st.lists(st.integers(max_id - 3, max_id), min_size=1, max_size=10))
    else:
        n = draw(st.integers(100, 1200))
        seed = draw(st.integers(0, 2**32 - 1))
        span = draw(st.integers(1, max_id))
        xs = np.random.default_rng(seed).integers(0, span, n, dtype=np.uint64, endpoint=True).tolist()
    return sorted(xs)


@st.composite
def chunks(draw, max_id=2**32 - 1, dtype=np.uint32, span=64):
    """Sources within a span anywhere up to the largest id, most lists short, some empty or long."""
    first = draw(st.one_of(st.just(0), st.just(max_id - span), st.integers(0, max_id - span)))
    offsets = draw(st.lists(st.integers(0, span), max_size=10, unique=True))
    return rows_of([(first + o, draw(id_lists(max_id))) for o in offsets], dtype)


QUANTA = st.sampled_from([0, 1, 2, 3, 8, 64, 512])


@settings(max_examples=300, deadline=None)
@given(chunks(), QUANTA)
def test_roundtrip_uint32_and_closed_form(rows, q):
    codec = EfCodec(quantum=q)
    chunk = codec.encode(rows)
    assert len(chunk) == closed_form(sublists(rows), q)
    out = codec.decode(chunk)
    assert out.dtype == np.uint32
    np.testing.assert_array_equal(out, rows)


@settings(max_examples=200, deadline=None)
@given(chunks(max_id=2**64 - 1, dtype=np.uint64), QUANTA)
def test_roundtrip_uint64_extremes_and_closed_form(rows, q):
    codec = EfCodec(quantum=q)
    chunk = codec.encode(rows)
    assert len(chunk) == closed_form(sublists(rows), q)
    out = codec.decode(chunk)
    assert out.dtype == np.uint64
    np.testing.assert_array_equal(out, rows)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([np.uint32, np.uint64]), QUANTA)
def test_many_sources_mostly_empty(seed, dtype, q):
    rng = np.random.default_rng(seed)
    n_src = int(rng.integers(1, 5000))
    deg = rng.integers(0, 4, n_src) * (rng.random(n_src) < 0.3)
    deg[0] = deg[-1] = 1
    src = np.repeat(np.arange(n_src, dtype=np.uint64) + np.uint64(rng.integers(0, 2**31)), deg)
    dst = rng.integers(0, 2**31 if dtype is np.uint32 else 2**62, len(src))
    rows = np.stack([src, dst], axis=1).astype(dtype)
    rows = rows[np.lexsort((rows[:, 1], rows[:, 0]))]
    codec = EfCodec(quantum=q)
    chunk = codec.encode(rows)
    assert len(chunk) == closed_form(sublists(rows), q)
    np.testing.assert_array_equal(codec.decode(chunk), rows)


def test_empty_chunk_duplicates_and_largest_ids():
    codec = EfCodec()
    empty = codec.encode(np.zeros((0, 2), np.uint32))
    assert len(empty) == closed_form([], 512) == 56
    assert codec.decode(empty).shape == (0, 2)
    for dtype in (np.uint32, np.uint64):
        top = np.iinfo(dtype).max
        rows = np.array([[top - 3, 0], [top - 3, 0], [top - 3, top], [top - 3, top], [top - 1, top - 1], [top, 0], [top, top]], dtype)
        np.testing.assert_array_equal(codec.decode(codec.encode(rows)), rows)


def test_chunk_nbytes_matches_encoding_on_cnr(cnr_csr):
    indptr, indices = cnr_csr
    src = np.repeat(np.arange(len(indptr) - 1, dtype=np.uint32), np.diff(indptr))
    rows = np.stack([src, indices], axis=1)
    codec = EfCodec()
    for a in range(0, len(rows), 2**20):
        ch = rows[a : a + 2**20]
        chunk = codec.encode(ch)
        h = read_header(np.frombuffer(chunk, np.uint8), "ef")
        off = local_offsets(ch[:, 0], h.first_src, h.n_local)
        deg = np.diff(off)
        last = ch[np.maximum(off[1:] - 1, 0), 1]
        size = chunk_nbytes(deg, last)
        assert size["total"] == len(chunk)
        assert (size["index"], size["payload"]) == (h.index_bytes, pad8(h.payload_bytes))


def test_config_roundtrip_through_numcodecs_registry():
    import numcodecs

    numcodecs.register_codec(EfCodec)
    codec = numcodecs.get_codec({"id": "graphtier.ef", "quantum": 64})
    assert isinstance(codec, EfCodec) and codec.quantum == 64
    assert numcodecs.get_codec(EfCodec().get_config()).quantum == 512
    with pytest.raises(ValueError):
        EfCodec(quantum=-1)
    with pytest.raises(ValueError):
        EfCodec(quantum=2**32)


def test_decoder_follows_the_chunk_quantum_not_the_codec():
    rows = rows_of([(0, list(range(0, 3000, 3)))], np.uint32)
    chunk = EfCodec(quantum=16).encode(rows)
    np.testing.assert_array_equal(EfCodec(quantum=512).decode(chunk), rows)


# ---------------------------------------------------------------------------------------------
# Specific corruptions name what is wrong


def test_specific_corruptions():
    codec = EfCodec(quantum=4)
    rows = rows_of([(0, [1, 3, 4, 12, 15, 20, 23, 32])], np.uint32)
    good = np.frombuffer(codec.encode(rows), np.uint8).copy()
    p = read_header(good, "ef").payload_start
    chunk = good.copy()
    chunk[p] ^= 1  # first forward pointer (x_3 >> 2 = 3)
    with pytest.raises(CorruptChunkError, match="forward pointer"):
        codec.decode(chunk)
    chunk = good.copy()
    chunk[p + 2] = 0b00001111  # lower bits of x_0, x_1 = 3, 3 and x_2, x_3 = 0, 0 -> 3, 3, 4, 12: still sorted
    codec.decode(chunk)  # a valid, different list
    chunk[p + 2] = 0b00000111  # x_0 = 3, x_1 = 1: decreasing
    with pytest.raises(CorruptChunkError, match="decreasing"):
        codec.decode(chunk)
    chunk = good.copy()
    chunk[HEADER_BYTES + 8] ^= 0b1000  # a record bit: byte offsets or l or degree
    with pytest.raises(CorruptChunkError):
        codec.decode(chunk)
    chunk = good.copy()
    chunk[HEADER_BYTES + 1] = 3  # wl: not the chunk's own
    with pytest.raises(CorruptChunkError):
        codec.decode(chunk)
    chunk = good.copy()
    chunk[p + 6 + 4] = 1  # a slack byte
    with pytest.raises(CorruptChunkError, match="padding"):
        codec.decode(chunk)


def test_non_canonical_lower_width_is_refused():
    """The list [0, 8] has l = floor(log2(8 // 2)) = 2; written with l = 1 it is still decodable
    EF, but not this format's bytes."""
    codec = EfCodec(quantum=0)
    good = np.frombuffer(codec.encode(rows_of([(0, [0, 8])], np.uint32)), np.uint8).copy()
    h = read_header(good, "ef")
    p = h.payload_start
    # l = 1: lower bits 0, 0 (1 byte), upper: h = 0, 4 -> bits 0 and 5 (1 byte)
    bad = good.copy()
    bad[p : p + 2] = [0, 0b00100001]
    _offs, ls, _degs, _q = parse_index(good)
    assert ls == [2]
    rec = int.from_bytes(bad[HEADER_BYTES + 8 : HEADER_BYTES + 16].tobytes(), "little")
    wo, wl = int(bad[HEADER_BYTES]), int(bad[HEADER_BYTES + 1])
    rec = (rec & ~(((1 << wl) - 1) << wo)) | (1 << wo)
    bad[HEADER_BYTES + 8 : HEADER_BYTES + 16] = np.frombuffer(rec.to_bytes(8, "little"), np.uint8)
    with pytest.raises(CorruptChunkError, match="low-bit width"):
        codec.decode(bad)


# ---------------------------------------------------------------------------------------------
# The CPU kernel, through the operators, on hand-built arenas


def oracle(indptr, indices, n, source) -> np.ndarray:
    m = sp.csr_matrix((np.ones(len(indices)), indices.astype(np.int64), indptr), shape=(n, n))
    d = shortest_path(m, unweighted=True, indices=source)
    return np.where(np.isinf(d), -1, d).astype(np.int32)


def random_csr(seed: int, n: int, m: int):
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n, m)
    dst = np.concatenate([rng.integers(0, n, m - m // 4), np.repeat(rng.integers(0, n, m // 8), 2)])[:m]
    src[: m // 10] = src[0]  # one long list, over several chunks
    order = np.lexsort((dst, src))
    src, dst = src[order], dst[order]
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
    return indptr, dst


@pytest.mark.parametrize("dtype", [np.uint32, np.uint64])
@pytest.mark.parametrize("chunk_edges,quantum", [(37, 4), (1000, 512), (4096, 0)])
def test_kernel_bfs_matches_scipy(dtype, chunk_edges, quantum):
    n = 3000
    indptr, indices = random_csr(7, n, 12000)  # duplicates, self-loops, isolated vertices
    g = resident_graph(EfCodec(quantum=quantum), indptr, indices, chunk_edges, dtype)
    for source in (0, int(np.argmax(np.diff(indptr))), n - 1):
        np.testing.assert_array_equal(kernel_distances(g, source), oracle(indptr, indices, n, source))


@njit
def _all_lists(indptr, words, table, chunk_edges, scratch, out):
    k = 0
    for v in range(len(indptr) - 1):
        lo, hi = indptr[v], indptr[v + 1]
        while lo < hi:
            c = lo // chunk_edges
            start = c * chunk_edges
            end = min(hi, start + chunk_edges)
            for u in ef_neighbors(words, table, c, v, lo - start, end - start, scratch):
                out[k] = u
                k += 1
            lo = end
    return k


def test_kernel_returns_every_sub_list_exactly():
    indptr, indices = random_csr(3, 500, 5000)
    g = resident_graph(EfCodec(quantum=2), indptr, indices, 64, np.uint32)
    out = np.empty(len(indices) + 1, np.uint32)
    k = _all_lists(g.indptr, g.words(WORD), g.table, g.chunk_edges, np.empty(64, np.uint32), out)
    assert k == len(indices)
    np.testing.assert_array_equal(out[:k], indices)


@njit
def _take(v, u, e, w, state):
    return True


@njit
def _all_pushed(indptr, words, table, scratch, out):
    k = 0
    for v in range(len(indptr) - 1):
        if indptr[v] < indptr[v + 1]:
            k = ef_push(words, table, 0, v, indptr[v], indptr[v + 1], scratch, _take, (out,), indptr[v], out, k)
    return k


@pytest.mark.parametrize("dtype", [np.uint32, np.uint64])
def test_push_visitor_and_neighbors_decode_every_id(dtype):
    """``ef_push`` (advance's fused loop, no bounds checks) and ``ef_neighbors`` on one valid chunk
    whose ids span the id width: low-bit widths up to 31 or 63, so both low-bit paths. Built by
    hand, since ids this large exceed any vertex count a resident graph would accept."""
    top = np.iinfo(dtype).max
    rng = np.random.default_rng(5)
    lists = [(0, [top]), (1, [top // 2 + 1, top - 1]), (2, [5, top // 16 + 3, top // 4]), (4, [0, 0, 1])]
    spread = rng.integers(0, top, 300, dtype=np.uint64, endpoint=True).astype(dtype).tolist()
    lists += [(5, spread), (6, list(range(40)))]
    rows = rows_of(lists, dtype)
    chunk = np.frombuffer(EfCodec(quantum=8).encode(rows), np.uint8).copy()
    h = read_header(chunk, "ef")
    table = np.array([[0, h.index_start, h.payload_start, h.n_edges, h.first_src, -1]], np.int64)
    indptr = np.zeros(h.last_src - h.first_src + 2, np.int64)
    degrees = np.bincount(rows[:, 0].astype(np.int64) - h.first_src, minlength=len(indptr) - 1)
    np.cumsum(degrees, out=indptr[1:])
    scratch = np.empty(len(rows), dtype)
    out = np.zeros(len(rows) + 1, np.uint64)
    assert _all_pushed(indptr, chunk, table, scratch, out) == len(rows)
    np.testing.assert_array_equal(out[: len(rows)], rows[:, 1])
    out = np.zeros(len(rows) + 1, dtype)
    assert _all_lists(indptr, chunk, table, len(rows), scratch, out) == len(rows)
    np.testing.assert_array_equal(out[: len(rows)], rows[:, 1])


def test_kernel_bfs_on_cnr(cnr_csr):
    indptr, indices = cnr_csr
    g = resident_graph(EfCodec(), indptr, indices, 2**16, np.uint32)
    dist = kernel_distances(g, 100000)
    assert (dist >= 0).all() and dist.max() == 37
    np.testing.assert_array_equal(dist, oracle(indptr, indices, len(indptr) - 1, 100000))
    assert (kernel_distances(g, 0) >= 0).sum() == 311


def test_sub_list_decoder_is_memory_safe_without_checks():
    """``check=False`` (the kernel's mode) on garbage still stays inside the buffers and ends."""
    rng = np.random.default_rng(0)
    out = np.empty(64, np.uint64)
    for _ in range(2000):
        buf = rng.integers(0, 256, int(rng.integers(1, 40)), dtype=np.uint8)
        start = int(rng.integers(0, len(buf)))
        end = int(rng.integers(start, len(buf) + 1))
        r = ef_decode_list(buf, start, end, int(rng.integers(0, 64)), int(rng.integers(0, 64)), int(rng.integers(0, 9)), np.uint64(2**64 - 1), out, 0, False)
        assert r <= 64


# ---------------------------------------------------------------------------------------------
# Fuzz: hostile bytes raise CorruptChunkError or decode to rows the header promises


def fuzz_seeds(seed: int = 12) -> list[tuple[EfCodec, np.ndarray]]:
    """Small valid chunks to mutate: both id widths, several quanta, empty and duplicate lists."""
    rng = np.random.default_rng(seed)
    seeds = []
    for dtype, q, top in [(np.uint32, 512, 2**32), (np.uint32, 4, 1000), (np.uint64, 2, 2**64), (np.uint32, 0, 50)]:
        lists = []
        for s in sorted(rng.choice(40, 12, replace=False)):
            k = int(rng.integers(0, 25))
            ids = rng.integers(0, min(top, 2**64 - 1), k, dtype=np.uint64)
            lists.append((int(s) + 7, ids.tolist()))
        lists.append((60, [5] * 9))
        seeds.append((EfCodec(quantum=q), rows_of(lists, dtype)))
    seeds.append((EfCodec(), np.zeros((0, 2), np.uint32)))
    return seeds


def check_accepted(codec: EfCodec, chunk: np.ndarray, rows: np.ndarray) -> None:
    """A chunk that decodes is consistent with its header and re-encodes to the same bytes."""
    h = read_header(chunk, "ef")
    assert rows.shape == (h.n_edges, 2) and rows.dtype == np.dtype(f"<u{h.id_bytes}")
    if h.n_edges:
        assert rows[0, 0] == h.first_src and rows[-1, 0] == h.last_src
        src, dst = rows[:, 0], rows[:, 1]
        assert not ((src[1:] < src[:-1]) | ((src[1:] == src[:-1]) & (dst[1:] < dst[:-1]))).any()
    q = int.from_bytes(chunk[h.index_start + 4 : h.index_start + 8].tobytes(), "little")
    again = np.frombuffer(EfCodec(quantum=q).encode(rows), np.uint8)
    end = h.payload_start + h.payload_bytes
    assert len(again) == len(chunk)
    assert np.array_equal(again[:16], chunk[:16]) and np.array_equal(again[32:end], chunk[32:end])
    if h.n_edges:
        assert np.array_equal(again[16:32], chunk[16:32])


def structured(rng: np.random.Generator, good: np.ndarray) -> np.ndarray:
    """A chunk whose header and section sizes agree but whose index and payload are random."""
    n_local = int(rng.integers(1, 7))
    wo, wl, wd = (int(x) for x in rng.integers(0, [10, 7, 7]))
    index = pad8(8 + (n_local * (wo + wl + wd) + wo + 7) // 8)
    lists = int(rng.integers(0, 60))
    payload = lists + 8
    out = np.zeros(HEADER_BYTES + index + pad8(payload), np.uint8)
    out[:8] = good[:8]
    first = int(rng.integers(0, 100))
    fields = [(8, 4, int(rng.integers(1, 40))), (12, 4, index), (16, 8, first), (24, 8, first + n_local - 1), (32, 8, payload)]
    for at, width, value in fields:
        out[at : at + width] = np.frombuffer(value.to_bytes(width, "little"), np.uint8)
    out[HEADER_BYTES : HEADER_BYTES + 8] = [wo, wl, wd, 0, int(rng.integers(0, 6)), 0, 0, 0]
    out[HEADER_BYTES + 8 : HEADER_BYTES + index] = rng.integers(0, 256, index - 8, dtype=np.uint8)
    start = HEADER_BYTES + index
    out[start : start + lists] = rng.integers(0, 256, lists, dtype=np.uint8) & rng.integers(0, 256, lists, dtype=np.uint8)
    return out


def mutations(rng: np.random.Generator, good: np.ndarray, count: int):
    """Truncations, bit flips, byte overwrites, header field edits, random and structured bodies."""
    n = len(good)
    for i in range(count):
        kind = i % 6
        if kind == 0:
            yield good[: int(rng.integers(0, n))].copy()
        elif kind == 1:
            bad = good.copy()
            pos = rng.integers(0, n, int(rng.integers(1, 5)))
            np.bitwise_xor.at(bad, pos, (1 << rng.integers(0, 8, len(pos))).astype(np.uint8))
            yield bad
        elif kind == 2:
            bad = good.copy()
            lo = HEADER_BYTES if rng.random() < 0.8 else 0
            bad[rng.integers(lo, n, int(rng.integers(1, 4)))] = rng.integers(0, 256, 1, dtype=np.uint8)
            yield bad
        elif kind == 3:
            bad = good.copy()
            field = int(rng.choice([8, 12, 16, 24, 32]))
            width = 4 if field < 16 else 8
            value = int(rng.choice([0, 1, 2**32 - 1, int(rng.integers(0, 2**31)), 2**63]))
            bad[field : field + width] = np.frombuffer((value % (1 << 8 * width)).to_bytes(width, "little"), np.uint8)
            yield bad
        elif kind == 4:
            size = int(rng.integers(HEADER_BYTES + 8, 200)) // 8 * 8
            bad = rng.integers(0, 256, size, dtype=np.uint8)
            bad[:40] = good[:40]
            body = size - HEADER_BYTES
            index_bytes = int(rng.integers(0, body // 8 + 1)) * 8
            bad[12:16] = np.frombuffer(index_bytes.to_bytes(4, "little"), np.uint8)
            bad[32:40] = np.frombuffer((body - index_bytes - int(rng.integers(0, 8))).to_bytes(8, "little", signed=True), np.uint8)
            bad[8:12] = np.frombuffer(int(rng.integers(0, 50)).to_bytes(4, "little"), np.uint8)
            yield bad
        else:
            yield structured(rng, good)


def run_fuzz(total: int, seed: int = 0) -> tuple[int, int]:
    """Mutate ``total`` chunks; each must raise CorruptChunkError or pass ``check_accepted``."""
    rng = np.random.default_rng(seed)
    seeds = fuzz_seeds(seed + 12)
    accepted = rejected = 0
    per_seed = -(-total // len(seeds))
    for codec, rows in seeds:
        good = np.frombuffer(codec.encode(rows), np.uint8)
        np.testing.assert_array_equal(codec.decode(good), rows)
        for bad in mutations(rng, good, per_seed):
            try:
                out = codec.decode(bad)
            except CorruptChunkError:
                rejected += 1
                continue
            check_accepted(codec, bad, out)
            accepted += 1
    return accepted, rejected


def test_fuzz_100k_hostile_chunks():
    run_fuzz(500, seed=1)  # compile outside the clock
    t = time.perf_counter()
    accepted, rejected = run_fuzz(100_000)
    seconds = time.perf_counter() - t
    assert accepted + rejected >= 100_000
    assert rejected > 80_000  # the rest are other valid chunks: EF's low bits carry no redundancy
    assert seconds < 60, f"fuzz took {seconds:.1f} s"
