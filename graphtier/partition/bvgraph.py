"""Read a WebGraph BVGraph (Boldi & Vigna) as an edge stream, decoding ``.graph`` sequentially.

The format is the one of WebGraph's ``BVGraph`` (Java ``it.unimi.dsi.webgraph``, Rust ``webgraph``),
version 0: one big-endian, most-significant-bit-first bit stream holding, node after node,

- the outdegree ``d``; nothing more when ``d == 0``;
- if ``windowsize > 0``, the reference ``r`` (``0`` = none) to the list of node ``v - r``;
- if ``r > 0``, a block count and blocks of the referenced list, alternately copied and skipped,
  the first block as is and the later ones minus one (they cannot be empty); after an even
  number of blocks the rest of the referenced list is copied too;
- if successors remain and ``minintervallength > 0``, an interval count and intervals: left
  extreme as ``nat2int`` of its difference from ``v`` for the first, as the gap from the previous
  right extreme (exclusive) minus one for the others; length minus ``minintervallength``;
- the remaining successors (residuals): the first as ``nat2int`` of its difference from ``v``,
  the others as gaps minus one.

Successors are the sorted merge of the three parts. Sequential decoding needs only the last
``windowsize`` lists, so ``.offsets`` is never read and memory stays small: the file is mapped, not
loaded. The decoder trusts nothing: every read is bounds-checked, codes are capped at 56 bits so
no arithmetic can overflow, and every id, length and order is checked; failures come back as
status codes that the wrapper turns into :class:`InputError` naming the node.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import numpy as np
from numba import njit

from ..errors import InputError
from .blocks import EdgeBlock
from .source import EdgeSource

_UNARY, _GAMMA, _DELTA, _ZETA = range(4)
_CODES = {"UNARY": _UNARY, "GAMMA": _GAMMA, "DELTA": _DELTA, "ZETA": _ZETA}
# The parts of a list, in the order of the decoder's parameter array, with WebGraph's defaults.
_DEFAULT_CODES = {
    "OUTDEGREES": "GAMMA",
    "REFERENCES": "UNARY",
    "BLOCKS": "GAMMA",
    "INTERVALS": "GAMMA",
    "RESIDUALS": "ZETA",
}
_MAX_BITS = 56  # longest unary run or binary part accepted: values stay below 2**57
_LEADING_ZEROS = np.array([8 - b.bit_length() for b in range(256)], dtype=np.int64)
_MAX_WINDOW = 1 << 12  # the window is a dense (windowsize + 4) x maxdegree array
_FIRST_CAP = 1024  # initial room per list; grows to the largest outdegree seen

# Decoder status codes: progress first, then errors.
_OK, _FULL, _GROW, _DONE = 0, 1, 2, 3
_TRUNCATED, _LONG_CODE, _BAD_DEGREE, _BAD_REFERENCE, _BAD_BLOCKS = 4, 5, 6, 7, 8
_BAD_LENGTHS, _OUT_OF_RANGE, _NOT_INCREASING, _ARCS = 9, 10, 11, 12


@njit(cache=True)
def _read_int(buf, pos, n):
    """The next ``n`` (<= 56) bits as a natural number, or ``-_TRUNCATED``."""
    if pos + n > buf.size * 8:
        return -_TRUNCATED, pos
    if n == 0:
        return 0, pos
    first, end = pos >> 3, (pos + n + 7) >> 3
    value = np.int64(buf[first]) & (0xFF >> (pos & 7))
    for i in range(first + 1, end):
        value = (value << 8) | np.int64(buf[i])
    return value >> (8 * (end - first) - (pos & 7) - n), pos + n


@njit(cache=True)
def _read_unary(buf, pos):
    """WebGraph's unary code: the number of 0s before the next 1."""
    nbits = buf.size * 8
    start = pos
    while pos < nbits and pos - start <= _MAX_BITS:
        off = pos & 7
        byte = (np.int64(buf[pos >> 3]) << off) & 0xFF
        if byte == 0:
            pos += 8 - off
            continue
        pos += _LEADING_ZEROS[byte]
        if pos - start > _MAX_BITS:
            break
        return pos - start, pos + 1
    if pos >= nbits:
        return -_TRUNCATED, pos
    return -_LONG_CODE, pos


@njit(cache=True)
def _read_gamma(buf, pos):
    msb, pos = _read_unary(buf, pos)
    if msb < 0:
        return msb, pos
    low, pos = _read_int(buf, pos, msb)
    if low < 0:
        return low, pos
    return ((1 << msb) | low) - 1, pos


