"""The runtime's one loop for one baseline and seed, recording into the run folder.

:class:`RunLoop` drives the scenario's traffic through the runtime
(:class:`~harness.runtime.core.Runtime`, :class:`~harness.runtime.driver.Driver`) with a
policy over its plans on an :class:`~harness.seams.device.Engine`, and records every request,
subgraph and sensor row into the run's columns (:class:`~harness.experiment.recording.RunRows`).
Every baseline the runtime dispatches runs through it on its device
(:mod:`harness.experiment.baseline`); a device that runs a baseline with an engine of its own
(the host's one thread per model) is handed it as :attr:`~harness.seams.device.BaselineRun.loop`,
so there is one loop and one way of recording rows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from harness.config.schema import RunConf
from harness.experiment.recording import RunRows
from harness.reporting.store import RunRecorder
from harness.runtime.core import Runtime
from harness.runtime.driver import Driver
from harness.runtime.sensors import SensorCache
from harness.runtime.traffic import Traffic
from harness.seams.device import Engine
from harness.seams.plan import ModelPlan, Processor
from harness.seams.policy import Policy
from harness.seams.units import NS_PER_MS, NS_PER_S

#: how long a run may go on after the last request was issued, to finish jobs in flight
DRAIN_NS = 5 * NS_PER_S


class RunLoop:
    """One baseline with one seed on the runtime (a :class:`~harness.seams.device.RuntimeLoop`);
    after a run, :attr:`rows` holds what it recorded."""

    def __init__(self, cfg: RunConf, name: str, seed: int, recorder: RunRecorder,
                 rngs: Mapping[str, np.random.Generator], progress: Callable[[int], None],
                 slo: Mapping[str, int] | None = None) -> None:
        self.cfg, self.name, self.seed, self.recorder = cfg, name, seed, recorder
        self.rngs, self.progress, self.slo = rngs, progress, dict(slo or {})
        self.rows: RunRows | None = None

    def __call__(self, policy: Policy, plans: Mapping[str, ModelPlan],
                 processors: tuple[Processor, ...], engine: Engine) -> int:
        """Run the traffic to its end plus the drain; the run's end (ns)."""
        traffic = Traffic(self.cfg.scenario, self.slo, self.rngs["traffic"])
        rec = self.recorder
        rows = RunRows(self.name, self.seed, traffic.is_warmup, rec.subgraphs.held,
                       rec.requests.held, rec.sensors.held)
        self.rows = rows
        interval = int(self.cfg.sensor_interval_ms * NS_PER_MS)
        sensors = SensorCache(engine.read_sensors, interval, on_sample=rows.record_sample)
        runtime = Runtime(policy, plans, processors, record_request=rows.record_request,
                          record_subgraph=rows.record_subgraph, sensors=sensors.get)
        driver = Driver(engine.start_clock(), engine, runtime, traffic, sensors, interval,
                        self.progress)
        return driver.run(DRAIN_NS)
