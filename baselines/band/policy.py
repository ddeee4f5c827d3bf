"""The Band baseline (MobiSys'22, ``mrsnu/band``) as a :class:`~harness.runtime.api.Policy`.

Band cuts each model by op support alone: unit subgraphs, merged into every contiguous run a
processor supports, where a run shorter than ``minimum_subgraph_size`` ops on a non-CPU
processor falls back (``band/model_analyzer.cc``; here :func:`adms.analyzer.analyze` with
``window_size = minimum_subgraph_size``). Schedulers that do not place subgraphs
(``NeedFallbackSubgraphs() == false``: ``fixed_worker``, ``round_robin``) get Band's
*no-fallback* preparation instead: the whole model as one subgraph per worker
(:func:`whole_model_plan`).

Latency estimates start from the device profile and follow a moving average of measured
latencies (:mod:`baselines.band.estimator`). Unfinished jobs go back to the front of the
queue, as Band's workers re-enqueue a job's remaining subgraphs with ``push_front``
(``band/worker.cc``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from baselines.band.estimator import LatencyEstimator
from baselines.band.schedulers import (
    BandScheduler,
    FixedWorker,
    HeterogeneousEarliestFinishTime,
    LeastSlackTimeFirst,
    RoundRobin,
    ShortestExpectedLatency,
)
from harness.config import BandConf
from harness.config import BandScheduler as Kind
from harness.errors import UserError
from harness.graph import ModelGraph
from harness.plan import ModelPlan, Processor, Subgraph
from harness.runtime.api import Completion, Decision, SchedulerView

#: Band's schedulers that place whole models only (their ``NeedFallbackSubgraphs()`` is false)
NO_FALLBACK = frozenset({Kind.fixed_worker, Kind.round_robin})


def whole_model_plan(
    graph: ModelGraph, processors: Sequence[Processor], unsupported: Mapping[str, frozenset[int]]
) -> ModelPlan:
    """One unit (every op) and one subgraph per processor that can run every op.

    Band's no-fallback preparation gives every available worker the whole model and lets the
    TFLite delegate fall back inside that interpreter; a device here runs a subgraph on one
    processor only, so a processor that rejects any op of the model is left out.
    """
    ops = frozenset(range(graph.num_ops))
    able = [p.name for p in processors if not unsupported.get(p.name, frozenset()) & ops]
    subgraphs = tuple(Subgraph(k, graph.name, name, ops, (0,)) for k, name in enumerate(able))
    return ModelPlan(graph.name, (ops,), (frozenset(able),), subgraphs, window_size=1,
                     meta={"analyzer": "band", "preparation": "no_fallback_subgraph"})


def _make_scheduler(conf: BandConf, window: int | None) -> BandScheduler:
    kind, drop = conf.scheduler, conf.drop_on_slo
    if kind is Kind.fixed_worker:
        return FixedWorker({}, drop)
    if kind is Kind.round_robin:
        return RoundRobin(drop)
    if kind is Kind.shortest_expected_latency:
        return ShortestExpectedLatency(window, drop)
    if kind is Kind.least_slack_time_first:
        return LeastSlackTimeFirst(window, drop)
    reserve = kind is Kind.heterogeneous_earliest_finish_time_reserved
    return HeterogeneousEarliestFinishTime(window, drop, reserve=reserve)


class BandPolicy:
    """Band: analysis by op support, one of Band's schedulers, moving-average estimates.

    ``schedule_window``: Band's ``schedule_window_size`` (None = unlimited, Band's default).
    ``worker_map``: model -> processor for ``fixed_worker``; a model not listed runs on the
    processor with the shortest profiled whole-model latency (Band reads this map from its
    config and would otherwise use worker 0).
    """

    reinsert_front = True

    def __init__(
        self,
        conf: BandConf,
        schedule_window: int | None = None,
        worker_map: Mapping[str, str] | None = None,
    ) -> None:
        if conf.minimum_subgraph_size < 1:
            raise UserError(f"band minimum_subgraph_size must be >= 1, got "
                            f"{conf.minimum_subgraph_size}")
        if schedule_window is not None and schedule_window < 1:
            raise UserError(f"band schedule window must be >= 1, got {schedule_window}")
        self.conf = conf
        self.name = conf.name
        self.estimator = LatencyEstimator(conf.ema_alpha)
        self.scheduler = _make_scheduler(conf, schedule_window)
        self._worker_map = dict(worker_map or {})

    @property
    def whole_models(self) -> bool:
        return self.conf.scheduler in NO_FALLBACK

    def plan(
        self,
        graph: ModelGraph,
        processors: Sequence[Processor],
        unsupported: Mapping[str, frozenset[int]],
    ) -> ModelPlan:
        if self.whole_models:
            return whole_model_plan(graph, processors, unsupported)
        from adms.analyzer import analyze

        plan: ModelPlan = analyze(graph, processors, unsupported,
                                  window_size=self.conf.minimum_subgraph_size, merge=True)
        return plan

    def prepare(self, plans: Mapping[str, ModelPlan], profile: Mapping[tuple[str, int], int]
                ) -> None:
        self.estimator.seed(profile)
        if isinstance(self.scheduler, FixedWorker):
            self.scheduler.workers = {m: self._worker_for(p) for m, p in plans.items()}

    def _worker_for(self, plan: ModelPlan) -> str:
        chosen = self._worker_map.get(plan.model)
        names = sorted(plan.processors())
        if chosen is None and names:
            chosen = min(plan.subgraphs,
                         key=lambda sg: self.estimator.profiled((sg.model, sg.index))).processor
        if chosen not in names:
            raise UserError(f"band fixed_worker: model {plan.model!r} cannot run whole on "
                            f"{chosen!r}; processors that can: {names}")
        return chosen

    def schedule(self, view: SchedulerView) -> Decision:
        return self.scheduler.schedule(view, self.estimator)

    def observe(self, completion: Completion) -> None:
        if completion.ok:
            sg = completion.subgraph
            self.estimator.update((sg.model, sg.index), completion.latency_ns)
