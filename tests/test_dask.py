"""``graphtier.dask`` on a LocalCluster of two worker processes: BFS from 8 sources and PageRank on
3 stores give exactly the single-process results, Parquet appears only whole, and a worker killed
mid-job still leaves every result in the frame exactly once (issue 17)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import psutil
import pytest

import graphtier as gt
from tests.test_kills import dead_owner_name

distributed = pytest.importorskip("distributed")

CPU = gt.Config(device="cpu")
SOURCES = list(range(8))
SCALE = 9


@pytest.fixture(scope="module")
def stores(tmp_path_factory) -> list[str]:
    """Three small stores: two Kronecker graphs (one given as a file:// URL) and a uniform random one."""
    d = tmp_path_factory.mktemp("stores")
    graphs = [gt.generators.kronecker(SCALE, edge_factor=8, seed=1), gt.generators.kronecker(SCALE, edge_factor=8, seed=2), gt.generators.urand(SCALE, edge_factor=8, seed=3)]
    paths = [str(gt.build(edges, d / f"g{i}.gt", symmetrize=True, drop_self_loops=True, progress=False).location) for i, edges in enumerate(graphs)]
    return [paths[0], Path(paths[1]).as_uri(), paths[2]]


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    """Two worker processes of one thread each (one Numba thread: two cores); closed after the
    module, its worker processes gone and their directories removed."""
    scratch = tmp_path_factory.mktemp("dask")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0", local_directory=scratch, env={"NUMBA_NUM_THREADS": "1"})
    with cluster, distributed.Client(cluster) as client:
        yield client
        pids = list(client.run(os.getpid).values())
    assert not [p for p in pids if psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE]
    assert not list(scratch.rglob("worker-*"))


def assert_single_process(frame: pd.DataFrame, stores: list[str], algorithm, sources=None, **params) -> None:
    """``frame`` holds, for each store (and source), exactly the rows of that result's ``to_pandas()``."""
    keys = ["store"] + (["source"] if sources is not None else [])
    assert frame.groupby(keys).ngroups == len(stores) * len(sources or [None])
    for store in stores:
        location = store if "://" in store else os.path.abspath(store)
        g = gt.open(store)
        for source in sources or [None]:
            want = (algorithm(g, config=CPU, **params) if source is None else algorithm(g, source, config=CPU, **params)).to_pandas()
            rows = frame[(frame["store"] == location) & (frame["source"] == source if source is not None else True)]
            pd.testing.assert_frame_equal(rows.drop(columns=keys).reset_index(drop=True), want, check_exact=True)


def test_bfs_over_stores_and_sources(client, stores):
    frame = gt.dask.map("bfs", stores, SOURCES, client=client, config=CPU)
    assert frame.npartitions == 3  # two worker threads, three stores: all of a store's sources in one task
    assert len(distributed.futures_of(frame)) == 3  # futures, for distributed.progress
    got = frame.compute()
    assert list(got.columns) == ["store", "source", "vertex", "distance", "parent"]
    assert len(got) == 3 * len(SOURCES) * 2**SCALE
    assert_single_process(got, stores, gt.bfs, SOURCES)


def test_pagerank_one_task_per_store_to_parquet(client, stores, tmp_path):
    frame = gt.dask.map(gt.pagerank, stores, params={"alpha": 0.9}, client=client, config=CPU)
    assert frame.npartitions == 3
    got = frame.compute()
    assert list(got.columns) == ["store", "vertex", "rank"]
    assert_single_process(got, stores, gt.pagerank, alpha=0.9)
    out = tmp_path / "ranks.parquet"
    stale = tmp_path / dead_owner_name(out.name, "tmp")  # a stage that a killed writer left
    stale.mkdir()
    (stale / "part.0.parquet").write_bytes(b"half")
    assert gt.dask.to_parquet(frame, out) == str(out)
    assert os.listdir(tmp_path) == ["ranks.parquet"]  # the stage was renamed, the stale one swept
    pd.testing.assert_frame_equal(pd.read_parquet(out).reset_index(drop=True), got.reset_index(drop=True), check_dtype=False)
    with pytest.raises(FileExistsError, match="ranks.parquet"):
        gt.dask.to_parquet(frame, out)


def test_bfs_to_zarr(client, stores, tmp_path):
    """A column per array, ``store`` as codes into the group's ``stores``; staged like Parquet."""
    import zarr

    frame = gt.dask.map("bfs", stores, SOURCES[:2], client=client, config=CPU)
    got = frame.compute().reset_index(drop=True)
    out = tmp_path / "bfs.zarr"
    assert gt.dask.to_zarr(frame, out, chunk_rows=1000) == str(out)
    assert os.listdir(tmp_path) == ["bfs.zarr"]
    group = zarr.open_group(out, mode="r")
    assert group.attrs["columns"] == list(got.columns) and group["vertex"].chunks == (1000,)
    locations = np.array(group.attrs["stores"])[group["store"][:]]
    np.testing.assert_array_equal(locations, got["store"].astype(str).to_numpy())
    for column in got.columns[1:]:
        np.testing.assert_array_equal(group[column][:], got[column].to_numpy())
    with pytest.raises(FileExistsError):
        gt.dask.to_zarr(frame, out)


def test_refused_before_any_task(client, stores):
    with pytest.raises(ValueError, match="unknown algorithm 'bsf'"):
        gt.dask.map("bsf", stores, SOURCES, client=client)
    with pytest.raises(ValueError, match="bfs runs from a source"):
        gt.dask.map("bfs", stores, client=client)
    with pytest.raises(ValueError, match="at least 1"):
        gt.dask.map("bfs", stores, SOURCES, batch=0, client=client)
    with pytest.raises(ValueError, match="pagerank takes no source"):
        gt.dask.map("pagerank", stores, SOURCES, client=client)
    with pytest.raises(ValueError, match="--resources GPU=1"):
        gt.dask.map("pagerank", stores, client=client, config=gt.Config(device="cuda"))


def pagerank_given_a_gpu(graph, *, config: gt.Config):
    """PageRank on the CPU, once the running task is seen to hold the GPU its "cuda" config asked for."""
    assert config.device == "cuda"
    assert [ts.resource_restrictions for ts in distributed.get_worker().state.executing] == [{"GPU": 1}]
    return gt.pagerank(graph, config=gt.Config.of(config, device="cpu"))


def test_cuda_tasks_ask_for_a_gpu(stores, tmp_path):
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, resources={"GPU": 1}, dashboard_address=":0", local_directory=tmp_path)
    with cluster, distributed.Client(cluster, set_as_default=False) as client:
        frame = gt.dask.map(pagerank_given_a_gpu, stores, client=client, config=gt.Config(device="cuda"))
        assert_single_process(client.compute(frame).result(), stores, gt.pagerank)


