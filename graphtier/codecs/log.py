"""MPLG's log encoding: every destination id of a chunk at the same width b, packed LSB-first.

b is the bit length of the chunk's largest id (at least 1). Edge k of the chunk occupies bits
``k*b .. k*b + b - 1`` of a little-endian array of words, so any edge decodes in O(1) from the word
holding its first bit and the next one. Words are as wide as the ids: 32-bit words for 32-bit ids
(b <= 32, as in MPLG), 64-bit words for 64-bit ids (b <= 64; an id then spans at most two words,
never three).

- payload: ``b`` in one word, then ``ceil(n_edges * b / W)`` data words (W = 32 or 64), then one
  zero padding word, so a decoder may always read two consecutive words without a bounds check.
  Every bit after the last id is zero. The bit string is the same whatever W: only the size of the
  b word, the rounding and the padding word differ.
- local index: as ``csr``, the chunk's own slice of ``indptr`` (``n_local + 1`` uint32 offsets), so
  the chunk decodes alone; kernels ignore it and use the global ``indptr``: local edge i starts at
  bit ``i * b`` after the b word.

The same Numba function, :func:`decode_list_log`, decodes one sub-list for ``decode_lists`` and for
the CPU kernel ``graphtier.kernels.cpu.log.log_neighbors``. ``docs/formats.md`` (section ``log``) has
the layout.
"""

from __future__ import annotations

import sys

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from ..errors import CorruptChunkError
from .base import GraphChunkCodec
from .header import ChunkHeader, pad8

# Error codes of the Numba functions (a negative return value).
ERR_BOUNDS = -1  # a read would leave the words given, or the payload's size is wrong
ERR_OFFSETS = -2  # local offsets do not start at 0, end at n_edges, or are not monotone
ERR_PADDING = -3  # a bit after the last id, or the padding word, is not zero
ERR_WIDTH = -4  # b outside 1..W
ERR_UNSORTED = -5  # a sub-list decreases
ERR_NOT_MINIMAL = -6  # b is not the bit length of the chunk's largest id (1 when there is none)
ERRORS = {
    ERR_BOUNDS: "packed ids do not fill the payload exactly",
    ERR_OFFSETS: "local index does not describe the chunk's edges",
    ERR_PADDING: "bits after the last id are not zero",
    ERR_WIDTH: "id width b out of range",
    ERR_UNSORTED: "a sub-list is not sorted",
    ERR_NOT_MINIMAL: "b is not the bit length of the largest id",
}

_1 = np.uint64(1)
_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)
_LOW32 = np.uint64(0xFFFFFFFF)


def data_words(n_edges: int, b: int, id_bytes: int = 4) -> int:
    """Words of ``8 * id_bytes`` bits holding the packed ids (the b word and padding word not counted)."""
    w = 8 * id_bytes
    return (n_edges * b + w - 1) // w


def payload_size(n_edges: int, b: int, id_bytes: int = 4) -> int:
    """Bytes of the payload section before its 8-byte padding: b word, data words, padding word."""
    return id_bytes * (data_words(n_edges, b, id_bytes) + 2)


def chunk_size(n_edges: int, n_local: int, b: int, id_bytes: int = 4) -> int:
    """Exact encoded size of a chunk: header, local index, payload (Zarr's crc32c adds 4 bytes)."""
    return 40 + pad8(4 * (n_local + 1)) + pad8(payload_size(n_edges, b, id_bytes))


# --- word access, specialised at compile time on the word type (uint32 or uint64) -------------


def _word_log2(words):  # pragma: no cover - replaced by the overload inside Numba
    raise NotImplementedError


def _window(words, bit):  # pragma: no cover - replaced by the overload inside Numba
    """The 64 bits of the bit string starting at bit ``bit`` (only the low 33 are exact for uint32 words)."""
    raise NotImplementedError


@overload(_word_log2)
def _ov_word_log2(words):
    if isinstance(words, types.Array) and words.dtype in (types.uint32, types.uint64):
        shift = 5 if words.dtype == types.uint32 else 6
        return lambda words: shift


