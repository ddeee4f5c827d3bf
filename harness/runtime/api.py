"""The seams between harness, policy and device.

Time is integer nanoseconds everywhere (fields end in ``_ns``).

* Traffic makes :class:`Request` objects; the runtime turns each into a job that walks its
  model's :class:`~harness.plan.ModelPlan` unit by unit.
* A **policy** (a baseline or ADMS) is asked for a :class:`Decision` whenever something
  happens (an arrival, a completion). It sees only an immutable :class:`SchedulerView` and
  learns about finished work through :meth:`Policy.observe`. It never sleeps, does I/O or
  makes traffic.
* A **device** runs one subgraph at a time per processor and reports a :class:`Completion`;
  it also answers sensor reads (:class:`SensorSample`). Its protocol is in ``devices.base``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from harness.graph import ModelGraph
from harness.plan import ModelPlan, Processor, Subgraph

NS_PER_MS = 1_000_000
NS_PER_S = 1_000_000_000


@dataclass(frozen=True, slots=True)
class Request:
    """One inference request of one model."""

    request_id: int
    model: str
    #: frame this request belongs to (all models of a scenario share a frame id), or -1
    frame_id: int
    arrival_ns: int
    #: latency budget; the deadline is ``arrival_ns + slo_ns``; 0 means no SLO
    slo_ns: int = 0
    #: which client (stream) issued it; closed-loop streams wait for their own requests
    stream: int = 0

    @property
    def deadline_ns(self) -> int | None:
        return self.arrival_ns + self.slo_ns if self.slo_ns > 0 else None


@dataclass(frozen=True, slots=True)
class JobView:
    """What a scheduler sees of a queued job."""

    job_id: int
    request: Request
    #: the first unit of the model plan not yet executed
    next_unit: int
    #: when the job (re-)entered the queue
    enqueue_ns: int
    #: number of subgraphs of this job already executed
    executed: int = 0

    @property
    def model(self) -> str:
        return self.request.model


@dataclass(frozen=True, slots=True)
class SensorSample:
    """One reading of one processor's sensors; ``None`` means the sensor is not available."""

    processor: str
    t_ns: int
    temperature_c: float | None = None
    frequency_hz: float | None = None
    max_frequency_hz: float | None = None
    #: utilisation in [0, 1]
    load: float | None = None
    power_w: float | None = None
    #: the processor is throttled (its frequency capped by a thermal governor)
    throttled: bool | None = None
    #: temperature at which its thermal governor starts throttling
    throttle_temperature_c: float | None = None


@dataclass(frozen=True, slots=True)
class ProcessorView:
    """What a scheduler sees of one processor."""

    processor: Processor
    #: nothing running and nothing waiting in its local queue
    idle: bool
    #: the runtime's estimate of when its running and queued work ends (>= now)
    available_ns: int
    #: subgraphs waiting in its local queue (not counting the running one)
    queued: int = 0
    #: latest cached sensor reading (the Processor Monitor), if any
    state: SensorSample | None = None

    @property
    def name(self) -> str:
        return self.processor.name


@dataclass(frozen=True, slots=True)
class SchedulerView:
    """An immutable snapshot handed to a policy."""

    now_ns: int
    #: waiting jobs, front of the queue first
    queue: tuple[JobView, ...]
    processors: tuple[ProcessorView, ...]
    plans: Mapping[str, ModelPlan]

    def processor(self, name: str) -> ProcessorView:
        for p in self.processors:
            if p.name == name:
                return p
        raise KeyError(name)

    @property
    def idle(self) -> tuple[ProcessorView, ...]:
        return tuple(p for p in self.processors if p.idle)


@dataclass(frozen=True, slots=True)
class Assignment:
    """Run ``subgraph`` for job ``job_id`` on ``subgraph.processor`` (now if idle, else next
    in that processor's local queue)."""

    job_id: int
    subgraph: Subgraph


@dataclass(frozen=True, slots=True)
class Decision:
    assignments: tuple[Assignment, ...] = ()
    #: jobs to drop (e.g. Band drops jobs that cannot meet their SLO)
    drops: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Completion:
    """A subgraph that finished on a device."""

    job_id: int
    request: Request
    subgraph: Subgraph
    start_ns: int
    end_ns: int
    #: False when the device failed to run it
    ok: bool = True

    @property
    def latency_ns(self) -> int:
        return self.end_ns - self.start_ns


@runtime_checkable
class Policy(Protocol):
    """A baseline or ADMS: analysis of models into plans, and scheduling decisions."""

    #: short name used in results: ``tflite``, ``band``, ``adms``
    name: str
    #: unfinished jobs go back to the front of the queue (True) or to its back
    reinsert_front: bool

    def plan(
        self,
        graph: ModelGraph,
        processors: Sequence[Processor],
        unsupported: Mapping[str, frozenset[int]],
    ) -> ModelPlan:
        """Cut a model into the subgraphs this policy will place. ``unsupported[p]`` holds the
        indices of the ops processor ``p`` cannot run (Band: ``ModelSpec::unsupported_ops``)."""
        ...

    def prepare(
        self, plans: Mapping[str, ModelPlan], profile: Mapping[tuple[str, int], int]
    ) -> None:
        """Seed latency estimates: ``profile[(model, subgraph index)]`` = ns when run alone."""
        ...

    def schedule(self, view: SchedulerView) -> Decision:
        ...

    def observe(self, completion: Completion) -> None:
        """Learn from a finished subgraph (latency estimators)."""
        ...


@dataclass(frozen=True, slots=True)
class DeviceInfo:
    """What a device says of itself; recorded in every run's manifest."""

    name: str
    #: ``twin``, ``host`` or ``adb``: which kind produced the numbers
    kind: str
    processors: tuple[Processor, ...]
    facts: Mapping[str, object] = field(default_factory=dict)
