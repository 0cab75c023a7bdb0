"""The cgr codec: GCGT's codes and worked example, exact bits against a reference encoder, the
closed-form size, the anchored local index, round trips, the CPU kernel under a BFS, cnr-2000's
size, and hostile bytes."""

from __future__ import annotations

import functools
import itertools
import operator
import time

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from graphtier.codecs.base import local_offsets
from graphtier.codecs.cgr import (
    U32_MAX,
    U64_MAX,
    CgrCodec,
    _local_index,
    _put_gamma,
    _put_zeta,
    decode_sublist,
    read_gamma,
    read_zeta,
    seek,
    sublist_bits,
)
from graphtier.codecs.header import HEADER_BYTES, ChunkHeader, pad8, read_header
from graphtier.errors import CorruptChunkError
from graphtier.kernels.cpu import operators as ops
from graphtier.kernels.cpu.cgr import WORD, cgr_neighbors

from .conftest import (
    csr_to_edges,
    doc_hex_dumps,
    kernel_distances,
    oracle_distances,
    reference_csr,
    resident_from_blobs,
    resident_graph,
)

M64 = 2**64

# ----------------------------------------------------------------------------------------------
# An independent reference, in plain Python: GCGT's compressor (cgr_compressor.hpp) on bit strings.


def gamma(x: int) -> str:
    b = bin(x + 1)[2:]
    return "0" * (len(b) - 1) + b


def zeta(x: int, k: int) -> str:
    if k == 1:
        return gamma(x)
    n = x + 1
    h = (n.bit_length() - 1) // k
    return "0" * h + "1" + format(n, f"0{(h + 1) * k}b")


def int2nat(v: int, u: int) -> int:
    d = (v - u) % M64
    d = d - M64 if d >= 2**63 else d
    return 2 * d if d >= 0 else -2 * d - 1


def split(ids: list[int], min_itv: int) -> tuple[list[tuple[int, int]], list[int]]:
    intervals, residuals = [], []
    i = 0
    while i < len(ids):
        j = i + 1
        while j < len(ids) and ids[j] - ids[j - 1] <= 1:
            j += 1
        distinct = ids[j - 1] - ids[i] + 1
        if min_itv and distinct >= min_itv:
            intervals.append((ids[i], distinct))
            residuals += [ids[t] for t in range(i + 1, j) if ids[t] == ids[t - 1]]
        else:
            residuals += ids[i:j]
        i = j
    return intervals, residuals


def segmented(items, first_code, gap_code, code, seglen, with_segnum=True) -> str:
    """encode_intervals / encode_residuals of the public compressor, item codes as strings."""
    segs, cur, cnt = [], "", 0
    for i in range(len(items)):
        c = code(first_code(i) if cnt == 0 else gap_code(i))
        if seglen and len(gamma(cnt + 1)) + len(cur) + len(c) > seglen:
            segs.append([cnt, cur])
            cnt, cur = 0, ""
            c = code(first_code(i))
        cnt += 1
        cur += c
    if not segs:
        segs.append([cnt, cur])
    else:
        segs[-1][0] += cnt
        for i in range(len(items) - cnt, len(items)):
            segs[-1][1] += code(gap_code(i))
    out = gamma(len(segs) - 1) if with_segnum else ""
    for s, (c, bits) in enumerate(segs):
        buf = gamma(c) + bits
        if s + 1 < len(segs):
            assert len(buf) <= seglen
            buf += "0" * (seglen - len(buf))
        out += buf
    return out


def reference_bits(u: int, ids: list[int], k=3, min_itv=4, seg=256, iseg=256, dup=False) -> str:
    if not ids:
        return ""
    itv, res = split(ids, min_itv)
    inc = 0 if dup else 1

    def itv_code(i, first):
        g = int2nat(itv[i][0], u) if first else itv[i][0] - itv[i - 1][0] - itv[i - 1][1] - 1
        return gamma(g) + gamma(itv[i][1] - min_itv)

    area_i = segmented(itv, lambda i: (i, True), lambda i: (i, False), lambda a: itv_code(*a), iseg, with_segnum=iseg > 0)
    area_r = segmented(res, lambda i: int2nat(res[i], u), lambda i: res[i] - res[i - 1] - inc, lambda x: zeta(x, k), seg)
    return area_i + area_r


# The closed form: sizes only, from the code-length formulas.


def glen(x: int) -> int:
    return 2 * ((x + 1).bit_length() - 1) + 1


