"""Progress as plain lines, for output that is not a terminal (a log file, a pipe).

A terminal gets the session's progress bars; a redirected run gets one line per baseline
every :data:`EVERY_S` wall seconds and one when it finishes, so a log shows how far a long
run is (``python -m harness.paper > log``). The interface is the bars': ``start_task(name,
total_ns)`` gives a ``tick(now_ns)`` called with the device time reached.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

#: wall seconds between two lines of one baseline
EVERY_S = 5.0


@contextmanager
def plain_progress(out: TextIO | None = None, every_s: float = EVERY_S,
                   clock: Callable[[], float] = time.monotonic
                   ) -> Iterator[Callable[[str, int], Callable[[int], None]]]:
    """``start_task`` for plain lines on ``out`` (standard output by default)."""
    start = clock()

    def start_task(name: str, total_ns: int) -> Callable[[int], None]:
        last = [clock()]
        done = [False]

        def tick(now_ns: int) -> None:
            wall = clock()
            finished = now_ns >= total_ns
            if done[0] or (wall - last[0] < every_s and not finished):
                return
            last[0], done[0] = wall, finished
            print(f"progress {name}: {min(now_ns, total_ns) / 1e9:.1f} of {total_ns / 1e9:g} s "
                  f"({100 * min(now_ns, total_ns) / max(total_ns, 1):.0f}%), "
                  f"{wall - start:.0f} s wall", file=out or sys.stdout, flush=True)

        return tick

    yield start_task
