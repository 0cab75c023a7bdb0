"""GCGT's Compressed Graph Representation (Sha et al., SIGMOD'19), bit for bit as its public code.

Each sub-list (the out-list of one local source ``u``) is split into intervals (maximal runs of at
least ``min_interval`` consecutive ids) and residuals. The interval area comes first, then the
residual area, both cut into fixed-length segments that decode independently:

    interval area  γ(nseg-1) { γ(cnt) { γ(start gap) γ(len - min_interval) }*  pad to interval_segment_bits }*
    residual area  γ(nseg-1) { γ(cnt) { ζk(residual gap) }*                    pad to segment_bits }*

The last segment of each area is not padded. The first interval start and the first residual of
every segment are coded relative to ``u`` through WebGraph's ``int2nat`` (zigzag); later ones as
gaps from their predecessor. Every code writes ``value + 1``; bits are MSB-first in little-endian
uint32 words (GCGT's device-memory image). An empty sub-list takes no bits at all. The exact
layout, the local index and the closed-form size are in ``docs/formats.md`` (section ``cgr``).

Departures from the public code, all exact: lists may hold duplicates (a chunk that has any sets
a flag, and its residual gaps then drop the ``-1``; the extra copies of a value that starts or
lies inside an interval are kept as residuals); 64-bit ids take first gaps modulo 2**64, so every
stored value fits 64 bits (``value + 1`` up to 2**64, which γ and ζ write with 65 significant bits).

Everything bit-level is one Numba reader/writer; :func:`decode_sublist` decodes one sub-list and
serves both ``decode_lists`` and the CPU kernel ``graphtier.kernels.cpu.cgr.cgr_neighbors``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import leading_zeros

from ..errors import CorruptChunkError
from .base import GraphChunkCodec
from .bits import bit_length
from .header import ChunkHeader, pad8

# The local index: a 16-byte parameter block, one anchor (absolute bit offset, 4 or 8 bytes) per
# group of GROUP entries, then every entry's offset from its anchor, bit-packed at one width.
PARAM_BYTES = 16
PARAM_WORDS = PARAM_BYTES // 4
GROUP_LOG2 = 5
GROUP = 1 << GROUP_LOG2
FLAG_DUPLICATES = 1  # residual gaps are stored without the -1: equal neighbours may follow each other

# Decoder status codes (negative; a count otherwise).
E_TRUNCATED, E_CODE, E_ID, E_COUNT, E_SEGMENTS, E_ORDER, E_END = -1, -2, -3, -4, -5, -6, -7
ERRORS = {
    E_TRUNCATED: "a code runs past the end of its sub-list",
    E_CODE: "a code is malformed or not in canonical form",
    E_ID: "a decoded id falls outside the id width",
    E_COUNT: "a sub-list's ids do not add up to its count",
    E_SEGMENTS: "more segments than the sub-list's bits can hold",
    E_ORDER: "intervals or segments are not in ascending order",
    E_END: "a sub-list does not end exactly where the index says",
}

_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U32 = np.uint64(32)
_LOW32 = np.uint64(0xFFFFFFFF)
U64_MAX = np.uint64(0xFFFFFFFFFFFFFFFF)
U32_MAX = np.uint64(0xFFFFFFFF)

# The decoder allocates nothing, so it is compiled without reference counting (``_nrt=False``):
# otherwise every inlined read would increment and decrement the arena's reference count
# atomically, a quarter of the decode time on one core and contention across threads.
# Readers of a few lines are inlined in Numba's IR; larger ones are called (LLVM may still inline
# them): inlined in the IR at every call site they made the first compile far longer, no faster.
_reader = njit(cache=True, _nrt=False)
_inline_reader = njit(cache=True, inline="always", _nrt=False)

# Largest code for any value of a 64-bit field: γ(2**64) is 129 bits, ζk(2**64) is (64//k+1)(k+1).
_GAMMA_MAX_BITS = 129


def max_code_bits(k: int) -> int:
    return _GAMMA_MAX_BITS if k == 1 else (64 // k + 1) * (k + 1)


def min_segment_bits(k: int) -> int:
    """A fresh residual segment must hold γ(count 1) and the longest ζk code."""
    return 3 + max_code_bits(k)


MIN_INTERVAL_SEGMENT_BITS = 3 + _GAMMA_MAX_BITS + 65  # γ(count 1), longest start, longest length

# ----------------------------------------------------------------------------------------------
# Bit reader. ``words`` are uint32 holding the stream MSB-first from word ``base`` on. A reader is
# the state (p, buf, nb): the next bit's position and a 64-bit buffer whose top ``nb`` bits are
# the stream from p on. Every read checks p against ``end`` (one past the last bit it may use)
# first. Loads stay inside the payload because a position p < end always has a word after its
# own: the payload keeps one spare word, and the index puts every end at or before it.


@_inline_reader
def _window(words, base, p):
    """64 bits from bit ``p`` on, MSB-aligned; at least the top 33 are stream bits."""
    i = np.uint64(base + (p >> 5))  # unsigned: no negative-index wraparound code
    w = (np.uint64(words[i]) << _U32) | np.uint64(words[i + _U1])
    return w << np.uint64(p & 31)


@_inline_reader
def seek(words, base, p, end):
    """A reader at bit ``p`` (nothing loaded when p >= end: every read then fails)."""
    if p >= end:
        return p, _U0, 0
    return p, _window(words, base, p), 64 - (p & 31)


@_inline_reader
def _fill(words, base, p, buf, nb):
    """Top up the buffer to at least 33 bits (the caller checked p < end).

    ``p + nb`` is always a multiple of 32: one more word is enough unless the buffer ran empty.
    """
    if nb <= 32:
        if nb == 0:
            return _window(words, base, p), 64
        i = np.uint64(base + ((p + nb) >> 5))
        buf |= np.uint64(words[i]) << np.uint64(32 - nb)
        nb += 32
    return buf, nb


@_inline_reader
def _bits(words, base, p, width):
    """``width`` (0..64) bits at ``p`` as an integer; the caller checked p + width <= end."""
    if width == 0:
        return _U0
    if width <= 32:
        return _window(words, base, p) >> np.uint64(64 - width)
    hi = _window(words, base, p) >> np.uint64(96 - width)
    lo = _window(words, base, p + width - 32) >> _U32
    return (hi << _U32) | lo


@_reader
def _zeros(words, base, p, end, limit):
    """Zeros before the next 1 bit at ``p`` (at most ``limit``), or a negative status."""
    z = 0
    while True:
        q = p + z
        if q >= end:
            return E_TRUNCATED
        top = _window(words, base, q) >> _U32
        if top == 0:
            z += 32
        else:
            z += np.int64(leading_zeros(top)) - 32
            break
        if z > limit:
            return E_CODE
    if z > limit:
        return E_CODE
    return z


@_reader
def _gamma_slow(words, base, p, end):
    """γ codes of more than 33 bits (values of 2**16 and up), from positions."""
    z = _zeros(words, base, p, end, 64)
    if z < 0:
        return _U0, z
    q = p + z + 1
    if q + z > end:
        return _U0, E_TRUNCATED
    if z == 64:
        if _bits(words, base, q, 64) != 0:
            return _U0, E_CODE
        return U64_MAX, q + 64
    return ((_U1 << np.uint64(z)) - _U1) + _bits(words, base, q, z), q + z


@_reader
def _zeta_slow(words, base, p, end, k):
    """ζk codes of more than 33 bits, from positions; canonical form required."""
    hmax = 64 // k
    h = _zeros(words, base, p, end, hmax)
    if h < 0:
        return _U0, h
    q = p + h + 1
    width = (h + 1) * k
    if q + width > end:
        return _U0, E_TRUNCATED
    hk = h * k
    if width > 64:
        hi = _bits(words, base, q, width - 64)
        lo = _bits(words, base, q + width - 64, 64)
        if hi == 0:
            if hk >= 64 or lo < (_U1 << np.uint64(hk)):
                return _U0, E_CODE
            return lo - _U1, q + width
        if hi == 1 and lo == 0 and h == hmax:
            return U64_MAX, q + width
        return _U0, E_CODE
    n = _bits(words, base, q, width)
    if n < (_U1 << np.uint64(hk)):
        return _U0, E_CODE
    return n - _U1, q + width


@_inline_reader
def read_gamma(words, base, end, p, buf, nb):
    """Elias γ: (value, p, buf, nb) after it; p negative on error."""
    if p >= end:
        return _U0, E_TRUNCATED, buf, nb
    buf, nb = _fill(words, base, p, buf, nb)
    z = np.int64(leading_zeros(buf))
    if z <= 16:
        n = 2 * z + 1
        if p + n > end:
            return _U0, E_TRUNCATED, buf, nb
        return (buf >> np.uint64(64 - n)) - _U1, p + n, buf << np.uint64(n), nb - n
    x, p = _gamma_slow(words, base, p, end)
    if p < 0:
        return x, p, buf, nb
    p, buf, nb = seek(words, base, p, end)
    return x, p, buf, nb


@_inline_reader
def read_zeta(words, base, end, p, buf, nb, k):
    """GCGT's ζk (γ when k == 1): (value, p, buf, nb) after it; p negative on error."""
    if k == 1:
        return read_gamma(words, base, end, p, buf, nb)
    if p >= end:
        return _U0, E_TRUNCATED, buf, nb
    buf, nb = _fill(words, base, p, buf, nb)
    h = np.int64(leading_zeros(buf))
    n = (h + 1) * (k + 1)
    if n <= 33:
        if p + n > end:
            return _U0, E_TRUNCATED, buf, nb
        width = n - h - 1
        v = (buf >> np.uint64(64 - n)) & ((_U1 << np.uint64(width)) - _U1)
        if v < (_U1 << np.uint64(width - k)):  # canonical: more than h*k significant bits
            return _U0, E_CODE, buf, nb
        return v - _U1, p + n, buf << np.uint64(n), nb - n
    x, p = _zeta_slow(words, base, p, end, k)
    if p < 0:
        return x, p, buf, nb
    p, buf, nb = seek(words, base, p, end)
    return x, p, buf, nb


