"""Fuzzing of what a store hands the decoders: hostile chunk bytes of every array (with a correct
crc32c, so they reach the codecs and the validation before any kernel) and hostile ``zarr.json``
metadata. Opening the store, ``info`` and BFS (resident and out of core) and SSSP must then either
work or raise graphtier's own errors naming the array; never another exception, a crash or a hang.

``exercise`` is the one harness: hypothesis drives it here, and ``benchmarks/faults.py fuzz`` runs it
longer. ``tests/corpus/`` keeps interesting
inputs (regressions among them), each replayed by the suite.
"""

from __future__ import annotations

import contextlib
import functools
import json
import shutil
import signal
import tempfile
from pathlib import Path

import google_crc32c
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graphtier as gt
from graphtier.codecs import FORMATS, HEADER_BYTES
from graphtier.errors import CorruptChunkError, GraphtierError, StoreError

CORPUS = Path(__file__).resolve().parent / "corpus"
# chunk targets (array path, chunk) per format's seed store; metadata targets are the nodes' zarr.json
CHUNKS = [("adj", 0), ("adj", 3), ("reverse/adj", 1), ("indptr", 0), ("weights", 2), ("perm", 0)]
NODES = ["", "adj", "indptr", "weights", "perm", "reverse", "reverse/adj", "reverse/indptr"]
# a device budget small enough that each format's seed store streams its chunks through the scheduler for BFS
DEVICE_MEMORY = {"csr": "9KiB", "log": "8KiB", "ef": "8KiB", "cgr": "8KiB"}
HEADER_FIELDS = {
    "version": (4, 1),
    "format": (5, 1),
    "id_bytes": (6, 1),
    "reserved": (7, 1),
    "n_edges": (8, 4),
    "index_bytes": (12, 4),
    "first_src": (16, 8),
    "last_src": (24, 8),
    "payload_bytes": (32, 8),
}


@functools.cache
def seed_store(fmt: str) -> Path:
    """A small weighted, reordered store with a reverse graph in ``fmt``: every array present."""
    edges = gt.generators.kronecker(6, seed=3)
    weights = np.random.default_rng(3).random(len(edges)) + 0.5
    path = Path(tempfile.mkdtemp(prefix=f"graphtier-fuzz-{fmt}-")) / "seed.gt"
    gt.build(np.column_stack([edges, weights]), path, format=fmt, symmetrize=True, reverse=True, order="degree", chunk_edges=64)
    return path


def chunk_file(store: Path, array: str, c: int) -> Path:
    """Where chunk ``c`` of ``array`` lives (Zarr's default chunk keys, ``/``-separated)."""
    ndim = len(json.loads((store / array / "zarr.json").read_text())["shape"])
    return store.joinpath(array, "c", str(c), *["0"] * (ndim - 1))


def seed_input(fmt: str, target: str) -> bytes:
    """The pristine bytes of ``target``: ``array@chunk`` (without its crc32c) or ``node/zarr.json``."""
    store = seed_store(fmt)
    if target.endswith("zarr.json"):
        return (store / target).read_bytes()
    array, c = target.rsplit("@", 1)
    return chunk_file(store, array, int(c)).read_bytes()[:-4]


def place(store: Path, target: str, data: bytes) -> None:
    if target.endswith("zarr.json"):
        (store / target).write_bytes(data)
    else:
        array, c = target.rsplit("@", 1)
        chunk_file(store, array, int(c)).write_bytes(data + google_crc32c.value(data).to_bytes(4, "little"))


class Hang(Exception):
    """Queries that ran past ``TIME_LIMIT`` on a store of 64 vertices."""


TIME_LIMIT = 300  # seconds; a first call compiles Numba specialisations (cgr alone: 130 s on a 2-core VM)


