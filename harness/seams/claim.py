"""A run folder's claim: exactly one run writes into a folder, and readers can tell whether
it still does.

A run claims its folder by creating ``run.lock`` in it exclusively (``O_CREAT | O_EXCL``, atomic
on every local file system) and holding an ``flock`` on it while it records. Of two runs
started at once into one folder exactly one creates the file; the other is refused with one
line before it writes anything. The file stays when the run ends: a folder that holds one was
claimed, and a run never writes into another's folder.

A reader asks :func:`holder` whether a run still records into a folder: it tries a shared lock
without waiting, on a read-only descriptor, so reading writes nothing. A held lock is a run
going on (its pid is the file's first line); a lock file nobody holds is a run that ended,
closed or killed.

The claims this process holds are kept by folder in :data:`_HELD`: a process-wide table by
nature (an ``flock`` belongs to an open file description of this process), so a run's
command line, its Hydra folder resolver and its recorder share one claim.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from harness.seams.errors import UserError

#: the claim file in a run folder
LOCK = "run.lock"

#: resolved folder -> the descriptor holding its lock (this process's claims)
_HELD: dict[Path, int] = {}


def claim(folder: Path) -> None:
    """Claim ``folder`` (made if missing) for this process; a folder this process holds
    already is left as it is. Raises :class:`UserError` when another run claimed it."""
    key = folder.resolve()
    if key in _HELD:
        return
    folder.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(folder / LOCK, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o644)
    except FileExistsError:
        raise UserError(f"results folder {str(folder)!r} already holds a run ({LOCK}); a run "
                        "never writes into another: choose a new folder (hydra.run.dir=...)"
                        ) from None
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.write(fd, f"{os.getpid()}\n".encode())
    _HELD[key] = fd


def holds(folder: Path) -> bool:
    """Whether this process holds ``folder``'s claim."""
    return folder.resolve() in _HELD


def held() -> list[Path]:
    """The folders this process holds."""
    return list(_HELD)


def release(folder: Path, forget: bool = False) -> None:
    """End this process's hold on ``folder`` (the run is over). ``forget`` also removes the
    claim file: for a folder nothing was recorded into (a dry run)."""
    fd = _HELD.pop(folder.resolve(), None)
    if fd is None:
        return
    if forget:
        (folder / LOCK).unlink(missing_ok=True)
    os.close(fd)


def holder(folder: Path) -> int | None:
    """The pid of the run that still records into ``folder``; None when none does. Reads
    only: the lock is tried shared and without waiting on a read-only descriptor."""
    try:
        fd = os.open(folder / LOCK, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            first = os.read(fd, 32).split(b"\n", 1)[0]
            return int(first) if first.strip().isdigit() else 0
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)
