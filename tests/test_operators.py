"""The CPU operators (kernels/cpu/operators.py): the filter, run in parallel for a functor that
writes only its own vertex's state, queues what the one-at-a-time filter queues, in the set's order,
from a queue and from a range, across many blocks; ``any_bits`` ORs a set's words; a pull's demand
counts the wanted vertices of its set alone."""

from __future__ import annotations

import numpy as np
import pytest

from graphtier.kernels.cpu import operators as ops
from graphtier.runtime.functors import cpu


@cpu
def odd_marked(v, s):
    """Keeps odd vertices and marks each vertex it saw (a write of its own vertex's state)."""
    s[0][v] += 1
    return v % 2 == 1


@pytest.mark.parametrize("every", [False, True])
def test_parallel_filter_equals_one_at_a_time(every):
    n = 3 * ops.FILTER_BLOCK + 123
    members = np.arange(5, n + 5) if every else np.random.default_rng(3).permutation(n + 5)[:n]
    frontier = np.array([5], np.int64) if every else members.astype(np.uint32)
    out = {}
    for parallel in (False, True):
        seen, queue = np.zeros(n + 5, np.int64), np.zeros(n, np.uint32)
        count = ops.filter_kernel(odd_marked, parallel)(frontier, n, every, (seen,), queue)
        out[parallel] = queue[:count]
        assert (seen[members] == 1).all() and seen.sum() == n  # the predicate once per vertex
    np.testing.assert_array_equal(out[True], out[False])
    np.testing.assert_array_equal(out[False], members[members % 2 == 1])


@pytest.mark.parametrize("every", [False, True])
def test_any_bits_is_the_or_over_the_set(every):
    """``any_bits`` ORs the words of the set's vertices alone, from a queue or a range."""
    rng = np.random.default_rng(5)
    words = rng.integers(0, 2**63, 1000, dtype=np.uint64) & np.uint64(0xF0F0F0F0F0F0F0F)
    words[rng.choice(1000, 10, replace=False)] |= np.uint64(1) << np.uint64(63)  # the top bit on a few words, in the set or not
    members = np.arange(200, 300) if every else rng.choice(1000, 50, replace=False)
    frontier = np.array([200], np.int64) if every else members.astype(np.uint32)
    assert ops.any_bits(frontier, len(members), every, words) == np.bitwise_or.reduce(words[members])
    assert ops.any_bits(frontier, 0, every, words) == 0


@cpu
def wanted_odd(u, s):
    return u % 2 == 1


@pytest.mark.parametrize("every", [False, True])
def test_pull_demand_counts_its_set_alone(every):
    """The first ``cap`` edges of each wanted vertex of the set (a queue or a range), per chunk:
    not those of wanted vertices outside it (colouring's and MIS's pulls from a queue)."""
    indptr = np.arange(0, 41 * 10, 10, dtype=np.int64)  # 40 vertices of 10 edges, chunks of 16 edges
    members = np.arange(8, 20) if every else np.array([3, 4, 7, 30])
    frontier = np.array([8], np.int64) if every else members.astype(np.uint32)
    demand = np.zeros(26, np.int64)
    ops.wanted_demand_kernel(wanted_odd)(frontier, len(members), every, indptr, 16, 4, (), demand)
    expected = np.zeros(26, np.int64)
    for u in members[members % 2 == 1]:
        ops._list_demand(indptr[u], indptr[u + 1], 4, 16, expected)
    np.testing.assert_array_equal(demand, expected)
