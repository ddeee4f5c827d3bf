"""The ADMS scheduler (paper Section 3.4): a multi-factor priority over the queue's head.

A job's score on a processor is the paper's equation (4), ``S = S_deadline + S_wait +
S_resource`` (:mod:`adms.priority`: the terms, their units, the sign convention).

**Decision.** Only the first ``loop_call_size`` jobs of the queue are examined. Where the
paper leaves a choice, a field of :class:`~adms.config.AdmsConf` names the reading
(docs/adms-as-built.md, "Readings of the paper's rule"): how a score pairs a job with an idle
processor (``pairing``: each idle processor in ``idle_order`` takes its lowest-scoring job,
or the lowest-scoring job goes first to the idle processor where its model would finish
first), what ``T_latency`` is (``t_latency``), ``T_SLO`` (``slo_reading``) and the sign
(``score_order``). A processor within ``thermal_margin_c`` of its throttling temperature (or
throttled) is *hot*: a job may use it only if no cool processor can run its next unit. After
each assignment the processor's waiting time grows by the subgraph's expected latency and the
search starts again, until no idle processor takes a job. Unfinished jobs return to the front
of the queue (``reinsert_front``).

**The project's additions** (each one switch, all off in `adms`): ``earliest_finish`` (a job
is given only to a processor where its model finishes no later than anywhere else, counting
the work waiting on busy processors and, with ``queue_aware``, the next subgraphs of the jobs
ahead of it projected where each ends first: a list-schedule of the head); ``exclusive_aware``
(:mod:`adms.additions`: on a processor other examined jobs can run nowhere else, a job takes
the extent minimising its model's finish plus the time it holds them up, and those jobs are
projected first); ``lp_split`` (:mod:`adms.lp_split`: at a unit boundary the LP's optimum
passes, the subgraph furthest behind its share of the LP's flow); ``work_conserving`` (when no
idle processor is any job's earliest choice, the first that can run a job takes its
lowest-scoring one anyway); ``shed`` (:mod:`adms.additions`: drop a head job that cannot meet
its SLO even if started now on a free device). Without the monitor (``use_monitor: false``)
no processor is hot and loads are 0 (idle) or 1 (busy).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from adms.additions import shed, spare_exclusive
from adms.config import AdmsConf, LatencyReading, Pairing, ScoreOrder, SloReading
from adms.jobs import NO_WORK, Job, Option
from adms.lp_split import LpSplit
from adms.priority import IMPLICIT_SLO_FACTOR, slo_ms, wait_term
from adms.readings import Readings
from adms.tables import Tables
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
        self._job_first: bool = conf.pairing is Pairing.job_first
        self._on_processor: bool = conf.t_latency is LatencyReading.on_processor
        self._since_arrival: bool = conf.t_latency is LatencyReading.since_arrival
        self._highest_first: bool = conf.score_order is ScoreOrder.highest_first
        #: each model's chain table, options and kinds (:mod:`adms.tables`)
        self._tables = Tables(estimator)
        #: what the decisions made of the processors' readings (:mod:`adms.readings`)
        self._readings = Readings(conf.use_monitor, conf.thermal_margin_c, conf.idle_order)
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

    def set_handoffs(self, handoff: Mapping[tuple[str, int], int]) -> None:
        """Each subgraph's handoff (ns) when the subgraph before it ran on another processor,
        as the device charges it (:class:`~adms.tables.Tables`)."""
        self._tables.set_handoffs(handoff)

    def forget(self, model: str) -> None:
        """Drop cached latencies of ``model`` (its estimates changed)."""
        self._tables.forget(model)

    def update(self, subgraph: Subgraph, refresh: bool, ns: int | None = None) -> None:
        """Take ``subgraph``'s current estimate (``ns`` when the caller has it) into its
        model's table; with ``refresh`` also re-derive the model's remaining latencies from
        all current estimates."""
        self._tables.update(subgraph, refresh, ns)

    def rest(self, plan: ModelPlan) -> list[int]:
        """``rest[u]``: fastest ns from unit u to the end on a free device, nothing known of
        what ran before (cached)."""
        table, _ = self._tables.solved(plan)
        return table.rest()

    def options(self, plan: ModelPlan, next_unit: int, last: str = "") -> dict[str, Option]:
        """Processor -> the fastest way to finish the model starting there (cached)."""
        return self._tables.options(plan, next_unit, last)

    def _job(self, position: int, job: JobView, view: SchedulerView, hot: frozenset[str],
             now_ms: float) -> Job:
        kind = self._tables.kind(view.plans[job.request.model], job.next_unit,
                                 job.last_processor, hot)
        enqueue_ms = job.enqueue_ns / NS_PER_MS
        request = job.request
        slo = slo_ms(request.slo_ns, request.arrival_ns, kind.avg_ns, view.now_ns,
                     self.implicit_slo_factor, self._by_budget)
        latency_ms: float | None = None  # (on_processor: scored per processor)
        if self._since_arrival:
            latency_ms = (view.now_ns - request.arrival_ns) / NS_PER_MS
        elif not self._on_processor:  # (free_device: C_remaining's time)
            latency_ms = kind.remaining_ms
        return Job(position, job, kind.options, slo, enqueue_ms, kind.avg_ms, kind.remaining_ms,
                   wait_term(self._alpha, now_ms, enqueue_ms, kind.avg_ms), latency_ms)

    def _resource(self, load: float) -> float:
        """Eq. (3)'s factor on a processor at ``load``: ``δ (2 B_cur − B_max) / B_max`` with
        ``B_max = 1`` (load is a fraction)."""
        return self._delta * ((2.0 * load - 1.0) / 1.0)

    def _score(self, item: Job, latency_ns: int, resource: float) -> float:
        """Eq. (4) for ``item`` finishing ``latency_ns`` from now on a processor whose
        ``resource`` factor is ``δ (2 B_cur − B_max) / B_max``: :func:`priority`'s sum, in
        its order, with eq. (2) taken from the job (computed once per decision). T_latency is
        the job's own where the reading fixes it (``t_latency``); with ``score_order``
        `highest_first` the score is negated, so the lowest still runs first."""
        latency_ms = latency_ns / NS_PER_MS if item.latency_ms is None else item.latency_ms
        slo_ms = latency_ms if item.slo_ms is None else item.slo_ms  # None: term is 0
        score = (self._gamma * (slo_ms - latency_ms) + item.wait
                 + resource * item.remaining_ms)
        return -score if self._highest_first else score

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
        resource = self._resource(load)
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
        """The next (processor, job index, subgraph): ``job_first`` (:meth:`_first_job`), or
        the first idle processor in ``idle_order`` that some job may go to (with
        ``earliest_finish``: its earliest-finishing choice) takes its lowest-scoring such
        job; when none may, and ``work_conserving``, the first that can run any job takes
        its lowest-scoring one."""
        reserved = self._reserved(jobs) if self._exclusive else NO_WORK
        soonest = self._soonest(jobs, waiting, reserved) if self._earliest else None
        if self._job_first:
            first = self._first_job(free, jobs, waiting, soonest, reserved)
            if first is not None or not self._work_conserving or soonest is None:
                return first
            return self._first_job(free, jobs, waiting, None, reserved)
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

    def _first_job(self, free: list[tuple[str, float]], jobs: list[Job], waiting: dict[str, int],
                   soonest: list[int] | None, reserved: dict[str, int]
                   ) -> tuple[str, int, Subgraph] | None:
        """``job_first``: each job's processor is the idle one where its model would finish
        first (of those it finishes no later than ``soonest`` when that is given; ties: the
        idle order); the job scoring lowest there goes (ties: the earlier finish, then queue
        position). With ``t_latency`` `on_processor` a job's T_latency is the earliest its
        model can finish from now on any processor, busy ones counting the work waiting there
        (so a job whose fastest processor is busy is the more urgent)."""
        best: tuple[float, int, int, int, str, Subgraph] | None = None
        for k, item in enumerate(jobs):
            opts = item.options
            self._work += len(opts)
            ahead = len(opts) > 1
            target: tuple[int, str, float, Subgraph] | None = None
            for name, load in free:
                opt = opts.get(name)
                if opt is None:
                    continue
                held = reserved.get(name, 0) if ahead else 0
                if soonest is not None and opt[0] + held > soonest[k]:
                    continue
                if target is None or opt[0] < target[0]:
                    target = (opt[0], name, load, opt[1])
            if target is None:
                continue
            finish, name, load, sg = target
            latency = finish
            if self._on_processor:
                for p, o in opts.items():
                    latency = min(latency, waiting[p] + o[0])
            score = self._score(item, latency, self._resource(load))
            if best is None or score < best[0] or (score == best[0] and (
                    finish < best[1] or (finish == best[1] and item.position < best[2]))):
                best = (score, finish, item.position, k, name, sg)
        return None if best is None else (best[4], best[3], best[5])

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
        self._work = self._tables.work = 0
        now_ns = view.now_ns
        now_ms = now_ns / NS_PER_MS
        hot, waiting, free = self._readings.read(view)
        jobs: list[Job] = []
        for j in view.queue[:self._loop_call_size]:  # (the head: no job past it is read)
            jobs.append(self._job(len(jobs), j, view, hot, now_ms))
        if self._exclusive:
            jobs, weighed = spare_exclusive(jobs, view, self._tables.through, self.cost)
            self._work += weighed
        if self._lp.split:
            jobs = [self._steer(item, view) for item in jobs]
        drops: tuple[int, ...] = ()
        if self._shedding:
            jobs, drops = shed(jobs, view, self.options)
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
        return Decision(tuple(out), drops, work=self._work + self._tables.work + len(jobs))

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
        through = self._tables.through(view.plans[model], sg, item.job.last_processor)
        return replace(item, options={sg.processor: (through,
                                                     sg)})
