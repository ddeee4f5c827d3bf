"""One phone, one job: an exclusive ``flock`` on ``<lock_dir>/<serial>.lock``; one night, one
farm: an exclusive ``flock`` on ``<night>/night.lock`` (:func:`night_held`), so that a second
farm started on a night that one is running is refused in one line naming the first one's
pid, before it writes anything (its cells would find their folders held, and the two would
record each other's cells as failed).

``flock`` locks are held by the open file and released by the kernel when the process
ends, so a killed job never leaves a phone locked; they work across the processes of one host
(joblib, submitit_local); across farm hosts the lock folder must be on a file system with
working ``flock`` (NFSv4, or one host per phone).
"""

from __future__ import annotations

import fcntl
import os
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from harness.seams.errors import UserError

POLL_S = 0.1


class Locked(UserError):
    """Another process holds the lock: the cell waiting for it is busy, not failed."""


def lock_path(lock_dir: str | Path, serial: str) -> Path:
    return Path(lock_dir) / (re.sub(r"[^A-Za-z0-9_.-]+", "_", serial) + ".lock")


@contextmanager
def holding(lock_dir: str | Path, serial: str, timeout_s: float) -> Iterator[float]:
    """Hold ``serial``'s lock for the block; yields how long it waited, s."""
    path = lock_path(lock_dir, serial)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    start = time.monotonic()
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() - start > timeout_s:
                    raise Locked(f"phone {serial} stayed locked by another job for "
                                    f"{timeout_s:g} s ({path})") from None
                time.sleep(POLL_S)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield time.monotonic() - start
    finally:
        os.close(fd)  # closing releases the lock


#: the night's lock file (in the night's folder)
NIGHT_LOCK = "night.lock"


@contextmanager
def night_held(night: Path) -> Iterator[None]:
    """Hold ``night``'s lock for the block, or refuse at once: another farm runs it."""
    night.mkdir(parents=True, exist_ok=True)
    path = night / NIGHT_LOCK
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = os.read(fd, 32).split(b"\n", 1)[0].decode(errors="replace").strip()
            raise Locked(f"night {night.name} is being run by another farm (pid {pid or '?'}, "
                            f"{path}); run it again once that one ended: a night run again "
                            "runs only the cells not finished") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield
    finally:
        os.close(fd)  # closing releases the lock
