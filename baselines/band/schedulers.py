"""Band's six schedulers, each a small class with ``schedule(view, estimator) -> Decision``.

Band (``band/scheduler/*.cc``) runs one scheduler over a global request queue. Two kinds of
worker exist (``GetWorkerType``):

* **device-queue** workers keep their own FIFO, so a scheduler may hand them work while they
  are busy: ``fixed_worker`` (every job to its model's worker) and ``round_robin`` (each idle
  worker takes the first job it can run whole). Both place whole models only
  (``NeedFallbackSubgraphs() == false``).
* **global-queue** workers hold one job at a time; a job planned for a busy worker goes back to
  the queue (Band's ``Planner::EnqueueToWorker`` re-enqueues it). ``shortest_expected_latency``,
  ``least_slack_time_first`` and ``heterogeneous_earliest_finish_time`` (plus its
  ``_reserved`` variant) place subgraphs (``NeedFallbackSubgraphs() == true``) using the
  shortest-latency search of :mod:`baselines.band.planner`. Here they assign only to idle
  processors, at most one job each per decision.

The global-queue schedulers look at the first ``queue_head`` jobs only (Band's
``schedule_window_size``, unlimited by default; ADMS's ``loop_call_size`` is the same idea).

**SLO dropping** (``drop_on_slo``): Band's planner drops a job when it is handed to a worker
and violates its SLO (``Planner::IsSLOViolated``). As Band runs (``slo_check: executed``, the
default), the check reads the job's subgraph key and expected time before they are set, so
only a job already past its deadline is dropped; ``slo_check: written`` applies the check as
the code reads (``waiting(worker) + expected(subgraph)`` beyond the time left).
Least-slack-first also drops a job whose whole fastest chain ends past its deadline (that
check uses the chain it computed, so it works as written). Jobs without an SLO are never
dropped. Deadlines are the request's
(``arrival + slo``), as Band keeps a job's first ``enqueue_time`` across its subgraphs.

Waiting times are ns from now: ``max(0, available_ns - now)``, and 0 for an idle processor.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

import numpy as np

from baselines.band.estimator import LatencyEstimator
from baselines.band.planner import Chain, ChainFinder
from harness.seams.plan import ModelPlan, Subgraph
from harness.seams.view import Assignment, Decision, JobView, SchedulerView

#: slack of a job without an SLO (Band: std::numeric_limits<int>::max())
NO_SLACK_LIMIT = 2**63 - 1


class BandScheduler(Protocol):
    #: judge SLO violations as Band's code reads, not as it runs (``slo_check: written``)
    slo_as_written: bool

    def schedule(self, view: SchedulerView, estimator: LatencyEstimator) -> Decision: ...


class _Scheduler:
    """What every Band scheduler shares: how it judges an SLO violation."""

    slo_as_written: bool = False


class _Round:
    """One decision in progress: what is assigned, dropped, and how busy each processor is."""

    def __init__(self, view: SchedulerView, est: LatencyEstimator, drop_on_slo: bool,
                 as_written: bool = False) -> None:
        self.view, self.est, self.drop_on_slo = view, est, drop_on_slo
        self.as_written = as_written
        self.now = view.now_ns
        self.waiting = {p.name: 0 if p.idle else max(0, p.available_ns - self.now)
                        for p in view.processors}
        self.idle = {p.name for p in view.processors if p.idle}
        self.assignments: list[Assignment] = []
        self.drops: list[int] = []
        self._chains: dict[tuple[str, int, tuple[int, ...]], Chain | None] = {}
        #: counted work: jobs looked at and every chain search's subgraph steps, as Band
        #: itself searches (once per job, with no sharing)
        self.work = 0

    def cost(self, sg: Subgraph) -> int:
        return self.est.expected(sg.key)

    def costs(self, plan: ModelPlan) -> np.ndarray:
        """Expected latency of each subgraph of ``plan`` (estimates are fixed within a round)."""
        return self.est.costs(plan.model, len(plan.subgraphs))

    def shortest(self, finder: ChainFinder, job: JobView, waiting: Mapping[str, int]
                 ) -> Chain | None:
        """The job's fastest chain given ``waiting``; jobs at the same unit of the same model
        share it within the round (the estimates do not change while it lasts)."""
        key = (job.model, job.next_unit, tuple(waiting.values()))
        plan = self.plan(job)
        self.work += 1 + finder.steps(plan, job.next_unit)
        if key not in self._chains:
            self._chains[key] = finder.shortest(plan, job.next_unit, waiting, self.costs(plan))
        return self._chains[key]

    def plan(self, job: JobView) -> ModelPlan:
        return self.view.plans[job.model]

    # Mirrors band/planner.cc Planner::IsSLOViolated (see the module docstring).
    def violates_slo(self, job: JobView, sg: Subgraph) -> bool:
        deadline = job.request.deadline_ns
        if not self.drop_on_slo or deadline is None:
            return False
        if not self.as_written:
            return self.now > deadline
        return self.now + self.waiting[sg.processor] + self.cost(sg) > deadline

    def drop(self, job: JobView) -> None:
        self.drops.append(job.job_id)

    # Mirrors band/planner.cc Planner::EnqueueToWorker: SLO check first, then the worker.
    def give(self, job: JobView, sg: Subgraph, *, device_queue: bool = False) -> bool:
        """Assign (or drop) ``job``; False when a global-queue worker is busy (job stays)."""
        if self.violates_slo(job, sg):
            self.drop(job)
            return True
        if not device_queue and sg.processor not in self.idle:
            return False
        self.assignments.append(Assignment(job.job_id, sg))
        self.waiting[sg.processor] += self.cost(sg)
        self.idle.discard(sg.processor)
        return True

    def decision(self) -> Decision:
        return Decision(tuple(self.assignments), tuple(self.drops), work=self.work)


# Mirrors band/backend/tfl/model_executor.cc GetLargestSubgraphKey (most ops, first wins).
def largest_subgraph(plan: ModelPlan, next_unit: int, processor: str) -> Subgraph | None:
    """The candidate on ``processor`` with the most ops, or None when it has none."""
    best: Subgraph | None = None
    for sg in plan.candidates(next_unit):
        if sg.processor == processor and (best is None or len(sg.ops) > len(best.ops)):
            best = sg
    return best


def _head(queue: Sequence[JobView], queue_head: int | None) -> list[JobView]:
    return list(queue if queue_head is None else queue[: max(queue_head, 0)])


# -- device-queue schedulers ------------------------------------------------------------------


# Mirrors band/scheduler/fixed_worker_scheduler.cc.
class FixedWorker(_Scheduler):
    """Every queued job runs whole on its model's worker (busy or not)."""

    def __init__(self, workers: Mapping[str, str], drop_on_slo: bool = True) -> None:
        #: model -> processor name
        self.workers = dict(workers)
        self.drop_on_slo = drop_on_slo

    def schedule(self, view: SchedulerView, estimator: LatencyEstimator) -> Decision:
        rnd = _Round(view, estimator, self.drop_on_slo, self.slo_as_written)
        for job in view.queue:
            worker = self.workers.get(job.model)
            sg = None if worker is None else largest_subgraph(rnd.plan(job), job.next_unit, worker)
            if sg is not None:
                rnd.give(job, sg, device_queue=True)
        return rnd.decision()