# ----------------------------------------------------------------------------------------------
# Bit writer: ``words`` start zeroed, so zeros are skipped, not written.


@njit(cache=True, inline="always")
def _put32(words, p, v, width):
    """OR the low ``width`` (1..32) bits of ``v`` in at bit ``p``."""
    x = (v & ((_U1 << np.uint64(width)) - _U1)) << np.uint64(64 - width - (p & 31))
    i = p >> 5
    words[i] |= np.uint32(x >> _U32)
    words[i + 1] |= np.uint32(x & _LOW32)


@njit(cache=True, nogil=True)
def _put(words, p, v, width):
    """Write the low ``width`` (0..64) bits of ``v`` at ``p``; return p + width."""
    if width > 0:
        if width > 32:
            _put32(words, p, v >> _U32, width - 32)
            _put32(words, p + width - 32, v & _LOW32, 32)
        else:
            _put32(words, p, v, width)
    return p + width


@njit(cache=True, nogil=True)
def gamma_bits(x):
    if x == U64_MAX:
        return _GAMMA_MAX_BITS
    return 2 * bit_length(x + _U1) - 1


@njit(cache=True, nogil=True)
def zeta_bits(x, k):
    if k == 1:
        return gamma_bits(x)
    ln = 64 if x == U64_MAX else bit_length(x + _U1) - 1
    return (ln // k + 1) * (k + 1)


@njit(cache=True, nogil=True)
def _put_gamma(words, p, x):
    if x == U64_MAX:
        return _put(words, p + 64, _U1, 1) + 64
    n = x + _U1
    ln = bit_length(n) - 1
    return _put(words, p + ln, n, ln + 1)


@njit(cache=True, nogil=True)
def _put_zeta(words, p, x, k):
    if k == 1:
        return _put_gamma(words, p, x)
    ln = 64 if x == U64_MAX else bit_length(x + _U1) - 1
    h = ln // k
    width = (h + 1) * k
    p = _put(words, p + h, _U1, 1)
    if x == U64_MAX:
        return _put(words, p + width - 65, _U1, 1) + 64
    return _put(words, p + width - ln - 1, x + _U1, ln + 1)


@njit(cache=True, inline="always")
def int2nat(v, u):
    """WebGraph's int2nat of ``v - u`` taken modulo 2**64 (exact for ids below 2**63)."""
    d = v - u
    return (d << _U1) ^ (_U0 - (d >> np.uint64(63)))


@_inline_reader
def nat2int(z, u):
    return u + ((z >> _U1) ^ (_U0 - (z & _U1)))


# ----------------------------------------------------------------------------------------------
# Encoder


@njit(cache=True, nogil=True)
def _split(d, a, b, min_itv, ist, ilen, res):
    """Intervals and residuals of the sorted list d[a:b] (duplicates allowed).

    A stretch where each id is equal to or one more than the one before covers ``last - first + 1``
    distinct ids; with at least ``min_interval`` of them it is an interval and its repeated ids are
    residuals, otherwise all of it is residuals. Without duplicates these are GCGT's maximal runs.
    """
    ni = 0
    nr = 0
    i = a
    while i < b:
        j = i + 1
        while j < b and np.uint64(d[j]) - np.uint64(d[j - 1]) <= _U1:
            j += 1
        distinct = np.uint64(d[j - 1]) - np.uint64(d[i]) + _U1
        if min_itv > 0 and distinct >= np.uint64(min_itv):
            ist[ni] = d[i]
            ilen[ni] = distinct
            ni += 1
            for t in range(i + 1, j):
                if d[t] == d[t - 1]:
                    res[nr] = d[t]
                    nr += 1
        else:
            for t in range(i, j):
                res[nr] = d[t]
                nr += 1
        i = j
    return ni, nr


@njit(cache=True, nogil=True)
def _item_value(vals, lens, t, src, rebased, intervals, inc):
    """What item t of an area stores first: int2nat(v - src) when ``rebased``, else its gap."""
    if rebased:
        return int2nat(vals[t], src)
    if intervals:
        return vals[t] - vals[t - 1] - lens[t - 1] - _U1  # start - previous end - 2
    return vals[t] - vals[t - 1] - inc


@njit(cache=True, nogil=True)
def _item_bits(vals, lens, t, src, rebased, intervals, inc, mi, k):
    g = _item_value(vals, lens, t, src, rebased, intervals, inc)
    return gamma_bits(g) + gamma_bits(lens[t] - mi) if intervals else zeta_bits(g, k)


@njit(cache=True, nogil=True)
def _put_item(words, p, vals, lens, t, src, rebased, intervals, inc, mi, k):
    g = _item_value(vals, lens, t, src, rebased, intervals, inc)
    if intervals:
        return _put_gamma(words, _put_gamma(words, p, g), lens[t] - mi)
    return _put_zeta(words, p, g, k)


@njit(cache=True, nogil=True)
def _put_area(words, p, src, vals, lens, n, intervals, inc, mi, k, seglen, first):
    """Write an interval area (``vals`` starts, ``lens`` lengths) or a residual area (``vals``).

    Segments follow GCGT's greedy rule: a segment closes when the next item, sized as a gap,
    would overflow it; the next segment restarts that item from the source; the trailing open
    segment is merged into the last closed one and keeps the gap chain. ``seglen`` 0: one
    unpadded segment without a segment count.
    """
    if seglen == 0:
        p = _put_gamma(words, p, np.uint64(n))
        for t in range(n):
            p = _put_item(words, p, vals, lens, t, src, t == 0, intervals, inc, mi, k)
        return p
    nseg = 1
    first[0] = 0
    cnt = 0
    used = 0
    for t in range(n):
        c = _item_bits(vals, lens, t, src, cnt == 0, intervals, inc, mi, k)
        if gamma_bits(np.uint64(cnt + 1)) + used + c > seglen:
            first[nseg] = t
            nseg += 1
            cnt = 0
            used = 0
            c = _item_bits(vals, lens, t, src, True, intervals, inc, mi, k)
        cnt += 1
        used += c
    if nseg > 1:
        nseg -= 1
    first[nseg] = n
    p0 = _put_gamma(words, p, np.uint64(nseg - 1))
    for s in range(nseg):
        p = _put_gamma(words, p0 + s * seglen, np.uint64(first[s + 1] - first[s]))
        for t in range(first[s], first[s + 1]):
            p = _put_item(words, p, vals, lens, t, src, t == first[s], intervals, inc, mi, k)
    return p


@njit(cache=True, nogil=True)
def _has_duplicates(offsets, dst):
    for i in range(len(offsets) - 1):
        for t in range(offsets[i] + 1, offsets[i + 1]):
            if dst[t] == dst[t - 1]:
                return True
    return False


@njit(cache=True, nogil=True)
def _encode_chunk(offsets, dst, first_src, k, min_itv, seg, iseg, dup, bit_offsets):
    """Encode every sub-list; returns (words, bit count) and fills ``bit_offsets``.

    One pass: before each sub-list the word buffer grows (doubling) to hold its worst case, which
    is at most one segment per id (a segment closes only when its next code does not fit).
    """
    n_local = len(offsets) - 1
    longest = 0
    for i in range(n_local):
        longest = max(longest, offsets[i + 1] - offsets[i])
    ist = np.empty(longest, np.uint64)
    ilen = np.empty(longest, np.uint64)
    res = np.empty(longest, np.uint64)
    first = np.empty(longest + 2, np.int64)
    inc = _U0 if dup else _U1
    mi = np.uint64(min_itv)
    per_id = max(seg, iseg, 2 * _GAMMA_MAX_BITS + 65) + 2 * _GAMMA_MAX_BITS
    words = np.zeros(max(16, len(dst) // 4), np.uint32)  # about 8 bits per edge to start with
    p = 0
    for i in range(n_local):
        bit_offsets[i] = p
        a, b = offsets[i], offsets[i + 1]
        if a == b:
            continue
        need = (p + (b - a + 2) * per_id) // 32 + 2
        if need > len(words):
            grown = np.zeros(max(need, 2 * len(words)), np.uint32)
            grown[: len(words)] = words
            words = grown
        src = first_src + np.uint64(i)
        ni, nr = _split(dst, a, b, min_itv, ist, ilen, res)
        p = _put_area(words, p, src, ist, ilen, ni, True, inc, mi, k, iseg, first)
        p = _put_area(words, p, src, res, res, nr, False, inc, mi, k, seg, first)
    bit_offsets[n_local] = p
    return words, p


# ----------------------------------------------------------------------------------------------
# Decoder


@_inline_reader
def _segments_fit(nsm1, seg, avail):
    """``nsm1 + 1`` segments of ``seg`` bits, the last one at least 1 bit, fit in ``avail`` bits."""
    return avail > 0 and (nsm1 == 0 or (nsm1 < np.uint64(avail) and nsm1 * np.uint64(seg) < np.uint64(avail)))


@_reader
def _skip_intervals(words, base, end, iseg, p, buf, nb):
    """Read past the interval area, bounds checked only: (kind, p, buf, nb, g, stored).

    Only the last interval segment is read: the others have fixed lengths. ``kind`` is 0 for no
    interval, 1 for exactly one (its two stored values are ``g`` and ``stored``: most lists with
    intervals have one, and need no second walk), 2 for more.
    """
    empty = 2 if iseg > 0 else 1  # no intervals: one segment (`1`) of count 0 (`1`)
    if p + empty <= end and (buf >> np.uint64(64 - empty)) == (1 << empty) - 1:
        return 0, p + empty, buf << np.uint64(empty), nb - empty, _U0, _U0
    nsm1 = _U0
    if iseg > 0:
        nsm1, p, buf, nb = read_gamma(words, base, end, p, buf, nb)
        if p < 0:
            return 0, p, buf, nb, _U0, _U0
        if not _segments_fit(nsm1, iseg, end - p):
            return 0, E_SEGMENTS, buf, nb, _U0, _U0
        if nsm1 > 0:
            p, buf, nb = seek(words, base, p + np.int64(nsm1) * iseg, end)
    cnt, p, buf, nb = read_gamma(words, base, end, p, buf, nb)
    if p < 0:
        return 0, p, buf, nb, _U0, _U0
    if cnt > np.uint64(end - p):  # each interval takes at least two bits
        return 0, E_COUNT, buf, nb, _U0, _U0
    g = stored = _U0
    for _ in range(np.int64(cnt)):
        g, p, buf, nb = read_gamma(words, base, end, p, buf, nb)
        if p < 0:
            return 0, p, buf, nb, _U0, _U0
        stored, p, buf, nb = read_gamma(words, base, end, p, buf, nb)
        if p < 0:
            return 0, p, buf, nb, _U0, _U0
    kind = 0 if nsm1 == 0 and cnt == 0 else (1 if nsm1 == 0 and cnt == 1 else 2)
    return kind, p, buf, nb, g, stored


@_inline_reader
def _interval(g, stored, src, prev_end, rebased, mi, id_max, room):
    """An interval's (first id, length) from its two stored values, checked; the length is a
    negative status on error. ``room``: most ids it may hold; ``prev_end``: the previous
    interval's last id (unused when ``rebased``, for the first interval of a segment)."""
    if rebased:
        first = nat2int(g, src)
        if first > id_max:
            return _U0, E_ID
    else:
        gap_room = id_max - prev_end
        if gap_room < 2 or g > gap_room - np.uint64(2):
            return _U0, E_ID
        first = prev_end + np.uint64(2) + g
    if stored > room or stored + mi > room or stored + mi == 0:
        return _U0, E_COUNT
    if stored + mi - _U1 > id_max - first:
        return _U0, E_ID
    return first, np.int64(stored + mi)


@_inline_reader
def _emit_interval(out, n, w, j, first, length):
    """Write the ids first .. first+length-1 at out[w], merging in the residuals out[j:n] that are
    not above the last of them (ascending; equal ones go first). Returns (w, j) after."""
    last = first + np.uint64(length - 1)
    cur = first
    while j < n and out[j] <= last:
        x = np.uint64(out[j])
        if x > cur:  # interval ids below a residual inside the interval (duplicates only)
            for e in range(np.int64(x - cur)):
                out[w + e] = cur + np.uint64(e)
            w += np.int64(x - cur)
            cur = x
        out[w] = x
        w += 1
        j += 1
    for e in range(np.int64(last - cur) + 1):
        out[w + e] = cur + np.uint64(e)
    return w + np.int64(last - cur) + 1, j


@_reader
def _intervals(words, base, start, end, src, min_itv, iseg, id_max, out, n, r, expand):
    """Walk the interval area at bit ``start``, checking every interval.

    With ``expand``, write the sub-list's ``n`` ids to out[0:n] in order, merging in the ``r``
    residuals already decoded (ascending) at out[n-r:n]: the write position never passes the
    next unread residual as long as intervals hold at most n - r ids, which is checked.
    Returns (interval ids, position after the area), the position negative on error.
    """
    p, buf, nb = seek(words, base, start, end)
    nsm1 = _U0
    if iseg > 0:
        nsm1, p, buf, nb = read_gamma(words, base, end, p, buf, nb)
        if p < 0:
            return 0, p
        if not _segments_fit(nsm1, iseg, end - p):
            return 0, E_SEGMENTS
    p0 = p
    nseg = np.int64(nsm1) + 1
    mi = np.uint64(min_itv)
    room = np.uint64(n - r)  # ids the intervals may hold
    m = 0  # interval ids so far
    w = 0  # ids written
    j = n - r  # next residual
    prev_end = _U0
    for s in range(nseg):
        lim = end if s == nseg - 1 else p0 + (s + 1) * iseg
        if s > 0:
            p, buf, nb = seek(words, base, p0 + s * iseg, end)
        cnt, p, buf, nb = read_gamma(words, base, lim, p, buf, nb)
        if p < 0:
            return 0, p
        if cnt > room - np.uint64(m):  # every interval holds at least one id
            return 0, E_COUNT
        for t in range(np.int64(cnt)):
            g, p, buf, nb = read_gamma(words, base, lim, p, buf, nb)
            if p < 0:
                return 0, p
            stored, p, buf, nb = read_gamma(words, base, lim, p, buf, nb)
            if p < 0:
                return 0, p
            first, length = _interval(g, stored, src, prev_end, t == 0, mi, id_max, room - np.uint64(m))
            if length < 0:
                return 0, length
            if t == 0 and m > 0 and (first <= prev_end or first - prev_end < 2):
                return 0, E_ORDER
            if expand:
                w, j = _emit_interval(out, n, w, j, first, length)
            m += length
            prev_end = first + np.uint64(length - 1)
    return m, p


@_reader
def _residual_area(words, base, end, seg, cap, p, buf, nb):
    """Read the residual area's header and segment counts (at most ``cap`` residuals).

    Returns (residuals, segments, first segment's bit, then the reader after the first segment's
    count: its count, p, buf, nb); residuals is a negative status on error.
    """
    nsm1, p, buf, nb = read_gamma(words, base, end, p, buf, nb)
    if p < 0:
        return p, 0, 0, _U0, p, buf, nb
    if not _segments_fit(nsm1, seg, end - p):
        return E_SEGMENTS, 0, 0, _U0, p, buf, nb
    nseg = np.int64(nsm1) + 1
    p0 = p
    c0, p, buf, nb = read_gamma(words, base, end if nseg == 1 else p0 + seg, p, buf, nb)
    if p < 0:
        return p, 0, 0, _U0, p, buf, nb
    if c0 > np.uint64(cap):
        return E_COUNT, 0, 0, _U0, p, buf, nb
    r = np.int64(c0)
    for s in range(1, nseg):
        q, b, k = seek(words, base, p0 + s * seg, end)
        c, q, b, k = read_gamma(words, base, end if s == nseg - 1 else p0 + (s + 1) * seg, q, b, k)
        if q < 0:
            return q, 0, 0, _U0, p, buf, nb
        if c > np.uint64(cap - r):
            return E_COUNT, 0, 0, _U0, p, buf, nb
        r += np.int64(c)
    return r, nseg, p0, c0, p, buf, nb


@_reader
def count_sublist(words, base, start, end, src, min_itv, seg, iseg, id_max, cap):
    """Ids in one sub-list (at most ``cap``) from its counts; interval codes are checked, residual
    codes not read. Returns the count or a negative status."""
    if start == end:
        return 0
    m, p = _intervals(words, base, start, end, src, min_itv, iseg, id_max, words[:0], cap, 0, False)
    if p < 0:
        return p
    p, buf, nb = seek(words, base, p, end)
    r = _residual_area(words, base, end, seg, cap - m, p, buf, nb)[0]
    if r < 0:
        return r
    return m + r


@_reader
def _residual_run(words, base, lim, p, buf, nb, count, k, prev, inc, id_max, out, w):
    """Decode ``count`` residual gaps after ``prev`` into out[w:w+count].

    Returns the reader (p, buf, nb) and the last residual; p is a negative status on error.
    """
    for t in range(count):
        g, p, buf, nb = read_zeta(words, base, lim, p, buf, nb, k)
        if p < 0:
            return p, buf, nb, prev
        room = id_max - prev
        if room < inc or g > room - inc:
            return E_ID, buf, nb, prev
        prev += g + inc
        out[np.uint64(w + t)] = prev
    return p, buf, nb, prev


@_reader
def decode_sublist(words, base, start, end, src, k, min_itv, seg, iseg, dup, id_max, out, n):
    """Decode one sub-list of exactly ``n`` ids into ``out[0:n]``, ascending.

    Returns n, or a negative status (``ERRORS``) when the bits do not hold exactly n valid ids.

    words     uint32 array holding the payload from word ``base`` on (MSB-first bits)
    start     first bit of the sub-list, relative to the payload; ``end`` one past its last bit
    src       the source vertex (uint64); first gaps are relative to it
    k, min_itv, seg, iseg, dup
              the chunk's parameters: zeta k, minimum interval length, residual and interval
              segment bits (0: intervals unsegmented), duplicates flag
    id_max    largest id the output may hold (2**32-1 or 2**64-1)

    The residuals are decoded first, segment by segment, into the top of out[0:n]; then the
    intervals are expanded from the bottom up, merging the residuals in front of them.
    """
    if start == end:
        return 0 if n == 0 else E_COUNT
    p, buf, nb = seek(words, base, start, end)
    intervals, p, buf, nb, itv_g, itv_stored = _skip_intervals(words, base, end, iseg, p, buf, nb)
    if p < 0:
        return p
    residual_area = p
    r, nseg, p0, c, p, buf, nb = _residual_area(words, base, end, seg, n, p, buf, nb)
    if r < 0:
        return r
    inc = _U0 if dup else _U1
    w = n - r
    prev = _U0
    for s in range(nseg):
        lim = end if s == nseg - 1 else p0 + (s + 1) * seg
        if s > 0:
            p, buf, nb = seek(words, base, p0 + s * seg, end)
            c, p, buf, nb = read_gamma(words, base, lim, p, buf, nb)
            if p < 0:
                return p
        if c == 0:
            continue
        g, p, buf, nb = read_zeta(words, base, lim, p, buf, nb, k)  # relative to the source
        if p < 0:
            return p
        x = nat2int(g, src)
        if x > id_max:
            return E_ID
        if w > n - r and (x < prev or x - prev < inc):
            return E_ORDER
        out[w] = x
        if c > 1:
            p, buf, nb, x = _residual_run(words, base, lim, p, buf, nb, np.int64(c) - 1, k, x, inc, id_max, out, w + 1)
            if p < 0:
                return p
        w += np.int64(c)
        prev = x
    if p != end:
        return E_END
    m = 0
    if intervals == 1:  # the interval was read already
        first, m = _interval(itv_g, itv_stored, src, _U0, True, np.uint64(min_itv), id_max, np.uint64(n - r))
        if m < 0:
            return m
        _emit_interval(out, n, 0, n - r, first, m)
    elif intervals == 2:
        m, q = _intervals(words, base, start, end, src, min_itv, iseg, id_max, out, n, r, True)
        if q < 0:
            return q
        if q != residual_area:
            return E_CODE
    if m != n - r:
        return E_COUNT
    return n


# ----------------------------------------------------------------------------------------------
# The local index: bit offset i (i = 0..n_local) is anchor[i >> GROUP_LOG2] + field i, where field i
# is ``w`` bits at bit i*w of the field area, LSB-first in little-endian uint32 words.


@njit(cache=True, nogil=True)
def _pack_fields(values, w, words):
    """Write values[i] at bits i*w .. i*w+w-1 of the zeroed ``words``, LSB-first."""
    for i in range(len(values)):
        p = i * w
        j = p >> 5
        v = values[i]
        words[j] |= np.uint32((v << np.uint64(p & 31)) & _LOW32)
        rest = v >> np.uint64(32 - (p & 31))
        while rest:
            j += 1
            words[j] |= np.uint32(rest & _LOW32)
            rest >>= _U32


@_inline_reader
def _field(words, fields, i, w):
    """Field i (``w`` = 0..64 bits) of the field area at uint32 word ``fields``.

    Two words hold any field of up to 33 bits; a wider one (64-bit anchors only) may need a third.
    The spare word after the last field keeps every load inside the index.
    """
    if w == 0:
        return _U0
    p = np.uint64(i) * np.uint64(w)
    j = np.uint64(fields) + (p >> np.uint64(5))
    shift = p & np.uint64(31)
    v = ((np.uint64(words[j + _U1]) << _U32) | np.uint64(words[j])) >> shift
    if shift + np.uint64(w) > np.uint64(64):
        v |= np.uint64(words[j + np.uint64(2)]) << (np.uint64(64) - shift)
    if w < 64:
        v &= (_U1 << np.uint64(w)) - _U1
    return v


@_inline_reader
def _bit_offset(words, anchors, anchor_words, fields, w, i):
    """Entry i: its group's anchor plus its own field."""
    a = np.uint64(anchors) + (np.uint64(i) >> np.uint64(GROUP_LOG2)) * np.uint64(anchor_words)
    anchor = np.uint64(words[a])
    if anchor_words == 2:
        anchor |= np.uint64(words[a + _U1]) << _U32
    return anchor + _field(words, fields, i, w)


@_reader
def sublist_bits(words, ib, n_local, i):
    """(start, end) bits, in the payload, of local source i's sub-list.

    ``words`` holds the chunk's local index from uint32 word ``ib`` on; ``n_local`` places the
    field area after the anchors. The one lookup the codec and the kernels share: each end is an
    anchor plus a field, two loads that depend only on the parameter block.
    """
    anchor_words = 2 if (words[ib] >> 24) == 8 else 1
    w = np.int64(words[ib + 2] & 0xFF)
    anchors = ib + PARAM_WORDS
    fields = anchors + anchor_words * ((n_local + GROUP) >> GROUP_LOG2)
    start = _bit_offset(words, anchors, anchor_words, fields, w, i)
    end = _bit_offset(words, anchors, anchor_words, fields, w, i + 1)
    return np.int64(start), np.int64(end)


@_reader
def _index_bit_offsets(words, n_local, out):
    """All n_local + 1 bit offsets of a local index at word 0, through :func:`sublist_bits`."""
    for i in range(n_local):
        start, end = sublist_bits(words, 0, n_local, i)
        out[i] = start
        out[i + 1] = end


@_reader
def decode_chunk_sublist(words, table_row, v, n, out):
    """Decode source ``v``'s sub-list (``n`` ids) of a chunk in an arena of uint32 ``words``.

    ``table_row`` is the chunk's (index start, payload start, first source) in bytes/ids; the
    parameters and bit offsets are read from its local index, ``n_local`` from the header's
    ``last_src`` (the 8 bytes that end 16 bytes before the index). Returns n or a negative status.
    """
    ib = table_row[0] >> 2
    p0 = np.int64(words[ib])
    p1 = np.int64(words[ib + 1])
    last_src = np.uint64(words[ib - 4]) | (np.uint64(words[ib - 3]) << _U32)
    n_local = np.int64(last_src - np.uint64(table_row[2])) + 1
    start, end = sublist_bits(words, ib, n_local, v - table_row[2])
    id_max = U32_MAX if out.itemsize == 4 else U64_MAX
    return decode_sublist(words, table_row[1] >> 2, start, end, np.uint64(v), p0 & 0xFF, (p0 >> 8) & 0xFF, p1 & 0xFFFF, (p1 >> 16) & 0xFFFF, (p0 >> 16) & 1 != 0, id_max, out, n)


@_reader
def _count_chunk(words, bit_offsets, first_src, min_itv, seg, iseg, id_max, cap, offsets):
    """Per-list counts into ``offsets`` (cumulative, at most ``cap`` in total); returns the total."""
    for i in range(len(bit_offsets) - 1):
        n = count_sublist(words, 0, bit_offsets[i], bit_offsets[i + 1], first_src + np.uint64(i), min_itv, seg, iseg, id_max, cap - offsets[i])
        if n < 0:
            return n
        offsets[i + 1] = offsets[i] + n
    return offsets[len(bit_offsets) - 1]


@_reader
def _decode_chunk(words, bit_offsets, first_src, k, min_itv, seg, iseg, dup, id_max, dst, offsets):
    for i in range(len(bit_offsets) - 1):
        a = offsets[i]
        n = decode_sublist(words, 0, bit_offsets[i], bit_offsets[i + 1], first_src + np.uint64(i), k, min_itv, seg, iseg, dup, id_max, dst[a:], offsets[i + 1] - a)
        if n < 0:
            return n
    return 0


# ----------------------------------------------------------------------------------------------


class Params(NamedTuple):
    """A chunk's parameter block (local index bytes 0..15)."""

    zeta_k: int
    min_interval: int
    duplicates: bool
    anchor_bytes: int
    segment_bits: int
    interval_segment_bits: int
    field_bits: int


def parse_params(index: np.ndarray) -> Params:
    """The parameter block, checked before anything in the index is trusted."""
    if len(index) < PARAM_BYTES:
        raise CorruptChunkError("cgr local index is shorter than its parameter block")
    b = index[:PARAM_BYTES].tobytes()
    k, mi, flags, width, field_bits, group_log2 = b[0], b[1], b[2], b[3], b[8], b[9]
    seg = int.from_bytes(b[4:6], "little")
    iseg = int.from_bytes(b[6:8], "little")
    if not 1 <= k <= 16 or flags & ~FLAG_DUPLICATES or width not in (4, 8) or seg == 0:
        raise CorruptChunkError(f"bad cgr parameters: zeta k {k}, flags {flags:#x}, anchor width {width}, segment bits {seg}")
    if field_bits > 8 * width or group_log2 != GROUP_LOG2 or any(b[10:]):
        raise CorruptChunkError(f"bad cgr index parameters: {field_bits}-bit fields for {width}-byte anchors, log2 group {group_log2}, reserved {b[10:].hex()}")
    return Params(k, mi, bool(flags & FLAG_DUPLICATES), width, seg, iseg, field_bits)


def index_bytes(n_local: int, anchor_bytes: int, field_bits: int) -> int:
    """Size of the local index: parameters, one anchor per group, the fields and a spare word."""
    entries = n_local + 1
    anchors = (entries + GROUP - 1) // GROUP
    return pad8(PARAM_BYTES + anchor_bytes * anchors + 4 * ((entries * field_bits + 31) // 32 + 1))


def _local_index(params: bytes, bit_offsets: np.ndarray, anchor_bytes: int) -> np.ndarray:
    n_local = len(bit_offsets) - 1
    anchors = bit_offsets[::GROUP]
    relative = (bit_offsets - np.repeat(anchors, GROUP)[: n_local + 1]).astype(np.uint64)
    field_bits = int(relative.max()).bit_length()
    index = np.zeros(index_bytes(n_local, anchor_bytes, field_bits), np.uint8)
    index[:PARAM_BYTES] = np.frombuffer(params + bytes([field_bits, GROUP_LOG2]) + bytes(PARAM_BYTES - 10), np.uint8)
    fields = PARAM_BYTES + anchor_bytes * len(anchors)
    index[PARAM_BYTES:fields] = anchors.astype(f"<u{anchor_bytes}").view(np.uint8)
    _pack_fields(relative, field_bits, index[fields:].view("<u4"))
    return index


def _checked_bit_offsets(index: np.ndarray, n_local: int, params: Params, max_bits: int) -> np.ndarray:
    """The n_local + 1 bit offsets of an index of the right size, each at most ``max_bits``.

    Anchors and width are bounded before any sum is taken, so no sum wraps; the index must then
    be exactly what the encoder writes for these offsets.
    """
    entries = n_local + 1
    fields = PARAM_BYTES + params.anchor_bytes * ((entries + GROUP - 1) // GROUP)
    anchors = index[PARAM_BYTES:fields].view(f"<u{params.anchor_bytes}")
    if int(anchors.max()) > max_bits or params.field_bits > max_bits.bit_length():
        raise CorruptChunkError("cgr anchors or field width go beyond the payload's bits")
    field_words = index[fields:].view("<u4")
    used = entries * params.field_bits
    if field_words[used // 32] >> (used % 32) or field_words[used // 32 + 1 :].any():
        raise CorruptChunkError("cgr local index has nonzero bits after its last field")
    bits = np.zeros(entries, np.int64)
    _index_bit_offsets((index if index.flags.writeable else index.copy()).view("<u4"), n_local, bits)
    relative = bits - np.repeat(anchors.astype(np.int64), GROUP)[:entries]
    if relative[::GROUP].any():
        raise CorruptChunkError("a cgr anchor differs from its group's first bit offset")
    if int(relative.max()).bit_length() != params.field_bits:
        raise CorruptChunkError(f"cgr field width {params.field_bits} is not that of the largest relative offset")
    if bits[0] != 0 or (bits[1:] < bits[:-1]).any():
        raise CorruptChunkError("cgr bit offsets do not start at 0 and ascend")
    if params.anchor_bytes == 4 and bits[-1] >= 2**32:
        raise CorruptChunkError("cgr stream of 2**32 bits or more with 4-byte anchors")
    return bits


class CgrCodec(GraphChunkCodec):
    """GCGT's CGR. Parameters: ``zeta_k`` (1..16; 1 means γ), ``min_interval`` (0..255; 0: no
    intervals), ``segment_bits`` (residual segments), ``interval_segment_bits`` (0: unsegmented)."""

    format = "cgr"
    format_code = 3
    kernels_read_index = True

    def __init__(self, zeta_k: int = 3, min_interval: int = 4, segment_bits: int = 256, interval_segment_bits: int = 256):
        if not 1 <= zeta_k <= 16:
            raise ValueError(f"zeta_k must be 1..16, got {zeta_k}")
        if not 0 <= min_interval <= 255:
            raise ValueError(f"min_interval must be 0..255, got {min_interval}")
        if not min_segment_bits(zeta_k) <= segment_bits <= 0xFFFF:
            raise ValueError(f"segment_bits must be {min_segment_bits(zeta_k)}..65535 for zeta_k={zeta_k}, got {segment_bits}")
        if interval_segment_bits and not MIN_INTERVAL_SEGMENT_BITS <= interval_segment_bits <= 0xFFFF:
            raise ValueError(f"interval_segment_bits must be 0 or {MIN_INTERVAL_SEGMENT_BITS}..65535, got {interval_segment_bits}")
        self.zeta_k = int(zeta_k)
        self.min_interval = int(min_interval)
        self.segment_bits = int(segment_bits)
        self.interval_segment_bits = int(interval_segment_bits)

    def encode_lists(self, offsets: np.ndarray, dst: np.ndarray, first_src: int) -> tuple[np.ndarray, np.ndarray]:
        offsets = np.ascontiguousarray(offsets, np.int64)
        dst = np.ascontiguousarray(dst)
        n_local = len(offsets) - 1
        dup = bool(_has_duplicates(offsets, dst))
        bit_offsets = np.empty(n_local + 1, np.int64)
        words, total = _encode_chunk(offsets, dst, np.uint64(first_src), self.zeta_k, self.min_interval, self.segment_bits, self.interval_segment_bits, dup, bit_offsets)
        words = words[: (total + 31) // 32 + 1]  # the last word is the spare the reader may peek at
        params = (
            bytes([self.zeta_k, self.min_interval, FLAG_DUPLICATES if dup else 0, 4 if total < 2**32 else 8])
            + self.segment_bits.to_bytes(2, "little")
            + self.interval_segment_bits.to_bytes(2, "little")
        )
        return _local_index(params, bit_offsets, params[3]), words.astype("<u4", copy=False)

    def decode_lists(self, header: ChunkHeader, index: np.ndarray, payload: np.ndarray, id_dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
        k, mi, dup, anchor_bytes, seg, iseg, field_bits = params = parse_params(index)
        n_local = header.n_local
        if header.index_bytes != index_bytes(n_local, anchor_bytes, field_bits):
            raise CorruptChunkError("cgr local index size does not match the chunk's sources and field width")
        if header.payload_bytes % 4 or header.payload_bytes < 4:
            raise CorruptChunkError("cgr payload is not a whole number of 32-bit words")
        nwords = header.payload_bytes // 4
        bits = _checked_bit_offsets(index, n_local, params, 32 * (nwords - 1))
        if nwords != (int(bits[-1]) + 31) // 32 + 1:
            raise CorruptChunkError("cgr stream length disagrees with the payload size")
        # The Numba readers type one array for reading and a dummy output alike: a read-only
        # buffer (as stores and Zarr hand over) is copied so both compile as writable.
        words = (payload if payload.flags.writeable else payload.copy()).view("<u4")
        id_max = U32_MAX if header.id_bytes == 4 else U64_MAX
        first = np.uint64(header.first_src)
        offsets = np.zeros(n_local + 1, np.int64)
        total = _count_chunk(words, bits, first, mi, seg, iseg, id_max, header.n_edges, offsets)
        if total < 0:
            raise CorruptChunkError(f"cgr: {ERRORS[total]}")
        if total != header.n_edges:
            raise CorruptChunkError(f"cgr sub-lists hold {total} ids, the header says {header.n_edges}")
        dst = np.empty(total, id_dtype)
        status = _decode_chunk(words, bits, first, k, mi, seg, iseg, dup, id_max, dst, offsets)
        if status < 0:
            raise CorruptChunkError(f"cgr: {ERRORS[status]}")
        return offsets, dst
