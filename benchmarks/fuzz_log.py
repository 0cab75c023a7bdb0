"""Fuzz the ``log`` codec's decoder with corrupt, truncated and hostile chunks.

    python benchmarks/fuzz_log.py [N_INPUTS] [--seed S]

Every input must either raise ``CorruptChunkError`` or decode to rows consistent with its header
(``n_edges`` rows of the header's id width, sources within ``first_src..last_src`` in order); and
since the format is canonical, re-encoding accepted rows must give back the input's bytes (all but
the payload section's padding to 8 bytes, which no decoder reads). Any other exception, or a
mismatch, is a failure. ``tests/test_codec_log.py`` runs ``fuzz`` with 100,000 inputs.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from graphtier.codecs.header import HEADER_BYTES, HEADER_DTYPE, read_header
from graphtier.codecs.log import LogCodec
from graphtier.errors import CorruptChunkError

# Byte offsets of the header fields (docs/store.md).
FIELDS = {name: (HEADER_DTYPE.fields[name][1], HEADER_DTYPE.fields[name][0].itemsize) for name in HEADER_DTYPE.names}
EXTREMES = [0, 1, 2, 3, 7, 8, 31, 32, 33, 63, 64, 65, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**63 - 1, 2**64 - 1]


def _rows(rng, n_sources, degree, id_max, dtype, span=1):
    src = np.sort(rng.integers(0, max(1, n_sources) * span, rng.integers(0, degree * n_sources + 1))).astype(np.uint64)
    dst = rng.integers(0, id_max, len(src), dtype=np.uint64, endpoint=True)
    rows = np.stack([src, dst], 1)
    return rows[np.lexsort((rows[:, 1], rows[:, 0]))].astype(dtype)


def corpus(seed: int = 0) -> list[np.ndarray]:
    """Valid chunks: both id widths, b from 1 to 64, empty and long sub-lists, duplicates."""
    rng = np.random.default_rng(seed)
    codec = LogCodec()
    chunks = [np.zeros((0, 2), np.uint32), np.zeros((0, 2), np.uint64)]
    chunks.append(np.array([[5, 1], [5, 9], [7, 3]], np.uint32))
    chunks.append(np.array([[0, 5], [0, 9000], [0, 12345]], np.uint32))
    for dtype, widths in ((np.uint32, (1, 2, 5, 13, 19, 31, 32)), (np.uint64, (1, 20, 32, 33, 47, 63, 64))):
        for b in widths:
            for n_sources, degree, span in ((1, 40, 1), (6, 5, 3), (30, 2, 1)):
                rows = _rows(rng, n_sources, degree, min(2**b - 1, 2**64 - 2), dtype, span)
                if len(rows) == 0:
                    continue
                if dtype == np.uint32:
                    rows[:, 0] += dtype(rng.integers(0, 2**32 - 200))
                chunks.append(rows)
    dup = np.array([[3, 7]] * 9 + [[4, 0]] * 3, np.uint32)
    chunks.append(dup)
    return [np.frombuffer(codec.encode(r), np.uint8).copy() for r in chunks]


def _pick(rng, options):
    return options[int(rng.integers(0, len(options)))]


def _consistent_header(rng) -> np.ndarray:
    """Random index and payload bytes under a header whose sizes add up, so decode_lists is reached."""
    id_bytes = _pick(rng, [4, 8])
    n = _pick(rng, [0, 1, 2, 3, int(rng.integers(0, 100)), int(rng.integers(0, 2**32))])
    first = _pick(rng, [0, int(rng.integers(0, 2**20)), 2**64 - 2])
    n_local = _pick(rng, [1, 2, int(rng.integers(0, 40)), int(rng.integers(0, 2**40))])
    last = min(first + n_local - 1, 2**64 - 1) if n_local else first
    index_bytes = _pick(rng, [(4 * (n_local + 1) + 7) & ~7 if n_local < 2**20 else 8, 8 * int(rng.integers(0, 20))])
    b = int(rng.integers(0, 70))
    payload_bytes = _pick(rng, [id_bytes * (((n * b + 8 * id_bytes - 1) // (8 * id_bytes)) + 2), int(rng.integers(0, 300))])
    if index_bytes + payload_bytes > 4096:
        payload_bytes = int(rng.integers(0, 300))
    total = HEADER_BYTES + index_bytes + ((payload_bytes + 7) & ~7)
    buf = rng.integers(0, 256, total, dtype=np.uint8)
    # Mostly small values: sorted-looking offsets and b in the first payload word.
    if rng.random() < 0.7 and index_bytes:
        k = index_bytes // 4
        offs = np.sort(rng.integers(0, max(n, 1) + 1, k)).astype("<u4")
        offs[0] = 0
        buf[HEADER_BYTES : HEADER_BYTES + index_bytes] = offs.view(np.uint8)
    if payload_bytes >= 4:
        buf[HEADER_BYTES + index_bytes : HEADER_BYTES + index_bytes + 4] = np.frombuffer(np.uint32(b).tobytes(), np.uint8)
        if payload_bytes >= 8 and id_bytes == 8:
            buf[HEADER_BYTES + index_bytes + 4 : HEADER_BYTES + index_bytes + 8] = 0
    h = np.zeros((), HEADER_DTYPE)
    h["magic"], h["version"], h["format"], h["id_bytes"] = b"GTCK", 1, 1, id_bytes
    h["n_edges"], h["index_bytes"], h["first_src"], h["last_src"], h["payload_bytes"] = (np.uint32(n), np.uint32(index_bytes), np.uint64(first), np.uint64(last), np.uint64(payload_bytes))
    buf[:HEADER_BYTES] = np.frombuffer(h.tobytes(), np.uint8)
    return buf


def mutate(rng, good: np.ndarray) -> np.ndarray:
    kind = rng.integers(0, 7)
    if kind == 0:  # truncate, or extend with junk
        cut = int(rng.integers(0, len(good) + 1))
        bad = good[:cut].copy()
        if rng.random() < 0.3:
            bad = np.concatenate([good, rng.integers(0, 256, int(rng.integers(1, 17)), dtype=np.uint8)])
        return bad
    if kind in (1, 2):  # flip 1 to 4 bits anywhere, or only in the payload
        bad = good.copy()
        lo = 0 if kind == 1 else min(len(bad) - 1, read_header(good, "log").payload_start)
        for pos in rng.integers(lo, len(bad), rng.integers(1, 5)):
            bad[pos] ^= np.uint8(1 << rng.integers(0, 8))
        return bad
    if kind == 3:  # one header field set to an extreme, random or nearby value
        bad = good.copy()
        name = rng.choice(["n_edges", "index_bytes", "first_src", "last_src", "payload_bytes", "id_bytes", "version", "format", "reserved"])
        off, size = FIELDS[name]
        old = int.from_bytes(bad[off : off + size].tobytes(), "little")
        choice = rng.integers(0, 3)
        value = _pick(rng, EXTREMES) if choice == 0 else int(rng.integers(0, 2**63)) if choice == 1 else old + int(rng.integers(-9, 10))
        bad[off : off + size] = np.frombuffer((value % (1 << (8 * size))).to_bytes(size, "little"), np.uint8)
        return bad
    if kind == 4:  # the b word or one index entry set to an extreme or nearby value
        bad = good.copy()
        h = read_header(good, "log")
        pos = h.payload_start if rng.random() < 0.5 or h.index_bytes < 4 else h.index_start + 4 * int(rng.integers(0, h.index_bytes // 4))
        old = int(bad[pos : pos + 4].view("<u4")[0])
        value = _pick(rng, EXTREMES) if rng.random() < 0.5 else old + int(rng.integers(-3, 4))
        bad[pos : pos + 4] = np.frombuffer((value % 2**32).to_bytes(4, "little"), np.uint8)
        return bad
    if kind == 5:  # random bytes behind a plausible start
        noise = rng.integers(0, 256, int(rng.integers(0, 200)), dtype=np.uint8)
        prefix = np.frombuffer(b"GTCK\x01\x01" + bytes([_pick(rng, [4, 8])]) + b"\x00", np.uint8)
        noise[: min(8, len(noise))] = prefix[: min(8, len(noise))]
        return noise
    return _consistent_header(rng)


def check_one(codec: LogCodec, bad: np.ndarray) -> bool:
    """True when accepted (and consistent), False when refused; raises on anything else."""
    try:
        rows = codec.decode(bad)
    except CorruptChunkError:
        return False
    h = read_header(bad, "log")
    assert rows.shape == (h.n_edges, 2) and rows.dtype == np.dtype(f"u{h.id_bytes}"), (rows.shape, rows.dtype, h)
    if h.n_edges:
        src = rows[:, 0]
        assert int(src[0]) == h.first_src and int(src[-1]) == h.last_src and (np.diff(src.astype(np.int64)) >= 0).all()
    again = np.frombuffer(codec.encode(rows), np.uint8)
    end = h.payload_start + h.payload_bytes
    assert len(again) == len(bad) and np.array_equal(again[:end], bad[:end]), "accepted chunk is not canonical"
    return True


def fuzz(n_inputs: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    codec = LogCodec()
    goods = corpus(seed)
    for g in goods:  # the corpus itself must decode
        assert check_one(codec, g)
    accepted = 0
    t0 = time.perf_counter()
    for i in range(n_inputs):
        bad = mutate(rng, goods[int(rng.integers(0, len(goods)))])
        try:
            accepted += check_one(codec, bad)
        except Exception as e:
            raise AssertionError(f"input {i} (seed {seed}): {type(e).__name__}: {e}\nbytes: {bad.tobytes().hex()}") from e
    return {"inputs": n_inputs, "accepted": accepted, "refused": n_inputs - accepted, "seconds": time.perf_counter() - t0}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("n_inputs", nargs="?", type=int, default=1_000_000)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    stats = fuzz(args.n_inputs, args.seed)
    print(f"{stats['inputs']} inputs: {stats['refused']} refused, {stats['accepted']} accepted and consistent, {stats['seconds']:.1f} s")


if __name__ == "__main__":
    sys.exit(main())
