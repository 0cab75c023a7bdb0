"""SNAP-style text edge lists, parsed by Numba over large byte blocks so no Python runs per line.

The parser here is shared with the MatrixMarket reader, whose body is the same kind of lines.
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import io
import lzma
import os
import zlib
from collections.abc import Generator
from concurrent.futures import ThreadPoolExecutor
from typing import Self

import numba
import numpy as np
from numba import njit

from ..errors import InputError
from .blocks import EdgeBlock
from .source import EdgeSource

# What the Numba parser reports: it cannot raise rich errors, so it returns a code and a position.
(OK, BAD_TOKEN, MISSING_COLUMN, EXTRA_COLUMN, ID_RANGE, NEGATIVE_WEIGHT, NAN_WEIGHT, INFINITE_WEIGHT) = range(8)

_NL, _CR, _SPACE, _TAB, _COMMA, _HASH, _PERCENT, _MINUS, _PLUS, _DOT = b"\n\r \t,#%-+."
_NL_BYTE = np.uint8(_NL)
_MAX_ID = 2**63 - 1
_MIN_PART_BYTES = 1 << 16  # smaller blocks are parsed by one thread
_POW10 = np.array([10.0**k for k in range(23)])  # exact in float64
_NAN, _INF, _INFINITY = (np.frombuffer(w, np.uint8) for w in (b"nan", b"inf", b"infinity"))

_COMPRESSION = {
    b"\x1f\x8b": ("gzip", lambda f: gzip.GzipFile(fileobj=f, mode="rb")),
    b"BZh": ("bz2", bz2.BZ2File),
    b"\xfd7zXZ\x00": ("xz", lzma.LZMAFile),
}


class _Hashing(io.RawIOBase):
    """A raw file that hashes its bytes as they are read, so the checksum costs no second pass."""

    def __init__(self, raw: io.RawIOBase):
        self.raw = raw
        self.hash = hashlib.sha256()

    def readable(self) -> bool:
        return True

    def readinto(self, view) -> int:
        n = self.raw.readinto(view)
        self.hash.update(memoryview(view)[:n])
        return n


class Input:
    """A file opened for parsing: read() gives decompressed bytes, raw bytes are hashed as read.

    Compression is told by magic bytes, not by the name; corrupt data is an InputError.
    """

    def __init__(self, path: str | os.PathLike):
        self.name = str(path)
        raw = open(path, "rb", buffering=0)  # noqa: SIM115 (closed by close(), with the hashing reader)
        magic = raw.read(6)
        raw.seek(0)
        self._hashing = _Hashing(raw)
        self.compression, opener = next((kind for m, kind in _COMPRESSION.items() if magic.startswith(m)), (None, None))
        self._stream = opener(self._hashing) if opener else self._hashing

    def read(self, size: int) -> bytes:
        return self._decompressing(self._stream.read, size)

    def readline(self) -> bytes:
        return self._decompressing(self._stream.readline, -1)

    def readinto(self, view) -> int:
        return self._decompressing(self._stream.readinto, view)

    def _decompressing(self, method, argument):
        try:
            return method(argument)
        except (OSError, EOFError, lzma.LZMAError, zlib.error) as e:
            if self.compression is None:
                raise
            raise InputError(f"corrupt {self.compression} data: {e}", file=self.name) from e

    def sha256(self) -> str:
        """Hex digest of the whole raw file, reading whatever decompression left unread."""
        while self._hashing.read(1 << 20):
            pass
        return self._hashing.hash.hexdigest()

    def close(self) -> None:
        self._stream.close()
        self._hashing.raw.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# ---------------------------------------------------------------------------------------------
# Numba parser. Lines are `a b [w]` with fields split by spaces/tabs or one comma; '\r' counts as
# a space; '#' and '%' lines are comments.


@njit(cache=True)
def _is_blank(c):
    return c == _SPACE or c == _TAB or c == _CR


@njit(cache=True)
def _ends_field(c):
    return c == _SPACE or c == _TAB or c == _CR or c == _COMMA or c == _NL


@njit(cache=True)
def _field_end(buf, j, b):
    while j < b and not _ends_field(buf[j]):
        j += 1
    return j


@njit(cache=True)
def _skip_separator(buf, j, b):
    while j < b and _is_blank(buf[j]):
        j += 1
    if j < b and buf[j] == _COMMA:
        j += 1
        while j < b and _is_blank(buf[j]):
            j += 1
    return j


@njit(cache=True)
def _parse_id(buf, j, b, lo, hi):
    """Decimal id at buf[j] as (value, end, code); negative or outside [lo, hi) is ID_RANGE."""
    negative = j < b and buf[j] == _MINUS
    if negative:
        j += 1
    first = j
    v = 0
    overflow = False
    while j < b:
        c = buf[j]
        if c < 48 or c > 57:
            break
        if v > 922337203685477579:  # one more digit could overflow int64
            overflow = True
        else:
            v = v * 10 + (c - 48)
        j += 1
    if j == first or (j < b and not _ends_field(buf[j])):
        return 0, _field_end(buf, j, b), BAD_TOKEN
    if negative or overflow or v < lo or v >= hi:
        return 0, j, ID_RANGE
    return v, j, OK


@njit(cache=True)
def _is_word(buf, j, e, word):
    if e - j != len(word):
        return False
    for k in range(len(word)):
        if buf[j + k] | 32 != word[k]:  # ASCII lower case
            return False
    return True


@njit(cache=True)
def _parse_weight(buf, j, b):
    """Decimal or scientific number at buf[j]: (value, end, code); NaN, inf and < 0 are errors."""
    negative = j < b and buf[j] == _MINUS
    if j < b and (buf[j] == _MINUS or buf[j] == _PLUS):
        j += 1
    mantissa = 0
    exp10 = 0
    digits = 0
    while j < b and 48 <= buf[j] <= 57:
        if mantissa < 100000000000000000:
            mantissa = mantissa * 10 + (buf[j] - 48)
        else:
            exp10 += 1
        digits += 1
        j += 1
    if j < b and buf[j] == _DOT:
        j += 1
        while j < b and 48 <= buf[j] <= 57:
            if mantissa < 100000000000000000:
                mantissa = mantissa * 10 + (buf[j] - 48)
                exp10 -= 1
            digits += 1
            j += 1
    if digits == 0:
        e = _field_end(buf, j, b)
        if _is_word(buf, j, e, _NAN):
            return 0.0, e, NAN_WEIGHT
        if _is_word(buf, j, e, _INF) or _is_word(buf, j, e, _INFINITY):
            return 0.0, e, INFINITE_WEIGHT
        return 0.0, e, BAD_TOKEN
    if j < b and buf[j] | 32 == 101:  # 'e' or 'E'
        j += 1
        exp_negative = j < b and buf[j] == _MINUS
        if j < b and (buf[j] == _MINUS or buf[j] == _PLUS):
            j += 1
        first = j
        e = 0
        while j < b and 48 <= buf[j] <= 57:
            e = min(e * 10 + (buf[j] - 48), 100000)
            j += 1
        if j == first:
            return 0.0, _field_end(buf, j, b), BAD_TOKEN
        exp10 += -e if exp_negative else e
    if j < b and not _ends_field(buf[j]):
        return 0.0, _field_end(buf, j, b), BAD_TOKEN
    if mantissa == 0:
        v = 0.0
    elif exp10 >= 0:
        v = mantissa * (_POW10[exp10] if exp10 <= 22 else 10.0**exp10)
    else:
        v = mantissa / (_POW10[-exp10] if exp10 >= -22 else 10.0**-exp10)
    if negative and v != 0:
        return 0.0, j, NEGATIVE_WEIGHT
    if np.isinf(np.float32(v)):
        return 0.0, j, INFINITE_WEIGHT
    return v, j, OK


@njit(cache=True, nogil=True)
def _parse_range(buf, a, b, ncols, lo, hi, src, dst, w, k):
    """Parse the lines of buf[a:b] into src/dst/w from index k, ids shifted down by lo.

    Returns (edges, code, line, token start, token end, column), line counted from 0 at a.
    """
    k0 = k
    line = 0
    i = a
    while i < b:
        j = i
        while j < b and _is_blank(buf[j]):
            j += 1
        if j < b and (buf[j] == _HASH or buf[j] == _PERCENT):
            while j < b and buf[j] != _NL:
                j += 1
        if j >= b or buf[j] == _NL:  # blank or comment
            i = j + 1
            line += 1
            continue
        t = j
        s, j, code = _parse_id(buf, j, b, lo, hi)
        if code != OK:
            return k - k0, code, line, t, j, 1
        j = _skip_separator(buf, j, b)
        if j >= b or buf[j] == _NL:
            return k - k0, MISSING_COLUMN, line, j, j, 2
        t = j
        d, j, code = _parse_id(buf, j, b, lo, hi)
        if code != OK:
            return k - k0, code, line, t, j, 2
        if ncols == 3:
            j = _skip_separator(buf, j, b)
            if j >= b or buf[j] == _NL:
                return k - k0, MISSING_COLUMN, line, j, j, 3
            t = j
            x, j, code = _parse_weight(buf, j, b)
            if code != OK:
                return k - k0, code, line, t, j, 3
            w[k] = x
        while j < b and _is_blank(buf[j]):
            j += 1
        if j < b and buf[j] != _NL:
            t = _skip_separator(buf, j, b)
            return k - k0, EXTRA_COLUMN, line, t, _field_end(buf, t, b), ncols + 1
        src[k] = s - lo
        dst[k] = d - lo
        k += 1
        i = j + 1
        line += 1
    return k - k0, OK, 0, 0, 0, 0


@njit(cache=True)
def _line_cuts(buf, n, parts):
    """`parts` + 1 line starts that cut buf[:n] (whole lines) into ranges of similar size."""
    cuts = np.empty(parts + 1, np.int64)
    cuts[0] = 0
    cuts[parts] = n
    for p in range(1, parts):
        j = max(p * n // parts, cuts[p - 1], 1)
        while j < n and buf[j - 1] != _NL:
            j += 1
        cuts[p] = j
    return cuts


@njit(cache=True, nogil=True)
def _count_lines(buf, a, b):
    """Line ends in buf[a:b]."""
    part = buf[a:b]  # a slice and a uint8 constant: LLVM vectorizes this loop
    c = 0
    for j in range(part.size):
        c += part[j] == _NL_BYTE
    return c


@njit(cache=True)
def _first_data_line(buf, n, eof):
    """(line index, field count) of the first data line in buf[:n]; (-1, 0) if none is complete."""
    i = 0
    line = 0
    while i < n:
        j = i
        while j < n and _is_blank(buf[j]):
            j += 1
        e = j
        while e < n and buf[e] != _NL:
            e += 1
        if e == n and not eof:
            return -1, 0
        if j < e and buf[j] != _HASH and buf[j] != _PERCENT:
            fields = 0
            while j < e:
                fields += 1
                j = _skip_separator(buf, _field_end(buf, j, e), e)
            return line, fields
        i = e + 1
        line += 1
    return -1, 0


@njit(cache=True)
def _end_of_last_line(buf, n):
    """Index just past the last '\\n' in buf[:n], or 0 if there is none."""
    for j in range(n - 1, -1, -1):
        if buf[j] == _NL:
            return j + 1
    return 0


# ---------------------------------------------------------------------------------------------


def _message(code: int, column: int, token: str, ncols: int, id_range: str) -> str:
    layout = "src dst weight" if ncols == 3 else "src dst"
    if code == BAD_TOKEN:
        kind = "weight" if column == 3 else "vertex id"
        return f"column {column}: {token!r} is not a {kind}"
    if code == MISSING_COLUMN:
        return f"missing column {column}: expected {ncols} columns ({layout})"
    if code == EXTRA_COLUMN:
        return f"extra column {token!r}: expected {ncols} columns ({layout})"
    if code == ID_RANGE:
        negative = "negative " if token.startswith("-") else ""
        return f"column {column}: {negative}vertex id {token} is out of range {id_range}"
    if code == NEGATIVE_WEIGHT:
        return f"negative weight {token}"
    if code == NAN_WEIGHT:
        return f"weight {token} is NaN"
    return f"weight {token} is infinite (or too large for float32)"


def _read_lines(inp: Input, carry: np.ndarray, size: int) -> tuple[np.ndarray, int, int, bool]:
    """A new buffer holding `carry` and then at least `size` bytes more from `inp`.

    Returns (buffer, end of its last whole line, bytes in it, end of input reached); at the end
    of the input the last line counts as whole even without a line end.
    """
    buf = np.empty(len(carry) + size, np.uint8)
    buf[: len(carry)] = carry
    n = len(carry)
    while True:
        view = memoryview(buf)
        while n < len(buf) and (got := inp.readinto(view[n:])):
            n += got
        if n < len(buf):
            return buf, n, n, True
        end = _end_of_last_line(buf, n)
        if end:
            return buf, end, n, False
        buf = np.concatenate([buf, np.empty_like(buf)])  # one line longer than the buffer


def _parse_buffer(
    buf: np.ndarray,
    end: int,
    ncols: int,
    lo: int,
    hi: int,
    workers: ThreadPoolExecutor,
    threads: int,
) -> tuple:
    """Parse the whole lines of buf[:end], in line-aligned ranges on `threads` worker threads.

    Returns (src, dst, w, offsets, newlines, result): range p found result[p][0] edges, at
    offsets[p] of src/dst/w, and has newlines[p] line ends. The Numba functions release the
    GIL, so plain threads run them in parallel.
    """
    parts = max(1, min(threads, end // _MIN_PART_BYTES))
    cuts = _line_cuts(buf, end, parts)
    run = map if parts == 1 else workers.map
    newlines = np.fromiter(run(_count_lines, [buf] * parts, cuts[:-1], cuts[1:]), np.int64)
    offsets = np.zeros(parts + 1, np.int64)
    offsets[1:] = np.cumsum(newlines)
    offsets[-1] += end > 0 and buf[end - 1] != _NL  # the file's last line, with no line end
    # Room for one edge per line, allocated by NumPy: it asks for huge pages, Numba does not
    src, dst = np.empty(offsets[-1], np.uint64), np.empty(offsets[-1], np.uint64)
    w = np.empty(offsets[-1] if ncols == 3 else 0, np.float32)
    hi = min(hi, _MAX_ID)
    result = list(
        run(
            lambda a, b, k: _parse_range(buf, a, b, ncols, lo, hi, src, dst, w, k),
            cuts[:-1],
            cuts[1:],
            offsets[:-1],
        )
    )
    return src, dst, w, offsets, newlines, result


def parse_lines(
    inp: Input,
    *,
    ncols: int,
    lo: int,
    hi: int,
    id_range: str,
    block_edges: int,
    read_bytes: int,
    first_line: int = 0,
) -> Generator[EdgeBlock, None, tuple[int, int]]:
    """Yield the edges of every line left in `inp`; return the file's line and edge counts.

    Valid ids are [lo, hi) and are shifted down by lo; `id_range` says so in error messages.
    `first_line` is how many lines the caller already read. A thread reads (and decompresses,
    and hashes) the next block while Numba parses this one: all of them release the GIL.
    """
    lines = first_line
    edges = 0
    threads = numba.get_num_threads()
    with ThreadPoolExecutor(1) as reader, ThreadPoolExecutor(threads) as workers:
        pending = reader.submit(_read_lines, inp, np.empty(0, np.uint8), read_bytes)
        eof = False
        while not eof:
            buf, end, n, eof = pending.result()
            if not eof:
                pending = reader.submit(_read_lines, inp, buf[end:n], read_bytes)
            src, dst, w, offsets, newlines, result = _parse_buffer(buf, end, ncols, lo, hi, workers, threads)
            for p, (count, code, line, start, stop, column) in enumerate(result):
                if code != OK:
                    token = bytes(buf[start:stop]).decode("utf-8", "replace")
                    raise InputError(
                        _message(code, column, token, ncols, id_range),
                        file=inp.name,
                        line=lines + int(newlines[:p].sum()) + line + 1,
                    )
                for a in range(offsets[p], offsets[p] + count, block_edges):
                    b = min(a + block_edges, offsets[p] + count)
                    yield EdgeBlock(src[a:b], dst[a:b], w[a:b] if ncols == 3 else None)
            lines += int(offsets[-1])  # one per line, ended or not
            edges += sum(r[0] for r in result)
    return lines, edges


def _sniff_columns(path: str | os.PathLike) -> int:
    """Columns of the first data line (2 or 3), which fix whether the file is weighted."""
    with Input(path) as inp:
        data = b""
        while True:
            piece = inp.read(1 << 20)
            data += piece
            line, fields = _first_data_line(np.frombuffer(data, np.uint8), len(data), not piece)
            if line >= 0 or not piece:
                break
    if line < 0:
        return 2  # no edges at all
    if fields not in (2, 3):
        raise InputError(
            f"found {fields} column{'s' * (fields > 1)}, expected 2 or 3 (src dst [weight])",
            file=inp.name,
            line=line + 1,
        )
    return fields


def text_source(
    path: str | os.PathLike,
    *,
    id_limit: int,
    block_edges: int = 1 << 22,
    read_bytes: int = 64 << 20,
) -> EdgeSource:
    """A text edge list (plain, gzip, bz2 or xz) with ids in [0, id_limit).

    `read_bytes` is the size of the byte blocks the parser sees (tests make it tiny).
    """
    name = str(path)
    ncols = _sniff_columns(path)
    limit = min(id_limit, _MAX_ID)  # the parser works in int64
    provenance = {"source": name, "kind": "text"}

    def blocks():
        with Input(path) as inp:
            lines, _ = yield from parse_lines(
                inp,
                ncols=ncols,
                lo=0,
                hi=limit,
                id_range=f"[0, {limit})",
                block_edges=block_edges,
                read_bytes=read_bytes,
            )
            provenance.update(sha256=inp.sha256(), lines=lines)

    return EdgeSource(name=name, make_blocks=blocks, weighted=ncols == 3, provenance=provenance)
