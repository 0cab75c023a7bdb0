"""The graph store, schema version 1: where each array lives and how a store comes into being.

A store is built in a temporary sibling (a local directory, even for zip files and URLs) and moved
into place only once it is complete, so a failed or interrupted build leaves nothing behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import posixpath
import shutil
import tempfile
import uuid
import warnings
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np
import zarr
from zarr.codecs import BytesCodec, Crc32cCodec, ZstdCodec
from zarr.core import sync as zarr_sync
from zarr.errors import ZarrUserWarning

from . import codecs as graph_codecs
from . import temps
from .errors import DestinationError, StoreError, StoreExistsError

SCHEMA_VERSION = 1
ADJ, INDPTR, WEIGHTS, PERM, REVERSE, LAYERS, COPIES, CENTRES = "adj", "indptr", "weights", "perm", "reverse", "layers", "copies", "centres"
BUILD_ID = "build_id"  # group attribute: a token unique to each build
VECTOR_CHUNK = 1 << 20  # entries per chunk of indptr and perm: 8 MB, decoded a chunk a thread
# Zarr skips chunks that hold only the fill value and reads them back as such, so a lost chunk
# would pass for zeros; stores hold every chunk of indptr, perm and weights, and a missing one is damage.
EVERY_CHUNK = {"write_empty_chunks": True}
# What Zarr raises for a zarr.json it cannot read, that is no JSON or not its metadata, or whose fill value its type cannot hold.
BAD_METADATA = (ValueError, TypeError, KeyError, OSError, OverflowError)
_ONLY_STORES = "only a graphtier store (a Zarr v3 group with graphtier_schema) is ever replaced"

# indptr and perm use numcodecs' delta filter through Zarr; its reminder that such codecs are outside
# the v3 spec would otherwise greet every open of every store.
warnings.filterwarnings("ignore", message="Numcodecs codecs are not in the Zarr version 3", category=ZarrUserWarning)


def is_url(target: str | os.PathLike) -> bool:
    return "://" in str(target)


def _is_zip(target: str | os.PathLike) -> bool:
    return not is_url(target) and str(target).endswith(".zip")


def _local_parent(target: str | os.PathLike) -> Path:
    """Where temporary files for ``target`` go: beside it, or the system temp for URLs."""
    return Path(tempfile.gettempdir()) if is_url(target) else Path(target).absolute().parent


@contextlib.contextmanager
def staged_store(target: str | os.PathLike, *, overwrite: bool = False, inputs: Iterable[str | os.PathLike] = ()) -> Iterator[zarr.Group]:
    """Yield an empty writable group; on success move it to ``target``, on any failure remove it.

    ``target`` is checked before any work: it must not be, hold or lie inside one of ``inputs``,
    and whatever is there already must be a graph store, replaced only with ``overwrite``. The
    check runs again just before the move, in case something appeared there meanwhile. What
    killed builds into the same place left behind is swept first (``temps``).
    """
    inputs = list(inputs)
    _sweep(target)
    dest = _destination(target, overwrite=overwrite, inputs=inputs)
    parent = _local_parent(dest)
    if not parent.is_dir():
        raise FileNotFoundError(f"cannot create {target}: {parent} is not a directory")
    stage = parent / temps.sibling_name(_name(dest), "tmp")
    try:
        group = zarr.open_group(str(stage), mode="w-")
        yield group
        group.attrs[BUILD_ID] = uuid.uuid4().hex  # readers tell this store from its successor by it
        _commit(stage, _destination(target, overwrite=overwrite, inputs=inputs))
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def stop_io(timeout: float = 10.0) -> None:
    """Cancel zarr's reads and writes in flight and wait for its I/O threads, so that the cleanups of a
    process being interrupted meet no writer and its exit prints no pending task. Every thread's zarr
    I/O stops: only for a process that is ending (zarr starts a fresh loop if it is used again)."""
    loop, thread = zarr_sync.loop[0], zarr_sync.iothread[0]
    if loop is None or not loop.is_running() or thread is None:
        return

    async def cancel_all() -> None:
        tasks = asyncio.all_tasks() - {asyncio.current_task()}
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.get_running_loop().shutdown_default_executor()

    with contextlib.suppress(TimeoutError):  # a writer stuck longer is left to the next build's sweep
        asyncio.run_coroutine_threadsafe(cancel_all(), loop).result(timeout)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(timeout)  # stopped here, so that zarr's reset below waits for nothing and warns of nothing
    lock = zarr_sync._get_lock()
    if lock.acquire(blocking=False):  # not when the interrupt came while zarr held it (starting its loop)
        lock.release()
        zarr_sync.cleanup_resources()


@contextlib.contextmanager
def scratch_dir(target: str | os.PathLike) -> Iterator[Path]:
    """A temporary directory near ``target`` for sorted runs, named by this process (``temps``);
    removed whatever happens, or by the next build here if this process is killed."""
    with tempfile.TemporaryDirectory(prefix=temps.sort_prefix(), dir=_local_parent(target)) as d:
        yield Path(d)


def _name(target: str | os.PathLike) -> str:
    """The last part of a path or URL."""
    return posixpath.basename(str(target).rstrip("/")) if is_url(target) else Path(target).name


def _sweep(target: str | os.PathLike) -> None:
    """Remove what builds into ``target``'s place left behind when killed: their stages, the stores
    they had moved aside, their sorted runs. A store moved aside with nothing yet in its place is
    moved back instead: the build that would have replaced it never finished."""
    import fsspec

    if not is_url(target) and os.path.islink(target):
        target = os.path.realpath(target)
    local = fsspec.filesystem("file")
    _sweep_in(local, str(_local_parent(target)), _name(target), hidden=True, target=None if is_url(target) else str(Path(target).absolute()))
    if is_url(target):
        fs, path = fsspec.core.url_to_fs(str(target))
        path = path.rstrip("/")
        _sweep_in(fs, posixpath.dirname(path), _name(target), hidden=False, target=path)


def _sweep_in(fs, parent: str, name: str, *, hidden: bool, target: str | None) -> None:
    try:
        entries = [posixpath.basename(p.rstrip("/")) for p in fs.ls(parent, detail=False)]
    except OSError:
        return
    leftovers = sorted(temps.abandoned(entries, name, hidden=hidden))
    olds = [entry for entry, kind in leftovers if kind == "old"]
    if target is not None and olds and not fs.lexists(target) and _fs_is_store(fs, posixpath.join(parent, olds[0])):
        try:
            fs.mv(posixpath.join(parent, olds[0]), target, recursive=True)
            leftovers.remove((olds[0], "old"))
        except OSError:
            pass  # another build restored it first
    for entry, _ in leftovers:
        with contextlib.suppress(OSError):
            fs.rm(posixpath.join(parent, entry), recursive=True)


def _fs_is_store(fs, path: str) -> bool:
    try:
        return _is_graphtier_group(fs.cat_file(posixpath.join(path, "zarr.json")))
    except OSError:
        return False


def _destination(target: str | os.PathLike, *, overwrite: bool, inputs: list[str | os.PathLike]) -> str | os.PathLike:
    """Where a build may write ``target``, or an error that says why not.

    ``overwrite`` replaces only a graph store, never the input, so that a mistyped path cannot
    delete a directory of other files or the data being converted. A symbolic link to a graph
    store stands for that store: the new store replaces it, and the link keeps pointing at it.
    """
    dest = target
    if not is_url(target) and os.path.islink(target):
        real = os.path.realpath(target)
        if not os.path.lexists(real):
            what = "missing"
        elif _is_zip(real) != _is_zip(target):
            what = "a path whose name gives the other kind of store (.zip or directory)"
        else:
            what = _not_a_store(real)
        if what:
            raise DestinationError(f"refusing to write {target}: it is a symbolic link to {real}, which is {what}; {_ONLY_STORES}")
        dest = real
    for source in inputs:
        relation = _relation(dest, source)
        if relation:
            raise DestinationError(f"refusing to write {target}: it {relation} the input {source}")
    if not _exists(dest):
        return dest
    what = _not_a_store(dest)
    if what:
        raise DestinationError(f"refusing to write {target}: it is {what}; {_ONLY_STORES}")
    if not overwrite:
        raise StoreExistsError(str(target))
    return dest


def _not_a_store(target: str | os.PathLike) -> str | None:
    """What the existing ``target`` is, if it is not a graph store (a Zarr v3 group with
    ``graphtier_schema`` in its attributes, in a directory, a ``.zip`` file or at a URL); None if it is one."""
    if is_url(target):
        import fsspec

        fs, path = fsspec.core.url_to_fs(str(target))
        if not fs.isdir(path):
            return "a file"
        try:
            meta = fs.cat_file(f"{path.rstrip('/')}/zarr.json")
        except OSError:
            return "a directory without a readable zarr.json"
    elif _is_zip(target):
        if os.path.isdir(target):
            return "a directory"
        if not os.path.isfile(target):
            return "a special file"
        if not zipfile.is_zipfile(target):
            return "a file that is not a zip archive"
        try:
            with zipfile.ZipFile(target) as zf:
                meta = zf.read("zarr.json")
        except (KeyError, OSError, zipfile.BadZipFile):
            return "a zip file without a readable zarr.json"
    else:
        if os.path.isfile(target):
            return "a regular file"
        if not os.path.isdir(target):
            return "a special file"
        try:
            meta = Path(target, "zarr.json").read_bytes()
        except OSError:
            return "a directory without a readable zarr.json"
    return None if _is_graphtier_group(meta) else "a Zarr node without graphtier_schema"


def _is_graphtier_group(meta: bytes) -> bool:
    """Whether ``zarr.json`` holds a Zarr v3 group's metadata whose attributes have ``graphtier_schema``."""
    try:
        meta = json.loads(meta)
    except ValueError:  # bytes that are no JSON, or no UTF-8
        return False
    if not isinstance(meta, dict) or meta.get("zarr_format") != 3 or meta.get("node_type") != "group":
        return False
    attributes = meta.get("attributes")
    return isinstance(attributes, dict) and "graphtier_schema" in attributes


