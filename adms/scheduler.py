"""The ADMS scheduler (paper Section 3.4): a multi-factor priority over the queue's head.

**Priority** (equations 1-4). For a queued job and a processor it could run on next::

    S = S_deadline + S_wait + S_resource
    S_deadline = γ (T_SLO − T_latency)                        (1)
    S_wait     = −α (T_now − T_enqueue) / T_avg               (2)
    S_resource = δ ((2 B_cur − B_max) / B_max) · C_remaining  (3)

Units: times in **milliseconds** (γ and δ are per ms; α is dimensionless).

* ``T_latency`` — estimated time from now until the job's *model is finished* if its next
  subgraph runs on this processor: the work waiting there, that subgraph's expected latency
  and the fastest way to run the rest of the model (:func:`remaining_latency`, processors
  assumed free).
* ``T_SLO`` — the request's SLO budget (``slo_reading: budget``, the paper's "expected
  response time"), or the time left to its deadline (``slo_reading: time_left``). A request
  without an SLO is given ``implicit_slo_factor × T_avg`` as its budget (0: no eq. (1)).
* ``T_avg`` — the model's expected single-run latency (fastest chain, idle device, current
  moving-average estimates); ``T_enqueue`` — when the job (re-)entered the queue.
* ``B_cur / B_max`` — the processor's utilisation from the Processor Monitor (``load`` in
  [0, 1], ``B_max = 1``); without a load sensor, 0 for an idle processor and 1 for a busy one.
* ``C_remaining`` — the job's remaining work: expected ms to finish its model on a free device.

**Sign convention: the lowest score runs first.** ``S_deadline`` is the job's slack, so a job
close to (or past) its deadline scores low; ``S_wait`` falls the longer a job has waited, so
waiting raises its priority; ``S_resource`` is positive on a processor more than half loaded,
so a loaded processor takes small jobs first and a lightly loaded one takes big jobs first
(the paper: "allocates less computationally intensive tasks" to loaded processors).

**Decision.** Only the first ``loop_call_size`` jobs of the queue are examined. Idle
processors are visited in order of preference (:mod:`adms.monitor`) — not near throttling,
less loaded, cooler, then device order. A processor whose temperature is within
``thermal_margin_c`` of its throttling temperature (or that reports being throttled) is
*hot*: a job may use a hot processor only if no cool processor can run its next unit. A
processor takes the lowest-scoring job (ties: earlier estimated finish, then queue order)
among those for which it is the *earliest-finishing* allowed choice (``earliest_finish``, the
project's addition). A job's earliest finish counts, on each processor, the work running
there and (``queue_aware``) the next subgraphs of the jobs ahead of it in the examined head,
each projected onto the processor where it would end first, in queue order: a list-schedule
of the head. So an idle processor stays idle only while every job it could run would end
sooner on another processor even after the jobs queued ahead there: on a weak CPU beside a
fast accelerator it keeps long work off the CPU until the accelerator's backlog makes the CPU
the quicker way. With ``exclusive_aware`` (the project's addition) a job's option on a
processor that other examined jobs can run nowhere else is the extent (how far its subgraph
runs) minimising its model's finish plus the number of such jobs times the time it holds the
processor: the head's sum of finishing times, so a job takes the shared processor only for
what must run there; and the earliest-finish projection counts such jobs' next subgraphs on
their only processor first, so a job with a choice goes elsewhere rather than make them wait.
With ``lp_split`` (a variant, the project's addition) a job at a unit boundary the
frame-rate LP's optimum passes has one option: the subgraph of the optimum there that is
furthest behind its share of the LP's flow (a deficit count over the run's assignments), so a
model the LP splits between processors alternates in its proportions; on the twins it is worse
than the earliest-finish choice (README). With ``work_conserving`` (a variant), when no idle
processor is any job's earliest choice, the first idle processor that can run a job of the
head takes its lowest-scoring one anyway. After each assignment the processor's waiting time
grows by the subgraph's expected latency and the search starts again, until no idle processor
takes a job. Unfinished jobs return to the front of the queue (``reinsert_front``). With
``shed`` (the project's addition for overload) a job of the examined head whose request cannot
meet its SLO even if started now on a free device is dropped before any assignment. Without
the monitor (``use_monitor: false``) no processor is hot and loads are 0 (idle) or 1 (busy).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Final

from adms.chains import ChainTable
from adms.config import AdmsConf, SloReading
from adms.monitor import near_throttle, preference
from baselines.band.estimator import LatencyEstimator
from harness.seams.plan import ModelPlan, Subgraph
from harness.seams.records import SensorSample
from harness.seams.units import NS_PER_MS
from harness.seams.view import Assignment, Decision, JobView, ProcessorView, SchedulerView

#: a request without an SLO is treated as if its budget were this many times T_avg
IMPLICIT_SLO_FACTOR: Final = 1.0
#: smallest T_avg used in eq. (2), ms (guards a zero-latency profile)
MIN_AVG_MS: Final = 1e-6


# -- the three terms (pure) -------------------------------------------------------------------


def deadline_term(gamma: float, slo_ms: float, latency_ms: float) -> float:
    """Eq. (1): ``γ (T_SLO − T_latency)``, the job's weighted slack."""
    return gamma * (slo_ms - latency_ms)


