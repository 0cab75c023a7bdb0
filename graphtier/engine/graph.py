"""The Graph handle: an opened store, its facts, and the resident form kernels traverse."""

from __future__ import annotations

import dataclasses
import functools
import math
import os
import sys
from collections.abc import Callable

import numpy as np
import zarr

from .. import codecs as graph_codecs
from .. import store as schema
from ..errors import CorruptChunkError, GraphtierError, StoreError, StoreReplacedError
from ..kernels.cuda.runtime import DeviceArena, DeviceGraph, Workspace
from ..partition.graffix import Clusters, cluster_edges
from ..tiering.budget import allocating
from ..tiering.resident import HostArena, ResidentGraph, indptr_problem, load_resident, resident_bytes
from ..tiering.scheduler import Scheduler, resident_fits
from ..tiering.storage import CRC_BYTES, ChunkStore, WeightStore, read_vector
from ..tiering.stored import StoredGraph

KEPT_AFTER_OUT_OF_MEMORY = ("indptr", "chunk_sizes")  # host arrays of the store, not of any query


class NamedWorkspace(Workspace):
    """The GPU arrays of the vertex state (``Workspace``); one that cannot be allocated is named."""

    def buffer(self, name: str, shape: int | tuple, dtype) -> object:
        nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
        with allocating(f"the vertex state's {name!r} array", nbytes, "GPU"):
            return super().buffer(name, shape, dtype)


def perm_problem(perm: np.ndarray, n_vertices: int, relabelled: bool) -> str | None:
    """What is wrong with ``perm``, None if nothing: each original id named once, and below the
    vertex count unless the build relabelled (a reordered graph's ids are its own, renamed)."""
    if len(np.unique(perm)) != len(perm):
        return "names some original id twice"
    if not relabelled and len(perm) and int(perm.max()) >= n_vertices:
        return f"holds id {int(perm.max())}, not below the {n_vertices} vertices of a graph that was not relabelled"
    return None


def copies_problem(copies: np.ndarray, perm: np.ndarray | None, originals) -> str | None:
    """What is wrong with a coalesced store's ``copies``, None if nothing: each slot copies itself, a
    vertex, or nothing (``len(copies)``); ``originals`` vertices, whose input ids (``perm``) are all
    below the replicas' and holes'."""
    n = len(copies)
    own = copies == np.arange(n)
    if not isinstance(originals, int) or int(own.sum()) != originals:
        return f"copies names {int(own.sum())} vertices as their own, the store's attribute coalesced says {originals!r}"
    inside = copies < n
    if np.any(copies > n) or np.any(~own[np.where(inside, copies, 0)] & inside):
        return "copies holds a slot that copies a slot which is no vertex"
    if perm is None or (own.any() and (~own).any() and perm[own].max() >= perm[~own].min()):
        return "the replicas and holes do not come after every vertex in perm"
    return None


def centres_problem(centres: np.ndarray, degrees: np.ndarray, size) -> str | None:
    """What is wrong with a latency store's cluster ``centres``, None if nothing: vertices, each
    once, ascending, with at most ``size`` neighbours (a cluster fits a block's shared memory)."""
    n = len(degrees)
    if np.any(np.diff(centres) <= 0) or (len(centres) and int(centres[-1]) >= n):
        return f"the centres must be vertices below {n}, ascending, each once"
    if not isinstance(size, int) or (len(centres) and int(degrees[centres].max()) > size):
        return f"a centre has more neighbours than the store's attribute clustered allows ({size!r})"
    return None


def layers_problem(layers: np.ndarray, n_vertices: int) -> str | None:
    """What is wrong with a layered store's layer offsets, None if nothing: rising from 0, each
    layer holding a vertex, to at most the vertex count."""
    if layers[0] != 0 or np.any(np.diff(layers) <= 0) or layers[-1] > n_vertices:
        return f"the layer offsets must rise from 0 to at most {n_vertices}"
    return None


