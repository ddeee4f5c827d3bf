"""The twin: a calibrated discrete-event model of a phone, behind the Device protocol.

Time is the SimPy clock in integer ns; :meth:`TwinDevice.start_clock` hands the runtime a
:class:`~harness.seams.clocks.SimClock` that also takes the subgraphs' ends (one queue behind
one SimPy event: :mod:`devices.twin.ends`). :meth:`TwinDevice.start` prices a subgraph in the
present state and sets its end; whenever a subgraph starts or ends, every running one is
priced again (processor sharing, :mod:`devices.twin.sharing`). Op support comes from the public
delegate rules (:mod:`devices.opsupport`). The state: each processor's DVFS level under the
thermal governor, and whether it is shut down (:mod:`devices.twin.heat`); what runs where (busy
processors share DRAM bandwidth, :mod:`devices.twin.latency`; concurrent interpreters share
their processor as the phone's ``concurrency`` measurement says); where each tensor was made
(an input from another processor is moved first: fixed cost plus bytes / bandwidth).

The mechanisms (``twin.mechanisms``, each a switch): a per-invoke floor; boundary and I/O
copies (:mod:`devices.twin.latency`); the scheduler's cost (a fixed cost per dispatched
subgraph, and each decision's counted work at its policy's price, :meth:`decision_ns`);
memory against ``memory_budget_mb`` (:mod:`devices.twin.memory`: interpreters from the load,
arenas from their first run; past the budget a :class:`~harness.seams.errors.RunFailure`, as
Android's low-memory killer); the rest of the phone's power; shutdown at the critical
temperature. Simplification: a subgraph runs at the DVFS level of its start.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import ClassVar, Final

import numpy as np
import simpy

from devices.opsupport import delegate_limits, fallback_processor, support_table
from devices.twin.config import TwinDeviceConf
from devices.twin.ends import EndQueue
from devices.twin.facts import Facts
from devices.twin.heat import Heat
from devices.twin.latency import (
    OpTable,
    SubgraphCost,
    effective_bandwidth,
    transfer_ns,
    whole_ns,
)
from devices.twin.memory import Memory
from devices.twin.sharing import Run, slowdown
from devices.twin.spec import TwinSpec, calibration_fact, parse
from devices.twin.tensors import TensorLocations
from harness.seams.clocks import SimClock
from harness.seams.device import DeviceContext, DeviceKind
from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph
from harness.seams.plan import ModelPlan, Processor, Subgraph
from harness.seams.policy import Runner
from harness.seams.records import Completion, DeviceInfo, Request, SensorSample
from harness.seams.units import round_int

_CostKey = tuple[str, str, frozenset[int], bool]
#: how long a subgraph started on a processor that is shut down takes to fail, ns
FAIL_NS: Final = 1_000
#: latency-noise draws taken from the generator at once
NOISE_BLOCK: Final = 4096
#: a subgraph's state key is (DVFS level at its start) x _STATES + (other processors busy)
_STATES: Final = 1 << 16


class TwinDevice:
    """A simulated phone (see the module docstring)."""

    Conf: ClassVar[type] = TwinDeviceConf
    kind: ClassVar[DeviceKind] = DeviceKind("twin", "SIMULATION (digital twin)")
    needs_model_files: ClassVar[bool] = False
    #: a simulation is cheap to repeat
    default_seeds: ClassVar[int] = 5

    def __init__(self, conf: TwinDeviceConf, env: simpy.Environment, rng: np.random.Generator,
                 graphs: Mapping[str, ModelGraph] | None = None) -> None:
        self.conf = conf
        self.spec: TwinSpec = parse(conf)
        self.env = env
        self.rng = rng
        self._graphs: dict[str, ModelGraph] = dict(graphs or {})
        self._plans: dict[str, ModelPlan] = {}
        self._index = {p.name: i for i, p in enumerate(self.spec.processors)}
        self._costs: dict[_CostKey, SubgraphCost] = {}
        self._op_tables: dict[tuple[str, str], OpTable] = {}
        #: where each running job's tensors are (:mod:`devices.twin.tensors`)
        self._tensors = TensorLocations(self._graph)
        self._busy = [False] * len(self.spec.processors)
        #: what runs on each processor (:mod:`devices.twin.sharing`)
        self._runs: list[list[Run]] = [[] for _ in self.spec.processors]
        #: how many of ``_busy`` are True
        self._n_busy = 0
        #: the running subgraphs' ends, behind one SimPy event (:mod:`devices.twin.ends`)
        self._ends = EndQueue(env, self._end)
        self.heat = Heat(self.spec.device, self.spec.processors, int(env.now))
        #: resident memory against the budget (:mod:`devices.twin.memory`)
        self.memory = Memory(self.spec.name, self.spec.device.memory_budget_mb,
                             self.spec.device.mechanisms.memory)
        self._noise_block: list[float] = []
        #: id of a subgraph -> its fixed facts (:meth:`_facts`)
        self._static: dict[int, Facts] = {}
        #: the clock of the run (:meth:`start_clock`), which steps the environment
        self._clock: SimClock | None = None
        dev = self.spec.device
        #: constants the hot path reads (the spec is immutable)
        self._sigma: float = dev.noise_sigma
        self._transfer_fixed_us: float = dev.transfer_fixed_us
        self._transfer_gbps: float = dev.transfer_bandwidth_gbps
        self._ns_per_op: float = dev.scheduler_ns_per_op if dev.mechanisms.scheduler_cost else 0.0

    @classmethod
    def open(cls, conf: TwinDeviceConf, context: DeviceContext) -> TwinDevice:
        """A cold twin (ambient temperature) in its own SimPy environment."""
        return cls(conf, simpy.Environment(), context.rng, context.graphs)

    @classmethod
    def prepare_run(cls, conf: TwinDeviceConf, run: Sequence[str],
                    runners: Mapping[str, Runner], dry_run: bool) -> TwinDeviceConf:
        """The twin's constants checked before anything runs (:func:`parse`: their ranges,
        and every constant of each mechanism that is on given); the runtime runs every
        baseline on a twin (written out, not inherited from
        :class:`~harness.seams.device.DeviceDefaults`: a compiled class)."""
        parse(conf)
        return conf

    # -- Device protocol ---------------------------------------------------------------------

    def describe(self) -> DeviceInfo:
        procs = tuple(Processor(p.name, p.kind) for p in self.spec.processors)
        facts: dict[str, object] = {
            "soc": self.spec.description,
            "ambient_c": self.spec.device.ambient_c,
            "noise_sigma": self.spec.device.noise_sigma,
            "mechanisms": {k: getattr(self.spec.device.mechanisms, k) for k in
                           self.spec.device.mechanisms.__dataclass_fields__},
            "calibration": {p.name: calibration_fact(p) for p in self.spec.processors},
            "provenance": self.spec.provenance(),
        }
        return DeviceInfo(self.spec.name, self.kind.word, procs, facts,
                          fallback_processor(self.conf.processors),
                          delegate_limits(self.conf.processors))

    def op_support(self, graph: ModelGraph) -> dict[str, frozenset[int]]:
        """By each processor's delegate rules; every op must run on some processor."""
        return support_table(graph, self.conf.processors)

    def load(self, graphs: Mapping[str, ModelGraph], plans: Mapping[str, ModelPlan]) -> None:
        """The plans the run executes (a job is complete at its plan's last unit); with the
        memory mechanism, every subgraph's interpreter, arena and weight copy must fit."""
        self._graphs.update(graphs)
        self._plans = dict(plans)
        self._static.clear()
        self._tensors.loaded()
        for plan in plans.values():
            for sg in plan.subgraphs:
                self._cost(sg, plan.shared_interpreter)
        held = sum(self._op_table(sg.model, sg.processor).held_bytes(sg.ops)
                   for plan in plans.values() for sg in plan.subgraphs)
        count = sum(len(p.subgraphs) for p in plans.values())
        self.memory.load(held, count, self._now_ns())

    def profile(self, plan: ModelPlan, subgraph: Subgraph) -> int:
        """Latency alone at the top frequency: no contention, transfer or noise."""
        spec = self.spec.processor(subgraph.processor)
        bandwidth = spec.bandwidth_share * self.spec.device.memory_bandwidth_gbps
        with np.errstate(over="ignore"):  # (an overflow to inf is refused by whole_ns)
            ns = self._cost(subgraph, plan.shared_interpreter).latency_ns(1.0, bandwidth)
        return whole_ns(ns, f"{subgraph.model}'s subgraph on {subgraph.processor}")

    def handoff_ns(self, plan: ModelPlan, subgraph: Subgraph) -> int:
        """The least a subgraph pays when its predecessor ran on another processor: moving
        the tensors the unit before it produced."""
        if subgraph.first_unit == 0:
            return 0
        graph = self._graph(subgraph.model)
        made = graph.outputs_of(plan.units[subgraph.first_unit - 1])
        moved = sum(graph.tensors[t].nbytes for t in graph.pure_inputs(subgraph.ops) & made)
        dev = self.spec.device
        return whole_ns(transfer_ns(moved, dev.transfer_fixed_us, dev.transfer_bandwidth_gbps),
                      f"{subgraph.model}'s transfer to {subgraph.processor}")

    def price_decisions(self, baseline: str, policy: str) -> None:
        """Price the run's decisions at ``baseline``'s or else ``policy``'s own measured ns
        per unit of work (``scheduler_ns_per_work``), else at ``scheduler_ns_per_op``."""
        dev = self.spec.device
        prices = dev.scheduler_ns_per_work
        price = prices.get(baseline, prices.get(policy, dev.scheduler_ns_per_op))
        self._ns_per_op = price if dev.mechanisms.scheduler_cost else 0.0

    def decision_ns(self, work: int) -> int:
        """Simulated time a decision of ``work`` counted operations takes on the phone's CPU
        (the scheduler-cost mechanism)."""
        return round_int(work * self._ns_per_op) if self._ns_per_op else 0

    def start_clock(self) -> SimClock:
        self._ends.clocked()
        self._clock = SimClock(self.env, self._ends)
        return self._clock

    def start(
        self,
        job_id: int,
        request: Request,
        subgraph: Subgraph,
        now_ns: int,
        on_done: Callable[[Completion], None],
    ) -> None:
        """Run ``subgraph`` from ``now_ns`` (at or after the present: a decision
        that took scheduler time starts its subgraphs late)."""
        facts = self._static.get(id(subgraph))
        if facts is None or facts.subgraph is not subgraph:
            facts = self._facts(subgraph)
        i = facts.i
        assert facts.concurrent or not self._busy[i], (
            f"{subgraph.processor} already runs a subgraph")
        present_ns = self._now_ns()
        start = now_ns if now_ns > present_ns else present_ns
        heat = self.heat
        if present_ns >= heat.next_tick_ns:
            self._govern_to(present_ns)
        if heat.down[i]:
            run = Run(facts, job_id, request, start, on_done, False, 0, 0.0, 1.0)
            self._occupy(run, present_ns, start + FAIL_NS)
            return
        if not facts.touched:
            if facts.touch_key not in self.memory.touched:
                arena = self._op_table(subgraph.model, subgraph.processor).arena_bytes(
                    subgraph.ops)
                self.memory.touch(facts.touch_key, arena, present_ns)
            facts.touched = True
        moved = self._tensors.moved_bytes((job_id, request.request_id), facts)
        extra = (transfer_ns(moved, self._transfer_fixed_us, self._transfer_gbps)
                 if moved > 0 else 0.0)
        level = heat.governor.level[i] * _STATES
        self._occupy(Run(facts, job_id, request, start, on_done, True, level, extra,
                         self._noise()), present_ns)

    def read_sensors(self, now_ns: int) -> tuple[SensorSample, ...]:
        """Readings at the present time (:meth:`Heat.read`)."""
        return self.heat.read(self._now_ns(), self._busy)

    def close(self) -> None:
        self._tensors.clear()
        self._costs.clear()
        self._op_tables.clear()

    # -- state -------------------------------------------------------------------------------

    def frequency_mhz(self, name: str) -> float:
        """Current (possibly throttled) frequency of a processor."""
        self.heat.advance(self._now_ns())
        return self.heat.frequency_mhz(self._processor_index(name))

    def _now_ns(self) -> int:
        """The present: the run's clock's (which takes the ends itself, so the environment's
        own time may lag it: :mod:`devices.twin.ends`), or the environment's before one."""
        return self._clock.now_ns() if self._clock is not None else int(self.env.now)

    def _processor_index(self, name: str) -> int:
        if name not in self._index:
            raise UserError(f"twin {self.spec.name}: unknown processor {name!r}")
        return self._index[name]

    # -- latency -----------------------------------------------------------------------------

    def _graph(self, model: str) -> ModelGraph:
        if model not in self._graphs:
            raise UserError(f"twin {self.spec.name}: no graph loaded for model {model!r}")
        return self._graphs[model]

    def _cost(self, subgraph: Subgraph, shared: bool | None = None) -> SubgraphCost:
        """The subgraph's cost figures; ``shared`` (None: as its loaded plan says) when it
        is a partition of a model's one interpreter."""
        if shared is None:
            plan = self._plans.get(subgraph.model)
            shared = plan is not None and plan.shared_interpreter
        key = (subgraph.model, subgraph.processor, subgraph.ops, shared)
        if key not in self._costs:
            self._costs[key] = self._op_table(subgraph.model, subgraph.processor).subgraph(
                subgraph.ops, shared)
        return self._costs[key]

    def _op_table(self, model: str, processor: str) -> OpTable:
        key = (model, processor)
        if key not in self._op_tables:
            spec = self.spec.processor(processor)
            self._op_tables[key] = OpTable.of(spec, self._graph(model), self.spec.device)
        return self._op_tables[key]

    def _price(self, run: Run) -> float:
        """``run``'s latency in the present state (:mod:`devices.twin.sharing`)."""
        facts = run.facts
        i = facts.i
        ns = (self._state_latency(facts, run.level_key) + run.extra_ns) * run.noise
        k = len(self._runs[i])
        return ns if k == 1 else ns * slowdown(self.spec.processors[i].concurrency, k)

    def _state_latency(self, facts: Facts, level_key: int) -> float:
        """The subgraph's latency at DVFS level ``level_key // _STATES`` with the other
        processors busy now: computed once per subgraph and state, then looked up."""
        i = facts.i
        others = self._n_busy - 1  # (its own processor is busy)
        key = level_key + others  # (others < _STATES: fewer processors than that)
        hit = facts.state_ns.get(key)
        if hit is not None:
            return hit
        spec, dev = self.spec.processors[i], self.spec.device
        bandwidth = effective_bandwidth(dev.memory_bandwidth_gbps, spec.bandwidth_share,
                                        others + 1)
        f_ratio = spec.freqs_mhz[level_key // _STATES] / spec.f_max_mhz
        ns = self._cost(facts.subgraph).latency_ns(f_ratio, bandwidth)
        if others and spec.corun_factor != 1.0:
            ns *= 1.0 + (spec.corun_factor - 1.0) * others
        facts.state_ns[key] = ns
        return ns

    def _noise(self) -> float:
        """A lognormal latency factor; drawn in blocks, the same sequence as one draw at a
        time (numpy's Generator fills an array draw by draw)."""
        sigma = self._sigma
        if sigma <= 0:
            return 1.0
        if not self._noise_block:
            self._noise_block = self.rng.lognormal(0.0, sigma, size=NOISE_BLOCK).tolist()
            self._noise_block.reverse()
        return self._noise_block.pop()

    def _facts(self, subgraph: Subgraph) -> Facts:
        """What the hot path needs of ``subgraph`` that never changes during a run (made once
        per subgraph object)."""
        facts = self._static.get(id(subgraph))
        if facts is not None and facts.subgraph is subgraph:
            return facts
        i = self._processor_index(subgraph.processor)
        plan = self._plans.get(subgraph.model)
        last = plan is not None and subgraph.last_unit >= plan.num_units - 1
        made = frozenset() if last else self._graph(subgraph.model).outputs_of(subgraph.ops)
        if plan is not None:
            made = made & self._tensors.read_by_some(plan)
        inputs = self._tensors.pure_inputs(subgraph)
        facts = Facts(subgraph, i, (subgraph.model, subgraph.processor, subgraph.ops),
                       inputs, dict.fromkeys(sorted(made), subgraph.processor), last,
                       plan is not None and plan.concurrent)
        self._static[id(subgraph)] = facts
        return facts

    def _occupy(self, run: Run, present_ns: int, end_ns: int = -1) -> None:
        """``run``'s processor is busy from its start (``present_ns``: the present);
        every running subgraph is priced again, ``run`` too unless it ends at ``end_ns``."""
        i = run.facts.i
        runs = self._runs[i]
        if not runs:
            self._busy[i] = True
            self._n_busy += 1
            self.heat.busy(i, run.start_ns)
        runs.append(run)
        if end_ns >= 0:
            self._ends.set(run, end_ns, present_ns)
        self._reprice(present_ns)

    def _reprice(self, now_ns: int) -> None:
        """Every running subgraph at the present state: those whose end moves get a new end
        event (those ending now keep theirs; a failing one is never re-priced)."""
        for runs in self._runs:
            for run in runs:
                if not run.ok or (run.order >= 0 and run.end_ns <= now_ns):
                    continue
                end = run.reprice(now_ns, self._price(run))
                if end != run.end_ns:
                    self._ends.set(run, end, now_ns)

    def _govern_to(self, now_ns: int) -> None:
        """Run the governor ticks due by ``now_ns`` (each integrates the heat over its tick,
        as :mod:`devices.twin.heat` describes); between ticks a start or an end only adds
        busy time, and the network is integrated to the present only when sensors are read."""
        heat = self.heat
        if now_ns >= heat.next_tick_ns:
            heat.advance(now_ns - (now_ns - heat.next_tick_ns) % heat.period_ns)

    def _end(self, run: Run) -> None:
        """``run`` ends (the present is its end: :class:`EndQueue`)."""
        end_ns, facts = run.end_ns, run.facts
        if end_ns >= self.heat.next_tick_ns:
            self._govern_to(end_ns)
        i = facts.i
        runs = self._runs[i]
        runs.remove(run)
        if not runs:
            self.heat.idle(i, end_ns)
            self._busy[i] = False
            self._n_busy -= 1
        key = (run.job_id, run.request.request_id)
        if run.ok:
            self._tensors.record(key, facts)
        else:
            self._tensors.forget(key)
        self._reprice(end_ns)
        run.on_done(Completion(run.job_id, run.request, facts.subgraph, run.start_ns, end_ns,
                               run.ok))
