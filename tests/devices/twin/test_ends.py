"""The twin's pending ends (:mod:`devices.twin.ends`): taken in time order, ends of one instant
in the order they were set, a moved end only at its new time, each once."""

from __future__ import annotations

import simpy

from devices.twin.ends import EndQueue
from devices.twin.facts import Facts
from devices.twin.sharing import Run
from harness.seams.clocks import SimClock
from harness.seams.plan import Subgraph
from harness.seams.records import Request


def _run(job_id: int) -> Run:
    """A run with real records (the compiled core checks their types)."""
    sub = Subgraph(0, "m", "cpu", frozenset({0}), (0,))
    facts = Facts(sub, 0, ("m", "cpu", frozenset({0})), (), {}, True)
    return Run(facts, job_id, Request(job_id, "m", 0, 0), 0, lambda _: None, True, 0, 0.0, 1.0)


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


def test_ends_of_one_instant_are_taken_in_the_order_last_set() -> None:
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


def test_the_runs_clock_takes_the_ends_in_order_and_simpy_holds_none() -> None:
    """Clocked, the ends are the clock's to take (before an environment event of the same
    instant); the environment's own queue stays empty of them."""
    env = simpy.Environment()
    taken: list[tuple[str, int]] = []
    ends = EndQueue(env, lambda run: taken.append((f"end {run.job_id}", clock.now_ns())))
    ends.clocked()
    clock = SimClock(env, ends)
    runs = [_run(job) for job in range(3)]
    for run, end_ns in zip(runs, (30, 10, 20), strict=True):
        ends.set(run, end_ns, 0)
    ends.set(runs[0], 10, 0)  # (moved: now due with job 1, set after it)
    assert env.peek() == float("inf")
    env.timeout(10).callbacks.append(lambda _: taken.append(("simpy", int(env.now))))
    assert clock.wait(100) is None
    assert taken == [("end 1", 10), ("end 0", 10), ("simpy", 10), ("end 2", 20)]
    assert clock.now_ns() == int(env.now) == 100