def _relation(dest: str | os.PathLike, source: str | os.PathLike) -> str | None:
    """How ``dest`` overlaps ``source`` ("is", "lies inside", "holds"), or None; symbolic links
    and relative paths are resolved first, so two spellings of one place compare equal."""
    (dest_fs, a), (source_fs, b) = _place(dest), _place(source)
    if dest_fs != source_fs:
        return None
    if a == b:
        return "is"
    common = (os.path if dest_fs == "file" else posixpath).commonpath([a, b])
    return "lies inside" if common == b else "holds" if common == a else None


def _place(target: str | os.PathLike) -> tuple[str, str]:
    """A location as (file system, absolute path); a ``file://`` URL is a local path."""
    if is_url(target):
        import fsspec

        fs, path = fsspec.core.url_to_fs(str(target))
        protocol = fs.protocol if isinstance(fs.protocol, str) else fs.protocol[0]
        if protocol not in ("file", "local"):
            return protocol, posixpath.normpath("/" + path.strip("/"))
        target = path
    return "file", os.path.realpath(target)


def _exists(target: str | os.PathLike) -> bool:
    if is_url(target):
        import fsspec

        fs, path = fsspec.core.url_to_fs(str(target))
        return fs.exists(path)
    return os.path.lexists(target)


def _commit(stage: Path, target: str | os.PathLike) -> None:
    """Move the finished ``stage`` to ``target``; a store already there is moved aside first and
    deleted only once the new one is in place (or moved back if that fails)."""
    if is_url(target):
        import fsspec

        fs, path = fsspec.core.url_to_fs(str(target))
        path = path.rstrip("/")
        tmp, old = (posixpath.join(posixpath.dirname(path), temps.sibling_name(posixpath.basename(path), kind, hidden=False)) for kind in ("tmp", "old"))
        try:
            fs.put(str(stage), tmp, recursive=True)
            _swap(lambda a, b: fs.mv(a, b, recursive=True), fs.exists, tmp, path, old)
        finally:
            if fs.exists(tmp):
                fs.rm(tmp, recursive=True)
        if fs.exists(old):
            fs.rm(old, recursive=True)
        return
    target = Path(target)
    if _is_zip(target):
        packed = stage.with_name(stage.name + ".zip")
        try:
            with zipfile.ZipFile(packed, "w", zipfile.ZIP_STORED) as zf:
                for f in sorted(stage.rglob("*")):
                    if f.is_file():
                        zf.write(f, f.relative_to(stage).as_posix())
            os.replace(packed, target)  # atomic: the old zip is whole until the new one takes its name
        finally:
            packed.unlink(missing_ok=True)
        return
    trash = target.with_name(temps.sibling_name(target.name, "old"))
    _swap(os.replace, os.path.lexists, stage, target, trash)
    shutil.rmtree(trash, ignore_errors=True)