@njit(cache=True)
def _read(buf, pos, code, k):
    """One natural number in the given code; a negative value is an error status."""
    if code == _GAMMA:
        return _read_gamma(buf, pos)
    if code == _UNARY:
        return _read_unary(buf, pos)
    if code == _DELTA:
        msb, pos = _read_gamma(buf, pos)
        if msb < 0:
            return msb, pos
        if msb > _MAX_BITS:
            return -_LONG_CODE, pos
        low, pos = _read_int(buf, pos, msb)
        if low < 0:
            return low, pos
        return ((1 << msb) | low) - 1, pos
    h, pos = _read_unary(buf, pos)  # _ZETA: h in unary, then h*k + k - 1 or h*k + k bits
    if h < 0:
        return h, pos
    if h * k + k > _MAX_BITS:
        return -_LONG_CODE, pos
    left = 1 << (h * k)
    m, pos = _read_int(buf, pos, h * k + k - 1)
    if m < 0:
        return m, pos
    if m < left:
        return m + left - 1, pos
    bit, pos = _read_int(buf, pos, 1)
    if bit < 0:
        return bit, pos
    return (m << 1) + bit - 1, pos


@njit(cache=True)
def _nat2int(x):
    return (x >> 1) ^ -(x & 1)


@njit(cache=True)
def _decode_list(buf, pos, v, prm, win, lens, budget):
    """Decode node ``v``'s list into its window row; returns (status, pos, offending value)."""
    nodes, _, window, min_interval, k, id_limit = prm[0], prm[1], prm[2], prm[3], prm[4], prm[5]
    slots = window + 1
    limit = min(nodes, id_limit)
    d, pos = _read(buf, pos, prm[6], k)
    if d < 0:
        return -d, pos, -1
    if d > nodes or d > budget:
        return _BAD_DEGREE, pos, d
    if d > win.shape[1]:
        return _GROW, pos, d
    if d == 0:
        lens[v % slots] = 0
        return _OK, pos, 0
    if v >= id_limit:
        return _OUT_OF_RANGE, pos, v
    copied, intervals, residuals = win[slots], win[slots + 1], win[slots + 2]

    n_copied = 0
    if window > 0:
        r, pos = _read(buf, pos, prm[7], k)
        if r < 0:
            return -r, pos, -1
        if r > window or r > v:
            return _BAD_REFERENCE, pos, r
        if r > 0:
            ref = win[(v - r) % slots]
            m = lens[(v - r) % slots]
            n_blocks, pos = _read(buf, pos, prm[8], k)
            if n_blocks < 0:
                return -n_blocks, pos, -1
            at = 0
            for b in range(n_blocks):
                x, pos = _read(buf, pos, prm[8], k)
                if x < 0:
                    return -x, pos, -1
                if x + (b > 0) > m - at:
                    return _BAD_BLOCKS, pos, -1
                length = x + (b > 0)
                if b % 2 == 0:
                    copied[n_copied : n_copied + length] = ref[at : at + length]
                    n_copied += length
                at += length
            if n_blocks % 2 == 0:
                copied[n_copied : n_copied + m - at] = ref[at:m]
                n_copied += m - at
            if n_copied > d:
                return _BAD_LENGTHS, pos, -1

    n_intervals = 0
    if n_copied < d and min_interval > 0:
        count, pos = _read(buf, pos, prm[9], k)
        if count < 0:
            return -count, pos, -1
        if count > d - n_copied:
            return _BAD_LENGTHS, pos, -1
        end = 0
        for i in range(count):
            x, pos = _read(buf, pos, prm[9], k)
            if x < 0:
                return -x, pos, -1
            left = v + _nat2int(x) if i == 0 else end + x + 1
            if left < 0 or left >= limit:
                return _OUT_OF_RANGE, pos, left
            x, pos = _read(buf, pos, prm[9], k)
            if x < 0:
                return -x, pos, -1
            if x > d - n_copied - n_intervals - min_interval:
                return _BAD_LENGTHS, pos, -1
            end = left + x + min_interval
            if end > limit:
                return _OUT_OF_RANGE, pos, end - 1
            for s in range(left, end):
                intervals[n_intervals] = s
                n_intervals += 1

    n_residuals = d - n_copied - n_intervals
    s = 0
    for i in range(n_residuals):
        x, pos = _read(buf, pos, prm[10], k)
        if x < 0:
            return -x, pos, -1
        s = v + _nat2int(x) if i == 0 else s + x + 1
        if s < 0 or s >= limit:
            return _OUT_OF_RANGE, pos, s
        residuals[i] = s

    out = win[v % slots]
    big = np.int64(1) << 62
    a = b = c = 0
    last = -1
    for o in range(d):
        x = copied[a] if a < n_copied else big
        y = intervals[b] if b < n_intervals else big
        z = residuals[c] if c < n_residuals else big
        if x <= y and x <= z:
            a += 1
        elif y <= z:
            x = y
            b += 1
        else:
            x = z
            c += 1
        if x <= last:
            return _NOT_INCREASING, pos, x
        out[o] = x
        last = x
    lens[v % slots] = d
    return _OK, pos, 0


