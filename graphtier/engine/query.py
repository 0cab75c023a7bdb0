"""What every query through the public API gets from the engine, whatever the algorithm.

Before any work, the budgets given are checked against the machine (``check_budgets``: one above
what the device or the host has in all is a ``BudgetError``). An allocation that fails anywhere
in the query (the vertex state, a chunk slot, pinned memory, a kernel's scratch, on the GPU or the
host) ends it as an ``OutOfMemoryError`` that names what was being allocated, its size, the query
and the budgets, rather than as CuPy's or NumPy's error. After a failure of any kind the Graph
handle is left as the next query needs it (``Graph.recover``).
"""

from __future__ import annotations

import functools
import traceback
from collections.abc import Callable
from dataclasses import fields

from ..errors import OutOfMemoryError
from ..runtime import Config
from ..tiering.budget import allocation_failure, check_budgets
from .graph import Graph

OPTIONS = frozenset(f.name for f in fields(Config))  # the execution options, as every algorithm takes them


def query(algorithm: Callable) -> Callable:
    """``algorithm`` (``algorithm(graph, ..., config=, **options)``) with the checks above."""

    @functools.wraps(algorithm)
    def run(graph: Graph, *args, config: Config | None = None, **kwargs):
        options = {k: kwargs.pop(k) for k in OPTIONS & kwargs.keys()}
        config = Config.of(config, **options)
        backend = config.backend()
        check_budgets(config.device_memory, config.host_memory, backend)
        budgets = config.budgets(backend)
        try:
            return algorithm(graph, *args, config=config, **kwargs)
        except BaseException as e:
            failed = allocation_failure(e)
            if failed:  # the failed query's frames hold its arrays: let them go before the retry a caller may make
                traceback.clear_frames(e.__traceback__)
            if isinstance(graph, Graph):
                graph.recover(allocation=failed)
            if not failed:
                raise
            where = getattr(graph, "location", "a graph")
            raise _named(e, f"{algorithm.__name__} on {where}", config, budgets) from e

    return run


def _named(e: BaseException, query: str, config: Config, budgets: tuple[int, int]) -> OutOfMemoryError:
    """``e`` as the ``OutOfMemoryError`` of ``query``: what it was allocating when the allocator
    refused (as the allocation site named it, else the allocator's own words) and the budgets."""
    given = (config.device_memory, config.host_memory)
    text = ", ".join(f"{name}={g} ({b:,} bytes)" if g is not None else f"{name} {b:,} bytes by default" for name, g, b in zip(("device_memory", "host_memory"), given, budgets))
    if isinstance(e, OutOfMemoryError):
        return OutOfMemoryError(e.what, e.nbytes, e.where, query=query, budgets=text)
    where = "GPU" if type(e).__module__.startswith("cupy") else "host"
    return OutOfMemoryError(f"the query's working memory ({type(e).__name__}: {e})", None, where, query=query, budgets=text)
