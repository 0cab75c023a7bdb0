"""The format advisor: the format, vertex order and chunk size to build a graph with, and the
budgets it needs, for an algorithm on this machine (``gt.advise``, ``graphtier advise``,
``gt.build(format="auto")``).

Sizes are measured, not guessed: what a format saves depends on the graph and on the order (the
compression report, ``benchmarks/results/compression-2026-11-22-vm.md``: cgr takes 6.4 bits per
edge of cnr-2000 and 18.4 of kron20 in natural order, ef 19.1 and 14.8; in degree order kron20's
cgr takes 12.7). Each candidate (order, format) is encoded as a build would write it: the graph
renumbered by the order, cut into chunks, each chunk through the format's codec, indptr and perm
compressed as the store compresses them. A graph of at most ``sample_edges`` edges is encoded whole
(sizes exact, to the byte); a larger one as evenly spaced chunks of each candidate (sizes
extrapolated), each chunk holding whole lists as the build's would, read from wherever the store
holds them. Orders that need every edge in memory (bfs, rcm, llp) are measured only on a whole graph.

Which candidate: the region each would run in, found by the scheduler's own rules applied to its
chunk sizes (``runtime/run.py``: the vertex state charged to ``device_memory`` first, the graphs an
algorithm reads sharing what it leaves; ``tiering/scheduler.py``: a graph resident when it fits
both budgets, else a device plan and host slots). The best region any candidate reaches wins, and
within it: when the graph stays in device memory nothing moves once loaded, so the fastest decoder
(``SPEED``) in natural order (a reorder costs a build pass and buys nothing measured there); when it
streams, every pass moves its chunks, so the fewest chunk bytes. ``goal="size"`` takes the smallest
store whatever the budgets.
"""

from __future__ import annotations

import importlib
import inspect
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import zarr

from .. import store as schema
from ..codecs import FORMATS, NUMCODECS, read_header
from ..partition.order import ORDERS, degree_rank, invert, vertex_order
from ..partition.sort import pack, unpack
from ..runtime import Config
from ..runtime.run import graphs_read, shared_budgets, state_fits, state_of
from ..tiering.budget import check_budgets
from ..tiering.resident import resident_bytes, unit_bytes
from ..tiering.scheduler import OVERLAP_SLOTS, Scheduler, device_left, host_slot_count, plan_device, resident_fits, slot_size
from ..tiering.storage import CRC_BYTES
from .graph import Graph
from .graph import open as open_graph

SAMPLE_EDGES = 1 << 22  # edges encoded per candidate order; a graph of at most this many is measured whole
DEFAULT_ORDERS = ("natural", "degree", "bfs", "rcm")
# llp only when asked: on kron20 it took 150 s to order (against 10 s for degree), and it was never
# the smallest in the compression report (cnr-2000's cgr: 7.35 bits per edge in llp, 6.44 natural).
WHOLE_GRAPH_ORDERS = ("bfs", "rcm", "llp")  # computed from every edge, held in memory
# Fastest first, traversing a graph held in memory: CPU BFS on cnr-2000 took 1, 1.18, 1.28 and 2.52
# times csr's time (benchmarks/results/cnr2000-formats-2026-11-22-vm.md); GPU BFS ran at 1, 0.95-0.98,
# 0.89-0.90 and 0.24-0.63 of csr's speed (gpu_bfs-nvidia-h200-2026-11-22-final.md, cnr-2000 and kron23).
SPEED = ("csr", "log", "ef", "cgr")
GOALS = ("speed", "size")
FEATURES = 3  # what a chunk's size is fitted on (``_features``)
MIN_CHUNK_EDGES = 1 << 14  # the smallest chunk size advised: below it, headers and tables cost more than slots gain
TIERS = ("device", "host", "store", "refused")  # where a graph's chunks are read from, best first
REGIONS = {
    "fits": "fits in device memory: held whole on the device, and csr would be too",
    "compressed": "compressed fits: held whole on the device, where csr would not be",
    "streamed": "streamed: host memory holds every chunk, the device part of them; each pass reads the rest over PCIe",
    "beyond-host": "larger than host memory: chunks are read from the store again as passes need them",
    "refused": "does not run under these budgets",
}


def _driver(module: str, name: str) -> type:
    """An algorithm's driver class, its module imported only now: the command line lists the
    algorithms' names without importing every algorithm."""
    return getattr(importlib.import_module(f"...algorithms.{module}", __name__), name)


# Each algorithm's driver on a backend, with parameters that do not change its memory: what a run
# charges and which graphs it reads come from the driver itself (``state_of``, ``Algorithm.edges``).
ALGORITHMS: dict[str, Callable] = {
    "bfs": lambda g, s, b: _driver("bfs", "BFS")(g, s, "auto"),
    "sssp": lambda g, s, b: _driver("sssp", "SSSP")(g, s, True, None),
    "pagerank": lambda g, s, b: _driver("pagerank", "PageRank")(g, 0.85, 1e-6, 100, None, None),
    "cc": lambda g, s, b: _driver("cc", "Components")(g),
    "scc": lambda g, s, b: _driver("scc", "driver")(g, b) if g.directed else _driver("cc", "Components")(g),
    "mst": lambda g, s, b: _driver("mst", "Boruvka")(g, True),
    "mis": lambda g, s, b: _driver("mis", "IndependentSet")(g, 0),
    "color": lambda g, s, b: _driver("coloring", "Coloring")(g, 0),
    "bc": lambda g, s, b: _driver("bc", "Betweenness")(g, np.zeros(1, np.int64), False),
}


