"""The fault campaign of issue 14, longer than the suite runs it.

    python benchmarks/faults.py kills [--minutes M] [--seed S] [--scale K]
    python benchmarks/faults.py fuzz [--minutes M] [--seed S]
    python benchmarks/faults.py oom [--minutes M] [--seed S]

``kills``: ``convert``, ``recode`` and ``bfs`` killed (SIGKILL or SIGTERM) at random points of
their work; after each, the destination must be the old store, no store, or the new one complete
(it opens, every chunk decodes, BFS equals scipy's), and the next build must leave nothing behind
(``tests/test_kills.py``). ``fuzz``: mutated chunk bytes of every array and mutated ``zarr.json``
of every node, fed to every format's seed store (``tests/test_fuzz_store.py``); with Numba's bounds
checks on and its cache elsewhere (every function compiled afresh, checked), so a kernel reading
out of bounds raises instead of passing unseen. (atheris installs here, but its coverage
instrumentation of graphtier's modules breaks Numba's compilation of them, and uninstrumented it
is a blind mutator: hypothesis drives the campaign.) An input that raises anything but graphtier's errors is saved under
``tests/corpus/<format>/`` and stops the run. ``oom``: queries of every algorithm on one Graph
handle, in core and streamed, each with one allocation refused (the host's allocators made to
refuse at a random site and call, or an interrupt there) or a budget above the machine; each must
end in its result or a graphtier error, and the same query then run unrefused on the handle must
give the right result (``tests/test_memory.py``; on a GPU, ``pytest -m gpu`` runs
``tests/test_gpu_oom.py``, where the memory really runs out).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def kills(args) -> None:
    from tests.test_kills import campaign, summary

    with tempfile.TemporaryDirectory(prefix="graphtier-kills-") as work:
        t = time.perf_counter()
        records = campaign(Path(work), seconds=args.minutes * 60, seed=args.seed, scale=args.scale)
        print(summary(records))
        print(f"in {time.perf_counter() - t:.0f} s")


def save(fmt: str, target: str, data: bytes) -> Path:
    from tests.test_fuzz_store import CORPUS

    path = CORPUS / fmt / f"{target.replace('/', '%')}~crash-{os.getpid()}-{int(time.time())}"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def fuzz(args) -> None:
    import random

    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from graphtier.codecs import FORMATS
    from tests.test_fuzz_store import exercise, mutated, seed_input, targets

    rng = random.Random(args.seed)
    end = time.monotonic() + args.minutes * 60
    counts: dict[tuple[str, str], int] = {}
    with tempfile.TemporaryDirectory(prefix="graphtier-fuzz-") as work:
        while time.monotonic() < end:
            fmt = rng.choice(FORMATS)

            @settings(max_examples=200, deadline=None, database=None, suppress_health_check=list(HealthCheck))
            @given(st.data())
            def run(data):
                target = data.draw(st.sampled_from(targets(fmt)))
                payload = data.draw(mutated(seed_input(fmt, target), not target.endswith("zarr.json")))
                try:
                    outcome = exercise(fmt, target, payload, Path(work))
                except BaseException:
                    print(f"saved {save(fmt, target, payload)}", flush=True)
                    raise
                counts[fmt, outcome] = counts.get((fmt, outcome), 0) + 1

            run()
            print(", ".join(f"{f} {o} {n}" for (f, o), n in sorted(counts.items())), flush=True)
    print(f"{sum(counts.values())} inputs; every one accepted or rejected with a graphtier error")


def oom(args) -> None:
    from tests.test_memory import campaign, summary, weighted_store

    with tempfile.TemporaryDirectory(prefix="graphtier-oom-") as work:
        location, source, expected = weighted_store(Path(work))
        t = time.perf_counter()
        records = campaign(location, source, expected, seconds=args.minutes * 60, seed=args.seed)
        print(summary(records))
        print(f"in {time.perf_counter() - t:.0f} s")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("campaign", choices=["kills", "fuzz", "oom"])
    p.add_argument("--minutes", type=float, default=10.0, help="how long to run (default 10)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--scale", type=int, default=12, help="kills: Kronecker scale of the input")
    args = p.parse_args()
    if args.campaign == "fuzz":  # before numba is imported: every function compiled afresh, bounds checked
        os.environ.setdefault("NUMBA_BOUNDSCHECK", "1")
        os.environ.setdefault("NUMBA_CACHE_DIR", tempfile.mkdtemp(prefix="graphtier-numba-"))
    {"kills": kills, "fuzz": fuzz, "oom": oom}[args.campaign](args)


if __name__ == "__main__":
    main()
