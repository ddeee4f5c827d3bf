"""The Band baseline (MobiSys'22, ``mrsnu/band``) as a :class:`~harness.seams.policy.Policy`.

Band cuts each model by op support alone: unit subgraphs, merged into every contiguous run a
processor supports, where a run shorter than ``minimum_subgraph_size`` ops on a non-CPU
processor falls back (``band/model_analyzer.cc``; here
:func:`baselines.band.analyzer.analyze`). Schedulers that do not place subgraphs
(``NeedFallbackSubgraphs() == false``: ``fixed_worker``, ``round_robin``) get Band's
*no-fallback* preparation instead: the whole model as one subgraph per worker
(:func:`whole_model_plan`).

Latency estimates start from the device profile and follow a moving average of measured
latencies (:mod:`baselines.band.estimator`). Unfinished jobs go back to the front of the
queue, as Band's workers re-enqueue a job's remaining subgraphs with ``push_front``
(``band/worker.cc``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from baselines.band.analyzer import analyze
from baselines.band.config import BandConf, SloCheck
from baselines.band.config import SchedulerName as Kind
from baselines.band.estimator import LatencyEstimator
from baselines.band.schedulers import (
    BandScheduler,
    FixedWorker,
    HeterogeneousEarliestFinishTime,
    LeastSlackTimeFirst,
    RoundRobin,
    ShortestExpectedLatency,
)
from harness.seams.errors import UserError
from harness.seams.fields import check
from harness.seams.graph import ModelGraph
from harness.seams.plan import ModelPlan, Processor, Subgraph
from harness.seams.policy import PolicyContext, Runner
from harness.seams.records import Completion
from harness.seams.view import Decision, SchedulerView

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


#: scheduler name -> how to build it from (queue head, drop_on_slo)
SCHEDULERS: Mapping[Kind, Callable[[int | None, bool], BandScheduler]] = {
    Kind.fixed_worker: lambda head, drop: FixedWorker({}, drop),
    Kind.round_robin: lambda head, drop: RoundRobin(drop),
    Kind.shortest_expected_latency: ShortestExpectedLatency,
    Kind.least_slack_time_first: LeastSlackTimeFirst,
    Kind.heterogeneous_earliest_finish_time: HeterogeneousEarliestFinishTime,
    Kind.heterogeneous_earliest_finish_time_reserved:
        lambda head, drop: HeterogeneousEarliestFinishTime(head, drop, reserve=True),
}


class BandPolicy:
    """Band: analysis by op support, one of Band's schedulers, moving-average estimates.

    ``queue_head``: jobs examined from the queue head, Band's ``schedule_window_size``
    (None = unlimited, Band's default).
    ``worker_map``: model -> processor for ``fixed_worker``; a model not listed runs on the
    processor with the shortest profiled whole-model latency (Band reads this map from its
    config and would otherwise use worker 0).
    """

    Conf: ClassVar[type] = BandConf
    #: Band: a phone runs it with Band's own ``band_benchmark``
    runner: ClassVar[Runner] = Runner.BAND
    reinsert_front = True

    def __init__(
        self,
        conf: BandConf,
        queue_head: int | None = None,
        worker_map: Mapping[str, str] | None = None,
        name: str = "band",
    ) -> None:
        check(conf, name)  # its fields' declared ranges (built from Python, not a config too)
        if queue_head is not None and queue_head < 1:
            raise UserError(f"band schedule window must be >= 1, got {queue_head}")
        self.conf = conf
        self.name = name
        self.estimator = LatencyEstimator(conf.ema_alpha)
        self.scheduler = SCHEDULERS[conf.scheduler](queue_head, conf.drop_on_slo)
        self.scheduler.slo_as_written = conf.slo_check is SloCheck.written
        self._worker_map = dict(worker_map or {})

    @classmethod
    def check_device(cls, name: str, kind: str) -> None:
        """Every device kind runs it (written out, not inherited: a compiled class)."""

    @classmethod
    def from_config(cls, conf: BandConf, context: PolicyContext) -> BandPolicy:
        head = conf.schedule_window_size
        return cls(conf, queue_head=head if head > 0 else None, name=context.name)

    @classmethod
    def from_trace(cls, conf: BandConf, header: Mapping[str, Any]) -> BandPolicy:
        """As recorded in a decision trace's header (``harness.replay``): its config, and the
        ``fixed_worker`` map it was given (:meth:`trace_facts`); prepare derives the rest from
        the header's plans and profile."""
        head = conf.schedule_window_size
        worker_map = header.get("facts", {}).get("worker_map")
        return cls(conf, queue_head=head if head > 0 else None, worker_map=worker_map,
                   name=str(header["name"]))

    def trace_facts(self) -> dict[str, Any]:
        """What a decision trace's header needs beyond the plans, profile and config: the
        ``fixed_worker`` map given to the constructor (not part of the config)."""
        return {"worker_map": dict(self._worker_map)} if self._worker_map else {}

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
        return analyze(graph, processors, unsupported, self.conf.minimum_subgraph_size, merge=True)

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

    def expected_ns(self, subgraph: Subgraph) -> int:
        return self.estimator.expected(subgraph.key)

    def observe(self, completion: Completion) -> None:
        if completion.ok:
            sg = completion.subgraph
            self.estimator.update(sg.key, completion.latency_ns)
