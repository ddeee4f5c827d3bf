"""The runtime loop shared by every device: jobs, queues, decisions and records.

The core is clock-agnostic. The driver (:mod:`harness.runtime.driver`, on either clock)
tells it what happened — :meth:`Runtime.arrive` and :meth:`Runtime.complete` — then, once
every event of the same instant is in (a completion and the closed-loop request it releases
arrive together), calls :meth:`Runtime.decide` and gets back the subgraphs to start now
(:class:`Start`). The core:

1. keeps the global queue of waiting jobs (front first) and, per processor, the running
   subgraph and a local FIFO of assigned ones;
2. asks the policy for a :class:`~harness.seams.view.Decision` on an immutable
   :class:`~harness.seams.view.SchedulerView` after every event;
3. moves a job past a finished subgraph and re-enqueues it (front or back, per the policy)
   until its plan's last unit is done;
4. records one row per executed subgraph and one per request.

Invariants it enforces: one subgraph at a time per processor (unless the plans run
concurrently, ``ModelPlan.concurrent``: vanilla apps' interpreters, each on its own thread,
start beside whatever runs and the device shares the processor); a subgraph starts at the
job's next unit (so after its predecessors); a job is never assigned twice at once.

**Overload.** A decision's cost does not grow with the queue's length: the queue is read
through a lazy window (:class:`~harness.runtime.queue.QueueView`, which counts the jobs it
walks: :attr:`Runtime.jobs_visited`), and a processor's waiting time is summed over the
*distinct* subgraphs of its local queue (a count per subgraph), not over its entries.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from harness.runtime.queue import JobQueue, QueueView
from harness.runtime.traffic import Traffic
from harness.seams.plan import ModelPlan, Processor, Subgraph
from harness.seams.policy import Policy
from harness.seams.records import Completion, Request, SensorSample
from harness.seams.view import Decision, JobView, ProcessorView, SchedulerView


@dataclass(slots=True)
class Start:
    """Start ``subgraph`` of job ``job_id`` now (its processor is idle). One per executed
    subgraph, never changed; not frozen because a frozen dataclass is several times slower
    to build."""

    job_id: int
    request: Request
    subgraph: Subgraph

    # written out: compiled (harness.native), a generated __init__ is ~16x slower
    def __init__(self, job_id: int, request: Request, subgraph: Subgraph) -> None:
        self.job_id = job_id
        self.request = request
        self.subgraph = subgraph


@dataclass(slots=True)
class _Job:
    job_id: int
    request: Request
    next_unit: int = 0
    enqueue_ns: int = 0
    executed: int = 0
    first_start_ns: int = -1
    processors: list[str] = field(default_factory=list)
    _view: JobView | None = None
    #: the processor its last subgraph ran on ("" before its first)
    last_processor: str = ""

    # written out: compiled (harness.native), a generated __init__ is ~16x slower
    def __init__(self, job_id: int, request: Request, next_unit: int = 0, enqueue_ns: int = 0,
                 executed: int = 0, first_start_ns: int = -1, processors: list[str] | None = None,
                 _view: JobView | None = None) -> None:
        self.job_id = job_id
        self.request = request
        self.next_unit = next_unit
        self.enqueue_ns = enqueue_ns
        self.executed = executed
        self.first_start_ns = first_start_ns
        self.processors = list() if processors is None else processors
        self._view = _view
        self.last_processor = ""

    def view(self) -> JobView:
        """What a scheduler sees (made once per state of the job)."""
        if self._view is None:
            self._view = JobView(self.job_id, self.request, self.next_unit, self.enqueue_ns,
                                 self.executed, self.last_processor)
        return self._view

    def moved_past(self, subgraph: Subgraph, now_ns: int) -> None:
        """The job ran ``subgraph``: its next unit follows it, and it re-enters at now."""
        self.next_unit = subgraph.last_unit + 1
        self.executed += 1
        self.last_processor = subgraph.processor
        self.enqueue_ns = now_ns
        self._view = None


@dataclass(slots=True)
class _Lane:
    """One processor: what runs on it and what waits for it."""

    processor: Processor
    running: tuple[_Job, Subgraph, int] | None = None
    waiting: deque[tuple[_Job, Subgraph]] = field(default_factory=deque)
    #: (model, subgraph index) -> [the subgraph, how many times it waits in ``waiting``]
    counts: dict[tuple[str, int], list[Any]] = field(default_factory=dict)
    #: the view of it the last decision saw (immutable: handed out again while it holds)
    last_view: ProcessorView | None = None
    #: job id -> (job, subgraph, start) running beside others (concurrent plans)
    beside: dict[int, tuple[_Job, Subgraph, int]] = field(default_factory=dict)

    # written out: compiled (harness.native), a generated __init__ is ~16x slower
    def __init__(self, processor: Processor, running: tuple[_Job, Subgraph, int] | None = None,
                 waiting: deque[tuple[_Job, Subgraph]] | None = None,
                 counts: dict[tuple[str, int], list[Any]] | None = None,
                 last_view: ProcessorView | None = None) -> None:
        self.processor = processor
        self.running = running
        self.waiting = deque() if waiting is None else waiting
        self.counts = dict() if counts is None else counts
        self.last_view = last_view
        self.beside = {}

    def push(self, job: _Job, subgraph: Subgraph) -> None:
        self.waiting.append((job, subgraph))
        entry = self.counts.setdefault(subgraph.key, [subgraph, 0])
        entry[1] += 1

    def pop(self) -> tuple[_Job, Subgraph]:
        job, subgraph = self.waiting.popleft()
        key = subgraph.key
        entry = self.counts[key]
        entry[1] -= 1
        if entry[1] == 0:
            del self.counts[key]
        return job, subgraph

    def view(self, now_ns: int, state: SensorSample | None,
             expected: Callable[[Subgraph], int]) -> ProcessorView:
        """What a decision at ``now_ns`` sees of the processor: free at ``now_ns`` when
        idle, else when its running subgraph and its local queue are expected to end."""
        running = self.running
        idle = running is None and not self.waiting and not self.beside
        available = now_ns
        if self.beside:
            for _, sg, t in self.beside.values():
                available = max(available, t + expected(sg))
        if not idle:
            if running is not None:
                end = running[2] + expected(running[1])
                if end > available:
                    available = end
            for sg, n in self.counts.values():
                available += expected(sg) * n
        last = self.last_view
        if (last is not None and last.available_ns == available and last.idle == idle
                and last.queued == len(self.waiting) and last.state is state):
            return last  # the same view as the last decision's (a busy processor's, mostly)
        self.last_view = ProcessorView(self.processor, idle, available, len(self.waiting),
                                       state)
        return self.last_view


class Runtime:
    """Jobs, queues and the policy, between a driver and a device."""

    def __init__(
        self,
        policy: Policy,
        plans: Mapping[str, ModelPlan],
        processors: tuple[Processor, ...],
        record_request: Callable[[Request, str, _JobRecord], None],
        record_subgraph: Callable[[Completion], None],
        sensors: Callable[[int], dict[str, SensorSample]] | None = None,
    ) -> None:
        self.policy = policy
        #: ``policy.reinsert_front`` (fixed for a policy; read at every subgraph's end)
        self._front: bool = policy.reinsert_front
        self.plans = plans
        #: model -> units of its plan (read at every subgraph's end)
        self._units: dict[str, int] = {m: p.num_units for m, p in plans.items()}
        self._record_request = record_request
        self._record_subgraph = record_subgraph
        self._sensors = sensors
        self._lanes = {p.name: _Lane(p) for p in processors}
        #: the plans run concurrently: a subgraph starts at once, beside what runs
        self._concurrent = any(p.concurrent for p in plans.values())
        self._queue: JobQueue[_Job] = JobQueue()
        self._jobs: dict[int, _Job] = {}
        self._next_job = 0
        #: requests that ended since the driver last asked, with their status
        self.ended: list[tuple[Request, str]] = []
        #: the counted work of the last decision (``Decision.work``)
        self.decision_work = 0
        #: queued jobs the last decision walked (its view's ``visited``)
        self.jobs_visited = 0

    # -- events ------------------------------------------------------------------------------

    def arrive(self, request: Request, now_ns: int) -> None:
        """A request arrived: its job joins the back of the queue."""
        if request.model not in self.plans:
            raise KeyError(f"no plan for model {request.model!r}")
        job = _Job(self._next_job, request, enqueue_ns=now_ns)
        self._next_job += 1
        self._jobs[job.job_id] = job
        self._queue.append(job)

    def complete(self, done: Completion, now_ns: int) -> list[Start]:
        """A subgraph ended: record it, move its job on, start the processor's next local
        subgraph if one waits."""
        lane = self._lanes[done.subgraph.processor]
        if self._concurrent:
            job, subgraph, _ = lane.beside.pop(done.job_id)
        else:
            assert lane.running is not None and lane.running[0].job_id == done.job_id, (
                f"completion of job {done.job_id} on idle or other-job processor "
                f"{lane.processor}")
            job, subgraph, _ = lane.running
            lane.running = None
        if job.executed == 0:
            # the device's start, which a decision's own time may have delayed
            job.first_start_ns = done.start_ns
        self._record_subgraph(done)
        self.policy.observe(done)
        self._advance(job, subgraph, done, now_ns)
        start = self._start_waiting(lane, now_ns)
        return [] if start is None else [start]

    def finish(self) -> None:
        """The run ended: record every job still in the system as unfinished."""
        for job in list(self._jobs.values()):
            self._end(job, "unfinished", -1)

    # -- internals ---------------------------------------------------------------------------

    def _advance(self, job: _Job, subgraph: Subgraph, done: Completion, now_ns: int) -> None:
        if not done.ok:
            self._end(job, "failed", done.end_ns)
            return
        job.moved_past(subgraph, now_ns)
        if job.next_unit >= self._units[job.request.model]:
            self._end(job, "ok", done.end_ns)
            return
        if self._front:
            self._queue.appendleft(job)
        else:
            self._queue.append(job)

    def _end(self, job: _Job, status: str, end_ns: int) -> None:
        del self._jobs[job.job_id]
        self._record_request(job.request, status, _JobRecord(job, end_ns))
        self.ended.append((job.request, status))

    def decide(self, now_ns: int) -> list[Start]:
        """Ask the policy what to run; returns the subgraphs that start now."""
        self.decision_work = self.jobs_visited = 0
        if not self._queue:
            return []
        view = self._view(now_ns)
        decision = self.policy.schedule(view)
        self.decision_work = decision.work
        if isinstance(view.queue, QueueView):
            self.jobs_visited = view.queue.visited
        self._apply_drops(decision)
        starts: list[Start] = []
        for assignment in decision.assignments:
            start = self._assign(assignment.job_id, assignment.subgraph, now_ns)
            if start is not None:
                starts.append(start)
        return starts

    def _apply_drops(self, decision: Decision) -> None:
        if not decision.drops:
            return
        for job_id in decision.drops:
            job = self._take(job_id)
            self._end(job, "dropped", -1)

    def _assign(self, job_id: int, subgraph: Subgraph, now_ns: int) -> Start | None:
        job = self._queue.take(job_id)
        assert subgraph.model == job.request.model, "subgraph of another model"
        assert subgraph.first_unit == job.next_unit, (
            f"job {job_id} is at unit {job.next_unit}, subgraph starts at {subgraph.first_unit}"
        )
        lane = self._lanes[subgraph.processor]
        if self._concurrent:
            lane.beside[job_id] = (job, subgraph, now_ns)
            return self._started(job, subgraph, now_ns)
        if lane.running is None and not lane.waiting:
            return self._run(lane, job, subgraph, now_ns)  # (as pushing it, then popping it)
        lane.push(job, subgraph)
        return self._start_waiting(lane, now_ns)

    def _take(self, job_id: int) -> _Job:
        return self._queue.take(job_id)

    def _start_waiting(self, lane: _Lane, now_ns: int) -> Start | None:
        """The lane's next local subgraph starts now, if it is idle and one waits."""
        if lane.running is not None or not lane.waiting:
            return None
        job, subgraph = lane.pop()
        return self._run(lane, job, subgraph, now_ns)

    def _run(self, lane: _Lane, job: _Job, subgraph: Subgraph, now_ns: int) -> Start:
        """``subgraph`` of ``job`` starts on idle ``lane`` now."""
        lane.running = (job, subgraph, now_ns)
        return self._started(job, subgraph, now_ns)

    def _started(self, job: _Job, subgraph: Subgraph, now_ns: int) -> Start:
        if job.first_start_ns < 0:
            job.first_start_ns = now_ns
        if subgraph.processor not in job.processors:
            job.processors.append(subgraph.processor)
        return Start(job.job_id, job.request, subgraph)

    def _view(self, now_ns: int) -> SchedulerView:
        states = self._sensors(now_ns) if self._sensors is not None else {}
        expected = self.policy.expected_ns
        processors = tuple([lane.view(now_ns, states.get(name), expected)
                            for name, lane in self._lanes.items()])
        return SchedulerView(now_ns, self._queue.view(), processors, self.plans)

    @property
    def busy(self) -> bool:
        return bool(self._jobs)


