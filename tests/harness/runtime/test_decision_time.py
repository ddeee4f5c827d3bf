"""A decision's own time (``Engine.decision_ns`` of its counted work) is charged whether it
starts something or not: decisions run one after another on the phone's CPU, so a decision
that keeps every processor idle still delays the starts of the next one. (Before, only a
decision that started something paid, which made waiting policies' decisions free.)"""

from __future__ import annotations

from typing import Any

import numpy as np

from baselines.tflite import TfliteConf, TflitePolicy
from harness.config.schema import Arrival, ScenarioConf
from harness.runtime.core import Runtime, Start
from harness.runtime.driver import Driver
from harness.runtime.sensors import SensorCache
from harness.runtime.traffic import Traffic
from harness.seams.records import Request
from harness.seams.units import NS_PER_MS
from tests.fixtures.policies import plan, procs

NS_PER_WORK = 10


class _Clock:
    """The present, set by the test; completions are not reported here."""

    def __init__(self) -> None:
        self.now = 0

    def now_ns(self) -> int:
        return self.now

    def report(self, *_: Any) -> None:
        raise AssertionError("no completion in this test")

    def wait(self, *_: Any) -> Any:
        raise AssertionError("the driver's loop does not run in this test")


class _Engine:
    """Charges NS_PER_WORK per unit of work and records when each subgraph is started."""

    def __init__(self) -> None:
        self.started: list[tuple[int, int]] = []

    def decision_ns(self, work: int) -> int:
        return work * NS_PER_WORK

    def start(self, job_id: int, request: Request, subgraph: Any, now_ns: int,
              on_done: Any) -> None:  # (the Engine protocol's start)
        self.started.append((job_id, now_ns))

    def start_clock(self) -> Any:
        raise AssertionError("the driver's loop does not run in this test")

    def read_sensors(self, now_ns: int) -> tuple[()]:
        return ()


def _driver() -> tuple[Driver, _Clock, _Engine, Runtime]:
    """A driver whose runtime never decides here: the test sets each decision's work."""
    clock, engine = _Clock(), _Engine()
    plans = {"m": plan("m", [("cpu", 0, 0, 1)])[0]}
    runtime = Runtime(TflitePolicy(TfliteConf()), plans, procs("cpu"), lambda *_: None,
                      lambda *_: None)
    scenario = ScenarioConf(name="t", models=["m"], arrival=Arrival.frames, duration_s=1e-6,
                            warmup_s=0.0)
    traffic = Traffic(scenario, {}, np.random.default_rng(0))
    sensors = SensorCache(lambda now_ns: (), NS_PER_MS)
    driver = Driver(clock, engine, runtime, traffic, sensors, NS_PER_MS)
    return driver, clock, engine, runtime


def _decide(driver: Driver, runtime: Runtime, work: int, job_ids: list[int]) -> None:
    runtime.decision_work = work
    request, sg = Request(0, "m", 0, 0, 0), runtime.plans["m"].subgraphs[0]
    driver._dispatch_now([Start(j, request, sg) for j in job_ids])


def test_a_decision_that_starts_nothing_still_takes_its_time() -> None:
    driver, _, engine, runtime = _driver()
    _decide(driver, runtime, 100, [])  # keeps every processor idle: 1000 ns of the CPU
    _decide(driver, runtime, 50, [7])  # same instant: begins when the first is done
    assert engine.started == [(7, 100 * NS_PER_WORK + 50 * NS_PER_WORK)]


def test_decisions_apart_in_time_do_not_queue() -> None:
    driver, clock, engine, runtime = _driver()
    _decide(driver, runtime, 100, [])
    clock.now = 5_000  # long after the first decision ended
    _decide(driver, runtime, 50, [1, 2])
    assert engine.started == [(1, 5_000 + 500), (2, 5_000 + 500)]


def test_without_a_decision_cost_starts_are_now() -> None:
    driver, clock, engine, runtime = _driver()
    clock.now = 42
    _decide(driver, runtime, 0, [3])
    assert engine.started == [(3, 42)]
