"""The wall clock: drive a runtime and a real device (host or phone) in real time.

The device's worker threads report completions through a thread-safe queue; this thread is
the only one that touches the runtime. Time is ``clock()`` nanoseconds from the device's
origin. Arrivals, monitor refreshes and completions are handled in time order; after
``end_ns`` no request is issued and the run drains for at most ``drain_ns``.
"""

from __future__ import annotations

import queue
from collections.abc import Callable

from adms.monitor import ProcessorMonitor
from devices.base import Device
from harness.runtime.api import Completion
from harness.runtime.core import Runtime, Start, settle
from harness.traffic import Traffic


class WallDriver:
    def __init__(
        self,
        device: Device,
        runtime: Runtime,
        traffic: Traffic,
        monitor: ProcessorMonitor,
        sample_interval_ns: int,
        clock: Callable[[], int],
        progress: Callable[[int], None] | None = None,
    ) -> None:
        self.device = device
        self.runtime = runtime
        self.traffic = traffic
        self.monitor = monitor
        self.sample_interval_ns = sample_interval_ns
        self.clock = clock
        self._progress = progress
        self._events: queue.Queue[Completion] = queue.Queue()
        self._next_sample_ns = 0

    def run(self, drain_ns: int) -> int:
        end_ns = self.traffic.window.end_ns
        try:
            while True:
                now = self.clock()
                if now >= end_ns and (not self.runtime.busy or now >= end_ns + drain_ns):
                    break
                self._tick(now)
                self._wait_for_completion(self._timeout_s(now))
        finally:
            self.runtime.finish()
        return self.clock()

    def _tick(self, now: int) -> None:
        due = self.traffic.pop_due(now)
        for request in due:
            self.runtime.arrive(request, now)
        if due:
            self._settle(now)
        if now >= self._next_sample_ns:
            self.monitor.refresh(now)
            self._next_sample_ns = now + self.sample_interval_ns
            if self._progress is not None:
                self._progress(now)

    def _timeout_s(self, now: int) -> float:
        targets = [self._next_sample_ns]
        if (t := self.traffic.next_arrival_ns()) is not None:
            targets.append(t)
        return max(0.0, (min(targets) - now) / 1e9)

    def _wait_for_completion(self, timeout_s: float) -> None:
        try:
            done = self._events.get(timeout=timeout_s)
        except queue.Empty:
            return
        now = self.clock()
        self._dispatch(self.runtime.complete(done, now))
        self._settle(now)

    def _dispatch(self, starts: list[Start]) -> None:
        now = self.clock()
        for s in starts:
            self.device.start(s.job_id, s.request, s.subgraph, now, self._events.put)

    def _settle(self, now: int) -> None:
        settle(self.runtime, self.traffic, now, self._dispatch)
