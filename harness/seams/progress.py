"""Progress of a run's phases: the steps that take wall time before a baseline's clock starts.

On a real device the first run spends most of its time before any request: writing the zoo's
``.tflite`` files, checking which ops each processor runs, planning, cutting each subgraph's
slice out of its model, building an interpreter per slice, profiling every subgraph alone.
Whoever does such a step starts a *phase*: its name, saying what and how many ("cutting 22
slices"), and its number of steps; it is handed an :data:`Advance` to call with the steps
done so far, the last call with the total. The session shows each phase as a bar on a
terminal and as lines in a log (:mod:`harness.experiment.progress`), as it shows the run's
own progress; code that reports to nobody passes :func:`no_phases`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

#: called with the steps of a phase done so far (its last call: the phase's total)
Advance = Callable[[int], None]
#: starts a phase: (what it does and how many, its number of steps) -> its :data:`Advance`
StartPhase = Callable[[str, int], Advance]

T = TypeVar("T")


def _ignored(_done: int) -> None:
    return None


def counted(n: int, noun: str) -> str:
    """``n`` and ``noun``, plural unless one: "1 slice", "22 slices"."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def no_phases(_name: str, _total: int) -> Advance:
    """A :data:`StartPhase` that reports to nobody."""
    return _ignored


def steps(phases: StartPhase, name: str, items: Iterable[T]) -> Iterator[T]:
    """Each of ``items``, as one phase called ``name`` with a step per item: the phase starts
    at 0 before the first and advances after each (the last advance: the total)."""
    listed = list(items)
    advance = phases(name, len(listed))
    advance(0)
    for done, item in enumerate(listed, 1):
        yield item
        advance(done)
