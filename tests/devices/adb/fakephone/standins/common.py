"""What the stand-in tools share: the fake phone's root, the load marker, faults.

A stand-in runs as a process the fake phone's shell started, with ``FAKE_PHONE_ROOT`` in its
environment. While it runs it marks itself in ``<root>/.fake/load/<pid>`` (the phone heats
with what runs). Faults are files in ``<root>/.fake/faults/`` holding a model-name substring
(empty: every model):

* ``stall``: hang after loading the model, until killed (a stalled tool);
* ``crash``: fail after the warm-up, with the tool's error lines and exit code;
* ``truncate``: stop printing after the warm-up and exit 0 (output cut short).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

FAULTS = ("stall", "crash", "truncate")


def root() -> Path:
    return Path(os.environ.get("FAKE_PHONE_ROOT", "/"))


def host_path(phone_path: str) -> Path:
    """A phone path inside the fake phone's root (config files carry phone paths)."""
    base, text = root(), str(phone_path)
    if str(base) != "/" and text.startswith(str(base)):
        return Path(text)  # already rewritten by the phone's shell
    return base / text.lstrip("/")


def fault(kind: str, model: str) -> bool:
    marker = root() / ".fake/faults" / kind
    if not marker.is_file():
        return False
    return marker.read_text().strip() in model


@contextlib.contextmanager
def running() -> Iterator[None]:
    """Mark this process as load on the phone while the block runs (also when killed by
    TERM, as the phone's `timeout` does)."""
    marker = root() / ".fake/load" / str(os.getpid())
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text("")

    def on_term(signum: int, frame: object) -> None:
        marker.unlink(missing_ok=True)
        sys.exit(128 + signum)

    signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    finally:
        marker.unlink(missing_ok=True)


def stall_forever() -> None:
    while True:
        time.sleep(1)


def log(line: str) -> None:
    print(line, flush=True)
