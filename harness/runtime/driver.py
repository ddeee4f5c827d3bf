"""The one loop that drives a run, on any clock (simulated or wall).

Each turn it looks at the time, lets due requests arrive, refreshes the sensor cache when a
sample is due, then waits on the clock until the next completion or the next timed event
(an arrival, a sample, the end of traffic, the end of the drain). A completion is handed to
the runtime core, which starts the processor's next local subgraph; then every event of the
instant settles (:func:`~harness.runtime.core.settle`) before the policy decides.

After the traffic's end no request is issued; the run goes on until every job ended or
``drain_ns`` more passed, then still-running jobs are recorded unfinished. Progress sees the
time at every sample and at the reading that ends the run, so a caller that watches a wall
clock for gaps (:class:`~harness.experiment.outcome.ClockGaps`) sees every jump, the one that
carries the clock past the window's end included. A simulated and a
real run go through exactly these steps; only :meth:`Clock.wait` differs.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Final

from harness.runtime.core import Runtime, Start, settle
from harness.runtime.sensors import SensorCache
from harness.runtime.traffic import Traffic
from harness.seams.device import Clock, Engine

#: the collector's first-generation threshold during a run (Python's default, 700, had it
#: scan young objects every few subgraphs: ~20% of a compiled twin run's time)
YOUNG_COLLECTION: Final = 10_000


class Driver:
    def __init__(
        self,
        clock: Clock,
        device: Engine,
        runtime: Runtime,
        traffic: Traffic,
        sensors: SensorCache,
        sample_interval_ns: int,
        progress: Callable[[int], None] | None = None,
    ) -> None:
        self.clock = clock
        self.device = device
        self.runtime = runtime
        self.traffic = traffic
        self.sensors = sensors
        self.sample_interval_ns = sample_interval_ns
        self._progress = progress
        self._next_sample_ns = 0
        self._report = clock.report
        #: when the scheduler is done with its last decision: decisions run one after another
        #: on the phone's CPU, each for ``Engine.decision_ns`` of its counted work
        self._scheduler_free_ns = 0

    def run(self, drain_ns: int) -> int:
        """Run to the end of traffic plus drain; returns the end time (ns)."""
        end_ns = self.traffic.span.end_ns
        stop_ns = end_ns + drain_ns
        clock, runtime, traffic = self.clock, self.runtime, self.traffic
        dispatch_now = self._dispatch_now
        threshold = gc.get_threshold()
        # the objects made before the run (plans, tables, caches) outlive it: the collector
        # leaves them alone, and looks at the young ones every YOUNG_COLLECTION allocations
        gc.freeze()
        gc.set_threshold(YOUNG_COLLECTION, *threshold[1:])
        try:
            while True:
                now = clock.now_ns()
                if now >= end_ns and (not runtime.busy or now >= stop_ns):
                    self._last(now)
                    break
                self._tick(now)
                done = clock.wait(self._next_event_ns(now, end_ns, stop_ns))
                if done is not None:
                    now = clock.now_ns()
                    starts = runtime.complete(done, now)
                    if starts:
                        self._dispatch(starts, now)
                    settle(runtime, traffic, now, dispatch_now)
        finally:
            gc.set_threshold(*threshold)
            gc.unfreeze()
            self.runtime.finish()
        return self.clock.now_ns()

    def _last(self, now: int) -> None:
        """The reading that ends the run is shown to progress too: a wall clock that jumped
        past the window's end (a stopped process) is seen there, as at any other reading."""
        if self._progress is not None:
            self._progress(now)

    def _tick(self, now: int) -> None:
        """A due sensor sample is taken; then due arrivals join the queue (and settle), so a
        decision at a sampling instant sees that instant's reading."""
        if now >= self._next_sample_ns:
            self.sensors.refresh(now)
            while self._next_sample_ns <= now:
                self._next_sample_ns += self.sample_interval_ns
            if self._progress is not None:
                self._progress(now)
        arrival = self.traffic.next_arrival_ns()
        if arrival is None or arrival > now:
            return  # (nothing due: pop_due would return no request)
        for request in self.traffic.pop_due(now):
            self.runtime.arrive(request, now)
        settle(self.runtime, self.traffic, now, self._dispatch_now)

    def _next_event_ns(self, now: int, end_ns: int, stop_ns: int) -> int:
        """The earliest of the next sample, the next arrival, the end of traffic (while it
        is ahead) and the end of the drain."""
        t = min(self._next_sample_ns, stop_ns)
        arrival = self.traffic.next_arrival_ns()
        if arrival is not None and arrival < t:
            t = arrival
        if now < end_ns < t:
            t = end_ns
        return t

    def _dispatch_now(self, starts: list[Start]) -> None:
        """Start what a decision chose, once the decision's own time has passed. Every
        decision takes its time, whether it starts something or not: it begins when the
        scheduler is done with the one before, so a decision that keeps processors idle
        still delays the next one's starts."""
        took = self.device.decision_ns(self.runtime.decision_work)
        if not took:
            if starts:
                self._dispatch(starts, self.clock.now_ns())
            return
        done = max(self.clock.now_ns(), self._scheduler_free_ns) + took
        self._scheduler_free_ns = done
        if starts:
            self._dispatch(starts, done)

    def _dispatch(self, starts: list[Start], now: int) -> None:
        start, report = self.device.start, self._report
        for s in starts:
            start(s.job_id, s.request, s.subgraph, now, report)