@dataclass(frozen=True)
class ChunkFacts:
    """What the scheduler's rules read of one graph's chunks: each chunk's encoded bytes (no
    checksum), where its payload starts, and its edges."""

    nbytes: np.ndarray
    payload_starts: np.ndarray
    edges: np.ndarray

    def scaled(self, chunk_edges: int, n_edges: int) -> ChunkFacts:
        """The same graph cut into chunks of ``chunk_edges``, each chunk's bytes in proportion to its
        edges: the densest chunk's ratio for the first (slots are as large as the largest), the
        mean's for the rest. An estimate: a chunk's header and index do not scale exactly."""
        edges = np.minimum(chunk_edges, n_edges - np.arange(0, n_edges, chunk_edges, dtype=np.int64))
        per_edge = self.nbytes / np.maximum(self.edges, 1)
        mean, start = self.nbytes.sum() / max(self.edges.sum(), 1), self.payload_starts.sum() / max(self.edges.sum(), 1)
        nbytes = np.ceil(edges * mean).astype(np.int64)
        nbytes[:1] = np.ceil(edges[:1] * per_edge.max(initial=mean))
        return ChunkFacts(nbytes, np.minimum(np.ceil(edges * start).astype(np.int64), nbytes), edges)


@dataclass
class Candidate:
    """One (order, format) measured: bytes of the store it would build (``adj``, of which
    ``payload``, ``index`` and ``headers``, then ``indptr``, ``perm`` and ``total``, as
    ``Graph.info()`` counts them), its chunks, and the tier its graphs are read from under the
    budgets (``reason``: why it does not run, if it does not)."""

    order: str
    format: str
    nbytes: dict
    chunks: ChunkFacts
    reverse: ChunkFacts | None = None  # measured only for a store's own candidate; else the forward graph's stand in
    tier: str = ""
    reason: str | None = None

    def bits(self, part: str, n_edges: int) -> float:
        return self.nbytes[part] * 8 / n_edges


@dataclass(frozen=True)
class Advice:
    """What ``advise`` recommends and why. ``build_options()`` gives ``gt.build`` its arguments;
    ``to_dict()`` is ``graphtier advise --json``; ``str()`` the report."""

    source: str
    n_vertices: int
    n_edges: int
    directed: bool
    degree: dict  # max, mean, top1_share (of the edges held by the top 1% of vertices), zero (share of vertices without edges)
    measured: dict  # whole, chunks (encoded per order), of (chunks per order), sample_edges
    algorithm: str
    backend: str
    device_memory: int
    host_memory: int
    goal: str
    format: str
    order: str
    chunk_edges: int
    region: str
    state_bytes: int  # what the algorithm's vertex state (and scratch) takes of device_memory first
    budgets: dict  # least device_memory for the graph to stay on the device, least host_memory for its chunks never to be read again (None: not by that budget alone)
    reasons: list[str]
    candidates: list[dict]
    notes: list[str] = field(default_factory=list)

    def build_options(self) -> dict:
        return {"format": self.format, "order": self.order, "chunk_edges": self.chunk_edges}

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__} | {"region_text": REGIONS[self.region]}

    def __str__(self) -> str:
        mb = lambda b: "n/a" if b is None else f"{b / 1e6:,.1f} MB"
        m, d = self.measured, self.degree
        how = (
            "the whole graph, every chunk of every candidate encoded (exact)"
            if m["whole"]
            else f"{m['chunks']} of {m['of']} chunks per order, the first, the last and evenly between (the rest fitted)"
        )
        lines = [
            f"graph        {self.source}: {self.n_vertices:,} vertices, {self.n_edges:,} edges ({'directed' if self.directed else 'symmetric'})",
            f"degrees      max {d['max']:,}, mean {d['mean']:.2f}; the top 1% of vertices hold {d['top1_share']:.1%} of the edges, {d['zero']:.1%} have none",
            f"measured     {how}",
            f"for          {self.algorithm} on the {self.backend}, device_memory {mb(self.device_memory)}, host_memory {mb(self.host_memory)}, goal {self.goal}",
            f"advice       --format {self.format} --order {self.order} --chunk-edges {self.chunk_edges}",
            f"region       {REGIONS[self.region]}",
            f"state        {self.algorithm}'s vertex state and scratch take {mb(self.state_bytes)} of device_memory first",
            f"budgets      device_memory {mb(self.budgets['device_memory'])} keeps it on the device (host_memory as given); host_memory {mb(self.budgets['host_memory'])} keeps the store from being read again (device_memory as given)",
            "why",
            *(f"  - {r}" for r in self.reasons),
            "bits per edge (total, as graphtier info counts it), and the tier each candidate is read from",
            "  order    " + "".join(f"{f:>16}" for f in FORMATS),
        ]
        for order in dict.fromkeys(c["order"] for c in self.candidates):
            row = {c["format"]: c for c in self.candidates if c["order"] == order}
            cell = lambda c: f"{c['bits_per_edge']['total']:.2f} {c['tier']}" + ("*" if (c["order"], c["format"]) == (self.order, self.format) else " ")
            lines.append((f"  {order:<9}" + "".join(f"{cell(row[f]):>16}" if f in row else f"{'-':>16}" for f in FORMATS)).rstrip())
        lines += [f"note         {n}" for n in self.notes]
        return "\n".join(lines)