def _swap(move, exists, new, target, aside) -> None:
    """Put ``new`` at ``target``, first moving whatever is there to ``aside`` (and back on failure)."""
    had = exists(target)
    if had:
        move(target, aside)
    try:
        move(new, target)
    except BaseException:
        if had:
            move(aside, target)
        raise


def open_group(target: str | os.PathLike, *, check: bool = True) -> zarr.Group:
    """Open a graph store read-only: a directory, a ``.zip`` file or an fsspec URL. With ``check``,
    every array the attributes promise must be there, readable and of the promised shape."""
    if is_url(target):
        store = zarr.storage.FsspecStore.from_url(str(target), read_only=True)
    elif _is_zip(target):
        if not os.path.isfile(target):
            raise FileNotFoundError(f"no graph store at {target}")
        store = zarr.storage.ZipStore(str(target), mode="r")
    else:
        if not os.path.isdir(target):
            raise FileNotFoundError(f"no graph store at {target}")
        store = zarr.storage.LocalStore(str(target), read_only=True)
    try:
        group = zarr.open_group(store, mode="r")
    except (FileNotFoundError, zarr.errors.GroupNotFoundError) as e:
        raise StoreError(f"{target} is not a zarr group (no group's zarr.json at its root): {e}") from e
    except zipfile.BadZipFile as e:
        raise StoreError(f"{target} is not a readable zip file: {e}") from e
    except BAD_METADATA as e:
        raise StoreError(f"{target}: zarr.json is unreadable: {type(e).__name__}: {e}") from e
    version = group.attrs.get("graphtier_schema")
    if version != SCHEMA_VERSION:
        raise StoreError(f"{target} is not a graphtier store of schema {SCHEMA_VERSION} (found {version!r})")
    if check:
        problems = layout_problems(group)
        if problems:
            raise StoreError(f"{target}: " + "; ".join(f"{where}: {what}" for where, what in problems) + " (graphtier verify lists every problem)")
    return group