@contextlib.contextmanager
def time_limit(seconds: int):
    """Raise ``Hang`` in a Python loop that runs too long (a Numba loop finishes its call first)."""

    def expire(signum, frame):
        raise Hang(f"over {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def exercise(fmt: str, target: str, data: bytes, work: Path) -> str:
    """Put ``data`` at ``target`` in a copy of ``fmt``'s seed store and use the store every way a
    query does; "accepted" or "rejected" (a graphtier error naming its array), any other exception
    (``Hang`` included) propagates."""
    store = work / "store.gt"
    shutil.rmtree(store, ignore_errors=True)
    shutil.copytree(seed_store(fmt), store)
    place(store, target, data)
    with time_limit(TIME_LIMIT):
        return _use(store, fmt)


def _use(store: Path, fmt: str) -> str:
    try:
        g = gt.open(store)
        g.info()
        gt.bfs(g, 0, device="cpu")
        gt.sssp(g, 2, device="cpu")
        gt.bfs(gt.open(store), 1, device="cpu", direction="push", device_memory=DEVICE_MEMORY[fmt], host_memory="64KiB")
    except CorruptChunkError as e:
        assert e.array, e
        return "rejected"
    except StoreError as e:
        assert str(store) in str(e), e
        return "rejected"
    except GraphtierError:
        return "rejected"
    except ValueError as e:  # a damaged store may claim more vertices than the budget holds
        if not str(e).startswith("device_memory leaves"):
            raise
        return "rejected"
    return "accepted"


def targets(fmt: str) -> list[str]:
    return [f"{a}@{c}" for a, c in CHUNKS] + [f"{n}/zarr.json".lstrip("/") for n in NODES]


@st.composite
def mutated(draw, seed: bytes, is_chunk: bool) -> bytes:
    """Bit flips, truncations, extensions, byte overwrites and (chunks) header fields set to extremes."""
    data = bytearray(seed)
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["flip", "truncate", "extend", "overwrite", "field"] if is_chunk else ["flip", "truncate", "extend", "overwrite", "json"]))
        if kind == "flip" and data:
            for _ in range(draw(st.integers(1, 8))):
                i = draw(st.integers(0, 8 * len(data) - 1))
                data[i // 8] ^= 1 << (i % 8)
        elif kind == "truncate":
            del data[draw(st.integers(0, len(data))) :]
        elif kind == "extend":
            data += draw(st.binary(min_size=1, max_size=64))
        elif kind == "overwrite" and data:
            i = draw(st.integers(0, len(data) - 1))
            chunk = draw(st.binary(min_size=1, max_size=16))
            data[i : i + len(chunk)] = chunk
        elif kind == "field" and len(data) >= HEADER_BYTES:
            at, size = HEADER_FIELDS[draw(st.sampled_from(sorted(HEADER_FIELDS)))]
            value = draw(st.sampled_from([0, 1, (1 << (8 * size)) - 1, (1 << (8 * size - 1)), draw(st.integers(0, (1 << (8 * size)) - 1))]))
            data[at : at + size] = value.to_bytes(size, "little")
        elif kind == "json":
            data = bytearray(json_mutation(draw, json.loads(seed)))
    return bytes(data)


def json_mutation(draw, meta: dict) -> bytes:
    """One field of the metadata (anywhere in its tree) removed, or set to an extreme or a wrong type."""
    paths = []

    def walk(node, path):
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for k, v in items:
            paths.append((*path, k))
            walk(v, (*path, k))

    walk(meta, ())
    path = draw(st.sampled_from(paths))
    parent = meta
    for k in path[:-1]:
        parent = parent[k]
    if isinstance(parent, dict) and draw(st.booleans()):
        del parent[path[-1]]
    else:
        parent[path[-1]] = draw(st.sampled_from([-1, 0, 2**63, 2**64 + 1, 1e308, "x", None, [], {}, True, [2**40, 2], "graphtier.ef", "uint64"]))
    return json.dumps(meta).encode()


@pytest.mark.parametrize("fmt", FORMATS)
def test_seed_store_is_accepted(fmt, tmp_path):
    assert exercise(fmt, "adj@0", seed_input(fmt, "adj@0"), tmp_path) == "accepted"


def test_a_fill_value_out_of_its_type_is_rejected(tmp_path):
    # found by test_fuzz_store: Zarr raised OverflowError reading adj's fill value -1 as uint32
    meta = json.loads(seed_input("ef", "adj/zarr.json"))
    meta["fill_value"] = -1
    assert exercise("ef", "adj/zarr.json", json.dumps(meta).encode(), tmp_path) == "rejected"


@pytest.mark.parametrize("fmt", FORMATS)
def test_fuzz_store(fmt, tmp_path):
    @settings(max_examples=6, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(st.data())
    def run(data):
        target = data.draw(st.sampled_from(targets(fmt)))
        payload = data.draw(mutated(seed_input(fmt, target), not target.endswith("zarr.json")))
        exercise(fmt, target, payload, tmp_path)

    run()


def corpus() -> list[Path]:
    return sorted(p for p in CORPUS.glob("*/*") if p.is_file())


def corpus_entry(path: Path) -> tuple[str, str]:
    """A corpus file ``<format>/<target, / as %>~<name>`` holds the bytes to put at target."""
    target = path.name.split("~", 1)[0].replace("%", "/")
    return path.parent.name, target


@pytest.mark.parametrize("path", corpus(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_corpus(path, tmp_path):
    fmt, target = corpus_entry(path)
    exercise(fmt, target, path.read_bytes(), tmp_path)