# Mirrors band/scheduler/round_robin_scheduler.cc.
class RoundRobin(_Scheduler):
    """Each idle worker (in processor order) takes the first job it can run whole."""

    def __init__(self, drop_on_slo: bool = True) -> None:
        self.drop_on_slo = drop_on_slo

    def schedule(self, view: SchedulerView, estimator: LatencyEstimator) -> Decision:
        rnd = _Round(view, estimator, self.drop_on_slo, self.slo_as_written)
        queue = list(view.queue)
        for proc in view.idle:
            for k, job in enumerate(queue):
                sg = largest_subgraph(rnd.plan(job), job.next_unit, proc.name)
                if sg is not None:
                    rnd.give(job, sg, device_queue=True)
                    del queue[k]
                    break
        return rnd.decision()


# -- global-queue schedulers ------------------------------------------------------------------


def _most_urgent(
    rnd: _Round, finder: ChainFinder, jobs: Sequence[JobView], waiting: Mapping[str, int]
) -> tuple[int, Chain] | None:
    """Index and chain of the job whose fastest chain ends last (first such in queue order),
    looking once at each distinct (model, next unit)."""
    best: tuple[int, Chain] | None = None
    seen: set[tuple[str, int]] = set()
    for k, job in enumerate(jobs):
        if (job.model, job.next_unit) in seen:
            continue
        seen.add((job.model, job.next_unit))
        chain = rnd.shortest(finder, job, waiting)
        if chain is not None and (best is None or best[1].finish_ns < chain.finish_ns):
            best = (k, chain)
    return best


# Mirrors band/scheduler/shortest_expected_latency_scheduler.cc.
class ShortestExpectedLatency(_Scheduler):
    """Repeatedly take the queue head's most urgent job (largest shortest latency) and send it to
    the first subgraph of its fastest chain; a busy target leaves it queued."""

    def __init__(self, queue_head: int | None = None, drop_on_slo: bool = True) -> None:
        self.queue_head, self.drop_on_slo = queue_head, drop_on_slo
        self.finder = ChainFinder()

    def schedule(self, view: SchedulerView, estimator: LatencyEstimator) -> Decision:
        rnd = _Round(view, estimator, self.drop_on_slo, self.slo_as_written)
        local = _head(view.queue, self.queue_head)
        while local:
            found = _most_urgent(rnd, self.finder, local, rnd.waiting)
            if found is None:
                break
            job = local.pop(found[0])
            rnd.give(job, found[1].first)
        return rnd.decision()