def wait_term(alpha: float, now_ms: float, enqueue_ms: float, avg_ms: float) -> float:
    """Eq. (2): ``−α (T_now − T_enqueue) / T_avg``."""
    return -alpha * (now_ms - enqueue_ms) / max(avg_ms, MIN_AVG_MS)


def resource_term(delta: float, load: float, capacity: float, remaining_ms: float) -> float:
    """Eq. (3): ``δ ((2 B_cur − B_max) / B_max) · C_remaining``."""
    return delta * ((2.0 * load - capacity) / capacity) * remaining_ms


def priority(
    conf: AdmsConf, *, slo_ms: float, latency_ms: float, now_ms: float, enqueue_ms: float,
    avg_ms: float, load: float, capacity: float, remaining_ms: float,
) -> float:
    """Eq. (4): the sum of the three terms; lower runs first."""
    return (deadline_term(conf.gamma, slo_ms, latency_ms)
            + wait_term(conf.alpha, now_ms, enqueue_ms, avg_ms)
            + resource_term(conf.delta, load, capacity, remaining_ms))


# -- the decision -----------------------------------------------------------------------------

#: a job's fastest option on one processor: (ns until its model is done if started there on a
#: free processor, the subgraph to run now)
Option = tuple[int, Subgraph]


@dataclass(slots=True)
class _Job:
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

    # written out: compiled (harness.native), a generated __init__ is ~16x slower
    def __init__(self, position: int, job: JobView, options: dict[str, Option],
                 slo_ms: float | None, enqueue_ms: float, avg_ms: float, remaining_ms: float,
                 wait: float) -> None:
        self.position = position
        self.job = job
        self.options = options
        self.slo_ms = slo_ms
        self.enqueue_ms = enqueue_ms
        self.avg_ms = avg_ms
        self.remaining_ms = remaining_ms
        self.wait = wait


@dataclass(frozen=True, slots=True)
class _Kind:
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

    # written out: compiled (harness.native), a generated __init__ is ~16x slower
    def __init__(self, plan: ModelPlan, hot: frozenset[str], options: dict[str, Option],
                 avg_ns: int, avg_ms: float, remaining_ms: float) -> None:
        object.__setattr__(self, "plan", plan)
        object.__setattr__(self, "hot", hot)
        object.__setattr__(self, "options", options)
        object.__setattr__(self, "avg_ns", avg_ns)
        object.__setattr__(self, "avg_ms", avg_ms)
        object.__setattr__(self, "remaining_ms", remaining_ms)


@dataclass(slots=True)
class _Reading:
    """What the scheduler made of one processor's sensor reading (None: not yet needed)."""

    #: the processor's name
    name: str
    #: the reading (None without the monitor: the scheduler sees no state)
    state: SensorSample | None
    #: near throttling (:func:`~adms.monitor.near_throttle`)
    hot: bool | None = None
    #: :func:`~adms.monitor.preference` of the processor while idle
    idle_preference: tuple[bool, float, float] | None = None

    # written out: compiled (harness.native), a generated __init__ is ~16x slower
    def __init__(self, name: str, state: SensorSample | None, hot: bool | None = None,
                 idle_preference: tuple[bool, float, float] | None = None) -> None:
        self.name = name
        self.state = state
        self.hot = hot
        self.idle_preference = idle_preference


