"""Dask jobs over many stores and many sources: ``gt.dask.map("bfs", stores, sources, client=client)``.

Workers open the stores themselves (paths or fsspec URLs): only a store's location, the algorithm's
name, its parameters and the ``Config`` travel, never a Graph. The sources of one store go in
batches, a task each, so that a worker pays the store's open and its upload to the device once per
batch rather than once per source. Tasks are pure (the same inputs give the same frame, and they
only read), which is what lets Dask run one again anywhere: after an exception (``retries``), when
its worker died while running it (the scheduler reruns it elsewhere, up to
``distributed.scheduler.allowed-failures`` times), or when its finished result was lost with its
worker. The frame holds each result once, whatever ran twice. A "cuda" config asks each task for a
``GPU`` resource: workers with one GPU each (``--resources GPU=1``) run one task at a time per GPU;
``gpu_cluster()`` starts such workers on this machine, one per GPU.
"""

from __future__ import annotations

import inspect
import os
import posixpath
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import fsspec
import numpy as np

try:
    import dask.dataframe as dd
    import pandas as pd
    from dask.base import tokenize
    from dask.dataframe.dask_expr import from_graph
    from dask.dataframe.utils import clear_known_categories
    from distributed import Client, Nanny, Scheduler, SpecCluster, get_client
    from distributed.system import MEMORY_LIMIT
except ImportError as e:  # pragma: no cover (the dask extra is part of the test extra)
    raise ImportError("graphtier.dask needs dask's distributed scheduler and dataframes: pip install 'graphtier[dask]'") from e

import graphtier as gt

from . import temps
from .runtime import Config
from .runtime.parts import gpu_names
from .store import is_url

ALGORITHMS = tuple(gt.ALGORITHMS)  # graphtier's own, by name

Stores = str | os.PathLike | Sequence[str | os.PathLike]


def run_batch(algorithm: str | Callable[..., Any], store: str, sources: Sequence[int] | None = None, *, params: Mapping[str, Any] | None = None, config: Config | None = None) -> pd.DataFrame:
    """One task: open ``store`` once and run ``algorithm`` from each of ``sources`` (once, for an
    algorithm without a source); every result's ``to_pandas()`` after a ``store`` column and a
    ``source`` column, in one frame. Progress bars are off: Dask reports progress. Plain Python,
    so it also runs without Dask (the benchmark's serial baseline does)."""
    function = _function(algorithm)
    graph = gt.open(store)
    config = Config.of(config, progress=False)
    if sources is None:
        frames, columns = [function(graph, config=config, **(params or {})).to_pandas()], {}
    else:
        frames = [function(graph, source, config=config, **(params or {})).to_pandas() for source in sources]
        columns = {"source": np.repeat(np.asarray(sources, np.int64), [len(f) for f in frames])}
    columns |= {c: pd.concat([f[c] for f in frames], ignore_index=True) for c in frames[0].columns}  # a column at a time: no block consolidated
    rows = len(columns[frames[0].columns[0]])
    return pd.DataFrame({"store": pd.Categorical.from_codes(np.zeros(rows, np.int8), [store])} | columns, copy=False)  # a byte a row, not the path


