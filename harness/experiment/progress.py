"""How far a run is: bars on a terminal, plain lines elsewhere (a log file, a pipe).

A session reports two things through one :class:`Progress`:

* **tasks**, one per baseline: ``task(name, total_ns)`` gives a ``tick(now_ns)`` called with
  the device time reached;
* **phases** (:mod:`harness.seams.progress`), the steps before a clock starts:
  ``phase(name, steps)`` gives an ``advance(done)``: writing models, cutting slices,
  profiling.

:func:`terminal_progress` shows both as rich bars (a phase's bar, ``7/22``, goes when the
phase ends); :func:`plain_progress` prints a line per baseline every :data:`EVERY_S` wall
seconds and one when it finishes, and a line for a phase that lasts longer than that, so a
log shows how far a long run is (``python -m harness.paper > log``).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TextIO

from rich.console import Console
from rich.progress import BarColumn, TextColumn, TimeElapsedColumn
from rich.progress import Progress as RichProgress

from harness.seams.progress import Advance, StartPhase

#: wall seconds between two lines of one baseline or phase
EVERY_S = 5.0
#: a bar is updated at most this often (wall seconds)
PROGRESS_S = 0.1
#: starts a baseline's task: (name, total ns) -> tick(device time reached, ns)
StartTask = Callable[[str, int], Callable[[int], None]]


@dataclass(frozen=True, slots=True)
class Progress:
    """Where a session reports: its baselines' tasks and its phases."""

    task: StartTask
    phase: StartPhase


def _columns() -> tuple[TextColumn | BarColumn | TimeElapsedColumn, ...]:
    return (TextColumn("{task.description}"), BarColumn(), TextColumn("{task.fields[t]}"),
            TimeElapsedColumn())


def _limited(update: Callable[[int], None], total: int,
             clock: Callable[[], float] = time.monotonic) -> Callable[[int], None]:
    """``update`` at most every :data:`PROGRESS_S`, and always at the end (a simulated run
    ticks thousands of times a second)."""
    shown_s = [-PROGRESS_S]

    def limited(done: int) -> None:
        now = clock()
        if now - shown_s[0] >= PROGRESS_S or done >= total:
            shown_s[0] = now
            update(done)

    return limited


@contextmanager
def terminal_progress(console: Console | None = None) -> Iterator[Progress]:
    """Rich bars: one per baseline, kept; one per phase while it lasts."""
    with RichProgress(*_columns(), console=console, transient=False) as bars:

        def task(name: str, total_ns: int) -> Callable[[int], None]:
            shown = bars.add_task(f"{name:>7}", total=total_ns, t="")
            return _limited(lambda now_ns: bars.update(
                shown, completed=min(now_ns, total_ns), t=f"{now_ns / 1e9:6.1f} s"), total_ns)

        def phase(name: str, total: int) -> Advance:
            shown, gone = bars.add_task(name, total=total, t=f"0/{total}"), [False]

            def update(done: int) -> None:
                if gone[0]:
                    return
                bars.update(shown, completed=done, t=f"{done}/{total}", refresh=True)
                if done >= total:  # (drawn at once, as often as _limited lets it)
                    bars.remove_task(shown)
                    bars.refresh()
                    gone[0] = True

            return _limited(update, total)

        yield Progress(task, phase)


def bar_phases(console: Console | None = None) -> StartPhase:
    """Phases as rich bars outside a session (a command that writes models, say): each
    phase's bar is shown from its start to its end."""

    def phase(name: str, total: int) -> Advance:
        bars = RichProgress(*_columns(), console=console or Console(stderr=True))
        shown = bars.add_task(name, total=total, t=f"0/{total}")
        bars.start()

        def update(done: int) -> None:
            bars.update(shown, completed=done, t=f"{done}/{total}")
            if done >= total:
                bars.stop()

        return _limited(update, total)

    return phase


@contextmanager
def plain_progress(out: TextIO | None = None, every_s: float = EVERY_S,
                   clock: Callable[[], float] = time.monotonic) -> Iterator[Progress]:
    """Plain lines on ``out`` (standard output by default)."""
    start = clock()

    def say(line: str) -> None:
        print(f"{line}, {clock() - start:.0f} s wall", file=out or sys.stdout, flush=True)

    def task(name: str, total_ns: int) -> Callable[[int], None]:
        return _every(every_s, clock, total_ns, lambda now_ns: say(
            f"progress {name}: {min(now_ns, total_ns) / 1e9:.1f} of {total_ns / 1e9:g} s "
            f"({100 * min(now_ns, total_ns) / max(total_ns, 1):.0f}%)"), at_start=True)

    def phase(name: str, total: int) -> Advance:
        return _every(every_s, clock, total, lambda done: say(
            f"progress {name}: {min(done, total)} of {total}"), at_start=False)

    yield Progress(task, phase)


def _every(every_s: float, clock: Callable[[], float], total: int,
           line: Callable[[int], None], at_start: bool) -> Callable[[int], None]:
    """``line(done)`` every ``every_s`` wall seconds and at the end; a phase (not
    ``at_start``) that ends within ``every_s`` of its start says nothing."""
    last, said, done_once = [clock()], [at_start], [False]

    def tick(done: int) -> None:
        wall, finished = clock(), done >= total
        if done_once[0] or (wall - last[0] < every_s and not (finished and said[0])):
            return
        last[0], said[0], done_once[0] = wall, True, finished
        line(done)

    return tick