def bfs_killing_its_worker(graph, source: int, *, marker: str, victim: int, config: gt.Config):
    """BFS; the first task to reach source ``victim`` kills its own worker process (once: ``marker``)."""
    if source == victim:
        try:
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            pass
        else:
            os.kill(os.getpid(), signal.SIGKILL)
    return gt.bfs(graph, source, config=config)


def test_worker_killed_mid_job(client, stores, tmp_path):
    before = set(client.run(os.getpid).values())
    marker = tmp_path / "killed"
    frame = gt.dask.map(bfs_killing_its_worker, stores, SOURCES, params={"marker": str(marker), "victim": 5}, client=client, config=CPU, batch=2)
    assert frame.npartitions == 12
    got = frame.compute()
    assert marker.exists()
    client.wait_for_workers(2)
    assert set(client.run(os.getpid).values()) != before  # a worker process died and its nanny started another
    assert not got.duplicated(["store", "source", "vertex"]).any()
    assert len(got) == 3 * len(SOURCES) * 2**SCALE
    assert_single_process(got, stores, gt.bfs, SOURCES)


def test_import_graphtier_without_dask():
    code = "import sys, graphtier; assert not [m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed', 'pandas')]; graphtier.dask.map"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_gpu_cluster_gives_each_worker_its_own_gpu(monkeypatch, tmp_path):
    """One worker per GPU, each seeing only its own and holding a GPU resource (GPUs named by a
    parent's CUDA_VISIBLE_DEVICES, so no GPU is needed to check it); ids it does not see are refused."""
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "3,5,6")
    with pytest.raises(ValueError, match="sees 3 GPU"):
        gt.dask.gpu_cluster([0, 3])
    with gt.dask.gpu_cluster([2, 0], local_directory=tmp_path) as cluster, distributed.Client(cluster) as client:
        seen = client.run(lambda: os.environ["CUDA_VISIBLE_DEVICES"])
        assert sorted(seen.values()) == ["3", "6"]
        workers = client.scheduler_info()["workers"].values()
        assert all(w["resources"] == {"GPU": 1} and w["nthreads"] == 1 for w in workers)
        assert all(w["memory_limit"] == distributed.system.MEMORY_LIMIT // 2 for w in workers)  # a share per GPU, not per core
