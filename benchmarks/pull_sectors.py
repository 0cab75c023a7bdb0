"""How many 32-byte sectors of host memory a BFS read in place touches, per format, with and
without the heads (every vertex's best-connected in-neighbour kept on the device, as the
scheduler keeps it): a count on the CPU, no GPU needed.

    python benchmarks/pull_sectors.py [--scale 22] [--sources 4]

The BFS is graphtier's (Beamer's direction rule with its constants). A push level reads its
frontier's whole lists; a pull level reads each unvisited vertex's list up to its first parent
(or whole, when it has none), or nothing when its head is a parent. csr lists are 4 bytes an id; ef lists are laid out as the codec
lays them (forward pointers, lower bits, upper bits; sizes from ``codecs.ef``), and reading the
first k ids of one touches the first k lower-bit fields and the upper bits up to the k-th one.
Sectors are counted once per level (lists side by side share them).
"""

from __future__ import annotations

import argparse

import numpy as np
import scipy.sparse as sp

import graphtier as gt
from graphtier.algorithms.bfs import ALPHA, BETA
from graphtier.codecs.ef import DEFAULT_QUANTUM

SECTOR = 32


def sectors(starts: np.ndarray, ends: np.ndarray) -> int:
    """Distinct sectors that byte ranges [starts, ends) touch."""
    a, b = starts // SECTOR, -(-ends // SECTOR)
    order = np.argsort(a, kind="stable")
    a, b = a[order], b[order]
    covered = np.concatenate([[-1], np.maximum.accumulate(b)[:-1]])
    return int(np.clip(b - np.maximum(a, covered), 0, None).sum())


def ef_layout(indptr: np.ndarray, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lower-bit start byte, upper-bit start byte, l) of every list, back to back."""
    n = np.diff(indptr)
    last = np.where(n > 0, ids[np.maximum(indptr[1:] - 1, 0)], 0)
    ratio = np.where(n > 0, last // np.maximum(n, 1), 0)
    l = np.where(last < n, 0, np.floor(np.log2(np.maximum(ratio, 1)))).astype(np.int64)
    forward = (n // DEFAULT_QUANTUM) * np.where(n < 128, 1, np.where(n < 32768, 2, 4))
    lower = (l * n + 7) // 8
    upper = np.where(n > 0, ((last >> l) + n + 7) // 8, 0)
    start = np.concatenate([[0], np.cumsum(forward + lower + upper)[:-1]])
    return start + forward, start + forward + lower, l


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--scale", type=int, default=22)
    p.add_argument("--sources", type=int, default=4)
    args = p.parse_args()
    n = 1 << args.scale
    e = np.asarray(gt.generators.kronecker(args.scale, seed=0)).astype(np.int64)
    e = e[e[:, 0] != e[:, 1]]
    a = sp.coo_matrix((np.ones(len(e), np.int8), (e[:, 0], e[:, 1])), shape=(n, n)).tocsr()
    a = (a + a.T).tocsr()
    a.sort_indices()
    indptr, ids = a.indptr.astype(np.int64), a.indices.astype(np.int64)
    degree = np.diff(indptr)
    row = np.repeat(np.arange(n), degree)
    position = np.arange(len(ids)) - indptr[row]
    listed = np.flatnonzero(degree)
    best = np.maximum.reduceat(degree[ids] * len(ids) - position, indptr[listed])  # degree, then the earliest
    head = np.zeros(n, np.int64)  # the head's position in its list
    head[listed] = -best % len(ids)
    lower, upper, l = ef_layout(indptr, ids)
    print(f"kron{args.scale}: {n:,} vertices, {len(ids):,} edges")
    for source in np.random.default_rng(1).choice(np.flatnonzero(degree), args.sources, replace=False):
        dist = np.full(n, -1)
        dist[source] = 0
        frontier, level, unexplored, previous, pulling = np.array([source]), 0, len(ids), 0, False
        total = dict.fromkeys(("csr", "ef", "csr heads", "ef heads"), 0)
        while len(frontier):
            edges = int(degree[frontier].sum())
            unexplored -= edges
            grew = len(frontier) > previous
            pulling = (len(frontier) >= previous or len(frontier) > n / BETA) if pulling else (grew and edges > unexplored / ALPHA)
            previous = len(frontier)
            if pulling:
                parent = np.zeros(n, bool)
                parent[frontier] = True
                todo = np.flatnonzero((dist < 0) & (degree > 0))
                first = np.full(n, np.iinfo(np.int64).max)
                hits = np.flatnonzero(parent[ids])
                np.minimum.at(first, row[hits], position[hits])
                found = first[todo] < degree[todo]
                k = np.where(found, first[todo] + 1, degree[todo])  # ids read
                for heads in (False, True):
                    keep = ~parent[ids[indptr[todo] + head[todo]]] if heads else np.ones(len(todo), bool)  # a head that is a parent: nothing read
                    v, kv = todo[keep], k[keep]
                    upper_bits = (ids[indptr[v] + kv - 1] >> l[v]) + kv
                    counts = {
                        "csr": sectors(4 * indptr[v], 4 * (indptr[v] + kv)),
                        "ef": sectors(np.concatenate([lower[v], upper[v]]), np.concatenate([lower[v] + (kv * l[v] + 7) // 8, upper[v] + (upper_bits + 7) // 8])),
                    }
                    for f, c in counts.items():
                        total[f + (" heads" if heads else "")] += c
                print(
                    f"  source {source} level {level} pull, frontier {len(frontier):,}: {len(todo):,} unvisited, a parent for {found.mean():.0%}, the first in-neighbour for {(first[todo] == 0).mean():.0%}, the head for {parent[ids[indptr[todo] + head[todo]]].mean():.0%}, {k.mean():.2f} ids read each"
                )
                nxt = todo[found]
            else:
                counts = {
                    "csr": sectors(4 * indptr[frontier], 4 * indptr[frontier + 1]),
                    "ef": sectors(lower[frontier], upper[frontier] + (((ids[np.maximum(indptr[frontier + 1] - 1, 0)] >> l[frontier]) + degree[frontier] + 7) // 8)),
                }
                for f, c in counts.items():
                    total[f] += c
                    total[f + " heads"] += c
                nxt = np.unique(a[frontier].indices)
                nxt = nxt[dist[nxt] < 0]
            dist[nxt] = level + 1
            frontier, level = nxt, level + 1
        print(f"  source {source}: sectors touched " + ", ".join(f"{f} {c:,}" for f, c in total.items()))


if __name__ == "__main__":
    main()