def zlen(x: int, k: int) -> int:
    return glen(x) if k == 1 else (((x + 1).bit_length() - 1) // k + 1) * (k + 1)


def area_bits(first_len, gap_len, n_items, seglen, with_segnum=True) -> int:
    """|γ(S-1)| + (S-1) seglen + |γ(c_last)| + the last segment's codes, segments by the greedy rule."""
    if not seglen:
        return glen(n_items) + sum(first_len(i) if i == 0 else gap_len(i) for i in range(n_items))
    starts, cnt, used = [0], 0, 0
    for i in range(n_items):
        c = first_len(i) if cnt == 0 else gap_len(i)
        if glen(cnt + 1) + used + c > seglen:
            starts.append(i)
            cnt, used, c = 0, 0, first_len(i)
        cnt += 1
        used += c
    if len(starts) > 1:
        starts.pop()
    last = starts[-1]
    codes = sum(first_len(i) if i == last else gap_len(i) for i in range(last, n_items))
    return glen(len(starts) - 1) + (len(starts) - 1) * seglen + glen(n_items - last) + codes


def closed_form_bits(u: int, ids: list[int], k=3, min_itv=4, seg=256, iseg=256, dup=False) -> int:
    if not ids:
        return 0
    itv, res = split(ids, min_itv)
    inc = 0 if dup else 1
    i_bits = area_bits(
        lambda i: glen(int2nat(itv[i][0], u)) + glen(itv[i][1] - min_itv),
        lambda i: glen(itv[i][0] - itv[i - 1][0] - itv[i - 1][1] - 1) + glen(itv[i][1] - min_itv),
        len(itv),
        iseg,
    )
    r_bits = area_bits(lambda i: zlen(int2nat(res[i], u), k), lambda i: zlen(res[i] - res[i - 1] - inc, k), len(res), seg)
    return i_bits + r_bits


# The local index, in plain Python integers: 16-byte parameter block, one anchor per 32 entries,
# then each entry's offset from its anchor at one width, LSB-first (a little-endian big integer).

G = 32


def index_size(n_local: int, anchor_bytes: int, w: int) -> int:
    entries = n_local + 1
    size = 16 + anchor_bytes * -(-entries // G) + 4 * (-(-entries * w // 32) + 1)
    return size + -size % 8


def build_index(params: bytes, anchors: list[int], relative: list[int], anchor_bytes: int, w: int | None = None) -> np.ndarray:
    """The index bytes for these anchors and relative offsets (``w`` defaults to the smallest)."""
    w = max(relative).bit_length() if w is None else w
    packed = sum(r << (i * w) for i, r in enumerate(relative))
    out = params[:8] + bytes([w, 5]) + bytes(6) + b"".join(a.to_bytes(anchor_bytes, "little") for a in anchors)
    out += packed.to_bytes(4 * (-(-len(relative) * w // 32) + 1), "little")
    return np.frombuffer(out + bytes(-len(out) % 8), np.uint8)


def index_of(offsets: list[int], params: bytes, anchor_bytes: int) -> np.ndarray:
    anchors = offsets[::G]
    return build_index(params, anchors, [o - anchors[i // G] for i, o in enumerate(offsets)], anchor_bytes)


def read_index(index: np.ndarray, n_local: int) -> tuple[list[int], list[int], int]:
    """(anchors, relative offsets, field width) of a local index."""
    anchor_bytes, w, entries = int(index[3]), int(index[8]), n_local + 1
    n_anchors = -(-entries // G)
    fields = 16 + anchor_bytes * n_anchors
    anchors = [int.from_bytes(index[16 + anchor_bytes * g : 16 + anchor_bytes * (g + 1)].tobytes(), "little") for g in range(n_anchors)]
    packed = int.from_bytes(index[fields:].tobytes(), "little")
    return anchors, [(packed >> (i * w)) & ((1 << w) - 1) for i in range(entries)], w


def bit_offsets_of(index: np.ndarray, n_local: int) -> list[int]:
    anchors, relative, _ = read_index(index, n_local)
    return [anchors[i // G] + r for i, r in enumerate(relative)]


# ----------------------------------------------------------------------------------------------
# Helpers


def rows_of(lists: dict[int, list[int]], dtype=np.uint32) -> np.ndarray:
    rows = [(s, d) for s in sorted(lists) for d in sorted(lists[s])]
    return np.array(rows, dtype=dtype).reshape(-1, 2)


def sections(buf) -> tuple[ChunkHeader, np.ndarray, np.ndarray]:
    data = np.frombuffer(buf, np.uint8)
    h = read_header(data, "cgr")
    return h, data[HEADER_BYTES : h.payload_start], data[h.payload_start : h.payload_start + h.payload_bytes]


def stream_bits(buf) -> tuple[str, list[int]]:
    """(the payload as a bit string, the bit offsets)."""
    h, index, payload = sections(buf)
    bits = "".join(format(int(w), "032b") for w in payload.view("<u4"))
    return bits, bit_offsets_of(index, h.n_local)


def with_index(buf, index: np.ndarray) -> np.ndarray:
    """The chunk with its local index replaced (the header's index size follows)."""
    h, _, payload = sections(buf)
    header = ChunkHeader("cgr", h.id_bytes, h.n_edges, h.first_src, h.last_src, len(index), h.payload_bytes)
    out = np.zeros(header.total_bytes, np.uint8)
    out[:HEADER_BYTES] = np.frombuffer(header.pack(), np.uint8)
    out[header.index_start : header.payload_start] = index
    out[header.payload_start : header.payload_start + h.payload_bytes] = payload
    return out


def params_of(codec: CgrCodec) -> dict:
    return {"k": codec.zeta_k, "min_itv": codec.min_interval, "seg": codec.segment_bits, "iseg": codec.interval_segment_bits}


def check_against_reference(codec: CgrCodec, rows: np.ndarray) -> None:
    """Exact bits per sub-list, the closed form, and the section sizes."""
    buf = codec.encode(rows)
    h, index, _ = sections(buf)
    bits, offsets = stream_bits(buf)
    src, dst = rows[:, 0], rows[:, 1]
    first = int(src[0]) if len(rows) else 0
    lists = local_offsets(src, first, h.n_local) if len(rows) else np.zeros(1, np.int64)
    dup = bool(index[2] & 1)
    assert dup == any((np.diff(dst[a:b].astype(np.uint64)) == 0).any() for a, b in itertools.pairwise(lists))
    total = 0
    for i in range(h.n_local):
        ids = [int(x) for x in dst[lists[i] : lists[i + 1]]]
        ref = reference_bits(first + i, ids, dup=dup, **params_of(codec))
        assert bits[offsets[i] : offsets[i + 1]] == ref, (first + i, ids)
        assert len(ref) == closed_form_bits(first + i, ids, dup=dup, **params_of(codec))
        total += len(ref)
    assert offsets[-1] == total
    assert h.payload_bytes == 4 * ((total + 31) // 32 + 1)
    assert set(bits[total:]) <= {"0"}
    width = 4 if total < 2**32 else 8
    assert index[3] == width
    assert h.index_bytes == index_size(h.n_local, width, int(index[8]))
    np.testing.assert_array_equal(index, index_of(offsets, index[:8].tobytes(), width))
    assert len(buf) == HEADER_BYTES + h.index_bytes + pad8(h.payload_bytes)


# ----------------------------------------------------------------------------------------------
# Codes and the worked examples


@njit
def _codes_roundtrip(values, k):
    words = np.zeros(len(values) * 6 + 8, np.uint32)
    p = 0
    for v in values:
        p = _put_zeta(words, p, v, k) if k else _put_gamma(words, p, v)
    end = p
    out = np.empty(len(values), np.uint64)
    p, buf, nb = seek(words, 0, 0, end)
    for i in range(len(values)):
        if k:
            out[i], p, buf, nb = read_zeta(words, 0, end, p, buf, nb, k)
        else:
            out[i], p, buf, nb = read_gamma(words, 0, end, p, buf, nb)
    return words, end, out, p


def _bitstring(words, end) -> str:
    return "".join(format(int(w), "032b") for w in words)[:end]


TABLE3 = {  # the paper's Table 3: n -> (γ, ζ2, ζ3), n = value + 1
    1: ("1", "101", "1001"),
    2: ("010", "110", "1010"),
    3: ("011", "111", "1011"),
    4: ("00100", "010100", "1100"),
    5: ("00101", "010101", "1101"),
    6: ("00110", "010110", "1110"),
    12: ("0001100", "011100", "01001100"),
    34: ("00000100010", "001100010", "01100010"),
}


@pytest.mark.parametrize("n", sorted(TABLE3))
def test_table3_codes(n):
    for k, expected in zip((0, 2, 3), TABLE3[n]):
        words, end, out, p = _codes_roundtrip(np.array([n - 1], np.uint64), k)
        assert _bitstring(words, end) == expected
        assert out[0] == n - 1 and p == end


@pytest.mark.parametrize("k", [0, 1, 2, 3, 4, 5, 7, 16])
def test_codes_roundtrip_over_the_whole_range(k):
    rng = np.random.default_rng(k)
    values = np.concatenate(
        [
            np.arange(300, dtype=np.uint64),
            rng.integers(0, 2**63, 2000, dtype=np.uint64) >> rng.integers(0, 63, 2000).astype(np.uint64),
            np.array([2**32 - 1, 2**32, 2**33 + 5, 2**63, U64_MAX - 1, U64_MAX], np.uint64),
            # codes of 31 to 34 bits at every alignment: the reader's buffer runs exactly empty
            rng.integers(2**15, 2**17, 3000, dtype=np.uint64),
            rng.integers(2**20, 2**22, 3000, dtype=np.uint64),
            rng.integers(2**23, 2**25, 3000, dtype=np.uint64),
            rng.integers(0, 2**40, 3000, dtype=np.uint64) >> rng.integers(0, 40, 3000).astype(np.uint64),
        ]
    )
    words, end, out, p = _codes_roundtrip(values, k)
    np.testing.assert_array_equal(out, values)
    assert p == end
    bits = _bitstring(words, end)
    expected = "".join(gamma(int(v)) if k in (0, 1) else zeta(int(v), k) for v in values)
    assert bits == expected


def test_worked_example_digest_1_7():
    rows = rows_of({16: [5, 18, 19, 20, 21, 23, 27, 28, 29, 30]})
    buf = np.frombuffer(CgrCodec().encode(rows), np.uint8)
    bits, offsets = stream_bits(buf)
    assert offsets == [0, 36]
    assert bits[:36] == "1011001011001011" + "10110101011001010010"
    assert len(buf) == 88
    assert buf[40:56].tolist() == [3, 4, 0, 4, 0, 1, 0, 1, 6, 5, 0, 0, 0, 0, 0, 0]  # w = 6, log2 G = 5
    assert buf[56:64].view("<u4").tolist() == [0, 36 << 6]  # anchor 0; fields 0 and 36
    assert buf[72:80].view("<u4").tolist() == [0xB2CBB565, 0x20000000]
    np.testing.assert_array_equal(CgrCodec().decode(buf), rows)
    # the hex dump in docs/formats.md's cgr section is this chunk
    assert doc_hex_dumps("cgr") == [buf.tobytes()]


def test_worked_example_duplicates():
    rows = rows_of({3: [2, 2, 5, 6, 6, 7, 8]})
    buf = np.frombuffer(CgrCodec().encode(rows), np.uint8)
    bits, offsets = stream_bits(buf)
    assert buf[42] == 1  # duplicates flag
    assert bits[: offsets[1]] == "1010001011" + "100100101010011101"
    np.testing.assert_array_equal(CgrCodec().decode(buf), rows)


# ----------------------------------------------------------------------------------------------
# Round trips


@st.composite
def sublist(draw, lo: int, hi: int, dups: bool):
    """A sorted list mixing runs (future intervals), scattered ids, repeats and the extremes."""
    parts = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.integers(0, 3))
        if kind == 0:
            start = draw(st.integers(lo, hi))
            parts += list(range(start, min(hi, start + draw(st.integers(1, 12))) + 1))
        elif kind == 1:
            parts += draw(st.lists(st.integers(lo, hi), max_size=10))
        elif kind == 2:
            parts += [hi, lo, hi - 1]
        else:
            start = draw(st.integers(lo, hi))
            parts += draw(st.lists(st.integers(start, min(hi, start + 40)), max_size=12))
    ids = sorted(parts) if dups else sorted(set(parts))
    if dups and ids and draw(st.booleans()):
        ids = sorted(ids + draw(st.lists(st.sampled_from(ids), max_size=5)))
    return ids


@st.composite
def chunks(draw, max_id=2**32 - 2, dtype=np.uint32, dups=None, local=False):
    dups = draw(st.booleans()) if dups is None else dups
    first = draw(st.one_of(st.just(0), st.just(max_id - 64), st.integers(0, max_id - 64)))
    sources = [first + o for o in draw(st.lists(st.integers(0, 64), max_size=16, unique=True))]
    lists = {}
    for s in sources:
        lo, hi = (max(0, s - 3000), min(max_id, s + 3000)) if local and draw(st.booleans()) else (0, max_id)
        lists[s] = draw(sublist(lo, hi, dups))
    return rows_of(lists, dtype)


CODECS = [
    CgrCodec(),
    CgrCodec(zeta_k=1, min_interval=2, segment_bits=132, interval_segment_bits=0),
    CgrCodec(zeta_k=2, min_interval=0, segment_bits=102),
    CgrCodec(zeta_k=5, min_interval=1, segment_bits=400, interval_segment_bits=197),
    CgrCodec(zeta_k=16, min_interval=9, segment_bits=4096, interval_segment_bits=1024),
]


@settings(max_examples=300, deadline=None)
@given(chunks(local=True), st.sampled_from(range(len(CODECS))))
def test_roundtrip_uint32_exact_bits(rows, which):
    codec = CODECS[which]
    np.testing.assert_array_equal(codec.decode(codec.encode(rows)), rows)
    check_against_reference(codec, rows)


@settings(max_examples=200, deadline=None)
@given(chunks(max_id=2**64 - 2, dtype=np.uint64, local=True), st.sampled_from(range(len(CODECS))))
def test_roundtrip_uint64_extremes(rows, which):
    codec = CODECS[which]
    out = codec.decode(codec.encode(rows))
    assert out.dtype == np.uint64
    np.testing.assert_array_equal(out, rows)
    check_against_reference(codec, rows)


@settings(max_examples=100, deadline=None)
@given(chunks(dups=True, local=True))
def test_roundtrip_duplicates(rows):
    codec = CgrCodec()
    np.testing.assert_array_equal(codec.decode(codec.encode(rows)), rows)
    check_against_reference(codec, rows)


def test_largest_ids_and_empty_lists():
    for dtype, top in ((np.uint32, 2**32 - 2), (np.uint64, 2**64 - 2)):
        lists = {
            0: [0, top],
            1: [],
            5: [top - 5, top - 4, top - 3, top - 2, top - 1, top],
            6: [0, 1, 2, 3, top],
            top - 2: [0],
            top: [top, top, top],
        }
        for codec in CODECS:
            part = {s: v for s, v in lists.items() if s < 10}
            for chunk in (part, {s: v for s, v in lists.items() if s >= 10}):
                rows = rows_of(chunk, dtype)
                np.testing.assert_array_equal(codec.decode(codec.encode(rows)), rows)
                check_against_reference(codec, rows)


def test_empty_chunk_and_empty_middle_lists():
    codec = CgrCodec()
    empty = np.zeros((0, 2), np.uint32)
    buf = codec.encode(empty)
    assert codec.decode(buf).shape == (0, 2)
    assert len(buf) == 40 + 24 + 8  # parameters, anchor 0, no fields (w = 0), spare word; one spare payload word
    rows = rows_of({10: [1], 200: [2, 3]})  # 189 empty lists in between: 0 bits each
    h, index, _ = sections(codec.encode(rows))
    offsets = bit_offsets_of(index, h.n_local)
    assert h.n_local == 191 and offsets[1:-1] == [offsets[1]] * 190
    np.testing.assert_array_equal(codec.decode(codec.encode(rows)), rows)


@pytest.mark.parametrize("dups", [False, True])
def test_many_segments_and_many_sources(dups):
    rng = np.random.default_rng(7)
    lists = {}
    for s in range(0, 3000, 3):
        n = int(rng.integers(0, 40))
        base = int(rng.integers(0, 10**6))
        ids = np.sort(rng.integers(base, base + 5000, n)).tolist()
        lists[s] = ids if dups else sorted(set(ids))
    lists[3000] = sorted(set(rng.integers(0, 2**32 - 2, 20000).tolist()))  # about 30 bits a gap: ~2500 segments
    lists[3001] = list(range(100, 60000, 2)) + list(range(70000, 71000))  # long residual chain, one interval
    lists[3002] = functools.reduce(operator.iadd, (list(range(b, b + 5)) for b in range(0, 10**6, 97)), [])  # ~10,000 intervals: many interval segments
    if dups:
        lists[3002] = sorted(lists[3002] + lists[3002][::7])
    rows = rows_of(lists)
    for codec in (CgrCodec(), CgrCodec(segment_bits=91, interval_segment_bits=197), CgrCodec(interval_segment_bits=0)):
        buf = codec.encode(rows)
        np.testing.assert_array_equal(codec.decode(buf), rows)
        check_against_reference(codec, rows)


@njit
def _neighbors(words, table, c, v, lo, hi, scratch):
    return cgr_neighbors(words, table, c, v, lo, hi, scratch).copy()


def test_64bit_anchors_decode():
    """Chunks whose stream reaches 2**32 bits get 8-byte anchors; rewrite a small chunk that way."""
    rows = rows_of({4: [1, 2, 3, 4, 9, 100], 5: [], 6: [7]})
    codec = CgrCodec()
    wide = widen(codec.encode(rows))
    np.testing.assert_array_equal(codec.decode(wide), rows)
    indptr = np.array([0] * 5 + [6, 6] + [7] * 95)
    g = resident_from_blobs(CgrCodec(), [wide], indptr, 8)
    scratch = ops.scratch_for(8, np.uint32)
    assert _neighbors(g.words(WORD), g.table, 0, 4, 0, 6, scratch[0]).tolist() == [1, 2, 3, 4, 9, 100]
    assert _neighbors(g.words(WORD), g.table, 0, 6, 6, 7, scratch[0]).tolist() == [7]


def widen(buf) -> np.ndarray:
    """The chunk with 8-byte anchors."""
    h, index, _ = sections(buf)
    params = bytearray(index[:8].tobytes())
    params[3] = 8
    return with_index(buf, index_of(bit_offsets_of(index, h.n_local), bytes(params), 8))


@njit
def _all_sublist_bits(words, n_local):
    out = np.empty((n_local, 2), np.int64)
    for i in range(n_local):
        out[i, 0], out[i, 1] = sublist_bits(words, 0, n_local, i)
    return out


@pytest.mark.parametrize("scale", [1, 2**20, 2**40, 2**48])
def test_lookup_with_64bit_anchors_and_wide_fields(scale):
    """Fields of up to 64 bits (only possible with 8-byte anchors, streams of 2**32 bits and more)
    need a third word when they straddle two word boundaries: the lookup against the reference."""
    rng = np.random.default_rng(scale)
    gaps = [int(x) * scale + int(y) for x, y in zip(rng.integers(0, 100, 300), rng.integers(0, 2**20, 300))]
    gaps[40] += 2**64 - 1 - sum(gaps)  # the stream ends at 2**64 - 1: group 1 needs 64-bit fields
    offsets = [0]
    for gap in gaps:
        offsets.append(offsets[-1] + gap)
    params = bytes([3, 4, 0, 8, 0, 1, 0, 1])
    index = index_of(offsets, params, 8)
    assert index[8] == 64
    got = _all_sublist_bits(index.copy().view("<u4"), len(offsets) - 1).view(np.uint64)
    assert got[:, 0].tolist() == offsets[:-1] and got[:, 1].tolist() == offsets[1:]
    # before the long gap: narrower fields (up to about 50 bits), and the encoder's packing of them
    for n_local in (40, 33, 31):
        part = offsets[: n_local + 1]
        index = index_of(part, params, 8)
        np.testing.assert_array_equal(_local_index(params, np.array(part, np.int64), 8), index)
        got = _all_sublist_bits(index.copy().view("<u4"), n_local)
        assert got[:, 0].tolist() == part[:-1] and got[:, 1].tolist() == part[1:]


def test_index_closed_form_and_group_boundaries():
    """Sizes and bytes of indexes with 1, 31, 32, 33, 64 and 65 entries, against the reference."""
    for n_local in (0, 30, 31, 32, 63, 64, 100):
        lists = {s: [s % 7] * (s % 3) for s in range(5, 5 + n_local)}  # empty lists, repeats
        if n_local:
            lists[5], lists[4 + n_local] = [1], [2]
        rows = rows_of(lists)
        for codec in (CgrCodec(), CgrCodec(min_interval=0)):
            buf = codec.encode(rows)
            h, index, _ = sections(buf)
            assert h.n_local == n_local
            assert h.index_bytes == index_size(n_local, 4, int(index[8]))
            np.testing.assert_array_equal(codec.decode(buf), rows)
            check_against_reference(codec, rows)


def test_unsorted_rows_are_refused_and_bad_parameters():
    with pytest.raises(ValueError, match="not sorted"):
        CgrCodec().encode(np.array([[2, 0], [1, 0]], np.uint32))
    for bad in ({"zeta_k": 0}, {"zeta_k": 17}, {"min_interval": 256}, {"segment_bits": 90}, {"segment_bits": 70000}, {"interval_segment_bits": 100}):
        with pytest.raises(ValueError):
            CgrCodec(**bad)


def test_config_roundtrip_through_numcodecs_registry():
    from numcodecs import get_codec, register_codec

    register_codec(CgrCodec)
    codec = CgrCodec(zeta_k=2, min_interval=3, segment_bits=512, interval_segment_bits=0)
    again = get_codec(codec.get_config())
    assert isinstance(again, CgrCodec)
    assert (
        again.get_config()
        == codec.get_config()
        == {
            "id": "graphtier.cgr",
            "zeta_k": 2,
            "min_interval": 3,
            "segment_bits": 512,
            "interval_segment_bits": 0,
        }
    )
    rows = rows_of({1: [1, 2, 3, 4, 8]})
    np.testing.assert_array_equal(again.decode(codec.encode(rows)), rows)


def test_chunk_decodes_with_its_own_parameters():
    rows = rows_of({1: [1, 2, 3, 10, 50, 51, 52, 53]})
    buf = CgrCodec(zeta_k=5, min_interval=2).encode(rows)
    np.testing.assert_array_equal(CgrCodec().decode(buf), rows)


def test_check_rejects_ids_beyond_the_graph():
    rows = np.array([[0, 1], [1, 900]], np.uint32)
    buf = CgrCodec().encode(rows)
    header, offsets = CgrCodec().check(buf, 901)
    assert header.n_edges == 2 and offsets.tolist() == [0, 1, 2]
    with pytest.raises(CorruptChunkError, match="vertex id"):
        CgrCodec().check(buf, 900)


# ----------------------------------------------------------------------------------------------
# The CPU kernel, under the operators


def random_graph(seed, n=3000, m=40000):
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n, m)
    runs = rng.random(m) < 0.3
    dst = np.where(runs, (src + (np.arange(m) % 9)) % n, rng.integers(0, n, m))
    m_ = sp.csr_matrix((np.ones(m), (src, dst)), shape=(n, n))
    m_.sum_duplicates()
    return m_.indptr.astype(np.int64), m_.indices.astype(np.uint32)


@pytest.mark.parametrize("chunk_edges", [1000, 2**20])
@pytest.mark.parametrize("dtype", [np.uint32, np.uint64])
def test_kernel_bfs_matches_scipy(chunk_edges, dtype):
    indptr, indices = random_graph(chunk_edges)
    g = resident_graph(CgrCodec(), indptr, indices, chunk_edges, dtype)
    ref = reference_csr(csr_to_edges(indptr, indices), len(indptr) - 1)
    for source in (0, 17, int(np.argmax(np.diff(indptr)))):
        np.testing.assert_array_equal(kernel_distances(g, source), oracle_distances(ref, source))


def test_kernel_returns_each_sorted_sublist():
    indptr, indices = random_graph(3)
    ce = 777
    g = resident_graph(CgrCodec(min_interval=2, segment_bits=128), indptr, indices, ce)
    scratch = ops.scratch_for(ce, np.uint32)
    words = g.words(WORD)
    for v in range(len(indptr) - 1):
        lo, hi = int(indptr[v]), int(indptr[v + 1])
        got = []
        while lo < hi:
            c = lo // ce
            end = min(hi, (c + 1) * ce)
            got += _neighbors(words, g.table, c, v, lo - c * ce, end - c * ce, scratch[0]).tolist()
            lo = end
        assert got == indices[indptr[v] : indptr[v + 1]].tolist()


def test_kernel_with_duplicates():
    indptr = np.array([0, 6, 6, 9], np.int64)
    indices = np.array([1, 1, 2, 2, 2, 2, 0, 0, 2], np.uint32)
    g = resident_graph(CgrCodec(), indptr, indices, 4)
    scratch = ops.scratch_for(4, np.uint32)
    words = g.words(WORD)
    assert _neighbors(words, g.table, 0, 0, 0, 4, scratch[0]).tolist() == [1, 1, 2, 2]
    assert _neighbors(words, g.table, 1, 0, 0, 2, scratch[0]).tolist() == [2, 2]
    assert _neighbors(words, g.table, 1, 2, 2, 4, scratch[0]).tolist() == [0, 0]
    assert _neighbors(words, g.table, 2, 2, 0, 1, scratch[0]).tolist() == [2]
    np.testing.assert_array_equal(kernel_distances(g, 2), [1, 2, 0])


# ----------------------------------------------------------------------------------------------
# cnr-2000


def test_cnr2000_size_and_roundtrip(cnr_csr):
    indptr, indices = cnr_csr
    rows = csr_to_edges(indptr, indices).astype(np.uint32)
    n_edges = len(rows)
    codec = CgrCodec()
    for chunk_edges in (2**20, n_edges):
        payload = bits = index_bytes = 0
        for a in range(0, n_edges, chunk_edges):
            part = rows[a : a + chunk_edges]
            buf = codec.encode(part)
            h, index, _ = sections(buf)
            bits += bit_offsets_of(index, h.n_local)[-1]
            payload += h.payload_bytes
            index_bytes += h.index_bytes
            assert h.index_bytes == index_size(h.n_local, 4, int(index[8]))
            np.testing.assert_array_equal(codec.decode(buf), part)
        assert payload * 8 / n_edges <= 4.68
        assert index_bytes == {2**20: 609_488, n_edges: 610_448}[chunk_edges]  # 1.52 bits per edge
    # one chunk: every non-empty list is GCGT's bits; GCGT adds 4 bits per empty list
    empty = int((np.diff(indptr) == 0).sum())
    assert (bits + 4 * empty + 7) // 8 == 1_880_170
    # the closed form, list by list
    total = sum(closed_form_bits(v, indices[indptr[v] : indptr[v + 1]].tolist()) for v in range(len(indptr) - 1))
    assert total == bits


def test_cnr2000_kernel_bfs(cnr_csr):
    indptr, indices = cnr_csr
    g = resident_graph(CgrCodec(), indptr, indices, 2**20)
    ref = reference_csr(csr_to_edges(indptr, indices), len(indptr) - 1)
    for source, reached in ((100000, 325_557), (0, 311)):
        dist = kernel_distances(g, source)
        assert (dist >= 0).sum() == reached
        np.testing.assert_array_equal(dist, oracle_distances(ref, source))


# ----------------------------------------------------------------------------------------------
# Hostile bytes


def fuzz_seeds() -> list[np.ndarray]:
    """Small valid chunks covering every feature: intervals, segments, repeats, 64-bit ids, wide offsets."""
    rng = np.random.default_rng(0)
    seeds = []
    for dtype, top in ((np.uint32, 2**32 - 2), (np.uint64, 2**64 - 2)):
        lists = {s: sorted(set(rng.integers(0, 3000, rng.integers(0, 30)).tolist())) for s in range(40, 60)}
        lists[60] = list(range(500, 540)) + [top]
        lists[61] = sorted(rng.integers(0, 200, 60).tolist())  # repeats
        seeds.append(rows_of(lists, dtype))
        seeds.append(rows_of({top - 1: [0, top - 1, top], top: list(range(5, 30))}, dtype))
    chunks = []
    for rows in seeds:
        for codec in (CgrCodec(), CgrCodec(segment_bits=91, interval_segment_bits=197), CgrCodec(zeta_k=1, segment_bits=132, interval_segment_bits=0)):
            chunks.append(np.frombuffer(codec.encode(rows), np.uint8))
    chunks.append(widen(chunks[0]))
    return chunks


def mutate(rng, seeds, n):
    """n hostile inputs from the seeds: truncations, bit flips (header, index, payload), random
    bytes over a valid prefix, and noise behind a plausible header."""
    for i in range(n):
        good = seeds[i % len(seeds)]
        kind = i % 5
        if kind == 0:
            yield good[: rng.integers(0, len(good))]
        elif kind in (1, 2):
            bad = good.copy()
            lo = 0 if kind == 1 else HEADER_BYTES
            for pos in rng.integers(lo, len(bad), rng.integers(1, 5)):
                bad[pos] ^= np.uint8(1 << rng.integers(0, 8))
            yield bad
        elif kind == 3:
            bad = good.copy()
            start = int(rng.integers(HEADER_BYTES, len(bad)))
            stop = min(len(bad), start + int(rng.integers(1, 16)))
            bad[start:stop] = rng.integers(0, 256, stop - start, dtype=np.uint8)
            yield bad
        else:
            noise = rng.integers(0, 256, rng.integers(0, 160), dtype=np.uint8)
            head = good[: min(HEADER_BYTES + 16, len(noise))].copy()  # header and parameter block
            noise[: len(head)] = head
            yield noise


def decode_consistently(codec: CgrCodec, buf) -> bool:
    """Decode hostile bytes: CorruptChunkError, or rows consistent with the header. True if decoded."""
    try:
        out = codec.decode(buf)
    except CorruptChunkError:
        return False
    h = read_header(np.asarray(buf), "cgr")
    assert out.shape == (h.n_edges, 2)
    if h.n_edges:
        src = out[:, 0].astype(np.uint64)
        assert src[0] >= h.first_src and src[-1] <= h.last_src
        order = np.lexsort((out[:, 1], out[:, 0]))
        assert (order == np.arange(len(out))).all()
    return True


def run_fuzz(n: int, seed: int = 1) -> dict:
    codec = CgrCodec()
    seeds = fuzz_seeds()
    rng = np.random.default_rng(seed)
    decoded = 0
    for buf in mutate(rng, seeds, n):
        decoded += decode_consistently(codec, buf)
    return {"inputs": n, "decoded": decoded, "rejected": n - decoded}


def test_truncations_all_raise():
    codec = CgrCodec()
    for good in fuzz_seeds():
        for cut in range(len(good)):
            with pytest.raises(CorruptChunkError):
                codec.decode(good[:cut])


def test_fuzz_100k_hostile_inputs():
    t0 = time.perf_counter()
    stats = run_fuzz(100_000)
    seconds = time.perf_counter() - t0
    assert stats["rejected"] > 50_000
    assert seconds < 60, stats


def hostile_indexes(buf) -> list[tuple[str, np.ndarray, str]]:
    """(what is wrong, local index, expected message) for a chunk of several groups, each index
    exactly the right size unless its size is what is wrong."""
    h, index, _ = sections(buf)
    params = index[:16].tobytes()
    anchors, relative, w = read_index(index, h.n_local)
    entries = h.n_local + 1
    assert len(anchors) >= 3 and w >= 2

    def changed(at, value):
        bad = index.copy()
        bad[at] ^= value
        return bad

    def rebuilt(anchor=None, entry=None, value=None, width=None):
        a, r = list(anchors), list(relative)
        if anchor is not None:
            a[anchor] = value
        if entry is not None:
            r[entry] = value
        return build_index(params, a, r, 4, width)

    rise = next(i for i in range(1, G - 1) if relative[i] < relative[i + 1])
    swapped = list(relative)
    swapped[rise], swapped[rise + 1] = swapped[rise + 1], swapped[rise]
    fields = 16 + 4 * len(anchors)
    last_bit = entries * w
    return [
        ("fields one bit wider", rebuilt(width=w + 1), "field width"),
        ("field width byte one less", changed(8, w ^ (w - 1)), "cgr"),
        ("33-bit fields with 4-byte anchors", changed(8, w ^ 33), "index parameters"),
        ("groups of 16", changed(9, 5 ^ 4), "index parameters"),
        *((f"reserved byte {b}", changed(b, 1), "index parameters") for b in range(10, 16)),
        ("anchor 1 is not entry 32", rebuilt(entry=G, value=1), "anchor differs"),
        ("anchor 1 above anchor 2", rebuilt(anchor=1, value=anchors[2] + 1), "ascend"),
        ("anchor beyond the payload", rebuilt(anchor=len(anchors) - 1, value=2**31), "beyond the payload"),
        ("offsets not monotone", build_index(params, anchors, swapped, 4), "ascend"),
        ("last offset short of the stream", rebuilt(entry=entries - 1, value=relative[-1] - 1, width=w), "cgr"),
        ("index truncated by 8 bytes", index[:-8], "index size"),
        ("index 8 bytes longer", np.concatenate([index, np.zeros(8, np.uint8)]), "index size"),
        ("a bit set after the last field", changed(fields + last_bit // 8, 1 << (last_bit % 8)), "nonzero bits"),
        ("spare word set", changed(fields + 4 * -(-last_bit // 32), 0x80), "nonzero bits"),
    ]


def test_hostile_index_bytes_raise_naming_the_chunk():
    indptr, indices = random_graph(5, n=600, m=8000)
    ce = 3000
    rows = csr_to_edges(indptr, indices).astype(np.uint32)
    blobs = [CgrCodec().encode(rows[a : a + ce]) for a in range(0, len(rows), ce)]
    resident_from_blobs(CgrCodec(), blobs, indptr, ce)
    cases = hostile_indexes(blobs[1])
    wide = widen(blobs[1])
    wide_index = sections(wide)[1].copy()
    wide_index[8] = 65
    cases.append(("65-bit fields with 8-byte anchors", wide_index, "index parameters"))
    for what, index, message in cases:
        bad = list(blobs)
        bad[1] = with_index(blobs[1], index)
        with pytest.raises(CorruptChunkError, match=f"^adj chunk 1: .*{message}") as e:
            resident_from_blobs(CgrCodec(), bad, indptr, ce)
        assert e.value.chunk == 1, what


def test_decoder_status_codes_are_negative_and_bounded():
    """The sub-list decoder called directly on garbage never reads past its bounds or hangs."""
    rng = np.random.default_rng(3)
    out = np.empty(64, np.uint32)
    for _ in range(20_000):
        words = rng.integers(0, 2**32, 6, dtype=np.uint64).astype(np.uint32)
        words[-1] = 0
        end = int(rng.integers(1, 32 * 5 + 1))
        n = int(rng.integers(0, 64))
        args = (int(rng.integers(1, 17)), int(rng.integers(0, 256)), int(rng.integers(1, 300)), int(rng.integers(0, 300)), bool(rng.integers(0, 2)))
        status = decode_sublist(words, 0, 0, end, np.uint64(rng.integers(0, 2**32)), *args, U32_MAX, out, n)
        assert status == n or status < 0