def _slack(job: JobView, now_ns: int, expected_ns: int) -> int:
    deadline = job.request.deadline_ns
    return NO_SLACK_LIMIT if deadline is None else deadline - now_ns - expected_ns


# Mirrors band/scheduler/least_slack_first_scheduler.cc.
class LeastSlackTimeFirst(_Scheduler):
    """Sort the queue head by slack (deadline - now - fastest remaining latency), then give each
    job the first subgraph of its fastest chain if that worker was idle at the start."""

    def __init__(self, queue_head: int | None = None, drop_on_slo: bool = True) -> None:
        self.queue_head, self.drop_on_slo = queue_head, drop_on_slo
        self.finder = ChainFinder()

    def _chain(self, rnd: _Round, job: JobView, waiting: Mapping[str, int]) -> Chain | None:
        return rnd.shortest(self.finder, job, waiting)

    def _by_slack(self, rnd: _Round, jobs: list[JobView]) -> list[JobView]:
        def key(job: JobView) -> int:
            chain = self._chain(rnd, job, rnd.waiting)
            return _slack(job, rnd.now, NO_SLACK_LIMIT if chain is None else chain.finish_ns)
        return sorted(jobs, key=key)  # stable: equal slack keeps queue order

    def schedule(self, view: SchedulerView, estimator: LatencyEstimator) -> Decision:
        rnd = _Round(view, estimator, self.drop_on_slo, self.slo_as_written)
        jobs = _head(view.queue, self.queue_head)
        if not jobs or not rnd.idle:
            return rnd.decision()
        idle_at_start, waiting = set(rnd.idle), dict(rnd.waiting)
        for job in self._by_slack(rnd, jobs):
            chain = self._chain(rnd, job, waiting)
            if chain is None:
                continue
            deadline = job.request.deadline_ns
            if self.drop_on_slo and deadline is not None and rnd.now + chain.finish_ns > deadline:
                rnd.drop(job)
            elif chain.first.processor in idle_at_start:
                waiting[chain.first.processor] += rnd.cost(chain.first)
                rnd.give(job, chain.first)
        return rnd.decision()


# Mirrors band/scheduler/heterogeneous_earliest_finish_time_scheduler.cc.
class HeterogeneousEarliestFinishTime(_Scheduler):
    """Take the queue head's most urgent job; if its fastest chain starts on a busy worker, count
    that work against the worker and let the job yield, then look again; run the first job
    whose chain starts on an idle worker. With ``reserve``, each scheduled job's *next*
    subgraph is kept as a reservation that later searches (for other jobs) count as waiting
    work on its worker."""

    def __init__(
        self, queue_head: int | None = None, drop_on_slo: bool = True, reserve: bool = False
    ) -> None:
        self.queue_head, self.drop_on_slo, self.reserve = queue_head, drop_on_slo, reserve
        self.finder = ChainFinder()
        #: job id -> the next subgraph of its planned chain (reserved variant only)
        self.reserved: dict[int, Subgraph] = {}

    def _with_reservations(self, rnd: _Round, job: JobView, waiting: Mapping[str, int]
                           ) -> dict[str, int]:
        out = dict(waiting)
        for job_id, sg in self.reserved.items():
            if job_id != job.job_id:
                out[sg.processor] += rnd.cost(sg)
        return out

    def _pick(self, rnd: _Round, jobs: list[JobView]) -> tuple[int, Chain] | None:
        waiting, yielded = dict(rnd.waiting), set()
        while True:
            best: tuple[int, Chain] | None = None
            seen: set[tuple[str, int]] = set()
            for k, job in enumerate(jobs):
                if job.job_id in yielded or (job.model, job.next_unit) in seen:
                    continue
                seen.add((job.model, job.next_unit))
                reserved = self._with_reservations(rnd, job, waiting)
                chain = rnd.shortest(self.finder, job, reserved)
                if chain is not None and (best is None or best[1].finish_ns < chain.finish_ns):
                    best = (k, chain)
            if best is None or best[1].first.processor in rnd.idle:
                return best
            waiting[best[1].first.processor] += rnd.cost(best[1].first)
            yielded.add(jobs[best[0]].job_id)

    def _remember(self, job: JobView, chain: Chain, dropped: bool) -> None:
        nxt = chain.second
        if self.reserve and nxt is not None and not dropped:
            self.reserved[job.job_id] = nxt
        else:  # Band keeps a dropped job's reservation forever; we release it
            self.reserved.pop(job.job_id, None)

    def schedule(self, view: SchedulerView, estimator: LatencyEstimator) -> Decision:
        rnd = _Round(view, estimator, self.drop_on_slo, self.slo_as_written)
        jobs = _head(view.queue, self.queue_head)
        while jobs and rnd.idle:
            found = self._pick(rnd, jobs)
            if found is None:
                break
            job, chain = jobs.pop(found[0]), found[1]
            rnd.give(job, chain.first)
            self._remember(job, chain, dropped=job.job_id in rnd.drops)
        return rnd.decision()