@njit(cache=True)
def _decode(buf, prm, state, win, lens, src, dst, filled):
    """Resume decoding into ``src``/``dst`` from ``filled`` on; returns (status, filled).

    ``state`` is [bit position, next node, successors of the previous node still to emit, arcs
    decoded, offending value]: a list larger than the room left is emitted over several calls.
    """
    nodes, arcs, slots = prm[0], prm[1], prm[2] + 1
    pos, v, rest, seen = state[0], state[1], state[2], state[3]
    while True:
        if rest > 0:
            row = (v - 1) % slots
            n = min(rest, src.size - filled)
            first = lens[row] - rest
            for i in range(n):
                src[filled + i] = v - 1
                dst[filled + i] = win[row, first + i]
            filled += n
            rest -= n
            if rest > 0:
                status = _FULL
                break
        if v == nodes:
            status = _DONE if seen == arcs else _ARCS
            state[4] = seen
            break
        status, next_pos, value = _decode_list(buf, pos, v, prm, win, lens, arcs - seen)
        if status != _OK:
            state[4] = value
            break
        pos = next_pos
        rest = lens[v % slots]
        seen += rest
        v += 1
    state[0], state[1], state[2], state[3] = pos, v, rest, seen
    return status, filled


def _read_properties(path: Path) -> dict[str, str]:
    """Java ``.properties`` (ISO-8859-1): ``key=value``, ``key: value`` or ``key value`` lines."""
    try:
        text = path.read_text(encoding="latin-1")
    except OSError as e:
        raise InputError(f"cannot read BVGraph properties: {e.strerror}", file=str(path)) from e
    props = {}
    for line in text.splitlines():
        line = line.strip()
        if line and line[0] not in "#!":
            key, value = re.match(r"([^=:\s]*)\s*[=:\s]?\s*(.*)", line).groups()
            props[key] = value
    return props


def _parameters(props: dict[str, str], path: Path, id_limit: int) -> np.ndarray:
    """The decoder's int64 parameters, after rejecting what this reader cannot decode."""

    def natural(key: str, default: str | None = None) -> int:
        raw = props.get(key, default)
        if raw is None:
            raise InputError(f"missing property {key!r}", file=str(path))
        if not re.fullmatch("[0-9]+", raw) or int(raw) >= 1 << _MAX_BITS:
            raise InputError(
                f"property {key}={raw!r} is not a natural number below 2**{_MAX_BITS}",
                file=str(path),
            )
        return int(raw)

    graphclass = props.get("graphclass", "BVGraph")
    if not graphclass.lower().endswith("bvgraph"):
        raise InputError(f"unsupported graph class {graphclass!r}: only BVGraph is", file=str(path))
    version, endianness = props.get("version", "0"), props.get("endianness", "big")
    if version != "0":
        raise InputError(f"unsupported BVGraph version {version!r}: only 0 is", file=str(path))
    if endianness != "big":
        raise InputError(f"unsupported endianness {endianness!r}: only big is", file=str(path))
    codes = dict(_DEFAULT_CODES)
    for flag in filter(None, (f.strip() for f in props.get("compressionflags", "").split("|"))):
        part, _, code = flag.partition("_")
        if part == "OFFSETS":  # offsets are never read
            continue
        if part not in codes or code not in _CODES:
            raise InputError(
                f"unsupported compression flag {flag!r}: this reader supports {'/'.join(codes)} with {'/'.join(_CODES)} codes",
                file=str(path),
            )
        codes[part] = code
    zetak = natural("zetak", "3")
    if not 1 <= zetak <= _MAX_BITS:
        raise InputError(f"zetak={zetak} must be between 1 and {_MAX_BITS}", file=str(path))
    window = natural("windowsize")
    if window > _MAX_WINDOW:
        raise InputError(f"windowsize={window} exceeds the supported {_MAX_WINDOW}", file=str(path))
    head = [natural("nodes"), natural("arcs"), window, natural("minintervallength"), zetak]
    codes = [_CODES[c] for c in codes.values()]
    return np.array(head + [min(id_limit, 1 << 62)] + codes, dtype=np.int64)


