"""BVGraph reader: exact decoding of cnr-2000 and of every supported code; safety on bad input."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import numpy as np
import pytest

from graphtier.errors import InputError
from graphtier.partition.bvgraph import bvgraph_source

DATA = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "cnr-2000"
CNR = DATA / "cnr-2000"
needs_cnr = pytest.mark.skipif(not (DATA / "cnr-2000.graph").is_file(), reason=f"shared dataset cnr-2000 absent at {DATA}")
NO_LIMIT = 1 << 40


def edges(source) -> tuple[np.ndarray, np.ndarray]:
    blocks = list(source.blocks())
    assert all(b.src.dtype == b.dst.dtype == np.uint64 and b.weight is None for b in blocks)
    if not blocks:
        return np.zeros(0, np.uint64), np.zeros(0, np.uint64)
    return np.concatenate([b.src for b in blocks]), np.concatenate([b.dst for b in blocks])


# --- a small BVGraph writer, so every code and option is checked without the dataset ---------


class BitWriter:
    """WebGraph's codes, written most significant bit first (as Java's OutputBitStream)."""

    def __init__(self):
        self.bits: list[int] = []

    def int(self, x: int, n: int) -> None:
        self.bits += [(x >> i) & 1 for i in reversed(range(n))]

    def write(self, code: str, x: int, k: int) -> None:
        if code == "UNARY":
            self.bits += [0] * x + [1]
            return
        x += 1
        msb = x.bit_length() - 1
        if code == "GAMMA":
            self.write("UNARY", msb, k)
            self.int(x, msb)
        elif code == "DELTA":
            self.write("GAMMA", msb, k)
            self.int(x, msb)
        else:  # ZETA
            h = msb // k
            self.write("UNARY", h, k)
            left = 1 << h * k
            self.int(x - left, h * k + k - 1) if x - left < left else self.int(x, h * k + k)

    def bytes(self) -> bytes:
        return np.packbits(np.array(self.bits, dtype=np.uint8)).tobytes()


def int2nat(x: int) -> int:
    return 2 * x if x >= 0 else -2 * x - 1


def write_bvgraph(base: Path, lists: list[list[int]], *, window=7, min_interval=4, zetak=3, codes=()) -> None:
    """Compress ``lists`` as BVGraph version 0, referencing the best list in the window."""
    code = {"OUTDEGREES": "GAMMA", "REFERENCES": "UNARY", "BLOCKS": "GAMMA"}
    code |= {"INTERVALS": "GAMMA", "RESIDUALS": "ZETA"} | dict(c.split("_") for c in codes)
    bits = BitWriter()

    def put(part: str, x: int) -> None:
        bits.write(code[part], x, zetak)

    for v, succ in enumerate(lists):
        put("OUTDEGREES", len(succ))
        if not succ:
            continue
        extra = set(succ)
        if window:
            r = max(range(min(window, v) + 1), key=lambda r: r and len(extra & set(lists[v - r])))
            put("REFERENCES", r)
            if r:
                runs = [0]  # alternating copied / skipped runs of the referenced list
                for s in lists[v - r]:
                    if (s in extra) != (len(runs) % 2 == 1):
                        runs.append(0)
                    runs[-1] += 1
                put("BLOCKS", len(runs) - 1)
                for i, run in enumerate(runs[:-1]):
                    put("BLOCKS", run - (i > 0))
                extra -= set(lists[v - r])
        extra = sorted(extra)
        if extra and min_interval:
            intervals, i = [], 0
            while i < len(extra):
                j = i
                while j + 1 < len(extra) and extra[j + 1] == extra[j] + 1:
                    j += 1
                if j - i + 1 >= min_interval:
                    intervals.append((extra[i], j - i + 1))
                i = j + 1
            put("INTERVALS", len(intervals))
            end = None
            for left, length in intervals:
                put("INTERVALS", int2nat(left - v) if end is None else left - end - 1)
                put("INTERVALS", length - min_interval)
                end = left + length
            inside = {s for left, length in intervals for s in range(left, left + length)}
            extra = [s for s in extra if s not in inside]
        for i, s in enumerate(extra):
            put("RESIDUALS", int2nat(s - v) if i == 0 else s - extra[i - 1] - 1)
    base.with_suffix(".graph").write_bytes(bits.bytes())
    props = {
        "graphclass": "it.unimi.dsi.webgraph.BVGraph",
        "version": 0,
        "nodes": len(lists),
        "arcs": sum(map(len, lists)),
        "windowsize": window,
        "minintervallength": min_interval,
        "zetak": zetak,
        "compressionflags": "|".join(codes),
    }
    base.with_suffix(".properties").write_text("".join(f"{k}={v}\n" for k, v in props.items()))


def random_lists(n: int, seed: int) -> list[list[int]]:
    """Web-like lists: parts of recent lists, runs of consecutive ids, scattered ids, self-loops."""
    rng = np.random.default_rng(seed)
    lists: list[list[int]] = []
    for v in range(n):
        succ = set()
        if lists and rng.random() < 0.7:
            near = lists[max(0, v - int(rng.integers(1, 10)))]
            succ |= {s for s in near if rng.random() < 0.8}
        if rng.random() < 0.4:
            start = int(rng.integers(0, n))
            succ |= set(range(start, min(n, start + int(rng.integers(1, 12)))))
        succ |= set(rng.integers(0, n, size=int(rng.integers(0, 6))).tolist())
        if rng.random() < 0.1:
            succ.add(v)
        lists.append(sorted(succ) if rng.random() > 0.05 else [])
    return lists


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"window": 0, "min_interval": 0},
        {"window": 1, "min_interval": 1, "zetak": 1},
        {"codes": ("RESIDUALS_GAMMA", "OFFSETS_GAMMA"), "min_interval": 2},
        {"codes": ("OUTDEGREES_DELTA", "REFERENCES_GAMMA", "BLOCKS_DELTA", "INTERVALS_ZETA")},
        {"codes": ("REFERENCES_DELTA", "RESIDUALS_ZETA"), "zetak": 6},
        {"codes": ("OUTDEGREES_UNARY", "BLOCKS_UNARY", "RESIDUALS_DELTA"), "window": 3},
    ],
)
def test_round_trips_every_code_and_option(tmp_path, options):
    lists = random_lists(400, seed=len(str(options)))
    write_bvgraph(tmp_path / "g", lists, **options)
    src, dst = edges(bvgraph_source(tmp_path / "g", id_limit=NO_LIMIT, block_edges=97))
    assert src.tolist() == [v for v, succ in enumerate(lists) for _ in succ]
    assert dst.tolist() == [s for succ in lists for s in succ]


def test_source_facts_and_provenance(tmp_path):
    write_bvgraph(tmp_path / "g", [[1, 2], [], [0]])
    source = bvgraph_source(tmp_path / "g.graph", id_limit=3)
    assert (source.name, source.n_vertices, source.weighted, source.undirected) == (str(tmp_path / "g"), 3, False, False)
    expected = {"source": str(tmp_path / "g"), "kind": "bvgraph", "compressionflags": ""}
    assert source.provenance == expected
    assert [b.src.tolist() for b in source.blocks()] == [[0, 0, 2]]
    graph_bytes = (tmp_path / "g.graph").read_bytes()
    assert source.provenance["sha256"] == hashlib.sha256(graph_bytes).hexdigest()


def test_ids_at_or_above_id_limit_are_rejected(tmp_path):
    write_bvgraph(tmp_path / "g", [[1], [5], [], [], [], []])
    with pytest.raises(InputError, match=r"g\.graph: node 1: id 5 is outside \[0, 5\)"):
        edges(bvgraph_source(tmp_path / "g", id_limit=5))
    write_bvgraph(tmp_path / "h", [[], [], [], [0]])
    with pytest.raises(InputError, match="node 3: id 3 is outside"):  # the source id too
        edges(bvgraph_source(tmp_path / "h", id_limit=3))


@pytest.mark.parametrize(
    "line, message",
    [
        ("version=1", "unsupported BVGraph version '1'"),
        ("endianness=little", "unsupported endianness 'little'"),
        ("compressionflags=RESIDUALS_NIBBLE", "unsupported compression flag 'RESIDUALS_NIBBLE'"),
        ("compressionflags=OUTDEGREES_SKEWED_GOLOMB", "unsupported compression flag"),
        ("graphclass=it.unimi.dsi.webgraph.EFGraph", "unsupported graph class"),
        ("nodes=many", "property nodes='many' is not a natural number"),
        ("arcs=-3", "property arcs='-3'"),
        ("windowsize=", "property windowsize=''"),
        ("windowsize=100000", "windowsize=100000 exceeds"),
        ("zetak=0", "zetak=0 must be between"),
    ],
)
def test_bad_properties_are_rejected(tmp_path, line, message):
    write_bvgraph(tmp_path / "g", [[1], [0]])
    props = tmp_path / "g.properties"
    props.write_text(props.read_text() + line + "\n")  # a later key overrides, as in Java
    with pytest.raises(InputError, match=message) as info:
        bvgraph_source(tmp_path / "g", id_limit=NO_LIMIT)
    assert info.value.file == str(props)


def test_missing_properties_or_stream(tmp_path):
    with pytest.raises(InputError, match="cannot read BVGraph properties"):
        bvgraph_source(tmp_path / "nothing", id_limit=NO_LIMIT)
    write_bvgraph(tmp_path / "g", [[1], [0]])
    props = tmp_path / "g.properties"
    props.write_text(props.read_text().replace("arcs=2\n", ""))
    with pytest.raises(InputError, match="missing property 'arcs'"):
        bvgraph_source(tmp_path / "g", id_limit=NO_LIMIT)
    (tmp_path / "h.properties").write_text("nodes=1\narcs=0\nwindowsize=7\nminintervallength=4\n")
    with pytest.raises(InputError, match="bit stream not found"):
        bvgraph_source(tmp_path / "h", id_limit=NO_LIMIT)


def test_arc_count_must_match_the_properties(tmp_path):
    write_bvgraph(tmp_path / "g", [[1], [0], []])
    props = tmp_path / "g.properties"
    props.write_text(props.read_text().replace("arcs=2", "arcs=3"))
    with pytest.raises(InputError, match="decoded 2 arcs but the properties declare 3"):
        edges(bvgraph_source(tmp_path / "g", id_limit=NO_LIMIT))
    props.write_text(props.read_text().replace("arcs=3", "arcs=1"))
    with pytest.raises(InputError, match="node 1: outdegree 1 exceeds"):
        edges(bvgraph_source(tmp_path / "g", id_limit=NO_LIMIT))


# --- cnr-2000 ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cnr_csr() -> tuple[np.ndarray, np.ndarray]:
    with np.load(DATA / "cnr-2000-csr.npz") as npz:
        return npz["indptr"], npz["indices"]


@pytest.fixture(scope="module")
def cnr_edges() -> tuple[np.ndarray, np.ndarray]:
    return edges(bvgraph_source(CNR, id_limit=1 << 32))


@needs_cnr
def test_cnr_decodes_to_the_csr(cnr_edges, cnr_csr):
    src, dst = cnr_edges
    indptr, indices = cnr_csr
    degrees = np.bincount(src.astype(np.int64), minlength=325_557)
    assert len(degrees) == 325_557 and len(dst) == 3_216_152
    assert np.array_equal(degrees, np.diff(indptr)) and degrees.max() == 2_716
    assert np.array_equal(dst, indices.astype(np.uint64))
    assert np.count_nonzero(src == dst) == 87_442


@needs_cnr
def test_cnr_provenance():
    source = bvgraph_source(str(CNR) + ".graph", id_limit=1 << 32)
    assert source.n_vertices == 325_557 and source.name == str(CNR)
    assert source.provenance["bitsperlink"] == "2.897"
    for _ in source.blocks():
        pass
    sums = dict(line.split()[::-1] for line in (DATA / "SHA256SUMS").read_text().splitlines())
    assert source.provenance["sha256"] == sums["cnr-2000.graph"]


@needs_cnr
def test_cnr_agrees_with_the_webgraph_oracle(cnr_csr):
    webgraph = pytest.importorskip("webgraph", reason="oracle webgraph==0.1.4 not installed")
    oracle = webgraph.BvGraph(str(CNR))
    indptr, indices = cnr_csr
    assert (oracle.num_nodes(), oracle.num_arcs()) == (325_557, 3_216_152)
    sample = np.r_[np.arange(0, 325_557, 97), np.argmax(np.diff(indptr)), 325_556]
    for v in sample:
        assert list(oracle.successors(int(v))) == indices[indptr[v] : indptr[v + 1]].tolist()


@needs_cnr
def test_cnr_small_blocks_split_lists(cnr_edges):
    source = bvgraph_source(CNR, id_limit=1 << 32, block_edges=1000)  # < max out-degree 2716
    sizes = [len(b) for b in source.blocks()]
    assert set(sizes[:-1]) == {1000} and sum(sizes) == 3_216_152
    src, dst = edges(source)  # and a second pass gives the same
    assert np.array_equal(src, cnr_edges[0]) and np.array_equal(dst, cnr_edges[1])


@needs_cnr
def test_cnr_truncated_stream_names_the_node(tmp_path):
    shutil.copy(DATA / "cnr-2000.properties", tmp_path / "cnr.properties")
    data = (DATA / "cnr-2000.graph").read_bytes()
    for size in (0, 1, len(data) // 2, len(data) - 8):  # the stream is padded to 64-bit words
        (tmp_path / "cnr.graph").write_bytes(data[:size])
        with pytest.raises(InputError, match=r"cnr\.graph: node \d+: the bit stream ends") as info:
            edges(bvgraph_source(tmp_path / "cnr", id_limit=1 << 32))
        assert info.value.file == str(tmp_path / "cnr.graph")


@needs_cnr
def test_cnr_corrupt_streams_fail_cleanly(tmp_path):
    """Flips either break the stream (InputError) or, in a value's low bits, give another graph."""
    shutil.copy(DATA / "cnr-2000.properties", tmp_path / "cnr.properties")
    data = np.frombuffer((DATA / "cnr-2000.graph").read_bytes(), dtype=np.uint8)
    rng = np.random.default_rng(7)
    raised = 0
    for trial in range(12):
        bad = data.copy()
        at = int(rng.integers(len(bad)))
        if trial % 3 == 2:
            bad[at:] = 0  # a zeroed tail: ever-longer unary codes
        else:
            bad[at] ^= np.uint8(1 << int(rng.integers(8)))
        (tmp_path / "cnr.graph").write_bytes(bad.tobytes())
        try:
            _src, dst = edges(bvgraph_source(tmp_path / "cnr", id_limit=1 << 32))
        except InputError as e:
            assert "cnr.graph: node " in str(e) or "arcs but the properties declare" in str(e)
            raised += 1
            continue
        assert len(dst) == 3_216_152 and dst.max() < 325_557
    assert raised >= 10
