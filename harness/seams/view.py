"""What a scheduler sees (:class:`SchedulerView`, immutable) and what it answers
(:class:`Decision`).

A policy is asked for a decision whenever something happened (an arrival, a completion). It
sees the queue of waiting jobs front first, every processor with its state and the runtime's
estimate of when it is free, and the plans; it answers with assignments (run this subgraph
of this job on its processor) and drops.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from harness.seams.plan import ModelPlan, Processor, Subgraph
from harness.seams.records import Request, SensorSample


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
    #: the processor its last subgraph ran on ("" before its first: its next subgraph pays
    #: a handoff on any other processor)
    last_processor: str = ""

    # written out: compiled (harness.native), a generated __init__ is ~16x slower
    def __init__(self, job_id: int, request: Request, next_unit: int, enqueue_ns: int,
                 executed: int = 0, last_processor: str = "") -> None:
        object.__setattr__(self, "job_id", job_id)
        object.__setattr__(self, "request", request)
        object.__setattr__(self, "next_unit", next_unit)
        object.__setattr__(self, "enqueue_ns", enqueue_ns)
        object.__setattr__(self, "executed", executed)
        object.__setattr__(self, "last_processor", last_processor)

    @property
    def model(self) -> str:
        return self.request.model


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
    #: latest cached sensor reading (the sensor cache of :mod:`harness.runtime.sensors`)
    state: SensorSample | None = None

    # written out: compiled (harness.native), a generated __init__ is ~16x slower
    def __init__(self, processor: Processor, idle: bool, available_ns: int, queued: int = 0,
                 state: SensorSample | None = None) -> None:
        object.__setattr__(self, "processor", processor)
        object.__setattr__(self, "idle", idle)
        object.__setattr__(self, "available_ns", available_ns)
        object.__setattr__(self, "queued", queued)
        object.__setattr__(self, "state", state)

    @property
    def name(self) -> str:
        return self.processor.name


@dataclass(frozen=True, slots=True)
class SchedulerView:
    """What a policy is handed: nothing in it may be changed."""

    now_ns: int
    #: waiting jobs, front of the queue first (a read-only window on the runtime's queue,
    #: made on access and valid while the policy decides: read only the head you need)
    queue: Sequence[JobView]
    processors: tuple[ProcessorView, ...]
    plans: Mapping[str, ModelPlan]

    # written out: compiled (harness.native), a generated __init__ is ~16x slower
    def __init__(self, now_ns: int, queue: Sequence[JobView], processors: tuple[ProcessorView, ...],
                 plans: Mapping[str, ModelPlan]) -> None:
        object.__setattr__(self, "now_ns", now_ns)
        object.__setattr__(self, "queue", queue)
        object.__setattr__(self, "processors", processors)
        object.__setattr__(self, "plans", plans)

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

    # written out: compiled (harness.native), a generated __init__ is ~16x slower
    def __init__(self, job_id: int, subgraph: Subgraph) -> None:
        object.__setattr__(self, "job_id", job_id)
        object.__setattr__(self, "subgraph", subgraph)


@dataclass(frozen=True, slots=True)
class Decision:
    """What a policy answers. ``work`` has no default: every policy states what its decision
    cost, since only the policy knows its own unit of work (the runtime sees the jobs a
    decision read, not the chain steps or candidates it weighed), and a simulated device
    charges time for it. A policy whose decisions cost nothing says ``work=0``."""

    assignments: tuple[Assignment, ...]
    #: jobs to drop (e.g. Band drops jobs that cannot meet their SLO)
    drops: tuple[int, ...]
    #: the decision's counted work (chain steps, candidates weighed: the policy's own unit
    #: of work, as a native implementation would do it); a simulated device charges time for
    #: it (``Device.decision_ns``)
    work: int

    # written out: compiled (harness.native), a generated __init__ is ~16x slower
    def __init__(self, assignments: tuple[Assignment, ...] = (), drops: tuple[int, ...] = (),
                 *, work: int) -> None:
        object.__setattr__(self, "assignments", assignments)
        object.__setattr__(self, "drops", drops)
        object.__setattr__(self, "work", work)