def current_build_id(group: zarr.Group) -> str | None:
    """The build id of the store now at ``group``'s place, read afresh (it changes when the store is replaced)."""
    try:
        return zarr.open_group(group.store, mode="r").attrs.get(BUILD_ID)
    except Exception as e:  # noqa: BLE001 (gone, or half moved: replaced all the same)
        return f"unreadable ({type(e).__name__})"


# The group attributes every store has, and their JSON types (bool is no int here).
ATTRIBUTES = {"n_vertices": int, "n_edges": int, "directed": bool, "weighted": bool, "format": str, "chunk_edges": int, "id_dtype": str, "vertex_order": str, "degree": dict, "build": dict}


def _has_type(value, kind: type) -> bool:
    return isinstance(value, kind) and (kind is bool or not isinstance(value, bool))


def layout_problems(group: zarr.Group) -> list[tuple[str, str]]:
    """(where, what) for every attribute or array that a store of this schema lacks, cannot read or
    holds in the wrong shape, type or codec: what opening a store checks before any chunk is read,
    so that a damaged store fails there with a message rather than deep inside a query."""
    attrs = group.attrs
    problems = [("zarr.json", f"attribute {name} is {attrs.get(name)!r}, not of type {kind.__name__}") for name, kind in ATTRIBUTES.items() if not _has_type(attrs.get(name), kind)]
    if problems:
        return problems
    n_vertices, chunk_edges, fmt, dtype = attrs["n_vertices"], attrs["chunk_edges"], attrs["format"], attrs["id_dtype"]
    if fmt not in graph_codecs.FORMATS:
        problems.append(("zarr.json", f"format {fmt!r} is none of {', '.join(graph_codecs.FORMATS)}"))
    if n_vertices < 0 or chunk_edges < 1 or attrs["n_edges"] < 0:
        problems.append(("zarr.json", f"n_vertices {n_vertices}, n_edges {attrs['n_edges']} or chunk_edges {chunk_edges} out of range"))
    elif dtype != id_dtype(n_vertices).name:
        problems.append(("zarr.json", f"id_dtype {dtype} does not suit {n_vertices} vertices ({id_dtype(n_vertices).name})"))
    try:
        graph_codecs.NUMCODECS[fmt](**attrs.get("codec", {}))
    except Exception as e:  # noqa: BLE001 (any configuration the codec's constructor refuses)
        problems.append(("zarr.json", f"attribute codec {attrs.get('codec')!r} does not configure graphtier.{fmt} ({e})"))
    if problems:
        return problems
    parts = [(group, attrs["n_edges"])]
    reverse, found = _node(group, REVERSE, zarr.Group)
    if found is not None:
        problems.append(found)
    elif reverse is not None:
        if _has_type(reverse.attrs.get("n_edges"), int):
            parts.append((reverse, reverse.attrs["n_edges"]))
        else:
            problems.append((REVERSE + "/zarr.json", f"attribute n_edges is {reverse.attrs.get('n_edges')!r}, not of type int"))
    for part, n_edges in parts:
        expected = {ADJ: ((n_edges, 2), dtype, (chunk_edges, 2)), INDPTR: ((n_vertices + 1,), "uint64", None)}
        if attrs["weighted"]:
            expected[WEIGHTS] = ((n_edges,), "float32", (chunk_edges,))
        if part is group and (attrs["vertex_order"] != "natural" or attrs.get("relabelled") or _listing(group, PERM)):
            expected[PERM] = ((n_vertices,), "uint64", None)
        if part is group and attrs["vertex_order"] == "layered":
            layered = attrs.get("layered")
            if not (isinstance(layered, dict) and _has_type(layered.get("layers"), int) and 0 < layered["layers"] <= n_vertices):
                problems.append(("zarr.json", f"attribute layered is {layered!r}, not the layer count (and root) of a layered store"))
                continue
            expected[LAYERS] = ((layered["layers"] + 1,), "uint64", None)
        if part is group and "coalesced" in attrs:
            expected[PERM] = expected[COPIES] = ((n_vertices,), "uint64", None)
        if part is group and "clustered" in attrs:
            clustered = attrs["clustered"]
            if not (isinstance(clustered, dict) and _has_type(clustered.get("centres"), int) and 0 <= clustered["centres"] <= n_vertices):
                problems.append(("zarr.json", f"attribute clustered is {clustered!r}, not the cluster count (and threshold, size) of a latency store"))
                continue
            expected[CENTRES] = ((clustered["centres"],), "uint64", None)
        for name, (shape, dt, chunks) in expected.items():
            array, found = _node(part, name, zarr.Array)
            where = posixpath.join(part.path, name)
            if found is not None:
                problems.append(found)
            elif array is None:
                problems.append((where, f"missing ({where}/zarr.json is not in the store)"))
            elif array.shape != shape or array.dtype != np.dtype(dt) or (chunks is not None and array.chunks != chunks) or min(array.chunks, default=0) < 1:
                problems.append((where, f"is {array.shape} {array.dtype} in chunks of {array.chunks}, the store's attributes say {shape} {dt}" + (f" in chunks of {chunks}" if chunks else "")))
            elif name == ADJ and not _adj_codecs(array.metadata.codecs, fmt):
                problems.append((where, f"is encoded with {array.metadata.codecs}, not the store's format {fmt} and its crc32c"))
    return problems


