"""The device protocol every backend implements (twin, host, adb), and the clock it runs on.

A device runs at most one subgraph at a time on each processor; the runtime keeps the
processors' local queues and calls :meth:`Device.start` only on an idle processor. A device
never decides what runs where. It says which ops each processor can run
(:meth:`Device.op_support`), how long a subgraph takes alone (:meth:`Device.profile`), and
reads its sensors.

**Time.** :meth:`Device.start_clock` begins the run: time 0 is that instant, and the
returned :class:`Clock` is what the runtime's one loop (:mod:`harness.runtime.driver`) runs
on. A simulated device's clock jumps from event to event; a real one's is the wall clock.
The two differ only in :meth:`Clock.wait`. What that loop drives is an :class:`Engine` (a
device is one); a device running a baseline with an engine of its own gets the loop as
:attr:`BaselineRun.loop` (:class:`RuntimeLoop`), so every run has one loop.

A device backend is built by the composition root from its config node, whose ``_target_``
names the device class: the class carries its schema as ``Conf``, its :class:`DeviceKind`
(the word results carry and what it means), whether it needs the models' ``.tflite`` files
and which baselines it runs with its own means (:class:`~harness.seams.policy.Runner`), and
builds itself with ``open(conf, context)``. Its one optional hook, ``prepare_run``, is part
of :class:`DeviceClass`, with its default (nothing to check) in :class:`DeviceDefaults`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from harness.seams.graph import ModelGraph
from harness.seams.plan import ModelPlan, Processor, Subgraph
from harness.seams.policy import Policy, Runner
from harness.seams.progress import StartPhase, no_phases
from harness.seams.records import Completion, DeviceInfo, Request, SensorSample


@dataclass(frozen=True, slots=True)
class DeviceKind:
    """Which kind of numbers a device produces, declared once on its class: the word results
    carry (``DeviceInfo.kind``, the manifest's ``device_kind``) and what it means, in words
    every report leads with."""

    #: ``twin``, ``host``, ``adb``...
    word: str
    #: what produced the numbers, e.g. ``SIMULATION (digital twin)``
    meaning: str

    @property
    def words(self) -> str:
        """``TWIN = SIMULATION (digital twin)``: the line a reader cannot miss."""
        return f"{self.word.upper()} = {self.meaning}"


@runtime_checkable
class Clock(Protocol):
    """The time a run goes by, and how completions reach the runtime."""

    def now_ns(self) -> int:
        """Nanoseconds since the run began."""
        ...

    def report(self, done: Completion) -> None:
        """A device reports a finished subgraph (from any thread)."""
        ...

    def wait(self, until_ns: int) -> Completion | None:
        """Let time pass until the next completion is reported or ``until_ns`` comes,
        whichever is first; return that completion, or None at ``until_ns``."""
        ...


@runtime_checkable
class Engine(Protocol):
    """What the runtime's one loop runs on: a clock to begin, subgraphs to start, sensors to
    read. Every :class:`Device` is one; so is what a device builds to run a baseline of its
    own (:class:`BaselineRunner`: the host's one thread per model) on the runtime's loop."""

    def decision_ns(self, work: int) -> int:
        """How long a decision of ``work`` counted operations takes on this device's CPU;
        the subgraphs it starts start that much later. 0 on a real device, whose decisions
        take real time."""
        ...

    def start_clock(self) -> Clock:
        """Begin the run: time 0 is now (after loading and profiling)."""
        ...

    def start(
        self,
        job_id: int,
        request: Request,
        subgraph: Subgraph,
        now_ns: int,
        on_done: Callable[[Completion], None],
    ) -> None:
        """Begin running ``subgraph`` on its (idle) processor; call ``on_done`` when it ends."""
        ...

    def read_sensors(self, now_ns: int) -> tuple[SensorSample, ...]:
        """One reading per processor; unavailable sensors are ``None``, never invented."""
        ...


@runtime_checkable
class Device(Engine, Protocol):
    """A backend: what its processors run and how fast, and the :class:`Engine` the run's
    loop drives."""

    def describe(self) -> DeviceInfo:
        """Name, kind (twin/host/adb), processors, facts for the manifest."""
        ...

    def op_support(self, graph: ModelGraph) -> Mapping[str, frozenset[int]]:
        """Processor name -> indices of the ops of ``graph`` it cannot run."""
        ...

    def load(self, graphs: Mapping[str, ModelGraph], plans: Mapping[str, ModelPlan]) -> None:
        """Prepare to run every subgraph of ``plans`` (build slices, interpreters...). Called
        once, with the plans the run executes."""
        ...

    def profile(self, plan: ModelPlan, subgraph: Subgraph) -> int:
        """Latency in ns of ``subgraph`` run alone on its processor (measured or modelled);
        the subgraph need not belong to a loaded plan."""
        ...

    def handoff_ns(self, plan: ModelPlan, subgraph: Subgraph) -> int:
        """The least extra time ``subgraph`` takes when its predecessor ran on another
        processor (moving the tensors the unit before it made); 0 where the profile already
        counts every copy."""
        ...

    def close(self) -> None:
        ...


class RowSink(Protocol):
    """Where a run's rows go (the run folder's journals): ``table`` is ``requests``,
    ``subgraphs``, ``sensors`` or another table of :mod:`harness.seams.rows`."""

    def append(self, table: str, row: Mapping[str, Any]) -> None: ...


class RuntimeLoop(Protocol):
    """The harness's one loop, handed to a device that runs a baseline of its own
    (:attr:`BaselineRun.loop`): drive the run's traffic through the runtime with ``policy``
    over ``plans`` on ``processors`` (lanes of ``engine``), recording every request, subgraph
    and sensor row as any run does; return the run's end (ns)."""

    def __call__(self, policy: Policy, plans: Mapping[str, ModelPlan],
                 processors: tuple[Processor, ...], engine: Engine) -> int: ...


@dataclass(frozen=True)
class BaselineRun:
    """One baseline to run, for a device that runs whole baselines itself."""

    #: its name in results (the key of its config under ``baselines``)
    name: str
    #: what it is (its class's declared :class:`~harness.seams.policy.Runner`)
    runner: Runner
    #: its typed config (``TfliteConf``, ``BandConf``...)
    conf: Any
    #: the scenario (``harness.config.schema.ScenarioConf``)
    scenario: Any
    #: the seed of this run, and the generators split from it by purpose
    seed: int
    rngs: Mapping[str, np.random.Generator]
    #: called with the run's time (ns) as it goes (a progress bar)
    progress: Callable[[int], None]
    #: the runtime's loop, for a device whose own means are an engine under it (the host's
    #: threads); a device that runs a baseline's own tools (a phone) leaves it
    loop: RuntimeLoop


@runtime_checkable
class BaselineRunner(Protocol):
    """A device that runs a whole baseline with its own means instead of executing the
    subgraphs the runtime dispatches on its processors: a phone's ``benchmark_model``
    processes and Band's ``band_benchmark``, which write their rows as they go; the host's
    plain LiteRT threads, an :class:`Engine` of one lane per model that the harness's loop
    (:attr:`BaselineRun.loop`) drives and records. It returns facts for the manifest; a
    baseline it cannot run is a UserError saying so."""

    def runs_baseline(self, runner: Runner) -> bool:
        """Whether this device runs baselines of ``runner`` itself (else the runtime drives
        them)."""
        ...

    def run_baseline(self, run: BaselineRun, sink: RowSink) -> Mapping[str, object]: ...


@dataclass(frozen=True)
class PolicyRun:
    """One baseline's policy, prepared on the device's profile, for a device that runs the
    policy itself (a phone's native runner, whose decision library holds a twin of every
    policy): what it needs to run the scenario's traffic under it and write the rows."""

    #: its name in results, and the seed of this run
    name: str
    seed: int
    #: the plans it runs and the profile it was prepared with ((model, subgraph) -> ns)
    plans: Mapping[str, ModelPlan]
    profile: Mapping[tuple[str, int], int]
    #: the header of its decision trace, as :mod:`harness.replay`'s recorder writes it
    #: (``docs/decision-traces.md``): the device's copy of the policy is built from it
    header: Mapping[str, Any]
    #: the scenario (``harness.config.schema.ScenarioConf``), and each model's SLO (ns)
    scenario: Any
    slo_ns: Mapping[str, int]
    #: open-loop traffic (periodic, Poisson): every request the run's seeded traffic issues,
    #: in arrival order, times from the run's start; empty for closed loops
    arrivals: Sequence[Request]
    #: whether a request is warm-up (arrived before the scenario's warm-up ended)
    is_warmup: Callable[[Request], bool]
    #: replays a decision trace the device wrote through the Python policy: the first
    #: differing decision or why it cannot be replayed (one line), or None when clean
    check_trace: Callable[[Path], str | None]
    #: called with the run's time (ns) as it goes (a progress bar)
    progress: Callable[[int], None]


@runtime_checkable
class DecisionPricing(Protocol):
    """A device that prices a decision's counted work per policy (a twin: each policy's unit
    of work has its own measured price, docs/decision-cost.md); told, before a run, which
    baseline and which policy (its ``name``: ``tflite``, ``band``, ``adms``) will decide."""

    def price_decisions(self, baseline: str, policy: str) -> None: ...


@runtime_checkable
class PolicyRunner(Protocol):
    """A device that runs a prepared policy itself instead of executing the subgraphs the
    runtime dispatches (a phone: the runtime over adb would pay a round trip per subgraph).
    It writes ``requests``, ``subgraphs`` and ``sensors`` rows into ``sink`` as the runtime
    would (:mod:`harness.seams.rows`) and returns facts for the manifest, among them
    ``end_ns``, the run's end on its clock."""

    def run_policy(self, run: PolicyRun, sink: RowSink) -> Mapping[str, object]: ...


@dataclass(frozen=True)
class DeviceContext:
    """What a device backend is opened with."""

    #: model name -> graph
    graphs: Mapping[str, ModelGraph]
    #: model name -> its ``.tflite`` (empty for devices that need only graphs)
    paths: Mapping[str, Path]
    #: the generator of the device's own randomness (a twin's latency noise)
    rng: np.random.Generator
    #: where the device may cache slices and profiles between runs
    cache_dir: Path
    #: where the device reports its own phases before the clock (the host: cutting slices,
    #: building interpreters; :mod:`harness.seams.progress`)
    phases: StartPhase = no_phases


class DeviceClass(Protocol):
    """What a ``_target_`` of a device config must name (a class inheriting
    :class:`DeviceDefaults` has the optional members' defaults)."""

    #: the config schema (a dataclass) its node is validated against
    Conf: ClassVar[type]
    #: which kind of numbers it produces, and what that means
    kind: ClassVar[DeviceKind]
    #: it runs real ``.tflite`` files (the host, a phone) rather than graph profiles
    needs_model_files: ClassVar[bool]
    #: repetitions (seeds) of every baseline when the config says 0
    default_seeds: ClassVar[int]

    def open(self, conf: Any, context: DeviceContext) -> Device: ...

    def prepare_run(self, conf: Any, run: Sequence[str], runners: Mapping[str, Runner],
                    dry_run: bool) -> Any:
        """Optional (default: ``conf`` as is). Before anything runs: check the baselines
        ``run`` names (``runners``: baseline -> how it runs) and return the device's config
        with what only the hardware knows filled in (a phone names itself after its probed
        model); a baseline it cannot run is a UserError saying so."""
        ...


class DeviceDefaults:
    """The defaults of :class:`DeviceClass`'s optional members: inherit it and override what
    the device needs."""

    @classmethod
    def prepare_run(cls, conf: Any, run: Sequence[str], runners: Mapping[str, Runner],
                    dry_run: bool) -> Any:
        """Nothing to check or fill in."""
        return conf
