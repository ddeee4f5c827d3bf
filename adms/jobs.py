"""What one ADMS decision knows of the jobs it examines (:mod:`adms.scheduler`): each job's
options and the parts of its score that do not depend on the processor, and what jobs of one
kind share. Records built at every decision, so each has a written-out ``__init__``: compiled
(:mod:`harness.native`), a generated one is ~16x slower."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from harness.seams.plan import ModelPlan, Subgraph
from harness.seams.view import JobView

#: a job's fastest option on one processor: (ns until its model is done if started there on a
#: free processor, the subgraph to run now)
Option = tuple[int, Subgraph]

#: no work reserved anywhere (read only)
NO_WORK: Final[dict[str, int]] = {}


@dataclass(slots=True)
class Job:
    """A queued job with everything about it that does not depend on the processor (made
    for every job examined at every decision, and never changed: not frozen only because a
    frozen dataclass takes four times as long to build)."""

    position: int
    job: JobView
    #: processor name -> the job's fastest option there (hot processors left out if possible)
    options: dict[str, Option]
    #: T_SLO, ms (None: no deadline term)
    slo_ms: float | None
    enqueue_ms: float
    avg_ms: float
    remaining_ms: float
    #: eq. (2) at this decision's time (it does not depend on the processor)
    wait: float
    #: T_latency, ms, where the reading makes it the same on every processor (``t_latency``
    #: `free_device` or `since_arrival`); None: on the processor scored (`on_processor`)
    latency_ms: float | None

    def __init__(self, position: int, job: JobView, options: dict[str, Option],
                 slo_ms: float | None, enqueue_ms: float, avg_ms: float, remaining_ms: float,
                 wait: float, latency_ms: float | None = None) -> None:
        self.position = position
        self.job = job
        self.options = options
        self.slo_ms = slo_ms
        self.enqueue_ms = enqueue_ms
        self.avg_ms = avg_ms
        self.remaining_ms = remaining_ms
        self.wait = wait
        self.latency_ms = latency_ms


@dataclass(frozen=True, slots=True)
class Kind:
    """What every job of one kind (model, next unit) shares while the estimates behind the
    model's table and options hold: cached per kind, dropped with the model's options."""

    plan: ModelPlan
    #: the hot processors the options were filtered for
    hot: frozenset[str]
    options: dict[str, Option]
    #: T_avg, ns and ms
    avg_ns: int
    avg_ms: float
    #: C_remaining, ms
    remaining_ms: float

    def __init__(self, plan: ModelPlan, hot: frozenset[str], options: dict[str, Option],
                 avg_ns: int, avg_ms: float, remaining_ms: float) -> None:
        object.__setattr__(self, "plan", plan)
        object.__setattr__(self, "hot", hot)
        object.__setattr__(self, "options", options)
        object.__setattr__(self, "avg_ns", avg_ns)
        object.__setattr__(self, "avg_ms", avg_ms)
        object.__setattr__(self, "remaining_ms", remaining_ms)