_NONE: Final[frozenset[str]] = frozenset()
#: no work reserved anywhere (read only)
_NO_WORK: Final[dict[str, int]] = {}


def _preferred(a: _Reading, b: _Reading) -> bool:
    """Idle processor ``a`` comes strictly before ``b``: its preference
    (:func:`~adms.monitor.preference`: not near throttling, less loaded, cooler) is lower."""
    pa, pb = a.idle_preference, b.idle_preference
    assert pa is not None and pb is not None
    if pa[0] != pb[0]:
        return not pa[0]
    if pa[1] != pb[1]:
        return pa[1] < pb[1]
    return pa[2] < pb[2]


def _load(reading: _Reading) -> float:
    preference_ = reading.idle_preference
    assert preference_ is not None
    return preference_[1]


class AdmsScheduler:
    """ADMS's decision rule over a :class:`SchedulerView` (see the module docstring)."""

    def __init__(
        self, conf: AdmsConf, estimator: LatencyEstimator,
        implicit_slo_factor: float = IMPLICIT_SLO_FACTOR,
    ) -> None:
        if conf.loop_call_size < 1:
            raise ValueError(f"loop_call_size must be >= 1, got {conf.loop_call_size}")
        self.conf, self.estimator = conf, estimator
        self.implicit_slo_factor = implicit_slo_factor
        # the conf's fields every decision reads, as plain attributes (the conf, a config
        # dataclass, is not compiled: each read of it would be a dynamic lookup)
        self._alpha: float = conf.alpha
        self._gamma: float = conf.gamma
        self._delta: float = conf.delta
        self._loop_call_size: int = conf.loop_call_size
        self._monitor: bool = conf.use_monitor
        self._margin_c: float = conf.thermal_margin_c
        self._by_budget: bool = conf.slo_reading is SloReading.budget
        self._earliest: bool = conf.earliest_finish
        self._work_conserving: bool = conf.work_conserving
        self._queue_aware: bool = conf.queue_aware
        self._exclusive: bool = conf.exclusive_aware
        self._shedding: bool = conf.shed
        self._tables: dict[str, ChainTable] = {}
        #: model -> next unit -> its options (:meth:`options`); a model's entry is dropped
        #: when its table is re-derived or forgotten (:meth:`_drop_options`)
        self._options: dict[str, dict[int, dict[str, Option]]] = {}
        #: model -> next unit -> the kind's shared facts (:meth:`_kind`); dropped with the
        #: model's options, so it never outlives the table and options it was read from
        self._kinds: dict[str, dict[int, _Kind]] = {}
        #: processor -> what the last decision made of its reading (a reading lasts a sensor
        #: interval, over many decisions; a new reading object replaces the entry)
        self._readings: dict[str, _Reading] = {}
        #: the current decision's counted work: candidates weighed, tables re-derived
        self._work = 0
        #: ``lp_split``: model -> unit -> (subgraph, its share of the LP's flow there)
        self._split: dict[str, dict[int, tuple[tuple[Subgraph, float], ...]]] = {}
        #: ``lp_split``: times each (model, subgraph index) was assigned, and (model, unit)
        self._chosen: dict[tuple[str, int], int] = {}
        self._at: dict[tuple[str, int], int] = {}

    def set_split(self, plans: Mapping[str, ModelPlan],
                  flow: Mapping[str, Mapping[int, float]]) -> None:
        """The LP's flow per model and subgraph index (``lp_split``), normalised per unit
        boundary; assignment counts start again."""
        self._split, self._chosen, self._at = {}, {}, {}
        for model, plan in plans.items():
            by_unit: dict[int, list[tuple[Subgraph, float]]] = {}
            for sg in plan.subgraphs:
                if flow.get(model, {}).get(sg.index, 0.0) > 0:
                    by_unit.setdefault(sg.first_unit, []).append((sg, flow[model][sg.index]))
            totals = {u: sum(f for _, f in entries) for u, entries in by_unit.items()}
            self._split[model] = {u: tuple((sg, f / totals[u]) for sg, f in entries)
                                  for u, entries in by_unit.items()}

    def cost(self, sg: Subgraph) -> int:
        return self.estimator.expected(sg.key)

    def forget(self, model: str) -> None:
        """Drop cached latencies of ``model`` (its estimates changed)."""
        self._tables.pop(model, None)
        self._drop_options(model)

    def update(self, subgraph: Subgraph, refresh: bool, ns: int | None = None) -> None:
        """Take ``subgraph``'s current estimate (``ns`` when the caller has it) into its
        model's table; with ``refresh`` also re-derive the model's remaining latencies from
        all current estimates."""
        table = self._tables.get(subgraph.model)
        if table is not None:
            table.set_cost(subgraph.index, self.cost(subgraph) if ns is None else ns, refresh)
        if refresh:
            self._drop_options(subgraph.model)

    def _drop_options(self, model: str) -> None:
        self._options.pop(model, None)
        self._kinds.pop(model, None)

    def _table(self, plan: ModelPlan) -> ChainTable:
        """The plan's chain table: its costs are the estimator's, kept current by
        :meth:`update`."""
        table = self._tables.get(plan.model)
        if table is None or table.plan is not plan:
            table = self._tables[plan.model] = ChainTable(plan, self.cost)
        return table

    def rest(self, plan: ModelPlan) -> list[int]:
        """``rest[u]``: fastest ns from unit u to the end on a free device (cached)."""
        table = self._table(plan)
        if table.stale:
            self._work += len(plan.subgraphs)
        return table.rest()

    def options(self, plan: ModelPlan, next_unit: int) -> dict[str, Option]:
        """Processor -> the fastest way to finish the model starting there (cached)."""
        by_unit = self._options.get(plan.model)
        if by_unit is None:
            by_unit = self._options[plan.model] = {}
        cached = by_unit.get(next_unit)
        if cached is None:
            rest = self.rest(plan)
            self._work += len(plan.candidates(next_unit))
            cached = by_unit[next_unit] = self._fastest(plan, next_unit, rest)
        return cached

    def _fastest(self, plan: ModelPlan, next_unit: int, rest: list[int]) -> dict[str, Option]:
        """Processor -> (cost + rest after it, the subgraph) of the candidates at
        ``next_unit`` minimising it there (the first of equal ones), processors in order of
        first appearance among the candidates; at the current estimates (the chain table's
        costs)."""
        out: dict[str, Option] = {}
        table = self._table(plan)
        cost, end, subgraphs = table.cost, table.end, plan.subgraphs
        for k in table.starting(next_unit):
            ns = cost[k] + rest[end[k]]
            sg = subgraphs[k]
            best = out.get(sg.processor)
            if best is None or ns < best[0]:
                out[sg.processor] = (ns, sg)
        return out

    def _allowed(self, plan: ModelPlan, next_unit: int, hot: frozenset[str]
                 ) -> dict[str, Option]:
        opts = self.options(plan, next_unit)
        if not hot or hot.isdisjoint(opts):
            return opts
        cool = {p: o for p, o in opts.items() if p not in hot}
        return cool or opts

    def _slo_ms(self, job: JobView, avg_ns: int, now_ns: int) -> float | None:
        """T_SLO of eq. (1), ms, or None when the term is dropped (no SLO, factor 0)."""
        budget = job.request.slo_ns
        if budget <= 0:
            if self.implicit_slo_factor <= 0:
                return None
            budget = int(self.implicit_slo_factor * avg_ns)
        if self._by_budget:
            return budget / NS_PER_MS
        return (job.request.arrival_ns + budget - now_ns) / NS_PER_MS

    def _kind(self, plan: ModelPlan, next_unit: int, hot: frozenset[str]) -> _Kind:
        """The shared facts of jobs of ``plan``'s model at ``next_unit`` (cached: valid while
        the model's options are, for the same plan and hot processors)."""
        by_unit = self._kinds.get(plan.model)
        kind = None if by_unit is None else by_unit.get(next_unit)
        if kind is not None and kind.plan is plan and (kind.hot is hot or kind.hot == hot):
            return kind
        rest = self.rest(plan)
        avg_ns = rest[0]
        kind = _Kind(plan, hot, self._allowed(plan, next_unit, hot), avg_ns,
                     avg_ns / NS_PER_MS, rest[next_unit] / NS_PER_MS)
        self._kinds.setdefault(plan.model, {})[next_unit] = kind
        return kind

    def _job(self, position: int, job: JobView, view: SchedulerView, hot: frozenset[str],
             now_ms: float) -> _Job:
        kind = self._kind(view.plans[job.request.model], job.next_unit, hot)
        enqueue_ms = job.enqueue_ns / NS_PER_MS
        return _Job(position, job, kind.options, self._slo_ms(job, kind.avg_ns, view.now_ns),
                    enqueue_ms, kind.avg_ms, kind.remaining_ms,
                    wait_term(self._alpha, now_ms, enqueue_ms, kind.avg_ms))

    def _score(self, item: _Job, latency_ns: int, resource: float) -> float:
        """Eq. (4) for ``item`` finishing ``latency_ns`` from now on a processor whose
        ``resource`` factor is ``δ (2 B_cur − B_max) / B_max``: :func:`priority`'s sum, in
        its order, with eq. (2) taken from the job (computed once per decision)."""
        latency_ms = latency_ns / NS_PER_MS
        slo_ms = latency_ms if item.slo_ms is None else item.slo_ms  # None: term is 0
        return (self._gamma * (slo_ms - latency_ms) + item.wait
                + resource * item.remaining_ms)

    def _lowest(
        self, name: str, load: float, jobs: list[_Job], waiting: dict[str, int],
        soonest: list[int] | None, reserved: dict[str, int],
    ) -> tuple[int, Subgraph] | None:
        """The lowest-scoring job processor ``name`` can run (only those it finishes no later
        than ``soonest`` when that is given, a job with other options counting the work
        ``reserved`` there for jobs that have none); ties: the earlier finish, then the
        earlier queue position."""
        best_score, best_finish, best_position = 0.0, 0, 0
        best_k, best_sg = -1, None
        self._work += len(jobs)
        held = reserved.get(name, 0)
        here = waiting[name]
        # eq. (3)'s factor on this processor (B_max = 1: load is a fraction)
        resource = self._delta * ((2.0 * load - 1.0) / 1.0)
        for k, item in enumerate(jobs):
            opt = item.options.get(name)
            if opt is None:
                continue
            ahead = held if len(item.options) > 1 else 0
            if soonest is not None and here + ahead + opt[0] > soonest[k]:
                continue
            finish = here + opt[0]
            score = self._score(item, finish, resource)
            if best_sg is None or score < best_score or (score == best_score and (
                    finish < best_finish or (finish == best_finish
                                             and item.position < best_position))):
                best_score, best_finish, best_position = score, finish, item.position
                best_k, best_sg = k, opt[1]
        return None if best_sg is None else (best_k, best_sg)

    def _processors(self, view: SchedulerView
                    ) -> tuple[frozenset[str], dict[str, int], list[tuple[str, float]]]:
        """One pass over the processors as seen: the hot ones (near throttling; none without
        the monitor), each one's waiting work (ns from now; 0 when idle) and (name, load) of
        the idle ones, preferred first (by :func:`~adms.monitor.preference`, then device
        order)."""
        monitor, margin, now_ns = self._monitor, self._margin_c, view.now_ns
        readings = self._readings
        hot: list[str] = []
        waiting: dict[str, int] = {}
        ranked: list[_Reading] = []
        for p in view.processors:
            name = p.processor.name
            reading = readings.get(name)
            if reading is None or reading.state is not (p.state if monitor else None):
                reading = readings[name] = _Reading(name, p.state if monitor else None)
            if reading.hot is None:
                reading.hot = monitor and near_throttle(p.state, margin)
            if reading.hot:
                hot.append(name)
            if p.idle:
                waiting[name] = 0
                if reading.idle_preference is None:
                    reading.idle_preference = preference(self._seen(p), margin)
                # insert after every reading preferred to it or equal (device order)
                at = len(ranked)
                while at > 0 and _preferred(reading, ranked[at - 1]):
                    at -= 1
                ranked.insert(at, reading)
            else:
                waiting[name] = max(0, p.available_ns - now_ns)
        free = [(r.name, _load(r)) for r in ranked]
        return (frozenset(hot) if hot else _NONE), waiting, free

    def _seen(self, proc: ProcessorView) -> ProcessorView:
        """The processor as the scheduler sees it: without the monitor, no sensor state."""
        return proc if self._monitor else replace(proc, state=None)

    def _pick(self, free: list[tuple[str, float]], jobs: list[_Job],
              waiting: dict[str, int]) -> tuple[str, int, Subgraph] | None:
        """The next (processor, job index, subgraph): the first idle processor, by preference,
        that is some job's earliest-finishing choice takes its lowest-scoring such job; when
        no idle processor is, and ``work_conserving``, the first that can run any job takes
        its lowest-scoring one."""
        reserved = self._reserved(jobs) if self._exclusive else _NO_WORK
        soonest = self._soonest(jobs, waiting, reserved) if self._earliest else None
        for name, load in free:
            got = self._lowest(name, load, jobs, waiting, soonest, reserved)
            if got is not None:
                return name, got[0], got[1]
        if soonest is not None and self._work_conserving:  # (the second pass: any job)
            for name, load in free:
                got = self._lowest(name, load, jobs, waiting, None, reserved)
                if got is not None:
                    return name, got[0], got[1]
        return None

    def _reserved(self, jobs: list[_Job]) -> dict[str, int]:
        """Processor -> the next subgraphs of the examined jobs that can run only there."""
        out: dict[str, int] = {}
        for item in jobs:
            if len(item.options) == 1:
                name, (_, sg) = next(iter(item.options.items()))
                out[name] = out.get(name, 0) + self.cost(sg)
        return out

    def _soonest(self, jobs: list[_Job], waiting: dict[str, int],
                 reserved: dict[str, int]) -> list[int]:
        """Per job, the earliest it can finish its model: on the processor where it would
        end first, after the work waiting there (``waiting``) and, with ``queue_aware``, the
        next subgraphs of the jobs ahead of it in the examined head, each counted on the
        processor where it would end first (a list-scheduling projection in queue order). A
        job with a choice also counts the work ``reserved`` for jobs that have none
        (``exclusive_aware``): they are projected first. Ties go to the processor whose
        name sorts first."""
        projected = dict(waiting)
        queue_aware = self._queue_aware
        last = len(jobs) - 1
        out: list[int] = []
        for k, item in enumerate(jobs):
            if not item.options:
                out.append(0)
                continue
            extra = reserved if len(item.options) > 1 else None
            best = ""
            best_ns = 0
            best_sg: Subgraph | None = None
            for name, (ns, sg) in item.options.items():
                end = projected[name] + ns
                if extra:  # (integers: the order of the sum does not matter)
                    end += extra.get(name, 0)
                if best_sg is None or end < best_ns or (end == best_ns and name < best):
                    best, best_ns, best_sg = name, end, sg
            assert best_sg is not None
            out.append(best_ns)
            # (a reserved job is counted already; no job after the last reads the projection)
            if queue_aware and k < last and not (reserved and len(item.options) == 1):
                projected[best] += self.cost(best_sg)
        self._work += len(jobs)
        return out

    def schedule(self, view: SchedulerView) -> Decision:
        self._work = 0
        now_ns = view.now_ns
        now_ms = now_ns / NS_PER_MS
        hot, waiting, free = self._processors(view)
        jobs: list[_Job] = []
        for j in view.queue:  # (the head: the loop reads no job past it)
            jobs.append(self._job(len(jobs), j, view, hot, now_ms))
            if len(jobs) >= self._loop_call_size:
                break
        if self._exclusive:
            jobs = self._spare_exclusive(jobs, view)
        if self._split:
            jobs = [self._steer(item, view) for item in jobs]
        drops: tuple[int, ...] = ()
        if self._shedding:
            jobs, drops = self._shed(jobs, view)
        out: list[Assignment] = []
        while jobs and free:
            pick = self._pick(free, jobs, waiting)
            if pick is None:
                break
            name, k, sg = pick
            out.append(Assignment(jobs.pop(k).job.job_id, sg))
            if self._split:
                self._count(sg)
            free = [f for f in free if f[0] != name]
            if jobs and free:  # (read only by the next pick)
                waiting[name] += self.cost(sg)
        return Decision(tuple(out), drops, work=self._work + len(jobs))

    def _steer(self, item: _Job, view: SchedulerView) -> _Job:
        """``lp_split``: the job with one option, the subgraph the LP's optimum uses at its
        next unit that is furthest behind its share (share x (assignments there + 1) -
        its own assignments; ties: the larger share, then the lower index). Unchanged where
        the LP's optimum never starts a subgraph, or when that subgraph's processor is not
        among the job's allowed ones (hot)."""
        model, unit = item.job.model, item.job.next_unit
        targets = self._split.get(model, {}).get(unit)
        if not targets:
            return item
        made = self._at.get((model, unit), 0) + 1
        self._work += len(targets)
        _, _, _, sg = max((share * made - self._chosen.get((model, sg.index), 0), share,
                           -sg.index, sg) for sg, share in targets)
        if sg.processor not in item.options:
            return item
        rest = self.rest(view.plans[model])
        return replace(item, options={sg.processor: (self.cost(sg) + rest[sg.last_unit + 1],
                                                     sg)})

    def _count(self, sg: Subgraph) -> None:
        """Count an assignment toward ``lp_split``'s deficits."""
        if sg.first_unit in self._split.get(sg.model, {}):
            key = (sg.model, sg.index)
            self._chosen[key] = self._chosen.get(key, 0) + 1
            at = (sg.model, sg.first_unit)
            self._at[at] = self._at.get(at, 0) + 1

    def _spare_exclusive(self, jobs: list[_Job], view: SchedulerView) -> list[_Job]:
        """``jobs`` with, on each processor that other examined jobs can run nowhere else, the
        extent minimising the model's finish + (number of such jobs) x the time it holds the
        processor (``exclusive_aware``). Its option's time stays the model's finish."""
        only: dict[str, int] = {}
        for item in jobs:
            if len(item.options) == 1:
                name = next(iter(item.options))
                only[name] = only.get(name, 0) + 1
        if not only:
            return jobs
        out: list[_Job] = []
        for item in jobs:
            own = int(len(item.options) == 1)  # the job itself is one of ``only``'s
            contended = [(p, only.get(p, 0) - own) for p in item.options
                         if only.get(p, 0) - own > 0]
            if not contended:
                out.append(item)
                continue
            plan = view.plans[item.job.model]
            rest = self.rest(plan)
            options = dict(item.options)
            for name, others in contended:
                best: tuple[int, int, Subgraph] | None = None
                for sg in plan.candidates(item.job.next_unit):
                    if sg.processor != name:
                        continue
                    held = self.cost(sg)
                    finish = held + rest[sg.last_unit + 1]
                    key = finish + others * held
                    if best is None or key < best[0]:
                        best = (key, finish, sg)
                self._work += len(plan.candidates(item.job.next_unit))
                if best is not None:
                    options[name] = (best[1], best[2])
            out.append(replace(item, options=options))
        return out

    def _shed(self, jobs: list[_Job], view: SchedulerView) -> tuple[list[_Job], tuple[int, ...]]:
        """(the jobs kept, the ids dropped): a job is dropped when its request has an SLO
        and even its fastest way to finish, started now on a free processor, ends after
        the deadline."""
        kept: list[_Job] = []
        dropped: list[_Job] = []
        for item in jobs:
            request = item.job.request
            opts = self.options(view.plans[item.job.model], item.job.next_unit)
            fastest = min((o[0] for o in opts.values()), default=0)
            deadline_ns = request.arrival_ns + request.slo_ns
            late = request.slo_ns > 0 and view.now_ns + fastest > deadline_ns
            (dropped if late else kept).append(item)
        return kept, tuple(item.job.job_id for item in dropped)
