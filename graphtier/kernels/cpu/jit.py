"""``kernel``: ``numba.njit`` for the operators compiled per functor (closures over other ``@njit``
functions), cached on disk as Numba caches a plain function.

Numba keys a cached closure by its cells pickled, and a dispatcher pickles with an id drawn afresh
in each process, so every process compiled every operator again (seconds per algorithm, on every
CLI call and in every test worker). Here a cell is keyed by what it is: a compiled function by its
module, name, own cells and the sources it may have been compiled from; a constant by its value.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
from numba import njit
from numba.core.caching import FunctionCache
from numba.core.dispatcher import Dispatcher

PACKAGE = Path(__file__).resolve().parents[2]


@functools.cache
def _sources(path: str) -> str:
    """A digest of what code compiled from ``path`` may depend on: every module of graphtier for
    one of its own (functors call helpers across modules), else that file alone."""
    file = Path(path).resolve()
    return _package() if file.is_relative_to(PACKAGE) else _digest([file])


@functools.cache
def _package() -> str:
    return _digest(sorted(PACKAGE.rglob("*.py")))


def _digest(files: list[Path]) -> str:
    digest = hashlib.sha256()
    for f in files:
        digest.update(f.as_posix().encode() + b"\0" + (f.read_bytes() if f.exists() else b"") + b"\0")
    return digest.hexdigest()


def _key(value: object) -> object:
    """``value`` as a closure cell of a kernel, described alike in every process."""
    if isinstance(value, Dispatcher):
        f = value.py_func
        return ("jit", f.__module__, f.__qualname__, _sources(f.__code__.co_filename), _cells(f))
    if isinstance(value, np.generic | np.dtype):  # before float: a float64 is one
        return (type(value).__name__, str(value))
    if value is None or isinstance(value, bool | int | float | str | bytes):
        return value
    if isinstance(value, tuple):
        return tuple(_key(v) for v in value)
    return ("unkeyed", id(value))  # found in no later process: compiled afresh there, as before


def _cells(f: Callable) -> tuple:
    return tuple(_key(c.cell_contents) for c in f.__closure__ or ())


class _ClosureCache(FunctionCache):
    def _index_key(self, sig, codegen):
        code = hashlib.sha256(self._py_func.__code__.co_code).hexdigest()
        cells = hashlib.sha256(repr(_cells(self._py_func)).encode()).hexdigest()
        return (sig, codegen.magic_tuple(), (code, cells))


def kernel(**options) -> Callable[[Callable], Dispatcher]:
    """``njit(**options)`` with the compiled code cached on disk under a key every process
    computes alike (``_ClosureCache``)."""

    def compile(fn: Callable) -> Dispatcher:
        dispatcher = njit(cache=True, **options)(fn)
        dispatcher._cache = _ClosureCache(fn)
        return dispatcher

    return compile