@dataclass(frozen=True, slots=True)
class _JobRecord:
    """What the request row needs of a job."""

    job: _Job
    end_ns: int

    # written out: compiled (harness.native), a generated __init__ is ~16x slower
    def __init__(self, job: _Job, end_ns: int) -> None:
        object.__setattr__(self, "job", job)
        object.__setattr__(self, "end_ns", end_ns)

    @property
    def start_ns(self) -> int:
        return self.job.first_start_ns

    @property
    def processors(self) -> str:
        return ",".join(self.job.processors)

    @property
    def n_subgraphs(self) -> int:
        return self.job.executed


JobRecord = _JobRecord


def settle(
    runtime: Runtime, traffic: Traffic, now_ns: int, dispatch: Callable[[list[Start]], None]
) -> None:
    """Let every event of this instant in, then decide until nothing changes: closed-loop
    clients issue their next request when one of theirs ended (or was dropped), and those
    requests join the queue before the policy decides (shared by every driver)."""
    while True:
        release(runtime, traffic, now_ns)
        dispatch(runtime.decide(now_ns))
        if not runtime.ended:
            return


def release(runtime: Runtime, traffic: Traffic, now_ns: int) -> None:
    """Tell traffic which requests ended; requests due now arrive."""
    ended = runtime.ended[:]
    runtime.ended.clear()
    for request, status in ended:
        traffic.on_done(request, now_ns, dropped=status == "dropped")
    for request in traffic.pop_due(now_ns):
        runtime.arrive(request, now_ns)