def advise(
    source,
    *,
    algorithm: str = "bfs",
    device: str = "auto",
    device_memory: int | str | None = None,
    host_memory: int | str | None = None,
    goal: str = "speed",
    orders: tuple[str, ...] | None = None,
    sample_edges: int = SAMPLE_EDGES,
    symmetrize: bool = False,
    drop_self_loops: bool = False,
    dedup: bool = True,
    relabel: bool = False,
    reverse: bool = False,
    memory_budget: int | str | None = None,
    scratch: str | os.PathLike | None = None,
    progress: bool | None = None,
) -> Advice:
    """Advise a format, vertex order, chunk size and budgets for ``source`` (a store, a ``Graph``,
    or any input ``gt.build`` reads) running ``algorithm`` (a command name: bfs, sssp, pagerank,
    cc, scc, mst, mis, color, bc) on ``device`` under ``device_memory`` and ``host_memory``
    (default: what this machine has, as for a query). ``goal``: "speed" (the region, then the
    decoder or the bytes moved) or "size" (the smallest store). ``orders``: the candidate orders
    (default ``DEFAULT_ORDERS``). An input is first built, with the graph options of ``gt.build``
    given here, into a natural-order csr store in a temporary directory (in ``scratch``; bounded
    memory, as a build), since its chunks hold whole lists in a known order where a file's first
    edges need not; a store is read in place."""
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; choose from {', '.join(ALGORITHMS)}")
    if goal not in GOALS:
        raise ValueError(f"goal must be one of {', '.join(GOALS)}, got {goal!r}")
    orders = DEFAULT_ORDERS if orders is None else tuple(orders)
    unknown = [o for o in orders if o not in ORDERS]
    if unknown or not orders:
        raise ValueError(f"unknown order {unknown[0]!r}; choose from {', '.join(ORDERS)}" if unknown else "orders must name at least one order")
    if sample_edges < 1:
        raise ValueError(f"sample_edges must be positive, got {sample_edges}")
    config = Config(device=device, device_memory=device_memory, host_memory=host_memory)
    backend = config.backend()
    check_budgets(device_memory, host_memory, backend)
    budgets = config.budgets(backend)
    query = {"algorithm": algorithm, "backend": backend, "budgets": budgets, "goal": goal, "orders": orders, "sample_edges": sample_edges}
    options = {"symmetrize": symmetrize, "drop_self_loops": drop_self_loops, "dedup": dedup, "relabel": relabel, "memory_budget": memory_budget}
    if isinstance(source, Graph) or _names_store(source):
        defaults = inspect.signature(advise).parameters
        given = [k for k, v in {**options, "reverse": reverse}.items() if v != defaults[k].default]
        if given:  # a store's graph is built already: these would change nothing, silently
            raise ValueError(f"{', '.join(given)} shape a graph built from an input; {source} is a store (rebuild it from its input to change them)")
        g = source if isinstance(source, Graph) else open_graph(source)
        return _advise(g, g.location, g.has_reverse, **query)
    from .build import build

    with tempfile.TemporaryDirectory(prefix="graphtier-advise-", dir=scratch) as tmp:
        g = build(source, Path(tmp) / "natural.gt", format="csr", order="natural", progress=progress, **options)
        name = os.fspath(source) if isinstance(source, (str, os.PathLike)) else f"a {type(source).__name__}"
        return _advise(g, name, reverse, **query)


def _names_store(source) -> bool:
    """A directory, a .zip file or a URL names a store; anything else is an input."""
    return isinstance(source, (str, os.PathLike)) and (schema.is_url(source) or Path(source).suffix == ".zip" or os.path.isdir(source))


def tier_of(source) -> str:
    """Where an opened graph (``Graph.source``'s result) reads its chunks from: "device" (resident,
    or every chunk with a device slot of its own), "host" (every chunk fits a host slot) or "store"."""
    if not isinstance(source, Scheduler):
        return "device"
    return _tier(source.plan.homes, source.host.n_slots, source.n_chunks)


def _tier(homes: bool, host_slots: int, n_chunks: int) -> str:
    return "device" if homes else "host" if host_slots >= n_chunks else "store"


# --- measuring --------------------------------------------------------------------------------


