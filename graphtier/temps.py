"""Names of temporary siblings that carry their owning process, so a later build can sweep what a
killed one left behind.

A name holds a tag of the host, the process id and the process's start time (a reused pid has
another start time). A leftover counts as abandoned only when its owner ran on this host and is
gone; a live process's files, another host's, and anything whose name is not one of ours are
never touched.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import socket
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

SORT_PREFIX = ".graphtier-sort-"
_TAG = r"(?P<host>[0-9a-f]{8})-(?P<pid>\d+)-(?P<start>\d+)"
_SORT = re.compile(re.escape(SORT_PREFIX) + _TAG + r"-[0-9a-z_]+")


def _host() -> str:
    return hashlib.sha1(socket.gethostname().encode()).hexdigest()[:8]


def _start_time(pid: int) -> int | None:
    """The process's start time in hundredths of a second, or None when no such process runs."""
    import psutil  # on use: every command imports this module, few name temporaries

    try:
        p = psutil.Process(pid)
        if p.status() == psutil.STATUS_ZOMBIE:
            return None
        return round(p.create_time() * 100)
    except psutil.NoSuchProcess:
        return None


def owner_tag(pid: int | None = None) -> str:
    """The tag of this process (or the running process ``pid``): host, pid and start time."""
    pid = os.getpid() if pid is None else pid
    return f"{_host()}-{pid}-{_start_time(pid)}"


def sibling_name(name: str, kind: str, *, hidden: bool = True, pid: int | None = None) -> str:
    """A fresh temporary name beside ``name``: ``.NAME.tmp-TAG-RANDOM`` (``kind`` "tmp", a store being
    built) or ``.NAME.old-TAG-RANDOM`` ("old", a store moved aside while its successor moves in),
    owned by this process (or ``pid``). Remote stores (``hidden`` false) drop the leading dot."""
    return f"{'.' if hidden else ''}{name}.{kind}-{owner_tag(pid)}-{uuid.uuid4().hex[:8]}"


def sort_prefix() -> str:
    """The prefix of this process's directory of sorted runs (``tempfile`` adds a random end)."""
    return f"{SORT_PREFIX}{owner_tag()}-"


def owner_gone(match: re.Match) -> bool:
    """Whether the owner named by a matched tag ran on this host and no longer runs."""
    if match["host"] != _host():
        return False
    import psutil

    try:
        start = _start_time(int(match["pid"]))
    except psutil.AccessDenied:
        return False  # it runs, as someone else
    return start is None or str(start) != match["start"]


def abandoned(entries: list[str], name: str, *, hidden: bool = True) -> Iterator[tuple[str, str]]:
    """The entries of a directory listing that are ours and whose owner is gone, as ``(entry, kind)``:
    kind "tmp" or "old" for siblings of ``name`` (a packed zip's ``.zip`` end included), "sort" for
    sorted runs (any destination's: they are named by process, not by store)."""
    sibling = re.compile(("\\." if hidden else "") + re.escape(name) + r"\.(?P<kind>tmp|old)-" + _TAG + r"-[0-9a-f]{8}(\.zip)?")
    for entry in entries:
        m = sibling.fullmatch(entry)
        kind = m["kind"] if m else "sort"
        m = m or (_SORT.fullmatch(entry) if hidden else None)
        if m and owner_gone(m):
            yield entry, kind


def workspace(prefix: str, parent: str | os.PathLike | None = None) -> Path:
    """A fresh directory in ``parent`` (the system's temporary directory by default), named
    ``PREFIX-TAG-RANDOM`` for this process: ``PREFIX-`` directories that a process gone from this
    host left there (killed before it could remove its own) are removed first; a live process's,
    another host's and any other name are never touched. The caller removes its own."""
    parent = Path(tempfile.gettempdir() if parent is None else parent)
    pattern = re.compile(re.escape(prefix) + "-" + _TAG + r"-[0-9a-z_]+")
    for entry in os.listdir(parent):
        m = pattern.fullmatch(entry)
        if m and owner_gone(m) and (parent / entry).is_dir() and not (parent / entry).is_symlink():
            shutil.rmtree(parent / entry, ignore_errors=True)
    return Path(tempfile.mkdtemp(prefix=f"{prefix}-{owner_tag()}-", dir=parent))


@contextlib.contextmanager
def replacing(path: str | os.PathLike) -> Iterator[BinaryIO]:
    """A file whose bytes take ``path``'s place only once complete (a sibling, then a rename), so a
    killed writer leaves the old file or none; what killed writers of ``path`` left is swept first."""
    path = Path(path)
    for entry, _ in abandoned(os.listdir(path.parent or "."), path.name):
        with contextlib.suppress(OSError):
            (path.parent / entry).unlink()
    tmp = path.with_name(sibling_name(path.name, "tmp"))
    try:
        with open(tmp, "xb") as f:
            yield f
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
