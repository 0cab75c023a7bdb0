"""Long fuzz of the ef codec's decoder: hostile chunks must raise CorruptChunkError or decode to
rows that agree with their header and re-encode to the same bytes.

    python benchmarks/fuzz_ef.py [N] [--seed S] [--procs P]

N inputs (default 1,000,000) in batches of 10,000, each batch from its own seed chunks and
mutations (truncations, bit flips, byte overwrites, header edits, random and structured bodies;
the generators are those of ``tests/test_codec_ef.py``). Any other exception, or an accepted
chunk that fails the checks, stops the run with the batch seed to replay it.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

BATCH = 10_000


def batch(seed: int) -> tuple[int, int, int]:
    from tests.test_codec_ef import run_fuzz

    accepted, rejected = run_fuzz(BATCH, seed=seed)
    return seed, accepted, rejected


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("n", nargs="?", type=int, default=1_000_000, help="number of inputs")
    p.add_argument("--seed", type=int, default=1000, help="seed of the first batch")
    p.add_argument("--procs", type=int, default=1, help="worker processes")
    args = p.parse_args()
    seeds = list(range(args.seed, args.seed + max(1, -(-args.n // BATCH))))
    t = time.perf_counter()
    accepted = rejected = 0
    with ProcessPoolExecutor(args.procs) as pool:
        for seed, a, r in pool.map(batch, seeds):
            accepted += a
            rejected += r
            done = accepted + rejected
            print(f"batch seed {seed}: {a} accepted, {r} rejected; {done:,} inputs, {done / (time.perf_counter() - t):,.0f}/s", flush=True)
    print(f"{accepted + rejected:,} inputs in {time.perf_counter() - t:.1f} s: {accepted:,} decoded to consistent, canonical chunks, {rejected:,} rejected")


if __name__ == "__main__":
    main()