def _adj_codecs(codecs, fmt: str) -> bool:
    """Whether ``adj``'s codecs are the format's serializer, then the crc32c that ChunkStore checks and strips."""
    return len(codecs) == 2 and isinstance(codecs[0], graph_codecs.GraphZarrCodec) and codecs[0].name == graph_codecs.NUMCODECS[fmt].codec_id and isinstance(codecs[1], Crc32cCodec)


def _listing(group: zarr.Group, name: str) -> list[str]:
    """What the store holds directly under ``name`` in ``group`` (empty: nothing is there)."""
    from zarr.core.sync import sync

    async def entries():
        return [e async for e in group.store_path.store.list_dir(posixpath.join(group.path, name))]

    return sync(entries())


def _node(group: zarr.Group, name: str, kind: type) -> tuple[zarr.Array | zarr.Group | None, tuple[str, str] | None]:
    """(the node ``name`` of ``group``, None); (None, None) when nothing is stored under that name;
    (None, a problem) when something is, but not a readable node of ``kind``."""
    where = posixpath.join(group.path, name)
    entries = _listing(group, name)
    if not entries:
        return None, None
    if "zarr.json" not in entries:
        return None, (where, f"{where}/zarr.json is missing")
    try:
        node = group[name]
    except BAD_METADATA as e:
        return None, (where, f"{where}/zarr.json is unreadable: {type(e).__name__}: {e}")
    if not isinstance(node, kind):
        return None, (where, f"{where}/zarr.json describes a {type(node).__name__}, not a {kind.__name__}")
    return node, None


