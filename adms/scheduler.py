"""The ADMS scheduler (paper Section 3.4): a multi-factor priority over the queue's head.

A job's score on a processor is the paper's equation (4), ``S = S_deadline + S_wait +
S_resource`` (:mod:`adms.priority`: the terms, their units, and the sign convention: **the
lowest score runs first**).

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
With ``lp_split`` (a variant, :mod:`adms.lp_split`) a job at a unit boundary the LP's optimum
passes has one option, the subgraph there furthest behind its share of the LP's flow; on the
twins it is worse than the earliest-finish choice (docs/results.md). With ``work_conserving`` (a
variant), when no idle processor is any job's earliest choice, the first idle processor that
can run a job of the head takes its lowest-scoring one anyway. After each assignment the
processor's waiting time grows by the subgraph's expected latency and the search starts again,
until no idle processor takes a job. Unfinished jobs return to the front of the queue
(``reinsert_front``). With ``shed`` (the project's addition for overload) a job of the examined
head whose request cannot meet its SLO even if started now on a free device is dropped before
any assignment. Without the monitor (``use_monitor: false``) no processor is hot and loads are
0 (idle) or 1 (busy).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from adms.chains import ChainTable
from adms.config import AdmsConf, SloReading
from adms.jobs import NO_WORK, Job, Kind, Option
from adms.lp_split import LpSplit
from adms.priority import IMPLICIT_SLO_FACTOR, slo_ms, wait_term
from adms.readings import Readings
from baselines.band.estimator import LatencyEstimator
from harness.seams.plan import ModelPlan, Subgraph
from harness.seams.units import NS_PER_MS
from harness.seams.view import Assignment, Decision, JobView, SchedulerView


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
        self._kinds: dict[str, dict[int, Kind]] = {}
        #: what the decisions made of the processors' readings (:mod:`adms.readings`)
        self._readings = Readings(conf.use_monitor, conf.thermal_margin_c, conf.load_ordered)
        #: the current decision's counted work: candidates weighed, tables re-derived
        self._work = 0
        #: ``lp_split``: the LP's shares and the deficits (:mod:`adms.lp_split`)
        self._lp = LpSplit()

    def set_split(self, plans: Mapping[str, ModelPlan],
                  flow: Mapping[str, Mapping[int, float]]) -> None:
        """The LP's flow per model and subgraph index (``lp_split``); assignment counts
        start again."""
        self._lp.set(plans, flow)

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

    def _kind(self, plan: ModelPlan, next_unit: int, hot: frozenset[str]) -> Kind:
        """The shared facts of jobs of ``plan``'s model at ``next_unit`` (cached: valid while
        the model's options are, for the same plan and hot processors)."""
        by_unit = self._kinds.get(plan.model)
        kind = None if by_unit is None else by_unit.get(next_unit)
        if kind is not None and kind.plan is plan and (kind.hot is hot or kind.hot == hot):
            return kind
        rest = self.rest(plan)
        avg_ns = rest[0]
        kind = Kind(plan, hot, self._allowed(plan, next_unit, hot), avg_ns,
                     avg_ns / NS_PER_MS, rest[next_unit] / NS_PER_MS)
        self._kinds.setdefault(plan.model, {})[next_unit] = kind
        return kind

    def _job(self, position: int, job: JobView, view: SchedulerView, hot: frozenset[str],
             now_ms: float) -> Job:
        kind = self._kind(view.plans[job.request.model], job.next_unit, hot)
        enqueue_ms = job.enqueue_ns / NS_PER_MS
        request = job.request
        slo = slo_ms(request.slo_ns, request.arrival_ns, kind.avg_ns, view.now_ns,
                     self.implicit_slo_factor, self._by_budget)
        return Job(position, job, kind.options, slo, enqueue_ms, kind.avg_ms, kind.remaining_ms,
                    wait_term(self._alpha, now_ms, enqueue_ms, kind.avg_ms))

    def _score(self, item: Job, latency_ns: int, resource: float) -> float:
        """Eq. (4) for ``item`` finishing ``latency_ns`` from now on a processor whose
        ``resource`` factor is ``δ (2 B_cur − B_max) / B_max``: :func:`priority`'s sum, in
        its order, with eq. (2) taken from the job (computed once per decision)."""
        latency_ms = latency_ns / NS_PER_MS
        slo_ms = latency_ms if item.slo_ms is None else item.slo_ms  # None: term is 0
        return (self._gamma * (slo_ms - latency_ms) + item.wait
                + resource * item.remaining_ms)

    def _lowest(
        self, name: str, load: float, jobs: list[Job], waiting: dict[str, int],
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

    def _pick(self, free: list[tuple[str, float]], jobs: list[Job],
              waiting: dict[str, int]) -> tuple[str, int, Subgraph] | None:
        """The next (processor, job index, subgraph): the first idle processor, by preference,
        that is some job's earliest-finishing choice takes its lowest-scoring such job; when
        no idle processor is, and ``work_conserving``, the first that can run any job takes
        its lowest-scoring one."""
        reserved = self._reserved(jobs) if self._exclusive else NO_WORK
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

    def _reserved(self, jobs: list[Job]) -> dict[str, int]:
        """Processor -> the next subgraphs of the examined jobs that can run only there."""
        out: dict[str, int] = {}
        for item in jobs:
            if len(item.options) == 1:
                name, (_, sg) = next(iter(item.options.items()))
                out[name] = out.get(name, 0) + self.cost(sg)
        return out

    def _soonest(self, jobs: list[Job], waiting: dict[str, int],
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
        hot, waiting, free = self._readings.read(view)
        jobs: list[Job] = []
        for j in view.queue[:self._loop_call_size]:  # (the head: no job past it is read)
            jobs.append(self._job(len(jobs), j, view, hot, now_ms))
        if self._exclusive:
            jobs = self._spare_exclusive(jobs, view)
        if self._lp.split:
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
            if self._lp.split:
                self._lp.count(sg)
            free = [f for f in free if f[0] != name]
            if jobs and free:  # (read only by the next pick)
                waiting[name] += self.cost(sg)
        return Decision(tuple(out), drops, work=self._work + len(jobs))

    def _steer(self, item: Job, view: SchedulerView) -> Job:
        """``lp_split``: the job with one option, the subgraph the LP's optimum uses at its
        next unit that is furthest behind its share (:meth:`LpSplit.behind`). Unchanged
        where the LP's optimum never starts a subgraph, or when that subgraph's processor is
        not among the job's allowed ones (hot)."""
        model = item.job.model
        behind = self._lp.behind(model, item.job.next_unit)
        if behind is None:
            return item
        sg, weighed = behind
        self._work += weighed
        if sg.processor not in item.options:
            return item
        rest = self.rest(view.plans[model])
        return replace(item, options={sg.processor: (self.cost(sg) + rest[sg.last_unit + 1],
                                                     sg)})

    def _spare_exclusive(self, jobs: list[Job], view: SchedulerView) -> list[Job]:
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
        out: list[Job] = []
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

    def _shed(self, jobs: list[Job], view: SchedulerView) -> tuple[list[Job], tuple[int, ...]]:
        """(the jobs kept, the ids dropped): a job is dropped when its request has an SLO
        and even its fastest way to finish, started now on a free processor, ends after
        the deadline."""
        kept: list[Job] = []
        dropped: list[Job] = []
        for item in jobs:
            request = item.job.request
            opts = self.options(view.plans[item.job.model], item.job.next_unit)
            fastest = min((o[0] for o in opts.values()), default=0)
            deadline_ns = request.arrival_ns + request.slo_ns
            late = request.slo_ns > 0 and view.now_ns + fastest > deadline_ns
            (dropped if late else kept).append(item)
        return kept, tuple(item.job.job_id for item in dropped)