class _Measure:
    """Encodes every candidate of one store: its facts, a whole graph's edges (when measured
    whole), and where each order puts the vertices."""

    def __init__(self, g: Graph, sample_edges: int, notes: list[str]):
        self.g, self.notes = g, notes
        self.V, self.E, self.C = g.n_vertices, g.n_edges, g.chunk_edges
        self.indptr = g.indptr()
        self.degrees = np.diff(self.indptr)
        self.n_chunks = -(-self.E // self.C)
        self.whole, self.sample_edges = self.E <= sample_edges, sample_edges
        k = max(FEATURES, sample_edges // self.C)  # at least a chunk per feature of the fit
        # the first and last chunks among them: in degree order they hold the hubs and the lists of one edge, the extremes
        self.picked = np.unique(np.linspace(0, self.n_chunks - 1, min(k, self.n_chunks)).round().astype(np.int64))
        self.rows = self._read(np.arange(self.n_chunks), None) if self.whole else None  # (src, dst) of every edge
        self.dtype = schema.id_dtype(self.V)
        self.original = g.perm  # each store vertex's id in the input, when not its own
        # where the input's (dense) numbering puts each store vertex: None when the store keeps it
        self.natural = None if g.attrs.get("vertex_order", "natural") == "natural" else invert(np.argsort(self.original, kind="stable"))

    def _read(self, chunk_ids: np.ndarray, want: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """(src, dst) of the chunks' edges whose source is wanted (all with None), checked as a
        load checks them, a few chunks at a time."""
        from .build import RECODE_BATCH

        stored = self.g.stored()
        src, dst = [], []
        for lo in range(0, len(chunk_ids), RECODE_BATCH):
            ids = [int(c) for c in chunk_ids[lo : lo + RECODE_BATCH]]
            for c, blob in zip(ids, stored.chunks.read(ids)):
                h, offsets, d = stored.validated(c, blob)
                s = np.repeat(np.arange(h.first_src, h.first_src + h.n_local, dtype=np.int64), np.diff(offsets))
                keep = slice(None) if want is None else want[s]
                src.append(s[keep])
                dst.append(d[keep].astype(np.int64))
        return (np.concatenate(src), np.concatenate(dst)) if src else (np.zeros(0, np.int64), np.zeros(0, np.int64))

    def rank(self, order: str) -> np.ndarray | None | str:
        """Each store vertex's id in ``order`` (None: the store's own numbering), or why it is not measured."""
        stored = self.g.attrs.get("vertex_order", "natural")
        if order == stored:
            return None
        if order == "natural":
            return self.natural
        if order == "degree":
            degree = self.degrees.copy()
            if self.g.directed:
                if self.g.has_reverse:
                    degree += np.diff(self.g.indptr(reverse=True))
                elif self.whole:
                    degree += np.bincount(self.rows[1], minlength=self.V)
                else:
                    self.notes.append("degree order ranked by out-degree alone: a directed store without its reverse graph, measured on a sample, has no in-degrees")
            return self._compose(degree_rank(degree if self.natural is None else _by_natural(degree, self.natural)))
        if order in WHOLE_GRAPH_ORDERS and not self.whole:
            return f"it needs every edge in memory, so it is measured on graphs of at most sample_edges ({self.sample_edges:,}) edges"
        src, dst = self.rows if self.natural is None else (self.natural[self.rows[0]], self.natural[self.rows[1]])
        keys = np.sort(pack(src, dst))
        src, dst = unpack(keys)
        indptr = np.concatenate([[0], np.cumsum(np.bincount(src.astype(np.int64), minlength=self.V))])
        return self._compose(vertex_order(indptr, dst.astype(np.uint32), order))

    def _compose(self, rank_natural: np.ndarray) -> np.ndarray:
        """A rank over the input's numbering as a rank over the store's vertices."""
        return rank_natural if self.natural is None else rank_natural[self.natural]

    def candidates(self, order: str, rank: np.ndarray | None) -> list[Candidate]:
        """Every format in ``order``: the picked chunks of the renumbered graph, encoded."""
        new = None if rank is None else np.argsort(rank, kind="stable")  # new id -> store vertex
        degrees = self.degrees if new is None else self.degrees[new]
        indptr = np.concatenate([[0], np.cumsum(degrees)])
        keys = self._picked_keys(rank, new, indptr)
        src, _ = unpack(keys)
        blocks = []  # rows of each picked chunk
        for c in self.picked:
            lo, hi = c * self.C, min(self.E, (c + 1) * self.C)
            first = int(np.searchsorted(indptr, lo, side="right")) - 1
            start = int(np.searchsorted(src, first)) + lo - int(indptr[first])
            s, d = unpack(keys[start : start + hi - lo])
            blocks.append(np.stack([s, d], 1).astype(self.dtype))
        relabelled = bool(self.g.attrs.get("relabelled"))
        perm = None
        if order != "natural" or relabelled:
            original = self.original if self.original is not None else np.arange(self.V, dtype=np.uint64)
            perm = original if new is None else original[new]
        vectors = _stored_vectors(indptr, perm)
        lo = np.arange(self.n_chunks, dtype=np.int64) * self.C
        hi = np.minimum(lo + self.C, self.E)
        features = _features(indptr, lo, hi, self.V)
        out = []
        for fmt in FORMATS:
            codec = NUMCODECS[fmt]()
            headers = [read_header(codec.encode(rows), fmt) for rows in blocks]
            out.append(self._candidate(order, fmt, headers, vectors, features))
        return out

    def _picked_keys(self, rank: np.ndarray | None, new: np.ndarray | None, indptr: np.ndarray) -> np.ndarray:
        """Sorted (new src, new dst) keys of every list a picked chunk holds a part of."""
        if self.whole:
            src, dst = self.rows
        else:
            want = np.zeros(self.V, bool)
            for c in self.picked:
                lo, hi = c * self.C, min(self.E, (c + 1) * self.C)
                a, b = int(np.searchsorted(indptr, lo, side="right")) - 1, int(np.searchsorted(indptr, hi, side="left"))
                want[np.arange(a, b) if new is None else new[a:b]] = True
            src, dst = self._read(self._chunks_holding(want), want)
        return np.sort(pack(src, dst) if rank is None else pack(rank[src], rank[dst]))

    def _chunks_holding(self, want: np.ndarray) -> np.ndarray:
        """The store's chunks that hold an edge of a wanted vertex."""
        v = np.flatnonzero(want & (self.degrees > 0))
        marks = np.zeros(self.n_chunks + 1, np.int64)
        np.add.at(marks, self.indptr[v] // self.C, 1)
        np.add.at(marks, (self.indptr[v + 1] - 1) // self.C + 1, -1)
        return np.flatnonzero(np.cumsum(marks)[:-1] > 0)

    def _candidate(self, order: str, fmt: str, headers: list, vectors: dict, features: np.ndarray) -> Candidate:
        """A candidate's sizes from its picked chunks' headers; every other chunk fitted on them."""
        measured = lambda f: np.array([f(h) for h in headers], np.int64)
        total = _per_chunk(features, self.picked, measured(lambda h: h.total_bytes))
        payload = _per_chunk(features, self.picked, measured(lambda h: h.payload_bytes))
        index = _per_chunk(features, self.picked, measured(lambda h: h.index_bytes))
        starts = np.minimum(_per_chunk(features, self.picked, measured(lambda h: h.payload_start)), total)
        adj = _adj_metadata(fmt, self.C, self.dtype, self.E) + int(total.sum()) + CRC_BYTES * self.n_chunks
        nbytes = {"adj": adj, "payload": int(payload.sum()), "index": int(index.sum()), **vectors}
        nbytes["headers"] = adj - nbytes["payload"] - nbytes["index"]
        nbytes["total"] = adj + vectors["indptr"] + vectors["perm"]
        return Candidate(order, fmt, nbytes, ChunkFacts(total, starts, features[:, 0].astype(np.int64)))

    def own(self, candidate: Candidate) -> Candidate:
        """The store's own format in its own order, read exactly from its chunk headers."""
        g = self.g
        facts = {r: _header_facts(g, r) for r in ((False, True) if g.has_reverse else (False,))}
        info = g.info()["bytes"]
        nbytes = {k: info[k] for k in ("payload", "index", "headers", "indptr", "perm", "total")} | {"adj": info["payload"] + info["index"] + info["headers"]}
        return replace(candidate, nbytes=nbytes, chunks=facts[False], reverse=facts.get(True))


def _header_facts(g: Graph, reverse: bool) -> ChunkFacts:
    chunks = g.chunks(reverse)
    headers = chunks.headers(range(chunks.n_chunks))
    return ChunkFacts(*(np.array(x, np.int64).reshape(-1) for x in ([h.total_bytes for h in headers], [h.payload_start for h in headers], [h.n_edges for h in headers])))


def _features(indptr: np.ndarray, lo: np.ndarray, hi: np.ndarray, n_vertices: int) -> np.ndarray:
    """What every chunk's size is fitted on, known for every chunk from the degrees alone: its
    edges, its sources, and the sum over its edges of log2(V / degree of the edge's list), which
    Elias-Fano's and gap codes' bits per id follow (about log2 of the mean gap)."""
    sources = np.searchsorted(indptr, hi - 1, side="right") - np.searchsorted(indptr, lo, side="right") + 1
    degrees = np.diff(indptr)
    bits = np.log2(n_vertices / np.maximum(degrees, 1))
    below = np.concatenate([[0.0], np.cumsum(degrees * bits)])  # the sum over the edges before each list

    def up_to(x: np.ndarray) -> np.ndarray:
        v = np.minimum(np.searchsorted(indptr, x, side="right") - 1, len(degrees) - 1)
        return below[v] + (x - indptr[v]) * bits[v]

    return np.stack([hi - lo, sources, up_to(hi) - up_to(lo)], 1).astype(np.float64)


def _per_chunk(features: np.ndarray, picked: np.ndarray, measured: np.ndarray) -> np.ndarray:
    """A value of every chunk: as measured where picked, else a least-squares fit on the picked
    chunks over ``features`` (as many as there are picked chunks). Why a fit and not a ratio of
    bytes to edges: in degree order a chunk of hubs takes 6 bits per edge in cgr and the last,
    of lists of one or two, 28 (kron20), and the fit follows that from each chunk's own lists
    (kron20 in degree order, 4 of 30 chunks: cgr 12.72 bits per edge in all against the store's
    12.68, ef 13.06 against 13.00; a ratio from the middle chunks gave 5% less)."""
    if len(picked) == len(features):
        return measured
    x = features[picked][:, : min(len(picked), features.shape[1])]
    fitted = features[:, : x.shape[1]] @ np.linalg.lstsq(x, measured.astype(np.float64), rcond=None)[0]
    fitted[picked] = measured
    return np.maximum(np.ceil(fitted), 0).astype(np.int64)


def _by_natural(values: np.ndarray, natural: np.ndarray) -> np.ndarray:
    """Per-store-vertex ``values`` indexed by the input's numbering."""
    out = np.empty_like(values)
    out[natural] = values
    return out


def _memory_group() -> zarr.Group:
    return zarr.open_group(zarr.storage.MemoryStore(), mode="w")


def _stored_vectors(indptr: np.ndarray, perm: np.ndarray | None) -> dict:
    """Stored bytes of indptr and perm, compressed as a build writes them."""
    group = _memory_group()
    return {"indptr": schema.write_vector(group, schema.INDPTR, indptr).nbytes_stored(), "perm": 0 if perm is None else schema.write_vector(group, schema.PERM, perm).nbytes_stored()}


def _adj_metadata(fmt: str, chunk_edges: int, dtype: np.dtype, n_edges: int) -> int:
    """Bytes of ``adj``'s metadata (its zarr.json), as a build writes it."""
    adj = schema.create_adj(_memory_group(), fmt=fmt, chunk_edges=chunk_edges, dtype=dtype)
    adj.resize((n_edges, 2))
    return adj.nbytes_stored()


# --- predicting the region --------------------------------------------------------------------


class _Plan:
    """One candidate under an algorithm: its vertex state and the graphs it reads with their
    chunks' sizes in memory, none of which depend on the budgets."""

    def __init__(self, candidate: Candidate, state: int, graphs: dict, n_vertices: int, chunks: ChunkFacts, reverse: ChunkFacts):
        self.candidate, self.state, self.V, self.chunks = candidate, state, n_vertices, chunks
        self.graphs = []  # per graph read: (its facts, weights, sidecars, bytes resident, each chunk's bytes in a slot)
        for (backward, weights), edges in graphs.items():
            facts = reverse if backward else chunks
            units = np.array([unit_bytes(int(b), int(p), int(e), weights) for b, p, e in zip(facts.nbytes, facts.payload_starts, facts.edges)], np.int64)
            self.graphs.append((facts, edges.sidecars, resident_bytes(facts.nbytes, facts.edges, n_vertices, weights), units))

    def tier(self, device: int, host: int) -> tuple[str, str | None, int]:
        """(tier, why it does not run, device slots of its worst graph) under these budgets: by
        ``state_fits``, ``shared_budgets``, ``resident_fits``, ``device_left``,
        ``host_slot_count`` and ``plan_device``."""
        if not state_fits(self.state, device):
            return "refused", f"the vertex state ({self.state:,} bytes) does not fit device_memory ({device:,} bytes)", 0
        chunk_budget, host_budget = shared_budgets(device, host, self.state, len(self.graphs))
        worst, slots = "device", len(self.chunks.nbytes)
        name = f"{self.candidate.format} in {self.candidate.order} order"
        for facts, sidecars, resident, units in self.graphs:
            if resident_fits(resident, chunk_budget, host_budget, "auto"):
                continue
            n, slot = len(units), slot_size(units)
            try:
                left = device_left(chunk_budget, self.V, n, name)
                host_slots = host_slot_count(n, host_budget, slot, name)
                plan = plan_device(units, facts.payload_starts, NUMCODECS[self.candidate.format].kernels_read_index, sidecars, self.V, left, slot, "auto", name)
            except ValueError as e:
                return "refused", str(e), 0
            worst = max(worst, _tier(plan.homes, host_slots, n), key=TIERS.index)
            slots = min(slots, len(plan.slots))
        return worst, None, slots

    def least(self, which: str, device: int, host: int) -> int | None:
        """The least ``device_memory`` ("device") for the graph to stay on the device, or the least
        ``host_memory`` ("host") for every chunk to fit host memory, the other budget as given;
        None when that budget alone cannot get there. A bisection over the rules above (tiers only
        improve as a budget grows)."""
        good = ("device",) if which == "device" else ("device", "host")
        ok = (lambda x: self.tier(x, host)[0] in good) if which == "device" else (lambda x: self.tier(device, x)[0] in good)
        hi = 2 * (self.state + sum(r + int(u.sum()) for _, _, r, u in self.graphs) + 32 * (self.V + 1)) + (64 << 20)
        if not ok(hi):
            return None
        lo = 0
        while lo < hi:
            mid = (lo + hi) // 2
            if ok(mid):
                hi = mid
            else:
                lo = mid + 1
        return lo


def _plans(g: Graph, name: str, candidates: list[Candidate], algorithm: str, backend: str, has_reverse: bool, chunk_edges: int) -> list[_Plan]:
    """Each candidate's ``_Plan``, its driver made on ``g`` as that candidate's store would be:
    ``chunk_edges``, the reverse graph as asked, and the input's ids ranked where it reorders."""
    plans = []
    for c in candidates:
        view = _StoreAs(g, location=name, format=c.format, chunk_edges=chunk_edges, has_reverse=has_reverse, reordered=c.order != "natural")
        driver = ALGORITHMS[algorithm](view, int(g.perm[0]) if g.perm is not None else 0, backend)
        _, state = state_of(driver, view, backend)
        _, graphs = graphs_read(driver.edges(view), g.directed)
        chunks = c.chunks if chunk_edges == g.chunk_edges else c.chunks.scaled(chunk_edges, g.n_edges)
        reverse = c.reverse if c.reverse is not None and chunk_edges == g.chunk_edges else chunks
        plans.append(_Plan(c, state, graphs, g.n_vertices, chunks, reverse))
    return plans


class _StoreAs:
    """``graph`` as a candidate's store would be, for a driver sizing its state and naming its
    edges: named as the user named it, its format, another chunk size, a reverse graph or not, and,
    reordered, vertices whose input ids differ from their own (what gives MST its rank array)."""

    def __init__(self, graph: Graph, *, location: str, format: str, chunk_edges: int, has_reverse: bool, reordered: bool):
        self._graph, self.location, self.format, self.chunk_edges, self.has_reverse, self._reordered = graph, location, format, chunk_edges, has_reverse, reordered

    def __getattr__(self, name: str):
        return getattr(self._graph, name)

    def refs_to_original(self, refs: np.ndarray) -> np.ndarray:
        return refs[::-1].copy() if self._reordered and len(refs) > 1 else self._graph.refs_to_original(refs)


# --- choosing -----------------------------------------------------------------------------------


def _advise(g: Graph, name: str, has_reverse: bool, *, algorithm: str, backend: str, budgets: tuple[int, int], goal: str, orders: tuple, sample_edges: int) -> Advice:
    if g.n_edges == 0:
        raise ValueError(f"{name} has no edges: every format stores it in a few bytes, and no order or budget matters")
    device, host = budgets
    notes: list[str] = []
    m = _Measure(g, sample_edges, notes)
    candidates = []
    for order in orders:
        rank = m.rank(order)
        if isinstance(rank, str):
            notes.append(f"{order} order not measured: {rank}")
            continue
        found = m.candidates(order, rank)
        if rank is None and not m.whole:
            found = [m.own(c) if c.format == g.format else c for c in found]
        candidates += found
    if not candidates:
        raise ValueError(f"none of the orders asked ({', '.join(orders)}) can be measured on {name}: {'; '.join(notes)}")
    E = g.n_edges
    plans = _plans(g, name, candidates, algorithm, backend, has_reverse, g.chunk_edges)
    for p in plans:
        p.candidate.tier, p.candidate.reason, _ = p.tier(device, host)
    sized = [_chunk_size(g, name, p, algorithm, backend, has_reverse, budgets) for p in plans]
    chunk_edges, plan, chunk_reason = _choose(sized, goal, budgets)
    tier, refusal, _ = plan.tier(device, host)
    csr = min((p.candidate for p in plans if p.candidate.format == "csr"), key=lambda c: c.order != plan.candidate.order)
    region = {"host": "streamed", "store": "beyond-host", "refused": "refused"}.get(tier)
    if region is None:  # on the device: would csr, in the same order and chunks, be too?
        (as_csr,) = _plans(g, name, [csr], algorithm, backend, has_reverse, chunk_edges)
        region = "fits" if as_csr.tier(device, host)[0] == "device" else "compressed"
    reasons = _reasons(g, plan, plans, goal, region, refusal, m, E) + ([chunk_reason] if chunk_reason else [])
    degrees = m.degrees
    top = np.sort(degrees)[::-1][: max(1, g.n_vertices // 100)]
    return Advice(
        source=name,
        n_vertices=g.n_vertices,
        n_edges=E,
        directed=g.directed,
        degree={"max": int(degrees.max()), "mean": float(degrees.mean()), "top1_share": float(top.sum() / E), "zero": float(np.mean(degrees == 0))},
        measured={"whole": m.whole, "chunks": len(m.picked), "of": m.n_chunks, "sample_edges": sample_edges},
        algorithm=algorithm,
        backend=backend,
        device_memory=device,
        host_memory=host,
        goal=goal,
        format=plan.candidate.format,
        order=plan.candidate.order,
        chunk_edges=chunk_edges,
        region=region,
        state_bytes=plan.state,
        budgets={"device_memory": plan.least("device", device, host), "host_memory": plan.least("host", device, host)},
        reasons=reasons,
        candidates=[
            {
                "order": c.order,
                "format": c.format,
                "bits_per_edge": {k: round(c.bits(k, E), 3) for k in ("payload", "index", "indptr", "perm", "total")},
                "bytes": c.nbytes,
                "tier": c.tier,
                **({"refused": c.reason} if c.reason else {}),
            }
            for c in (p.candidate for p in plans)
        ],
        notes=notes,
    )


def _choose(sized: list[tuple[int, _Plan, str | None]], goal: str, budgets: tuple[int, int]) -> tuple[int, _Plan, str | None]:
    """The candidate to build, each in the chunk size best for it (``_chunk_size``): the smallest
    store for ``goal="size"``; else the best tier any reaches, and in it the fastest decoder in
    natural order when the graph stays on the device, the fewest chunk bytes when it streams."""
    order_cost = lambda c: DEFAULT_ORDERS.index(c.order) if c.order in DEFAULT_ORDERS else len(DEFAULT_ORDERS)
    tier = {id(plan): plan.tier(*budgets)[0] for _, plan, _ in sized}
    c = lambda entry: entry[1].candidate
    if goal == "size":
        return min(sized, key=lambda e: (c(e).nbytes["total"], SPEED.index(c(e).format), order_cost(c(e))))
    best = min(tier.values(), key=TIERS.index)
    pool = [e for e in sized if tier[id(e[1])] == best]
    if best == "device":
        return min(pool, key=lambda e: (SPEED.index(c(e).format), c(e).order != "natural", c(e).nbytes["total"]))
    return min(pool, key=lambda e: (c(e).nbytes["adj"], SPEED.index(c(e).format), order_cost(c(e))))


def _chunk_size(g: Graph, name: str, pick: _Plan, algorithm: str, backend: str, has_reverse: bool, budgets: tuple[int, int]) -> tuple[int, _Plan, str | None]:
    """The chunk size: the store's where the graph stays on the device (nothing streams, so the
    size does not matter); else, of it and its halvings down to MIN_CHUNK_EDGES, the one in the
    best tier (smaller chunks take less room: slots as large as the largest chunk, and on the
    CPU each thread's decode scratch), then the largest that gives the device OVERLAP_SLOTS
    slots, so that a sweep's copies overlap its kernels."""
    C = g.chunk_edges
    tier, _, slots = pick.tier(*budgets)
    if tier == "device":
        return C, pick, None
    tried = [(tier, slots, C, pick)]
    size = C
    while size // 2 >= MIN_CHUNK_EDGES:
        size //= 2
        (plan,) = _plans(g, name, [pick.candidate], algorithm, backend, has_reverse, size)
        tried.append((*plan.tier(*budgets)[::2], size, plan))
    key = lambda t: (TIERS.index(t[0]), t[0] != "device" and t[1] < OVERLAP_SLOTS, -t[1] if t[1] < OVERLAP_SLOTS else 0, -t[2])
    tier, slots, size, plan = min(tried, key=key)
    if tier == "refused":
        return C, pick, None
    if size == C:
        return C, pick, f"chunks of {C:,} edges: {slots} device slots{'' if slots >= OVERLAP_SLOTS else ', and smaller chunks down to ' + format(MIN_CHUNK_EDGES, ',') + ' give no more'}"
    if tier == "device":
        why = "the graph then stays on the device (slots as large as the largest chunk, and on the CPU each thread's decode scratch, shrink with them)"
    else:
        why = f"{slots} device slot{'s' if slots > 1 else ''}, {'enough' if slots >= OVERLAP_SLOTS else 'the most'} for a sweep's copies to overlap its kernels ({OVERLAP_SLOTS} needed)"
    return size, plan, f"chunks of {size:,} edges, not {C:,}: {why}; sizes scaled from the measured chunks"


def _reasons(g: Graph, pick: _Plan, plans: list[_Plan], goal: str, region: str, refusal: str | None, m: _Measure, E: int) -> list[str]:
    """Why: the sizes measured, the rule that chose, and what the choice rests on."""
    c = pick.candidate
    bits = lambda x: f"{x.bits('total', E):.2f}"
    smallest = min(plans, key=lambda p: p.candidate.nbytes["total"]).candidate
    same_order = ", ".join(f"{p.candidate.format} {bits(p.candidate)}" for p in plans if p.candidate.order == c.order)
    out = [f"the smallest store is {smallest.format} in {smallest.order} order, {bits(smallest)} bits per edge; in {c.order} order: {same_order}"]
    if goal == "size":
        out.append(f"goal size: {c.format} in {c.order} order, the smallest store measured")
    elif region in ("fits", "compressed"):
        why = "csr would fit as well" if region == "fits" else "csr would not fit, so a compressed graph held whole beats one streamed (EFG's region 2)"
        out.append(f"{c.format} in {c.order} order stays on the device ({why}); nothing moves once it is loaded, so the fastest decoder that fits wins (in memory: {', '.join(SPEED)}, fastest first)")
        if c.order == "natural":
            out.append("natural order: a reorder costs a build pass and buys nothing measured when nothing streams")
    elif region == "refused":
        out.append(f"no candidate runs: {refusal}")
    else:
        out.append(
            f"no candidate stays on the device under these budgets; every pass moves chunks ({REGIONS[region].split(':')[0]}), so the fewest chunk bytes win: {c.format} in {c.order} order, {c.bits('adj', E):.2f} bits per edge of chunks"
        )
    if c.order == "degree":
        share = float(np.sort(m.degrees)[::-1][: max(1, g.n_vertices // 100)].sum() / E)
        out.append(f"degree order gives the hubs small ids (the top 1% of vertices hold {share:.1%} of the edges), so their ids in other lists cost few bits")
    return out