def _error(status: int, node: int, value: int, prm: np.ndarray, path: Path) -> InputError:
    nodes, arcs, window, id_limit = int(prm[0]), int(prm[1]), int(prm[2]), int(prm[5])
    problem = {
        _TRUNCATED: "the bit stream ends inside this list (truncated file?)",
        _LONG_CODE: f"a code longer than {_MAX_BITS} bits (corrupt stream)",
        _BAD_DEGREE: f"outdegree {value} exceeds the nodes or the arcs left of the declared {arcs}",
        _BAD_REFERENCE: f"reference {value} reaches outside the window of {window} lists",
        _BAD_BLOCKS: "copy blocks run past the end of the referenced list",
        _BAD_LENGTHS: "copied and interval successors exceed the outdegree",
        _OUT_OF_RANGE: f"id {value} is outside [0, {min(nodes, id_limit)}) (nodes={nodes}, id_limit={id_limit})",
        _NOT_INCREASING: f"successor {value} repeats or is out of order",
    }
    if status == _ARCS:
        return InputError(f"decoded {value} arcs but the properties declare {arcs}", file=str(path))
    return InputError(f"node {node}: {problem[status]}", file=str(path))


def _blocks(path: Path, prm: np.ndarray, block_edges: int, provenance: dict) -> Iterator[EdgeBlock]:
    """One sequential pass over the ``.graph`` file, hashing its bytes as they are decoded."""
    empty = not path.stat().st_size  # mmap refuses empty files; both are read-only, one compilation
    buf = np.frombuffer(b"", np.uint8) if empty else np.memmap(path, dtype=np.uint8, mode="r")
    sha, hashed = hashlib.sha256(), 0
    state = np.zeros(5, dtype=np.int64)
    win = np.zeros((prm[2] + 4, _FIRST_CAP), dtype=np.int64)  # window rows, then 3 scratch rows
    lens = np.zeros(prm[2] + 1, dtype=np.int64)
    while True:
        src, dst = np.empty(block_edges, np.uint64), np.empty(block_edges, np.uint64)
        filled = 0
        while True:
            status, filled = _decode(buf, prm, state, win, lens, src, dst, filled)
            if status != _GROW:
                break
            win = np.pad(win, ((0, 0), (0, max(int(state[4]), 2 * win.shape[1]) - win.shape[1])))
        if status > _DONE:
            raise _error(status, int(state[1]), int(state[4]), prm, path)
        upto = int(state[0]) >> 3 if status != _DONE else buf.size
        sha.update(buf[hashed:upto])
        hashed = upto
        if filled:
            yield EdgeBlock(src[:filled], dst[:filled])
        if status == _DONE:
            break
    provenance["sha256"] = sha.hexdigest()


def bvgraph_source(basename: str | os.PathLike, *, id_limit: int, block_edges: int = 1 << 22) -> EdgeSource:
    """An edge source over the BVGraph ``basename`` (``.properties`` and ``.graph``).

    ``basename`` may end in ``.graph``. Properties are validated now, so unsupported files fail
    early; the bit stream is decoded, checked and hashed on each pass.
    """
    if block_edges < 1 or id_limit < 0:
        raise ValueError(f"need block_edges >= 1 and id_limit >= 0, got {block_edges}, {id_limit}")
    base = Path(basename)
    if base.name.endswith(".graph"):
        base = base.with_name(base.name[: -len(".graph")])
    props_path, graph_path = (base.with_name(base.name + ext) for ext in (".properties", ".graph"))
    props = _read_properties(props_path)
    prm = _parameters(props, props_path, id_limit)
    if not graph_path.is_file():
        raise InputError("BVGraph bit stream not found", file=str(graph_path))
    provenance = {"source": str(base), "kind": "bvgraph"}
    provenance.update({k: props[k] for k in ("bitsperlink", "compressionflags") if k in props})
    return EdgeSource(
        name=str(base),
        make_blocks=partial(_blocks, graph_path, prm, block_edges, provenance),
        n_vertices=int(prm[0]),
        provenance=provenance,
    )
