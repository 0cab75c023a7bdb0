"""The external sort against numpy, across many spilled runs, with and without weights."""

from __future__ import annotations

import numpy as np
import pytest

from graphtier.partition.radix import radix_sort
from graphtier.partition.sort import ExternalSorter


@pytest.mark.parametrize("bits", [1, 17, 40, 64])
def test_radix_sort_carries_weights_stably(bits):
    rng = np.random.default_rng(bits)
    keys = rng.integers(0, 2**bits - 1, 100_000, dtype=np.uint64, endpoint=True)
    weights = rng.random(len(keys)).astype(np.float32)
    order = np.argsort(keys, kind="stable")
    expected_keys, expected_weights = keys[order], weights[order]
    radix_sort(keys, weights)
    np.testing.assert_array_equal(keys, expected_keys)
    np.testing.assert_array_equal(weights, expected_weights)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("dedup", [False, True])
@pytest.mark.parametrize("budget", [1 << 10, 1 << 30])
def test_sorted_runs_merge_to_the_sorted_input(tmp_path, weighted, dedup, budget):
    rng = np.random.default_rng(1)
    keys = rng.integers(0, 5000, 60_000).astype(np.uint64)
    weights = rng.random(len(keys)).astype(np.float32)
    sorter = ExternalSorter(memory_budget=budget, spill_dir=tmp_path, weighted=weighted, dedup=dedup, block_edges=1000)
    for i in range(0, len(keys), 777):
        sorter.add(keys[i : i + 777], weights[i : i + 777] if weighted else None)
    assert (sorter.n_runs > 10) == (budget < (1 << 20))
    out = list(sorter)
    got = np.concatenate([k for k, _ in out])
    np.testing.assert_array_equal(got, np.unique(keys) if dedup else np.sort(keys))
    if weighted and dedup:  # a repeated edge keeps its least weight
        least = np.full(5000, np.inf, np.float32)
        np.minimum.at(least, keys.astype(np.int64), weights)
        np.testing.assert_array_equal(np.concatenate([w for _, w in out]), least[got.astype(np.int64)])
    assert sorter.duplicates_removed == (len(keys) - len(np.unique(keys)) if dedup else 0)
