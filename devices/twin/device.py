"""The twin: a calibrated discrete-event model of a phone, behind the Device protocol.

Time is the SimPy environment's clock, in integer nanoseconds; :meth:`TwinDevice.start_clock`
hands the runtime a :class:`~harness.runtime.clocks.SimClock` over that environment.
:meth:`TwinDevice.start` computes the subgraph's latency from the state at its start and
starts a SimPy process that waits that long and then reports a
:class:`~harness.seams.records.Completion`. Op support comes from the public delegate rules
of each processor's config (:mod:`devices.opsupport`). The state is

* each processor's DVFS level, capped by the thermal governor (:mod:`devices.twin.thermal`);
* which processors are busy: they share the DRAM bandwidth (:mod:`devices.twin.latency`);
* where each of a job's tensors was produced: an input made on another processor is copied
  first (fixed cost plus bytes / transfer bandwidth). Model inputs come with the invocation
  (their copy is part of the invoke overhead).

Temperatures, energy and busy time are advanced lazily, from event to event (starts, ends,
sensor reads), with powers constant in between; the governor acts at every multiple of its
period. The twin runs no perpetual process, so ``env.run()`` ends when the work does.
Simplification: a subgraph's latency is fixed at its start; a throttle or a contention change
while it runs affects only later subgraphs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import ClassVar

import numpy as np
import simpy

from devices.opsupport import delegate_limits, fallback_processor, support_table
from devices.twin.config import TwinDeviceConf
from devices.twin.latency import OpTable, SubgraphCost, effective_bandwidth, transfer_ns
from devices.twin.power import power_w
from devices.twin.spec import TwinProcessorSpec, TwinSpec, parse
from devices.twin.thermal import Governor, ThermalNetwork
from harness.runtime.clocks import SimClock
from harness.seams.device import DeviceContext
from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph
from harness.seams.plan import ModelPlan, Processor, Subgraph
from harness.seams.records import Completion, DeviceInfo, Request, SensorSample
from harness.seams.units import NS_PER_MS, NS_PER_S

_CostKey = tuple[str, str, frozenset[int]]


class TwinDevice:
    """A simulated phone (see the module docstring)."""

    Conf: ClassVar[type] = TwinDeviceConf
    kind: ClassVar[str] = "twin"
    needs_model_files: ClassVar[bool] = False

    def __init__(
        self,
        conf: TwinDeviceConf,
        env: simpy.Environment,
        rng: np.random.Generator,
        graphs: Mapping[str, ModelGraph] | None = None,
    ) -> None:
        self.conf = conf
        self.spec: TwinSpec = parse(conf)
        self.env = env
        self.rng = rng
        self._graphs: dict[str, ModelGraph] = dict(graphs or {})
        self._plans: dict[str, ModelPlan] = {}
        self._index = {p.name: i for i, p in enumerate(self.spec.processors)}
        self._costs: dict[_CostKey, SubgraphCost] = {}
        self._op_tables: dict[tuple[str, str], OpTable] = {}
        #: (job id, request id) -> tensor index -> processor that produced it
        self._where: dict[tuple[int, int], dict[int, str]] = {}
        self._init_state()

    def _init_state(self) -> None:
        procs, dev = self.spec.processors, self.spec.device
        n = len(procs)
        self._busy = [False] * n
        self._thermal = ThermalNetwork(
            dev.ambient_c, dev.soc_capacitance_j_per_k, dev.soc_resistance_k_per_w,
            [p.capacitance_j_per_k for p in procs], [p.resistance_k_per_w for p in procs],
        )
        self._governor = Governor(
            [len(p.freqs_mhz) for p in procs], [p.throttle_c for p in procs],
            [p.hysteresis_c for p in procs],
        )
        self._period_ns = max(1, round(dev.governor_period_ms * NS_PER_MS))
        self._t_ns = int(self.env.now)
        self._next_tick_ns = (self._t_ns // self._period_ns + 1) * self._period_ns
        self._busy_ns = np.zeros(n)
        self._energy_j = np.zeros(n)
        self._last_read = (self._t_ns, self._busy_ns.copy(), self._energy_j.copy())

    @classmethod
    def open(cls, conf: TwinDeviceConf, context: DeviceContext) -> TwinDevice:
        """A cold twin (ambient temperature) in its own SimPy environment."""
        return cls(conf, simpy.Environment(), context.rng, context.graphs)

    # -- Device protocol ---------------------------------------------------------------------

    def describe(self) -> DeviceInfo:
        procs = tuple(Processor(p.name, p.kind) for p in self.spec.processors)
        facts: dict[str, object] = {
            "soc": self.spec.description,
            "ambient_c": self.spec.device.ambient_c,
            "noise_sigma": self.spec.device.noise_sigma,
            "calibration": {p.name: _calibration_fact(p) for p in self.spec.processors},
            "provenance": self.spec.provenance(),
        }
        return DeviceInfo(self.spec.name, self.kind, procs, facts,
                          fallback_processor(self.conf.processors),
                          delegate_limits(self.conf.processors))

    def op_support(self, graph: ModelGraph) -> dict[str, frozenset[int]]:
        """By each processor's delegate rules; every op must run on some processor."""
        return support_table(graph, self.conf.processors)

    def load(self, graphs: Mapping[str, ModelGraph], plans: Mapping[str, ModelPlan]) -> None:
        """The plans the run executes (a job is complete at its plan's last unit)."""
        self._graphs.update(graphs)
        self._plans = dict(plans)
        for plan in plans.values():
            for sg in plan.subgraphs:
                self._cost(sg)

    def profile(self, plan: ModelPlan, subgraph: Subgraph) -> int:
        """Latency alone at the top frequency: no contention, transfer or noise."""
        spec = self.spec.processor(subgraph.processor)
        bandwidth = spec.bandwidth_share * self.spec.device.memory_bandwidth_gbps
        return _to_ns(self._cost(subgraph).latency_ns(1.0, bandwidth))

    def start_clock(self) -> SimClock:
        return SimClock(self.env)

    def start(
        self,
        job_id: int,
        request: Request,
        subgraph: Subgraph,
        now_ns: int,
        on_done: Callable[[Completion], None],
    ) -> None:
        """Run ``subgraph`` from the environment's current time (``now_ns`` in the twin)."""
        i = self._processor_index(subgraph.processor)
        assert not self._busy[i], f"{subgraph.processor} already runs a subgraph"
        self._advance(int(self.env.now))
        latency = self._latency_ns(i, job_id, request, subgraph)
        self._busy[i] = True
        self.env.process(self._run(i, job_id, request, subgraph, latency, on_done))

    def read_sensors(self, now_ns: int) -> tuple[SensorSample, ...]:
        """Readings at the environment's current time; load and power average since the
        previous read."""
        t = int(self.env.now)
        self._advance(t)
        last_t, last_busy, last_energy = self._last_read
        dt_ns = t - last_t
        if dt_ns > 0:
            load = (self._busy_ns - last_busy) / dt_ns
            power = (self._energy_j - last_energy) / (dt_ns / NS_PER_S)
        else:
            load = np.array([float(b) for b in self._busy])
            power = self._powers()
        self._last_read = (t, self._busy_ns.copy(), self._energy_j.copy())
        return tuple(self._sample(i, t, float(load[i]), float(power[i]))
                     for i in range(len(self._busy)))

    def close(self) -> None:
        self._where.clear()
        self._costs.clear()
        self._op_tables.clear()

    # -- state -------------------------------------------------------------------------------

    def frequency_mhz(self, name: str) -> float:
        """Current (possibly throttled) frequency of a processor."""
        self._advance(int(self.env.now))
        return self._freq(self._processor_index(name))

    def _freq(self, i: int) -> float:
        return self.spec.processors[i].freqs_mhz[self._governor.level[i]]

    def _processor_index(self, name: str) -> int:
        if name not in self._index:
            raise UserError(f"twin {self.spec.name}: unknown processor {name!r}")
        return self._index[name]

    def _powers(self) -> np.ndarray:
        return np.array([
            power_w(p, self._freq(i), self._busy[i])
            for i, p in enumerate(self.spec.processors)
        ])

    def _advance(self, now_ns: int) -> None:
        """Bring temperatures, energy, busy time and the governor up to ``now_ns``."""
        while self._next_tick_ns <= now_ns:
            self._integrate(self._next_tick_ns)
            self._governor.update(self._thermal.temps_c.tolist())
            self._next_tick_ns += self._period_ns
        self._integrate(now_ns)

    def _integrate(self, t_ns: int) -> None:
        dt_ns = t_ns - self._t_ns
        if dt_ns <= 0:
            return
        powers = self._powers()
        self._thermal.advance(powers, dt_ns / NS_PER_S)
        self._energy_j += powers * (dt_ns / NS_PER_S)
        self._busy_ns += np.array(self._busy, dtype=float) * dt_ns
        self._t_ns = t_ns

    def _sample(self, i: int, t_ns: int, load: float, power: float) -> SensorSample:
        spec = self.spec.processors[i]
        return SensorSample(
            processor=spec.name, t_ns=t_ns,
            temperature_c=float(self._thermal.temps_c[i]),
            frequency_hz=self._freq(i) * 1e6,
            max_frequency_hz=spec.f_max_mhz * 1e6,
            load=min(max(load, 0.0), 1.0), power_w=power,
            throttled=self._governor.throttled(i), throttle_temperature_c=spec.throttle_c,
        )

    # -- latency -----------------------------------------------------------------------------

    def _graph(self, model: str) -> ModelGraph:
        if model not in self._graphs:
            raise UserError(f"twin {self.spec.name}: no graph loaded for model {model!r}")
        return self._graphs[model]

    def _cost(self, subgraph: Subgraph) -> SubgraphCost:
        key = (subgraph.model, subgraph.processor, subgraph.ops)
        if key not in self._costs:
            self._costs[key] = self._op_table(subgraph.model, subgraph.processor).subgraph(
                subgraph.ops)
        return self._costs[key]

    def _op_table(self, model: str, processor: str) -> OpTable:
        key = (model, processor)
        if key not in self._op_tables:
            spec = self.spec.processor(processor)
            self._op_tables[key] = OpTable.of(spec, self._graph(model))
        return self._op_tables[key]

    def _latency_ns(self, i: int, job_id: int, request: Request, subgraph: Subgraph) -> int:
        spec, dev = self.spec.processors[i], self.spec.device
        others = sum(b for j, b in enumerate(self._busy) if j != i)
        bandwidth = effective_bandwidth(dev.memory_bandwidth_gbps, spec.bandwidth_share,
                                        others + 1)
        f_ratio = self._freq(i) / spec.f_max_mhz
        ns = self._cost(subgraph).latency_ns(f_ratio, bandwidth)
        moved = self._moved_bytes((job_id, request.request_id), subgraph)
        ns += transfer_ns(moved, dev.transfer_fixed_us, dev.transfer_bandwidth_gbps)
        return _to_ns(ns * self._noise())

    def _noise(self) -> float:
        sigma = self.spec.device.noise_sigma
        return float(self.rng.lognormal(0.0, sigma)) if sigma > 0 else 1.0

    def _moved_bytes(self, job: tuple[int, int], subgraph: Subgraph) -> int:
        """Bytes of the subgraph's inputs produced by this job on another processor."""
        graph, where = self._graph(subgraph.model), self._where.get(job, {})
        return sum(
            graph.tensors[t].nbytes for t in graph.pure_inputs(subgraph.ops)
            if where.get(t, subgraph.processor) != subgraph.processor
        )

    def _record_outputs(self, job: tuple[int, int], subgraph: Subgraph) -> None:
        plan = self._plans.get(subgraph.model)
        if plan is not None and subgraph.last_unit >= plan.num_units - 1:
            self._where.pop(job, None)  # the job is complete
            return
        made = self._graph(subgraph.model).outputs_of(subgraph.ops)
        self._where.setdefault(job, {}).update(dict.fromkeys(made, subgraph.processor))

    def _run(
        self, i: int, job_id: int, request: Request, subgraph: Subgraph, latency_ns: int,
        on_done: Callable[[Completion], None],
    ) -> simpy.events.ProcessGenerator:
        start_ns = int(self.env.now)
        yield self.env.timeout(latency_ns)
        end_ns = int(self.env.now)
        self._advance(end_ns)
        self._busy[i] = False
        self._record_outputs((job_id, request.request_id), subgraph)
        on_done(Completion(job_id, request, subgraph, start_ns, end_ns))


def _to_ns(x: float) -> int:
    return max(1, round(x))


def _calibration_fact(p: TwinProcessorSpec) -> object:
    c = p.calibration
    if c is None:
        return None
    return {"model": c.model, "target_ms": c.target_ms, "int8": c.int8, "source": c.source}