def id_dtype(n_vertices: int) -> np.dtype:
    """uint32 while every id and the fill value (the largest uint32) stay apart."""
    return np.dtype(np.uint32) if n_vertices < np.iinfo(np.uint32).max else np.dtype(np.uint64)


def create_adj(group: zarr.Group, *, fmt: str, chunk_edges: int, dtype: np.dtype, codec_config: dict | None = None) -> zarr.Array:
    serializer = graph_codecs.GraphZarrCodec(graph_codecs.NUMCODECS[fmt].codec_id, **(codec_config or {}))
    return group.create_array(
        ADJ,
        shape=(0, 2),
        chunks=(chunk_edges, 2),
        dtype=dtype,
        fill_value=np.iinfo(dtype).max,
        serializer=serializer,
        compressors=[Crc32cCodec()],
    )


def create_weights(group: zarr.Group, *, chunk_edges: int) -> zarr.Array:
    """Raw little-endian float32 (then crc32c), chunk c aligned with ``adj``'s chunk c: a kernel
    reads a chunk's weights in place, wherever the tiers put them, as it reads the chunk."""
    return group.create_array(WEIGHTS, shape=(0,), chunks=(chunk_edges,), dtype="float32", serializer=BytesCodec(endian="little"), compressors=[Crc32cCodec()], config=EVERY_CHUNK)


def write_vector(group: zarr.Group, name: str, values: np.ndarray) -> zarr.Array:
    """indptr and perm: delta then zstd, which shrinks sorted offsets to small gaps (and stays
    lossless for any uint64 sequence: the differences wrap)."""
    from zarr.codecs.numcodecs import Delta

    values = np.ascontiguousarray(values, np.uint64)
    arr = group.create_array(
        name,
        shape=values.shape,
        chunks=(min(max(len(values), 1), VECTOR_CHUNK),),
        dtype="uint64",
        filters=[Delta(dtype="<u8")],
        serializer=BytesCodec(),
        compressors=[ZstdCodec(level=3), Crc32cCodec()],
        config=EVERY_CHUNK,
    )
    arr[:] = values
    return arr


class AdjWriter:
    """Appends sorted (src, dst[, weight]) edges to ``adj`` (and ``weights``) in whole chunks.

    It buffers ``batch`` chunks per write so that Zarr encodes them concurrently.
    """

    def __init__(self, group: zarr.Group, *, fmt: str, chunk_edges: int, dtype: np.dtype, weighted: bool, codec_config: dict | None = None, batch: int = 4):
        self.adj = create_adj(group, fmt=fmt, chunk_edges=chunk_edges, dtype=dtype, codec_config=codec_config)
        self.weights = create_weights(group, chunk_edges=chunk_edges) if weighted else None
        self.capacity = chunk_edges * batch
        self._rows = np.empty((self.capacity, 2), dtype)
        self._w = np.empty(self.capacity, np.float32) if weighted else None
        self._fill = 0
        self.n_edges = 0

    def append(self, src: np.ndarray, dst: np.ndarray, weight: np.ndarray | None = None) -> None:
        i = 0
        while i < len(src):
            take = min(len(src) - i, self.capacity - self._fill)
            sl = slice(self._fill, self._fill + take)
            self._rows[sl, 0] = src[i : i + take]
            self._rows[sl, 1] = dst[i : i + take]
            if self._w is not None:
                self._w[sl] = weight[i : i + take]
            self._fill += take
            i += take
            if self._fill == self.capacity:
                self._flush()

    def close(self) -> None:
        if self._fill:
            self._flush()

    def _flush(self) -> None:
        n, k = self.n_edges, self._fill
        self.adj.resize((n + k, 2))
        self.adj[n : n + k] = self._rows[:k]
        if self.weights is not None:
            self.weights.resize((n + k,))
            self.weights[n : n + k] = self._w[:k]
        self.n_edges += k
        self._fill = 0
