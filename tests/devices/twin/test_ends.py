"""The twin's pending ends (:mod:`devices.twin.ends`): taken in time order, ends of one instant
in the order they were set, a moved end only at its new time, each once."""

from __future__ import annotations

from typing import cast

import simpy

from devices.twin.ends import EndQueue
from devices.twin.facts import Facts
from devices.twin.sharing import Run
from harness.seams.records import Request


def _run(job_id: int) -> Run:
    return Run(cast(Facts, None), job_id, cast(Request, None), 0, lambda _: None, True, 0,
               0.0, 1.0)


def _ended(sets: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """(job, time) of each end, in the order taken, after ``sets`` of (job, end) at 0."""
    env = simpy.Environment()
    taken: list[tuple[int, int]] = []
    ends = EndQueue(env, lambda run: taken.append((run.job_id, int(env.now))))
    runs: dict[int, Run] = {}
    for job, end_ns in sets:
        ends.set(runs.setdefault(job, _run(job)), end_ns, 0)
    env.run()
    return taken


def test_ends_are_taken_in_time_order() -> None:
    assert _ended([(1, 30), (2, 10), (3, 20)]) == [(2, 10), (3, 20), (1, 30)]


def test_ends_of_one_instant_are_taken_in_the_order_set() -> None:
    assert _ended([(1, 10), (2, 10), (3, 10)]) == [(1, 10), (2, 10), (3, 10)]
    assert _ended([(1, 10), (2, 10), (1, 10)]) == [(2, 10), (1, 10)]


def test_a_moved_end_is_taken_once_at_its_new_time() -> None:
    assert _ended([(1, 10), (2, 20), (1, 50)]) == [(2, 20), (1, 50)]
    assert _ended([(1, 50), (1, 5)]) == [(1, 5)]


def test_an_end_set_while_one_is_taken_is_taken_in_its_turn() -> None:
    """A run that ends sets another's end (as re-pricing does): the sooner one still goes
    first, an equal one after those already set for that instant."""
    env = simpy.Environment()
    taken: list[tuple[int, int]] = []
    runs = {job: _run(job) for job in (1, 2, 3)}

    def end(run: Run) -> None:
        taken.append((run.job_id, int(env.now)))
        if run.job_id == 1:
            ends.set(runs[3], 10, int(env.now))
            ends.set(runs[2], 15, int(env.now))

    ends = EndQueue(env, end)
    ends.set(runs[1], 10, 0)
    ends.set(runs[2], 40, 0)
    env.run()
    assert taken == [(1, 10), (3, 10), (2, 15)]