class Graph:
    """A graph store opened read-only. Cheap to create; arrays load on first use."""

    def __init__(self, group: zarr.Group, location: str):
        self.group = group
        self.location = location
        self.attrs = dict(group.attrs)
        self._loaded: dict[tuple[object, bool], object] = {}

    def _once(self, what: object, reverse: bool, load):
        if (what, reverse) not in self._loaded:
            try:
                loaded = load()
            except GraphtierError:  # chunks not as this handle listed them: a store rebuilt since explains it
                if not self._unchanged():
                    raise StoreReplacedError(self.location) from None
                raise
            if not self._unchanged():
                raise StoreReplacedError(self.location)
            self._loaded[what, reverse] = loaded
        return self._loaded[what, reverse]

    def memo(self, name: str, compute: Callable[[], object]) -> object:
        """A fact derived from the graph (an algorithm's pivot, say), computed once and kept with
        the handle, so that later queries skip the pass over the vertices it took."""
        return self._once(("memo", name), False, compute)

    def _unchanged(self) -> bool:
        """Whether the store at this place is still the build this handle opened."""
        return schema.current_build_id(self.group) == self.attrs.get(schema.BUILD_ID)

    build_id = property(lambda self: self.attrs.get(schema.BUILD_ID), doc="which build of the store this handle opened")
    n_vertices = property(lambda self: int(self.attrs["n_vertices"]))
    n_edges = property(lambda self: int(self.attrs["n_edges"]))
    format = property(lambda self: self.attrs["format"])
    directed = property(lambda self: bool(self.attrs["directed"]))
    weighted = property(lambda self: bool(self.attrs["weighted"]))
    chunk_edges = property(lambda self: int(self.attrs["chunk_edges"]))
    id_dtype = property(lambda self: np.dtype(self.attrs["id_dtype"]))

    @property
    def has_reverse(self) -> bool:
        """Whether the store holds the reverse graph (asked of the store once: about 1 ms a query)."""
        return self._once("has_reverse", True, lambda: schema.REVERSE in self.group)

    def __repr__(self) -> str:
        return f"<graphtier.Graph {self.location!r}: {self.n_vertices:,} vertices, {self.n_edges:,} edges, {self.format}>"

    def _part(self, reverse: bool) -> zarr.Group:
        if not reverse:
            return self.group
        if not self.has_reverse:
            raise StoreError(f"{self.location} has no reverse graph (build it with reverse=True)")
        return self._member(self.group, schema.REVERSE)

    def _array(self, name: str, reverse: bool = False) -> zarr.Array:
        return self._member(self._part(reverse), name)

    def _member(self, group: zarr.Group, name: str):
        """An array or group of the store; one that is gone means the store was replaced under
        this handle (a reader racing a rebuild), or else is damaged."""
        try:
            return group[name]
        except KeyError:
            if not self._unchanged():
                raise StoreReplacedError(self.location) from None
            raise StoreError(f"{self.location}: its {'/'.join(filter(None, (group.path, name)))} is missing") from None

    def indptr(self, reverse: bool = False) -> np.ndarray:
        """Where each vertex's edges start in ``adj`` (int64), checked for consistency (a
        ``CorruptChunkError`` names the chunk where it fails)."""
        return self._once("indptr", reverse, lambda: self._load_indptr(reverse))

    def _load_indptr(self, reverse: bool) -> np.ndarray:
        array = self._array(schema.INDPTR, reverse)
        indptr = read_vector(array, self.location)
        indptr = indptr.view(np.int64) if indptr.dtype == np.uint64 else indptr.astype(np.int64)  # an entry past 2**63 reads negative: the check below finds it
        problem = indptr_problem(indptr, self.n_vertices, self._array(schema.ADJ, reverse).shape[0])
        if problem:
            message, entry = problem
            raise CorruptChunkError(message, array=array.path, chunk=min(entry, len(indptr) - 1) // array.chunks[0], store=self.location)
        return indptr

    @functools.cached_property
    def perm(self) -> np.ndarray | None:
        """Original id of each vertex when the build relabelled or reordered, else None."""
        if schema.PERM not in self.group:
            return None
        perm = read_vector(self._array(schema.PERM), self.location)
        problem = perm_problem(perm, self.n_vertices, bool(self.attrs.get("relabelled")))
        if problem:
            raise CorruptChunkError(problem, array=schema.PERM, store=self.location)
        return perm

    @functools.cached_property
    def layers(self) -> np.ndarray | None:
        """A layered store's layers (``order="layered"``): layer i is the vertices ``layers[i] ..
        layers[i+1] - 1``, at distance i from the root (vertex 0); None for any other order."""
        if self.attrs.get("vertex_order") != "layered":
            return None
        layers = read_vector(self._array(schema.LAYERS), self.location).astype(np.int64)
        problem = layers_problem(layers, self.n_vertices)
        if problem:
            raise CorruptChunkError(problem, array=schema.LAYERS, store=self.location)
        return layers

    @property
    def root(self) -> int | None:
        """A layered store's root, as the input named it (None for any other order)."""
        return self.attrs["layered"]["root"] if self.layers is not None else None

    @functools.cached_property
    def copies(self) -> np.ndarray | None:
        """A coalesced store's (``gt.approximate(..., "coalesce")``) slot that each slot copies: its
        own for a vertex, its original's for a replica, ``n_vertices`` for a hole; None for any
        other store."""
        if "coalesced" not in self.attrs:
            return None
        copies = read_vector(self._array(schema.COPIES), self.location).astype(np.int64)
        problem = copies_problem(copies, self.perm, self.attrs["coalesced"].get("originals"))
        if problem:
            raise CorruptChunkError(problem, array=schema.COPIES, store=self.location)
        return copies

    @functools.cached_property
    def centres(self) -> np.ndarray | None:
        """A latency store's (``gt.approximate(..., "latency")``) cluster centres, ascending: each
        a cluster with its neighbours (``indptr``); None for any other store."""
        if "clustered" not in self.attrs:
            return None
        centres = read_vector(self._array(schema.CENTRES), self.location).astype(np.int64)
        problem = centres_problem(centres, np.diff(self.indptr()), self.attrs["clustered"].get("size"))
        if problem:
            raise CorruptChunkError(problem, array=schema.CENTRES, store=self.location)
        return centres

    @functools.cached_property
    def clusters(self) -> Clusters | None:
        """A latency store's clusters as edge lists (``partition.graffix.cluster_edges``): for each
        centre, every stored edge between two of its cluster's vertices (the centre and its
        neighbours either way), what ``Run.rounds`` iterates; None for a store without centres.
        Read from the whole edge list and weights on the host, once per handle: a latency store is
        built from its whole CSR in memory, so it fits there."""
        if self.centres is None or not len(self.centres):
            return None
        edges = self.edges().astype(np.int64)
        return cluster_edges(self.centres, edges[:, 0], edges[:, 1], self.edge_weights(), self.n_vertices)

    @functools.cached_property
    def copy_sets(self) -> tuple[np.ndarray, np.ndarray] | None:
        """A coalesced store's (replicas, replicas and holes): the slots that copy a vertex, and
        every slot that is none of the input's vertices; None for any other store."""
        if self.copies is None:
            return None
        others = np.flatnonzero(self.copies != np.arange(self.n_vertices))
        return others[self.copies[others] < self.n_vertices], others

    @property
    def n_original(self) -> int:
        """The vertices results report: all but a coalesced store's replicas and holes."""
        return self.n_vertices if self.copies is None else int(self.attrs["coalesced"]["originals"])

    @functools.cached_property
    def _originals(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(vertices sorted by original id, those ids, each vertex's place in that order); a
        coalesced store's replicas and holes come last, by ids above every vertex's."""
        by_original = np.argsort(self.perm, kind="stable")
        place = np.empty_like(by_original)
        place[by_original] = np.arange(len(by_original))
        return by_original, self.perm[by_original], place

    @functools.cached_property
    def _references(self) -> np.ndarray:
        """Each vertex's place among the input's ids: a replica's its original's, a hole's -1."""
        place = self._originals[2]
        if self.copies is None:
            return place
        return np.where(self.copies < self.n_vertices, place[np.minimum(self.copies, self.n_vertices - 1)], -1)

    @property
    def ids(self) -> np.ndarray | None:
        """The original ids, ascending, of a relabelled graph: what result rows stand for."""
        return self._originals[1][: self.n_original] if self.attrs.get("relabelled") else None

    @property
    def original_order(self) -> np.ndarray | None:
        """The store's vertices in the input's order of ids (None where the build kept that order):
        what ``to_original`` gathers by."""
        return None if self.perm is None else self._originals[0][: self.n_original]

    @property
    def places(self) -> np.ndarray | None:
        """Each vertex's place in the input's order of ids (a coalesced store's replicas and holes
        after the rest, each its own): ranks that break ties as the input's ids do; None where the
        build kept that order."""
        return None if self.perm is None else self._originals[2]

    def device_mapping(self, name: str):
        """``original_order`` or ``references`` (each vertex's place among the input's ids) on the
        GPU, kept with the handle: what a result left there is reordered by."""
        import cupy

        return self._once(("device_mapping", name), False, lambda: cupy.asarray(self.original_order if name == "original_order" else self._references))

    def to_original(self, values: np.ndarray) -> np.ndarray:
        """Per-vertex results reindexed from the store's order to the input's order of ids."""
        order = self.original_order
        return values if order is None else values[order]

    def from_original(self, values: np.ndarray) -> np.ndarray:
        """Per-vertex values given in the input's order of ids, reindexed to the store's order (a
        coalesced store's replicas and holes get 0)."""
        if self.perm is None:
            return np.asarray(values)
        out = np.zeros(self.n_vertices, np.asarray(values).dtype)
        out[self.original_order] = values
        return out

    def refs_to_original(self, refs: np.ndarray) -> np.ndarray:
        """Vertex references (such as parents; -1 for none) renamed into the input's order (a
        replica's to its original)."""
        if self.perm is None:
            return refs
        return np.where(refs >= 0, self._references[np.maximum(refs, 0)], -1)

    def chunks(self, reverse: bool = False) -> ChunkStore:
        """The stored chunks of ``adj``; reads made through it later (out of core) check that the
        store was not replaced meanwhile."""
        return ChunkStore(self._array(schema.ADJ, reverse), self.format, self.location, unchanged=self._unchanged)

    @property
    def codec(self) -> graph_codecs.GraphChunkCodec:
        return graph_codecs.NUMCODECS[self.format](**self.attrs.get("codec", {}))

    def weight_store(self, reverse: bool = False) -> WeightStore:
        """The edges' weights, chunk by chunk as ``adj``'s."""
        if not self.weighted:
            raise ValueError(f"{self.location} has no edge weights (build it from weighted input)")
        facts = self.weight_facts(reverse)
        return WeightStore(self._array(schema.WEIGHTS, reverse), self.location, bounds=(facts["min"], facts["max"]) if "min" in facts else None)

    def weight_facts(self, reverse: bool = False) -> dict:
        """The least, largest and mean weight its build recorded (empty when it recorded none):
        every weight read is checked against them, and SSSP trusts the least."""
        facts = (self._part(True).attrs if reverse else self.attrs).get("weights", {})
        numbers = isinstance(facts, dict) and all(type(facts.get(k)) in (int, float) and math.isfinite(facts[k]) for k in ("min", "max", "mean"))
        if facts != {} and not (numbers and facts["min"] <= facts["mean"] <= facts["max"]):
            raise StoreError(f"{self.location}: the recorded weights attribute is damaged: {facts!r}")
        return facts

    def _kept(self, what: str, reverse: bool, weights: bool, load):
        """A loaded form of the graph (``what``: "resident" or "device"), with or without weights;
        a weighted one serves an unweighted request, and replaces an unweighted one (so the
        device does not hold both)."""
        held = self._held(what, reverse, weights)
        if held is not None:
            return held
        if weights:
            self._loaded.pop(((what, False), reverse), None)
        return self._once((what, weights), reverse, load)

    def _held(self, what: str, reverse: bool, weights: bool):
        """The loaded form kept already that serves this request (a weighted one serves an
        unweighted request too), or None."""
        for w in (True,) if weights else (True, False):
            if ((what, w), reverse) in self._loaded:
                return self._loaded[(what, w), reverse]
        return None

    def resident(self, reverse: bool = False, weights: bool = False) -> ResidentGraph:
        """Every encoded chunk in one validated host buffer (the whole graph must fit), each
        followed by its edges' weights with ``weights``."""
        return self._kept("resident", reverse, weights, lambda: self._load_resident(reverse, weights, HostArena))

    def _load_resident(self, reverse: bool, weights: bool, memory) -> ResidentGraph:
        return load_resident(self._loadable(reverse, weights), memory)

    def stored(self, reverse: bool = False, weights: bool = False) -> StoredGraph:
        """``adj`` (or its reverse) as the tiers read it and check each chunk; with its edges'
        weights with ``weights``."""
        ws = self.weight_store(reverse) if weights else None
        return StoredGraph(self.chunks(reverse), self.codec, self.indptr(reverse), self.n_vertices, self.chunk_edges, self.id_dtype, ws)

    def _loadable(self, reverse: bool, weights: bool) -> StoredGraph:
        """``stored``, with the chunk sizes this handle listed once (sizing a query lists them too)."""
        return dataclasses.replace(self.stored(reverse, weights), sizes=self._kept_chunk_sizes(reverse))

    def on_device(self, reverse: bool = False, weights: bool = False) -> DeviceGraph:
        """The resident graph on the GPU, unchanged (the whole graph must fit there): its chunks
        copied there as they are checked, or from the host's resident graph where a query on the
        CPU holds it already."""
        return self._kept("device", reverse, weights, lambda: self._upload(reverse, weights))

    def _upload(self, reverse: bool, weights: bool) -> DeviceGraph:
        resident = self._held("resident", reverse, weights)
        with allocating(f"the whole graph of {self.location} on the GPU", self.resident_size(reverse, weights), "GPU"):
            return DeviceGraph.upload(resident if resident is not None else self._load_resident(reverse, weights, DeviceArena))

    def workspace(self) -> Workspace:
        """GPU arrays for the vertex state of algorithms on this graph, kept between runs."""
        return self._once("workspace", False, NamedWorkspace)

    def recover(self, allocation: bool) -> None:
        """Leaves this handle as the next query needs it after a query failed part-way: schedulers
        it left mid-iteration drop that iteration's records (their tiers hold only whole chunks).
        After an ``allocation`` failure, everything loaded for queries (vertex state, graphs on the
        device or in host memory, schedulers) is let go and CuPy's cached blocks freed, so that
        nothing the failed query allocated stays held and the next query starts as on a fresh handle."""
        for key, source in list(self._loaded.items()):
            if allocation and key[0] not in KEPT_AFTER_OUT_OF_MEMORY:
                del self._loaded[key]
            elif isinstance(source, Scheduler) and source.iterations:
                try:
                    source.take_stats()  # read and thrown away: no query reports them
                except Exception:  # noqa: BLE001 (a device that cannot even synchronise: start that graph afresh)
                    del self._loaded[key]
        cupy = sys.modules.get("cupy")
        if allocation and cupy is not None:
            cupy.get_default_memory_pool().free_all_blocks()
            cupy.get_default_pinned_memory_pool().free_all_blocks()

    def resident_size(self, reverse: bool = False, weights: bool = False) -> int:
        """Bytes the whole graph takes resident (``tiering.resident.resident_bytes``); kept, since
        every query asks and opening ``adj`` through Zarr costs milliseconds."""

        def size() -> int:
            chunks = self._kept_chunk_sizes(reverse)
            e = self._array(schema.ADJ, reverse).shape[0]
            edges = [min(self.chunk_edges, e - c) for c in range(0, e, self.chunk_edges)]
            return resident_bytes(chunks, edges, self.n_vertices, weights)

        return self._once(("resident_size", weights), reverse, size)

    def _kept_chunk_sizes(self, reverse: bool) -> np.ndarray:
        """``chunk_sizes``, listed once per handle: sizing a query and loading the graph both need them."""
        return self._once("chunk_sizes", reverse, lambda: self.chunk_sizes(reverse))

    def chunk_sizes(self, reverse: bool = False) -> np.ndarray:
        """Each ``adj`` chunk's encoded bytes, its checksum left out (from the store's listing)."""
        chunks = self.chunks(reverse)
        return np.array(chunks.stored_bytes(range(chunks.n_chunks)), np.int64) - CRC_BYTES

    def source(self, backend: str, reverse: bool = False, *, chunk_budget: int, host_budget: int, zero_copy: str = "auto", weights: bool = False, sidecars: tuple = (), chunks: range | None = None):
        """What kernels traverse under these budgets: the resident graph when it fits both (the
        scheduler steps aside), else a scheduler streaming its chunks (with their weights, with
        ``weights``) through the tiers, keeping ``sidecars`` on the device; only ``chunks`` (a
        part of a run split over devices: always a scheduler, which reads only those). Kept for
        the next call with the same arguments, so that a device cache lasts across queries."""
        if chunks is None and resident_fits(self.resident_size(reverse, weights), chunk_budget, host_budget, zero_copy):
            return self.on_device(reverse, weights) if backend == "cuda" else self.resident(reverse, weights)
        key = ("scheduler", backend, chunk_budget, host_budget, zero_copy, weights, sidecars, chunks)
        return self._once(
            key,
            reverse,
            lambda: Scheduler(self._loadable(reverse, weights), backend, chunk_budget, host_budget, zero_copy, sidecars, chunks),
        )

    def evict_device(self) -> None:
        """Forget the chunks held in device tiers (host tiers keep theirs): the next query starts
        with a cold device cache, as a first query on a graph in pinned host memory would."""
        for (what, _), source in self._loaded.items():
            if isinstance(what, tuple) and what[0] == "scheduler":
                source.evict_device()

    def edges(self, start: int = 0, stop: int | None = None) -> np.ndarray:
        """Decoded (src, dst) rows: for users and tests; kernels never take this path."""
        return self._array(schema.ADJ)[start:stop]

    def edge_weights(self) -> np.ndarray | None:
        """Every edge's weight, in the order of ``edges()``; None for an unweighted store."""
        return self._array(schema.WEIGHTS)[:] if self.weighted else None

    def vertex(self, original_id: int) -> int:
        """The store's index of a vertex given by the id the input used."""
        if self.perm is None:
            if not 0 <= original_id < self.n_vertices:
                raise ValueError(f"vertex {original_id} is not in the graph (" + (f"0..{self.n_vertices - 1})" if self.n_vertices else "it has no vertices)"))
            return int(original_id)
        by_original, ids = self.original_order, self._originals[1][: self.n_original]
        i = int(np.searchsorted(ids, np.uint64(original_id))) if original_id >= 0 else len(ids)
        if i == len(ids) or ids[i] != original_id:
            raise ValueError(f"vertex {original_id} is not in the graph")
        return int(by_original[i])

    def verify(self, progress: bool | None = None):
        """Read every chunk of every array and report every problem found (``engine.verify``)."""
        from .verify import verify

        return verify(self, progress=progress)

    def info(self) -> dict:
        """Counts, degrees, build facts and sizes; what ``graphtier info --json`` prints."""
        info = {
            "store": self.location,
            "schema": self.attrs["graphtier_schema"],
            "format": self.format,
            "n_vertices": self.n_vertices,
            "n_edges": self.n_edges,
            "directed": self.directed,
            "weighted": self.weighted,
            "chunk_edges": self.chunk_edges,
            "id_dtype": self.attrs["id_dtype"],
            "vertex_order": self.attrs.get("vertex_order"),
            **({"layered": self.attrs["layered"]} if self.layers is not None else {}),
            **({"approximation": self.attrs["approximation"]} if "approximation" in self.attrs else {}),
            "relabelled": self.attrs.get("relabelled", False),
            "degree": self.attrs.get("degree"),
            "build": self.attrs.get("build"),
            **self._sizes(reverse=False),
        }
        if self.has_reverse:
            info["reverse"] = {"degree": self._part(True).attrs.get("degree"), **self._sizes(reverse=True)}
        return info

    def _sizes(self, reverse: bool) -> dict:
        part = self._part(reverse)
        chunks = self.chunks(reverse)
        headers = chunks.headers(range(chunks.n_chunks))
        payload = sum(h.payload_bytes for h in headers)
        index = sum(h.index_bytes for h in headers)
        adj = self._array(schema.ADJ, reverse).nbytes_stored()
        indptr = self._array(schema.INDPTR, reverse).nbytes_stored()
        perm = self._array(schema.PERM).nbytes_stored() if (schema.PERM in self.group and not reverse) else 0
        sizes = {
            "payload": payload,
            "index": index,
            "headers": adj - payload - index,
            "indptr": indptr,
            "perm": perm,
            "total": adj + indptr + perm,
        }
        if schema.WEIGHTS in part:
            sizes["weights"] = self._array(schema.WEIGHTS, reverse).nbytes_stored()
        e = self._array(schema.ADJ, reverse).shape[0]
        bits = {k: sizes[k] * 8 / e if e else None for k in ("payload", "index", "indptr", "total")}  # none per edge of no edges
        return {"n_chunks": chunks.n_chunks, "bytes": sizes, "bits_per_edge": bits}


def open(store: str | os.PathLike) -> Graph:
    """Open a graph store: a directory, a ``.zip`` file or an fsspec URL such as ``memory://g``."""
    return Graph(schema.open_group(store), str(store))