if sys.byteorder == "little":

    @intrinsic
    def _pair(typingctx, words, i):
        """``words[i] | words[i + 1] << 32`` as one unaligned 64-bit load (little-endian host)."""
        if not (isinstance(words, types.Array) and words.ndim == 1 and words.dtype == types.uint32):
            return None
        sig = types.uint64(words, types.intp)

        def codegen(context, builder, sig, args):
            aryty = sig.args[0]
            ary = context.make_array(aryty)(context, builder, args[0])
            ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]])
            return builder.load(builder.bitcast(ptr, ir.IntType(64).as_pointer()), align=4)

        return sig, codegen

else:  # pragma: no cover - Numba targets little-endian hosts

    @njit(inline="always")
    def _pair(words, i):
        return np.uint64(words[i]) | (np.uint64(words[i + 1]) << np.uint64(32))


@overload(_window)
def _ov_window(words, bit):
    if not isinstance(words, types.Array):
        return None
    if words.dtype == types.uint32:

        def window32(words, bit):
            return _pair(words, np.int64(bit >> np.uint64(5))) >> (bit & np.uint64(31))

        return window32
    if words.dtype == types.uint64:

        def window64(words, bit):  # funnel shift of two words; (hi << 1) << (63 - s) is 0 for s = 0
            q = np.int64(bit >> np.uint64(6))
            s = bit & np.uint64(63)
            return (words[q] >> s) | ((words[q + 1] << np.uint64(1)) << (np.uint64(63) - s))

        return window64
    return None


# --- the decoder ------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def decode_list_log(words, start, nwords, b, lo, hi, out):
    """Decode ids ``lo:hi`` of the bit string at ``words[start:start + nwords]`` (width ``b``) into ``out[:hi - lo]``.

    ``words``: 1-D uint32 (32-bit ids) or uint64 (64-bit ids) array; ``nwords``: how many words may
    be read from ``start`` on (the data words plus the padding word). Returns ``hi - lo``, or a
    negative error code (``ERR_BOUNDS``, ``ERR_WIDTH``) before reading anything outside
    ``words[start:start + nwords]`` or writing past ``out``. Id k is the low b bits of the window
    starting at bit ``k * b``: the word holding that bit funnel-shifted with the next one.
    """
    n = hi - lo
    if n <= 0:
        return 0
    sh = _word_log2(words)
    if b < 1 or b > (1 << sh):
        return ERR_WIDTH
    if lo < 0 or n > len(out) or start < 0 or start + nwords > len(words):
        return ERR_BOUNDS
    # The last id ends at bit hi*b - 1; the decoder reads the word holding the last id's first bit
    # and the next one, at most the word after the one holding its last bit.
    if ((hi * b - 1) >> sh) + 2 > nwords:
        return ERR_BOUNDS
    bit = np.uint64((start << sh) + lo * b)  # counted from words[0]
    ub = np.uint64(b)
    mask = _ONES >> (np.uint64(64) - ub)
    for i in range(n):
        out[i] = _window(words, bit) & mask
        bit += ub
    return n


@njit(cache=True, nogil=True)
def decode_chunk_log(words, b, offsets, n_edges, out):
    """Check the local offsets and the payload, then decode every sub-list with :func:`decode_list_log`.

    ``words``: the whole payload as uint32 or uint64 words (``words[0]`` is b); ``offsets``: the
    ``n_local + 1`` local offsets. Besides sizes, it checks what makes the encoding canonical:
    sorted sub-lists, non-empty first and last sub-lists, b the bit length of the largest id, zero
    bits after the last id. Returns ``n_edges`` or a negative error code.
    """
    sh = _word_log2(words)
    if b < 1 or b > (1 << sh):
        return ERR_WIDTH
    n_local = len(offsets) - 1
    if n_local < 0 or offsets[0] != 0 or np.int64(offsets[n_local]) != n_edges or len(out) < n_edges:
        return ERR_OFFSETS
    # The first and last sources own at least one edge each (the header names them from the rows).
    if n_local > 0 and (offsets[1] == 0 or np.int64(offsets[n_local - 1]) == n_edges):
        return ERR_OFFSETS
    used = n_edges * b
    nwords = len(words) - 1  # after the b word: data words and the padding word
    if ((used + (1 << sh) - 1) >> sh) + 1 != nwords:
        return ERR_BOUNDS
    top = np.uint64(0)
    for i in range(n_local):
        lo = np.int64(offsets[i])
        hi = np.int64(offsets[i + 1])
        if hi < lo:
            return ERR_OFFSETS
        if hi > lo:
            r = decode_list_log(words, 1, nwords, b, lo, hi, out[lo:hi])
            if r < 0:
                return r
            for k in range(lo + 1, hi):
                if out[k] < out[k - 1]:
                    return ERR_UNSORTED
            top = max(top, np.uint64(out[hi - 1]))
    width = 1
    while width < 64 and top >> np.uint64(width) != 0:
        width += 1
    if width != b:
        return ERR_NOT_MINIMAL
    # Every bit after the last id is zero, the padding word included.
    tail = used & ((1 << sh) - 1)
    if tail and np.uint64(words[1 + (used >> sh)]) >> np.uint64(tail) != 0:
        return ERR_PADDING
    if words[len(words) - 1] != 0:
        return ERR_PADDING
    return n_edges


