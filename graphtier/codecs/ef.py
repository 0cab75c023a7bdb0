"""EFG's Elias-Fano format: every sub-list coded on its own, as in Gera & Kim (IPDPS 2023).

One sub-list of ``n > 0`` sorted ids (duplicates allowed) with last, largest, value ``u`` is
``[forward pointers][lower bits][upper bits]``, each section byte aligned, bits LSB-first:

- ``l = 0 if u < n else floor(log2(u // n))``: folly's rule with ``u`` the last value, as EFG's
  code builds its encoder (the paper allows "any upper bound" ``u``);
- forward pointers: ``n // quantum`` little-endian integers of ``fwd_width(n)`` bytes (the
  smallest of 1, 2, 4, 8 holding ``2 n``, EFG's rule applied per list); pointer ``j`` holds
  ``select1(i) - i = x_i >> l`` for ``i = (j + 1) quantum - 1``;
- lower bits: the low ``l`` bits of ``x_i`` at bits ``[i l, (i + 1) l)``, ``ceil(l n / 8)`` bytes;
- upper bits: bit ``(x_i >> l) + i`` set for every ``i``, ``ceil(((u >> l) + n) / 8)`` bytes.

An empty sub-list has no bytes. The payload is the sub-lists back to back, then 8 zero bytes of
slack, so a decoder may load 8 bytes at any position inside a list without leaving the chunk.

The local index is an 8-byte preamble ``[wo, wl, wd, 0, quantum (u32 LE)]``, then, bit-packed
LSB-first, one ``wo + wl + wd``-bit record ``(byte offset, l, degree)`` per local source and a
final ``wo``-bit byte offset (where the slack starts). ``wo``, ``wl`` and ``wd`` are the bit
lengths of that final offset, of the largest ``l`` and of the largest degree in the chunk.

The encoding is canonical: the decoder accepts exactly the bytes the encoder writes, so a chunk
that decodes re-encodes to itself. ``docs/formats.md`` (section ``ef``) has the layout byte for byte.
"""

from __future__ import annotations

import sys

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

from ..errors import CorruptChunkError
from .base import GraphChunkCodec
from .bits import bit_length
from .header import ChunkHeader, pad8

if sys.byteorder != "little":  # load8 reads the bytes as a native uint64
    raise ImportError("graphtier's ef codec needs a little-endian host")

DEFAULT_QUANTUM = 512
PREAMBLE_BYTES = 8
SLACK_BYTES = 8  # zero bytes after the last sub-list: a decoder may load 8 bytes anywhere in a list
MAX_WO, MAX_WL, MAX_WD = 56, 6, 32

# Error codes of the Numba decoders (negative); ERRORS turns them into messages.
E_BOUNDS = -1
E_UPPER_SHORT = -2
E_UPPER_LONG = -3
E_FORWARD = -4
E_UNSORTED = -5
E_RANGE = -6
E_LOWER_WIDTH = -7
E_PADDING = -8
E_EMPTY = -9
E_OFFSETS = -10
E_COUNT = -11
E_WIDTHS = -12
E_ENDS = -13
ERRORS = {
    E_BOUNDS: "a sub-list's sections run outside its bytes",
    E_UPPER_SHORT: "a sub-list's upper bits hold fewer ones than its degree",
    E_UPPER_LONG: "a sub-list's upper bits run past its last element",
    E_FORWARD: "a forward pointer disagrees with the upper bits",
    E_UNSORTED: "a sub-list decodes to a decreasing sequence",
    E_RANGE: "a sub-list decodes to an id beyond the id width",
    E_LOWER_WIDTH: "a sub-list's low-bit width is not floor(log2(u / n))",
    E_PADDING: "padding bits are not zero",
    E_EMPTY: "an empty sub-list has bytes or a low-bit width",
    E_OFFSETS: "byte offsets are not monotone within the payload",
    E_COUNT: "degrees do not add up to the chunk's edge count",
    E_WIDTHS: "local index field widths are not the chunk's own",
    E_ENDS: "the first or last local source has no edges",
}


