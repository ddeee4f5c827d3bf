"""The simulated clock: drive a runtime and a twin device inside one SimPy environment.

SimPy time is integer nanoseconds. Arrivals are a SimPy process; completions come from the
twin's own processes through ``on_done``; a sampler process refreshes the Processor Monitor
every ``sample_interval_ns``. After ``end_ns`` no request is issued; the run goes on until
every job ended or ``drain_ns`` more passed, then still-running jobs are recorded unfinished.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

import simpy

from adms.monitor import ProcessorMonitor
from devices.base import Device
from harness.runtime.api import Completion
from harness.runtime.core import Runtime, Start, settle
from harness.traffic import Traffic


class SimDriver:
    def __init__(
        self,
        env: simpy.Environment,
        device: Device,
        runtime: Runtime,
        traffic: Traffic,
        monitor: ProcessorMonitor,
        sample_interval_ns: int,
        progress: Callable[[int], None] | None = None,
    ) -> None:
        self.env = env
        self.device = device
        self.runtime = runtime
        self.traffic = traffic
        self.monitor = monitor
        self.sample_interval_ns = sample_interval_ns
        self._progress = progress
        self._idle = env.event()
        self._wake = env.event()

    def run(self, drain_ns: int) -> int:
        """Run to the end of traffic plus drain; returns the simulated end time (ns)."""
        end_ns = self.traffic.window.end_ns
        self.env.process(self._arrivals())
        self.env.process(self._sampler(end_ns + drain_ns))
        self.env.run(until=end_ns)
        if self.runtime.busy:
            self.env.run(until=simpy.AnyOf(self.env, [self._idle, self.env.timeout(drain_ns)]))
        self.runtime.finish()
        return int(self.env.now)

    # -- processes ---------------------------------------------------------------------------

    def _arrivals(self) -> Generator[Any, Any, None]:
        """Timed arrivals; sleeps until the next one, or until a completion schedules one
        (a closed-loop client waiting out a drop) and wakes it."""
        end = self.traffic.window.end_ns
        while True:
            self._wake = self.env.event()
            now, t = int(self.env.now), self.traffic.next_arrival_ns()
            if t is None and now >= end:
                return
            wait = end - now if t is None else t - now
            yield self.env.timeout(max(0, wait)) | self._wake
            now = int(self.env.now)
            due = self.traffic.pop_due(now)
            for request in due:
                self.runtime.arrive(request, now)
            if due:
                self._settle(now)

    def _sampler(self, until_ns: int) -> Generator[Any, Any, None]:
        while self.env.now < until_ns:
            now = int(self.env.now)
            self.monitor.refresh(now)
            if self._progress is not None:
                self._progress(now)
            yield self.env.timeout(self.sample_interval_ns)

    # -- callbacks ---------------------------------------------------------------------------

    def _on_done(self, done: Completion) -> None:
        now = int(self.env.now)
        self._dispatch(self.runtime.complete(done, now))
        self._settle(now)
        if not self.runtime.busy and now >= self.traffic.window.end_ns and not self._idle.triggered:
            self._idle.succeed()

    def _dispatch(self, starts: list[Start]) -> None:
        now = int(self.env.now)
        for s in starts:
            self.device.start(s.job_id, s.request, s.subgraph, now, self._on_done)

    def _settle(self, now: int) -> None:
        settle(self.runtime, self.traffic, now, self._dispatch)
        if self.traffic.next_arrival_ns() is not None and not self._wake.triggered:
            self._wake.succeed()  # a client waiting out a drop: the arrival process must wake