# --- the encoder ------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def encode_log(dst, b, first, words):
    """Pack ``dst`` at ``b`` bits each into the zeroed uint32 array ``words`` from word ``first`` on.

    ``words`` must reach at least one word past the last packed bit (the padding word).
    """
    ub = np.uint64(b)
    bit = np.int64(first) * 32
    for i in range(len(dst)):
        x = np.uint64(dst[i])
        p = bit >> 5
        s = np.uint64(bit & 31)
        y = x << s
        words[p] |= np.uint32(y & _LOW32)
        words[p + 1] |= np.uint32(y >> np.uint64(32))
        if s + ub > np.uint64(64):  # only for b > 32: the id's top bits reach a third word
            words[p + 2] |= np.uint32(x >> (np.uint64(64) - s))
        bit += b


def _words(buf: np.ndarray, dtype: str) -> np.ndarray:
    w = buf.view(dtype)
    return w if w.flags.aligned else w.copy()


class LogCodec(GraphChunkCodec):
    """MPLG log encoding (``graphtier.log``); no parameters: b is chosen per chunk."""

    format = "log"
    format_code = 1

    def encode_lists(self, offsets: np.ndarray, dst: np.ndarray, first_src: int) -> tuple[np.ndarray, np.ndarray]:
        id_bytes = dst.dtype.itemsize
        b = max(1, int(dst.max()).bit_length()) if len(dst) else 1
        hw = id_bytes // 4  # uint32 words per payload word
        words = np.zeros(hw * (data_words(len(dst), b, id_bytes) + 2), "<u4")
        words[0] = b  # the b word (its high half, for 64-bit words, stays 0)
        encode_log(np.ascontiguousarray(dst), b, hw, words)
        return offsets.astype("<u4"), words

    def decode_lists(self, header: ChunkHeader, index: np.ndarray, payload: np.ndarray, id_dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
        n, n_local, w = header.n_edges, header.n_local, header.id_bytes
        if header.index_bytes != pad8(4 * (n_local + 1)):
            raise CorruptChunkError("log index size does not match the source count")
        if header.payload_bytes < 2 * w or header.payload_bytes % w:
            raise CorruptChunkError(f"log payload of {header.payload_bytes} bytes with {w}-byte words")
        words = _words(payload[: header.payload_bytes], f"<u{w}")
        b = int(words[0])
        if not 1 <= b <= 8 * w:
            raise CorruptChunkError(f"log id width b={b} outside 1..{8 * w}")
        if header.payload_bytes != payload_size(n, b, w):
            raise CorruptChunkError(f"log payload is {header.payload_bytes} bytes, {n} ids of {b} bits need {payload_size(n, b, w)}")
        if n == 0 and (header.first_src or header.last_src):
            raise CorruptChunkError("empty log chunk names sources")
        if index[4 * (n_local + 1) :].any():
            raise CorruptChunkError("log index padding is not zero")
        offsets = _words(index[: 4 * (n_local + 1)], "<u4")
        dst = np.empty(n, id_dtype)
        r = decode_chunk_log(words, b, offsets, n, dst)
        if r < 0:
            raise CorruptChunkError(f"log chunk: {ERRORS.get(r, r)}")
        return offsets.astype(np.int64), dst