@intrinsic
def load8(typingctx, buf, p):
    """Little-endian uint64 from ``buf[p:p + 8]`` of a C-contiguous uint8 array, as one unaligned
    load (the caller checks the bounds; the host is little-endian, as x86-64 and arm64 are)."""
    if not (isinstance(buf, types.Array) and buf.dtype == types.uint8 and buf.ndim == 1 and buf.layout == "C"):
        return None
    if not isinstance(p, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        index = context.cast(builder, args[1], signature.args[1], types.intp)
        ptr = builder.bitcast(builder.gep(ary.data, [index]), ir.IntType(64).as_pointer())
        return builder.load(ptr, align=1)

    return types.uint64(buf, p), codegen


@njit(inline="always")
def load_le(buf, p, nbytes) -> np.uint64:
    """Little-endian integer from ``buf[p:p + nbytes]``, ``nbytes <= 8``; 8 bytes in one load.

    Unrolled rather than a loop, which LLVM would vectorize at a cost paid on every call."""
    if nbytes >= 8:
        return load8(buf, p)
    x = np.uint64(0)
    if nbytes > 0:
        x |= np.uint64(buf[p])
    if nbytes > 1:
        x |= np.uint64(buf[p + 1]) << np.uint64(8)
    if nbytes > 2:
        x |= np.uint64(buf[p + 2]) << np.uint64(16)
    if nbytes > 3:
        x |= np.uint64(buf[p + 3]) << np.uint64(24)
    if nbytes > 4:
        x |= np.uint64(buf[p + 4]) << np.uint64(32)
    if nbytes > 5:
        x |= np.uint64(buf[p + 5]) << np.uint64(40)
    if nbytes > 6:
        x |= np.uint64(buf[p + 6]) << np.uint64(48)
    return x


@njit(cache=True, nogil=True, _nrt=False)
def read_bits(buf, bitpos, width) -> np.uint64:
    """``width`` (<= 56) bits of ``buf`` from absolute bit ``bitpos``, LSB-first; reads inside ``buf``."""
    if width == 0:
        return np.uint64(0)
    first = bitpos >> 3
    shift = bitpos & 7
    if first + 8 <= len(buf):
        x = load8(buf, first)
    else:
        x = load_le(buf, first, (shift + width + 7) >> 3)
    return (x >> np.uint64(shift)) & ((np.uint64(1) << np.uint64(width)) - np.uint64(1))


@njit(cache=True, nogil=True, _nrt=False)
def lower_width(u, n) -> int:
    """folly's ``l``: 0 if ``u < n``, else ``floor(log2(u // n))``; ``u`` is the last value."""
    u = np.uint64(u)
    nn = np.uint64(n)
    if n <= 0 or u < nn:
        return 0
    return bit_length(u // nn) - 1


@njit(cache=True, nogil=True, _nrt=False)
def fwd_width(n) -> int:
    """Bytes of one forward pointer of an ``n``-element list: smallest of 1, 2, 4, 8 holding ``2 n``."""
    if 2 * n < 256:
        return 1
    if 2 * n < 65536:
        return 2
    if 2 * n < 4294967296:
        return 4
    return 8


@njit(cache=True, nogil=True, _nrt=False)
def list_bytes(n, u, q) -> int:
    """Closed-form byte size of one sub-list of ``n`` values with last value ``u``, quantum ``q``."""
    if n == 0:
        return 0
    l = lower_width(u, n)
    n_fwd = n // q if 0 < q <= n else 0  # no 64-bit division for lists shorter than q
    h = np.int64(np.uint64(u) >> np.uint64(l))
    return n_fwd * fwd_width(n) + (l * n + 7) // 8 + (h + n + 7) // 8


@njit(cache=True, nogil=True, _nrt=False)
def write_bits(buf, bitpos, width, value) -> None:
    """OR ``width`` (<= 56) bits of ``value`` into zeroed ``buf`` at bit ``bitpos``."""
    if width == 0:
        return
    first = bitpos >> 3
    shift = bitpos & 7
    x = (np.uint64(value) & ((np.uint64(1) << np.uint64(width)) - np.uint64(1))) << np.uint64(shift)
    for k in range((shift + width + 7) >> 3):
        buf[first + k] |= np.uint8((x >> np.uint64(8 * k)) & np.uint64(255))


_ONE = np.float32(1.0)  # the weight the push path hands its functor: unweighted


def _ef_decoder(check: bool, bounded: bool, push: bool):
    """The EF sub-list decoder, built for one use. ``check``: prove canonical form (implies
    ``bounded``); ``bounded``: memory-safe on any input; ``push``: hand each id to a traversal
    functor as it is decoded. The flags are closure constants, so Numba compiles away every
    branch on them that does not apply: one implementation, no run-time flags, and no decode
    loop followed by a second loop over its output.

    Inlined into its callers (``inline="always"``), so the kernel's per-list code is one function:
    a call per list would pass some 60 words of array arguments and take and drop a reference to
    each array.
    """
    bounded = bounded or check

    @njit(nogil=True, inline="always")
    def decode(buf, start, end, n, l, q, maxval, out, o, functor, v, state, first, frontier, n_out):
        """Decode the Elias-Fano sub-list in ``buf[start:end]`` into ``out[o:o + n]``; with
        ``push``, instead hand each id ``u`` (of ``out``'s dtype) to the traversal as soon as it
        is decoded, appending it to ``frontier`` at ``n_out`` when ``functor(v, u, first + i, 1.0,
        state)`` holds (an advance functor, ``kernels/cpu/operators.py``; ``i`` the id's rank).

        ``buf`` is a C-contiguous uint8 array in which the list is followed by at least
        ``SLACK_BYTES`` more bytes (the payload's slack, or the lists after it); ``n`` the degree,
        ``l`` the low-bit width, ``q`` the forward-pointer quantum (0: none), ``maxval`` the
        largest id allowed (uint64; without ``bounded``, the largest the id width holds).
        Returns ``(count, n_out)``: ``count`` the ids decoded (``n`` for a good list), or a
        negative error code.

        Where the 8-byte loads fall: upper-bit words at ``k``, low bits at bytes before
        ``ustart``, so at positions before the list's n-th one-bit, which lies before ``end``;
        each load ends before ``end + SLACK_BYTES``. ``bounded`` checks ``end + SLACK_BYTES <=
        len(buf)`` and ``o + n <= len(out)`` on entry and stops at ``end`` whatever the bytes say,
        so it is memory-safe on any input; without it (``ef_push``) the list must come from a
        validated chunk, whose lists hold exactly their ``n`` one-bits and are followed by the
        payload's slack, and ``end`` is not read. With ``check`` it also proves that the bytes
        are exactly what the encoder writes for these values: section sizes, the n-th one-bit in
        the last byte, forward pointers, zero padding, ``l`` from ``(u, n)``, non-decreasing ids
        within ``maxval``.

        One pass over the ids: ``x_i >> l = select1(i) - i`` from the upper bits, 64 at a time
        (count trailing zeros, clear the lowest one), and the low ``l`` bits from one unaligned
        8-byte load each; the forward pointers are only checked, never needed to decode a whole
        list. With at least one bit in three set, a new upper word is rarely needed, so the list's
        end is the only unpredictable branch.
        """
        if bounded:
            if start < 0 or end < start or end + SLACK_BYTES > len(buf) or n < 0 or o < 0 or o + n > len(out):
                return E_BOUNDS, n_out
            if l < 0 or l > 63 or q < 0:
                return E_LOWER_WIDTH, n_out
        if n == 0:
            if bounded and (end != start or l != 0):
                return E_EMPTY, n_out
            return 0, n_out
        n_fwd = n // q if 0 < q <= n else 0  # no 64-bit division for lists shorter than q
        fw = fwd_width(n) if n_fwd > 0 else 0
        lstart = start + n_fwd * fw
        ustart = lstart + (l * n + 7) // 8
        if bounded and ustart >= end:
            return E_BOUNDS, n_out
        ul = np.uint64(l)
        lmask = (np.uint64(1) << ul) - np.uint64(1)
        k = ustart
        w = load8(buf, k)
        # Bits past end (the next list, or the slack) may enter a window: the loop takes only n
        # one-bits; with check they are masked off, to see that none follows the n-th.
        if check and end - k < 8:
            w &= (np.uint64(1) << np.uint64(8 * (end - k))) - np.uint64(1)
        hbase = np.int64(0)  # bit position of w's bit 0 in the upper bits, minus i
        pos = lstart * 8  # bit position of x_i's low bits
        h = np.int64(0)
        prev = np.uint64(0)
        fwd_i = q - 1 if n_fwd > 0 else n  # the next i with a forward pointer (check only)
        for i in range(n):
            while w == 0:
                k += 8
                if bounded and k >= end:
                    return (E_UPPER_SHORT if check else i), n_out
                w = load8(buf, k)
                if check and end - k < 8:
                    w &= (np.uint64(1) << np.uint64(8 * (end - k))) - np.uint64(1)
                hbase += 64
            h = hbase + np.int64(trailing_zeros(w))  # select1(i) - i = x_i >> l
            w &= w - np.uint64(1)
            hbase -= 1
            # l <= 56 is known when the chunk is valid and ids are at most 57 bits wide (l is at
            # most log2(u)): then a constant, so the branch goes, as for 32-bit ids in ef_push
            if (not bounded and maxval >> np.uint64(57) == 0) or l <= 56:
                low = (load8(buf, pos >> 3) >> np.uint64(pos & 7)) & lmask
            else:  # 57..63 bits, only for 64-bit ids: two reads
                low = read_bits(buf, pos, 32) | read_bits(buf, pos + 32, l - 32) << np.uint64(32)
            pos += l
            x = (np.uint64(h) << ul) | low
            if check:
                if x < prev:
                    return E_UNSORTED, n_out  # (or lost high bits to the shift: E_RANGE would say so too)
                prev = x
                if i == fwd_i:
                    if load_le(buf, start + (i // q) * fw, fw) != np.uint64(h):
                        return E_FORWARD, n_out
                    fwd_i += q
            if not push:
                out[o + i] = x
            else:
                u = out.dtype.type(x)  # the id with out's type, as iterating ``out`` would give it
                if functor(v, u, first + i, _ONE, state):
                    frontier[n_out] = u
                    n_out += 1
        if not check:
            return n, n_out
        last_one = h + n - 1
        if w != 0 or ustart + (last_one >> 3) != end - 1:
            return E_UPPER_LONG, n_out  # the n-th one must be the last one and lie in the last byte
        # h, the last x_i >> l, is the largest (select1(i) - i never decreases): within maxval >> l,
        # no x_i lost high bits to the shift, so the order checked above is the ids' own
        uh = np.uint64(h)
        if uh > (maxval >> ul) or prev > maxval:
            return E_RANGE, n_out
        if (l > 0 and uh < np.uint64(n)) or (uh >> np.uint64(1)) >= np.uint64(n):
            return E_LOWER_WIDTH, n_out  # l = floor(log2(u // n)): n 2**l <= u < n 2**(l + 1); l = 0: u < 2 n
        rem = (l * n) & 7
        if rem and buf[ustart - 1] >> rem:
            return E_PADDING, n_out
        return n, n_out

    return decode


# decode_lists: every proof of canonical form
ef_decode_checked = _ef_decoder(check=True, bounded=True, push=False)
# ef_decode_list(check=False), ef_neighbors: no proofs, still memory-safe on any bytes
ef_decode_bounded = _ef_decoder(check=False, bounded=True, push=False)
# ef_push, advance's inner loop over validated chunks: visits each id as it decodes it
ef_decode_push = _ef_decoder(check=False, bounded=False, push=True)


@njit(cache=True, nogil=True)
def ef_decode_list(buf, start, end, n, l, q, maxval, out, o, check) -> int:
    """Decode the Elias-Fano sub-list in ``buf[start:end]`` into ``out[o:o + n]``, with every
    check of canonical form (``ef_decode_checked``) or none (``ef_decode_bounded``); memory-safe
    either way. Returns the number of ids written (``n`` for a good list) or a negative error
    code."""
    if check:
        count, _ = ef_decode_checked(buf, start, end, n, l, q, maxval, out, o, None, 0, None, 0, None, 0)
    else:
        count, _ = ef_decode_bounded(buf, start, end, n, l, q, maxval, out, o, None, 0, None, 0, None, 0)
    return count


@njit(cache=True, nogil=True, _nrt=False)
def _decode_chunk(index, payload, n_local, n_edges, wo, wl, wd, q, maxval, offsets, dst) -> int:
    """Every sub-list of a chunk; fills ``offsets`` (n_local + 1) and ``dst``. 0 or an error code."""
    w = wo + wl + wd
    base = PREAMBLE_BYTES * 8
    total_bits = n_local * w + wo
    p_len = len(payload) - SLACK_BYTES  # the lists; then zero slack
    if base + total_bits > 8 * len(index) or p_len < 0:
        return E_BOUNDS
    offsets[0] = 0
    max_l = 0
    max_d = 0
    s = np.int64(read_bits(index, base, wo))
    if s != 0:
        return E_OFFSETS
    e_total = 0
    for i in range(n_local):
        rec = base + i * w
        l = np.int64(read_bits(index, rec + wo, wl))
        d = np.int64(read_bits(index, rec + wo + wl, wd))
        e = np.int64(read_bits(index, rec + w, wo))
        if e < s or e > p_len:
            return E_OFFSETS
        if d > n_edges - e_total:
            return E_COUNT
        r = ef_decode_list(payload, s, e, d, l, q, maxval, dst, e_total, True)
        if r < 0:
            return r
        e_total += d
        offsets[i + 1] = e_total
        max_l = max(max_l, l)
        max_d = max(max_d, d)
        s = e
    if e_total != n_edges:
        return E_COUNT
    if s != p_len:
        return E_OFFSETS
    if bit_length(p_len) != wo or bit_length(max_l) != wl or bit_length(max_d) != wd:
        return E_WIDTHS
    if n_local > 0 and (offsets[1] == 0 or offsets[n_local] == offsets[n_local - 1]):
        return E_ENDS
    for k in range(p_len, len(payload)):
        if payload[k]:
            return E_PADDING
    for bit in range(base + total_bits, 8 * len(index)):
        if index[bit >> 3] >> (bit & 7) & 1:
            return E_PADDING
    return 0


@njit(cache=True, nogil=True, _nrt=False)
def _plan(offsets, dst, q, sizes, ls):
    """Per sub-list byte size and ``l``; returns (largest l, largest degree)."""
    max_l = 0
    max_d = 0
    for i in range(len(offsets) - 1):
        n = offsets[i + 1] - offsets[i]
        if n == 0:
            sizes[i] = 0
            ls[i] = 0
            continue
        u = dst[offsets[i + 1] - 1]
        ls[i] = lower_width(u, n)
        sizes[i] = list_bytes(n, u, q)
        max_l = max(max_l, ls[i])
        max_d = max(max_d, n)
    return max_l, max_d


@njit(cache=True, nogil=True, _nrt=False)
def _write_lists(offsets, dst, q, ls, boff, payload):
    for i in range(len(offsets) - 1):
        a = offsets[i]
        n = offsets[i + 1] - a
        if n == 0:
            continue
        l = ls[i]
        ul = np.uint64(l)
        n_fwd = n // q if 0 < q <= n else 0
        fw = fwd_width(n)
        p = boff[i]
        for j in range(n_fwd):
            h = np.uint64(dst[a + (j + 1) * q - 1]) >> ul
            for m in range(fw):
                payload[p + j * fw + m] = np.uint8((h >> np.uint64(8 * m)) & np.uint64(255))
        lstart = p + n_fwd * fw
        ustart = lstart + (l * n + 7) // 8
        if l > 0:
            mask = (np.uint64(1) << ul) - np.uint64(1)
            acc = np.uint64(0)
            nacc = 0
            lp = lstart
            for k in range(n):
                low = np.uint64(dst[a + k]) & mask
                if l <= 56:
                    acc |= low << np.uint64(nacc)
                    nacc += l
                else:  # 57..63 bits: in two parts
                    acc |= (low & np.uint64(0xFFFFFFFF)) << np.uint64(nacc)
                    nacc += 32
                    while nacc >= 8:
                        payload[lp] = np.uint8(acc & np.uint64(255))
                        lp += 1
                        acc >>= np.uint64(8)
                        nacc -= 8
                    acc |= (low >> np.uint64(32)) << np.uint64(nacc)
                    nacc += l - 32
                while nacc >= 8:
                    payload[lp] = np.uint8(acc & np.uint64(255))
                    lp += 1
                    acc >>= np.uint64(8)
                    nacc -= 8
            if nacc > 0:
                payload[lp] = np.uint8(acc & np.uint64(255))
        for k in range(n):
            pos = np.int64(np.uint64(dst[a + k]) >> ul) + k
            payload[ustart + (pos >> 3)] |= np.uint8(1 << (pos & 7))


@njit(cache=True, nogil=True, _nrt=False)
def _write_index(index, offsets, ls, boff, wo, wl, wd):
    w = wo + wl + wd
    base = PREAMBLE_BYTES * 8
    n_local = len(offsets) - 1
    for i in range(n_local):
        rec = base + i * w
        write_bits(index, rec, wo, boff[i])
        write_bits(index, rec + wo, wl, ls[i])
        write_bits(index, rec + wo + wl, wd, offsets[i + 1] - offsets[i])
    write_bits(index, base + n_local * w, wo, boff[n_local])


def index_bytes(n_local: int, wo: int, wl: int, wd: int) -> int:
    """Unpadded local index size: preamble plus the packed records and the final offset."""
    return PREAMBLE_BYTES + (n_local * (wo + wl + wd) + wo + 7) // 8


class EfCodec(GraphChunkCodec):
    """Elias-Fano sub-lists with forward pointers every ``quantum`` elements (0: none), as EFG."""

    format = "ef"
    format_code = 2
    kernels_read_index = True

    def __init__(self, quantum: int = DEFAULT_QUANTUM):
        if isinstance(quantum, bool) or not isinstance(quantum, (int, np.integer)) or not 0 <= int(quantum) < 2**32:
            raise ValueError(f"quantum must be an integer in [0, 2**32), got {quantum!r}")
        self.quantum = int(quantum)

    def encode_lists(self, offsets: np.ndarray, dst: np.ndarray, first_src: int) -> tuple[np.ndarray, np.ndarray]:
        offsets = np.ascontiguousarray(offsets, np.int64)
        dst = np.ascontiguousarray(dst)
        n_local = len(offsets) - 1
        sizes = np.empty(n_local, np.int64)
        ls = np.empty(n_local, np.int64)
        max_l, max_d = _plan(offsets, dst, self.quantum, sizes, ls)
        boff = np.zeros(n_local + 1, np.int64)
        np.cumsum(sizes, out=boff[1:])
        payload = np.zeros(int(boff[-1]) + SLACK_BYTES, np.uint8)
        _write_lists(offsets, dst, self.quantum, ls, boff, payload)
        wo, wl, wd = int(boff[-1]).bit_length(), int(max_l).bit_length(), int(max_d).bit_length()
        if wo > MAX_WO:
            raise ValueError(f"chunk payload of {int(boff[-1])} bytes is too large")
        index = np.zeros(index_bytes(n_local, wo, wl, wd), np.uint8)
        index[:4] = (wo, wl, wd, 0)
        index[4:8] = np.frombuffer(np.uint32(self.quantum).astype("<u4").tobytes(), np.uint8)
        _write_index(index, offsets, ls, boff, wo, wl, wd)
        return index, payload

    def decode_lists(self, header: ChunkHeader, index: np.ndarray, payload: np.ndarray, id_dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
        if len(index) < PREAMBLE_BYTES:
            raise CorruptChunkError("ef local index is shorter than its preamble")
        wo, wl, wd, reserved = (int(x) for x in index[:4])
        q = int.from_bytes(index[4:8].tobytes(), "little")
        if wo > MAX_WO or wl > MAX_WL or wd > MAX_WD or reserved:
            raise CorruptChunkError(f"ef local index has bad field widths {wo}, {wl}, {wd} or reserved byte {reserved}")
        n_local, n_edges = header.n_local, header.n_edges
        if n_edges and header.last_src >= 2 ** (8 * id_dtype.itemsize):
            raise CorruptChunkError(f"ef chunk's last source {header.last_src} exceeds its {id_dtype.itemsize}-byte ids")
        if n_edges and wd == 0:
            raise CorruptChunkError(ERRORS[E_WIDTHS])
        # every local source takes wd >= 1 index bits and every edge one upper bit: both counts
        # are bounded by the bytes present before anything is allocated
        if header.index_bytes != pad8(index_bytes(n_local, wo, wl, wd)) or len(index) != header.index_bytes:
            raise CorruptChunkError("ef local index size does not match the chunk's source count and field widths")
        if n_edges > 8 * len(payload):
            raise CorruptChunkError("ef payload is too short for the chunk's edge count")
        offsets = np.empty(n_local + 1, np.int64)
        dst = np.empty(n_edges, id_dtype)
        maxval = np.uint64(2 ** (8 * id_dtype.itemsize) - 1)
        index = np.ascontiguousarray(index, np.uint8)
        payload = np.ascontiguousarray(payload, np.uint8)
        rc = _decode_chunk(index, payload, n_local, n_edges, wo, wl, wd, q, maxval, offsets, dst)
        if rc < 0:
            raise CorruptChunkError("ef: " + ERRORS[rc])
        return offsets, dst


def chunk_nbytes(degrees: np.ndarray, last: np.ndarray, quantum: int = DEFAULT_QUANTUM) -> dict[str, int]:
    """Closed-form size of an ef chunk, from each local source's degree and last (largest) id,
    for the sources ``first_src ..= last_src`` (the first and last with edges, as in a chunk).

    Needs no encoding (EF's size depends only on ``n`` and ``u`` per list): ``header`` 40,
    ``index`` the padded local index, ``payload`` the padded payload, ``total`` their sum.
    """
    n = np.asarray(degrees, np.int64)
    u = np.where(n > 0, np.asarray(last, np.uint64), 0).astype(np.uint64)
    q = int(quantum)
    n_safe = np.maximum(n, 1).astype(np.uint64)
    ratio = u // n_safe
    l = np.zeros(len(n), np.int64)
    big = (n > 0) & (u >= n_safe)
    # floor(log2(r)) exactly, without floating point
    l[big] = _floor_log2(ratio[big])
    h = (u >> l.astype(np.uint64)).astype(np.int64)
    fw = np.select([2 * n < 2**8, 2 * n < 2**16, 2 * n < 2**32], [1, 2, 4], 8)
    n_fwd = n // q if q > 0 else np.zeros_like(n)
    sizes = np.where(n > 0, n_fwd * fw + (l * n + 7) // 8 + (h + n + 7) // 8, 0)
    lists = int(sizes.sum())
    payload = lists + SLACK_BYTES
    wo = lists.bit_length()
    wl = int(l.max(initial=0)).bit_length()
    wd = int(n.max(initial=0)).bit_length()
    index = pad8(index_bytes(len(n), wo, wl, wd))
    return {"header": 40, "index": index, "payload": pad8(payload), "total": 40 + index + pad8(payload)}


def _floor_log2(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.uint64)
    out = np.zeros(len(x), np.int64)
    for s in (32, 16, 8, 4, 2, 1):
        big = x >= np.uint64(1 << s)
        out[big] += s
        x = np.where(big, x >> np.uint64(s), x)
    return out