def map(
    algorithm: str | Callable[..., Any],
    stores: Stores,
    sources: Sequence[int] | Mapping[str | os.PathLike, Sequence[int]] | None = None,
    *,
    params: Mapping[str, Any] | None = None,
    config: Config | None = None,
    client: Client | None = None,
    batch: int | None = None,
    retries: int = 2,
) -> dd.DataFrame:
    """Run ``algorithm`` over every store (and from every source of a store) as a Dask job.

    ``algorithm``: one of ``ALGORITHMS`` by name or function, or any picklable
    ``f(graph, [source,] *, config, **params)`` returning a result with ``to_pandas()``.
    ``sources``: the ids (as the input named them) for an algorithm that takes a source, the same
    for every store, or a mapping from each store to its own. ``params``: the algorithm's keyword
    arguments; ``config``: the execution options every task runs with. ``batch``: sources per task
    (default: as many per task as keep every worker thread, or every GPU, busy). ``retries``:
    reruns of a task that raised (a store read failing for a moment).

    Returns a Dask DataFrame, one partition per task, already running: its partitions are the
    tasks' futures, so ``distributed.progress(frame)`` and ``wait`` follow it, and
    ``frame.compute()`` or ``to_parquet`` collects it. Columns: ``store`` (the location read, a
    local path made absolute; categorical, a byte a row), ``source`` where the algorithm takes
    one, then the result's own (``vertex``, ...). It returns once the first task is done, whose
    columns give the frame's schema (taken where the task ran); if it failed, its error is raised
    here and the rest are cancelled.
    """
    function = _function(algorithm)
    sent = _own_name(function) or function  # graphtier's own functions travel by name
    config = config if config is not None else Config()
    per_source = "source" in inspect.signature(function).parameters
    if per_source and sources is None:
        raise ValueError(f"{_label(function)} runs from a source: give sources=")
    if not per_source and sources is not None:
        raise ValueError(f"{_label(function)} takes no source; sources= would run it again on each store for nothing")
    if batch is not None and batch < 1:
        raise ValueError(f"batch is the number of sources per task, at least 1, got {batch}")
    stores = [stores] if isinstance(stores, (str, os.PathLike)) else list(stores)
    client = client or get_client()
    resources = _resources(client, config)
    slots = sum(w["resources"].get("GPU", 0) for w in client.scheduler_info()["workers"].values()) if resources else sum(client.nthreads().values())
    tasks = []
    for store in stores:
        location = str(store) if is_url(store) else os.path.abspath(store)
        if not per_source:
            tasks.append((location, None))
            continue
        mine = [int(s) for s in (sources[store] if isinstance(sources, Mapping) else sources)]
        size = batch or max(1, -(-len(mine) // max(1, -(-slots // len(stores)))))
        tasks += [(location, mine[i : i + size]) for i in range(0, len(mine), size)]
    if not tasks:
        raise ValueError("nothing to run: no stores, or no sources")
    keys = [f"graphtier-{_label(function)}-{tokenize(sent, location, chunk, params, config)}" for location, chunk in tasks]
    futures = client.map(run_batch, [sent] * len(tasks), *zip(*tasks), key=keys, retries=retries, resources=resources, pure=True, params=params, config=config)
    try:
        meta = client.submit(_empty, futures[0], priority=1).result()  # next on its worker: left queued, an idle worker would steal it, with the frame
    except BaseException:
        client.cancel(futures)
        raise
    # the futures themselves as the partitions, as ``persist`` makes them, but without running a
    # task per partition first (which the scheduler placed on an idle worker: a partition moved)
    return from_graph({f.key: f for f in futures}, meta, (None,) * (len(futures) + 1), [f.key for f in futures], "graphtier")


def gpu_cluster(devices: int | Sequence[int] | None = None, *, local_directory: str | os.PathLike | None = None, memory_limit: int | str | None = None, **options: Any) -> SpecCluster:
    """A cluster of this machine's GPUs, one worker process per GPU that sees only its own
    (``CUDA_VISIBLE_DEVICES``), one thread and a ``GPU`` resource, so that ``map`` with a "cuda"
    config runs a task per GPU at a time: dask-cuda's ``LocalCUDACluster`` where it is installed,
    else the same made of distributed's own workers. ``devices``: a count (the first ones) or GPU
    ids, as this process numbers them; default every GPU. ``local_directory``: the workers'
    scratch; ``memory_limit``: each worker's host memory (default: an equal share of the
    machine's, where Dask's own default for a one-thread worker would be a share per core, and
    the results a worker holds would spill to disk); ``options`` go to the cluster."""
    named = gpu_names(devices)
    scratch = {} if local_directory is None else {"local_directory": str(local_directory)}
    limit = {"memory_limit": memory_limit if memory_limit is not None else MEMORY_LIMIT // len(named)}
    try:
        from dask_cuda import LocalCUDACluster
    except ImportError:
        worker = lambda device: {"cls": Nanny, "options": {"nthreads": 1, "resources": {"GPU": 1}, "env": {"CUDA_VISIBLE_DEVICES": device}, **scratch, **limit}}
        scheduler = {"cls": Scheduler, "options": {"dashboard_address": options.pop("dashboard_address", ":0")}}
        return SpecCluster(scheduler=scheduler, workers={f"gpu-{d}": worker(d) for d in named}, **options)
    return LocalCUDACluster(CUDA_VISIBLE_DEVICES=named, threads_per_worker=1, resources={"GPU": 1}, **scratch, **limit, **options)


def to_parquet(frame: dd.DataFrame, path: str | os.PathLike, **options: Any) -> str:
    """Write ``frame`` with Dask's own writer (``options`` go to ``DataFrame.to_parquet``) into a
    sibling of ``path`` named by this process (``temps``), renamed to ``path`` once every part is
    written: a failed or interrupted job leaves no partial dataset there, and what a killed one
    left is removed by the next write to the same place. ``path``, a local path (one the workers
    share) or an fsspec URL, must not exist. Returns ``path``."""
    return _staged(path, options.get("storage_options", {}), lambda stage: frame.to_parquet(stage, **options))


def to_zarr(frame: dd.DataFrame, path: str | os.PathLike, *, chunk_rows: int = 1 << 20, storage_options: dict | None = None) -> str:
    """Write ``frame`` as a Zarr group, an array per column (``chunk_rows`` rows a chunk, written by
    the workers), staged and renamed into place as ``to_parquet`` does. The ``store`` column is
    stored as codes (int32) into the group's ``stores`` attribute, the locations in order;
    ``columns`` lists the columns in order. Returns ``path``."""
    import dask.array as da
    import zarr

    if chunk_rows < 1:
        raise ValueError(f"chunk_rows must be at least 1, got {chunk_rows}")
    stores = None
    if "store" in frame.columns:
        stores = sorted(frame["store"].astype(str).unique().compute().tolist())  # a category a partition: cheap
        code = {s: i for i, s in enumerate(stores)}
        frame = frame.assign(store=frame["store"].map_partitions(lambda s: s.astype(str).map(code).astype(np.int32), meta=("store", np.int32)))

    def write(stage: str) -> None:
        columns = [frame[c].to_dask_array(lengths=True) for c in frame.columns]
        arrays = [c.rechunk(min(chunk_rows, max(1, c.shape[0]))) for c in columns]
        da.to_zarr(arrays[0], stage, component=frame.columns[0], storage_options=storage_options, zarr_format=3)
        for name, array in zip(frame.columns[1:], arrays[1:]):
            da.to_zarr(array, stage, component=name, storage_options=storage_options, zarr_format=3)
        group = zarr.open_group(stage, mode="r+", storage_options=storage_options)
        group.attrs.update({"columns": list(frame.columns), **({"stores": stores} if stores is not None else {})})

    return _staged(path, storage_options or {}, write)


def _staged(path: str | os.PathLike, storage_options: dict, write: Callable[[str], None]) -> str:
    """``write(stage)`` into a sibling of ``path`` named by this process, renamed to ``path`` when
    it returns; stages that killed writers left beside it are removed first."""
    remote = is_url(path)
    fs, target = fsspec.core.url_to_fs(str(path) if remote else os.path.abspath(path), **storage_options)
    target = target.rstrip("/")
    if fs.exists(target):
        raise FileExistsError(f"refusing to write {path}: something is there already")
    parent, name = posixpath.dirname(target), posixpath.basename(target)
    for entry, _ in temps.abandoned([posixpath.basename(p.rstrip("/")) for p in fs.ls(parent, detail=False)], name, hidden=not remote):
        fs.rm(posixpath.join(parent, entry), recursive=True)
    stage = posixpath.join(parent, temps.sibling_name(name, "tmp", hidden=not remote))
    try:
        write(fs.unstrip_protocol(stage) if remote else stage)
        if remote:
            fs.mv(stage, target, recursive=True)
        else:
            os.rename(stage, target)  # atomic; fails rather than nest the stage in a directory that appeared meanwhile
    finally:
        if fs.exists(stage):
            fs.rm(stage, recursive=True)
    return str(path)


def _function(algorithm: str | Callable[..., Any]) -> Callable[..., Any]:
    if callable(algorithm):
        return algorithm
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; graphtier's are {', '.join(ALGORITHMS)}, or pass a function")
    return getattr(gt, algorithm)


def _own_name(function: Callable[..., Any]) -> str | None:
    """The name of one of graphtier's algorithms, else None (importing that algorithm's module
    only: a worker imports what it runs)."""
    name = getattr(function, "__name__", None)
    return name if name in gt.ALGORITHMS and getattr(gt, name) is function else None


def _label(function: Callable[..., Any]) -> str:
    return _own_name(function) or getattr(function, "__name__", "task")


def _resources(client: Client, config: Config) -> dict[str, int] | None:
    """A ``GPU`` for each task of a "cuda" job, refused at once where no worker has one (the tasks
    would wait forever); a cluster with no workers yet (adaptive) is left to start them."""
    if config.device != "cuda":
        return None
    workers = client.scheduler_info()["workers"].values()
    if workers and not any(w["resources"].get("GPU") for w in workers):
        raise ValueError(
            "config.device is 'cuda' but no worker of this cluster has a GPU resource: start one worker per GPU with "
            "`dask worker SCHEDULER --nthreads 1 --resources GPU=1` (each with its own CUDA_VISIBLE_DEVICES), "
            "or dask_cuda.LocalCUDACluster(resources={'GPU': 1})"
        )
    return {"GPU": 1}


def _empty(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame's columns and types without its rows: the schema, made where the rows are. Each
    partition's ``store`` is a categorical of its own store, so the schema's categories are unknown."""
    return clear_known_categories(frame.iloc[:0])
