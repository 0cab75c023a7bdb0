"""Exceptions shared by every layer, so callers can catch graphtier's failures by kind."""

from __future__ import annotations


class GraphtierError(Exception):
    """Base class of every error graphtier raises on purpose."""


class InputError(GraphtierError, ValueError):
    """Bad input data; the message names the file and line (or the array position)."""

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None):
        where = ""
        if file is not None:
            where = f"{file}:{line}: " if line is not None else f"{file}: "
        super().__init__(where + message)
        self.file = file
        self.line = line


class CorruptChunkError(GraphtierError, ValueError):
    """Encoded chunk bytes that fail validation; names the store, the array and the chunk (``detail``
    is the finding without them)."""

    def __init__(self, message: str, *, array: str | None = None, chunk: int | None = None, store: str | None = None):
        where = f"{store}: " if store is not None else ""
        if array is not None:
            where += f"{array} chunk {chunk}: " if chunk is not None else f"{array}: "
        super().__init__(where + message)
        self.array = array
        self.chunk = chunk
        self.store = store
        self.detail = message


class StoreError(GraphtierError):
    """A store that is missing, of the wrong schema, or inconsistent."""


class StoreReplacedError(StoreError):
    """A store rebuilt in place (``overwrite``) after this handle opened it: what it read may mix
    the two builds, so the read stops; opening the store again reads the new one."""

    def __init__(self, location: str):
        super().__init__(f"{location} was replaced while it was being read; open it again")
        self.location = location


class StoreExistsError(StoreError, FileExistsError):
    """A graph store already at a build's destination: only ``overwrite`` replaces it. ``path``
    lets the command line word its own advice (``--overwrite``)."""

    def __init__(self, path: str):
        super().__init__(f"{path} already exists (pass overwrite=True to replace it)")
        self.path = path


class EmptyGraphError(InputError):
    """An input that leaves no edges, refused unless an empty graph was asked for (``allow_empty``)
    so that a wrong file or filter is not taken for a graph. ``finding`` lets the command line word
    its own advice (``--allow-empty``)."""

    def __init__(self, finding: str, *, file: str | None = None):
        super().__init__(f"{finding} (pass allow_empty=True to build an empty graph)", file=file)
        self.finding = finding


class DestinationError(StoreError):
    """A destination that no build may write, whatever ``overwrite`` says: something other than a
    graph store (a plain directory, a file, another Zarr group), or the build's own input."""


class DeviceError(GraphtierError, RuntimeError):
    """The GPU backend was asked for but cannot run here (no cupy, no device), or the graph does
    not fit what it supports."""


class PartDiedError(GraphtierError, RuntimeError):
    """A process of a run split over devices (``devices=``) ended without a result or an error
    (killed, or the system's out-of-memory killer); the others were stopped."""


class BudgetError(GraphtierError, ValueError):
    """A memory budget larger than the device or the host has in all: refused before any work,
    since no run could honour it (``tiering.budget.check_budgets``)."""


class OutOfMemoryError(GraphtierError, MemoryError):
    """An allocation the GPU or the host refused during a query: ``what`` was being allocated,
    ``nbytes`` (None when the allocator did not say) and ``where`` ("GPU", "pinned host" or
    "host"), so that the user sees which memory ran out; a query names itself, its store and its
    budgets (``query``, ``budgets``)."""

    def __init__(self, what: str, nbytes: int | None, where: str, *, query: str | None = None, budgets: str | None = None):
        size = f"{nbytes:,} bytes of {where} memory" if nbytes is not None else f"{where} memory"
        message = f"could not allocate {size} for {what}"
        if query is not None:
            message = f"out of memory in {query}: {message}"
        if budgets is not None:
            message += f" ({budgets})"
        super().__init__(message)
        self.what, self.nbytes, self.where = what, nbytes, where
