"""Vanilla TFLite as a :class:`~harness.seams.policy.Policy`: no scheduler at all.

Each model runs on the one processor it was configured for (``processor_map``, else
``default_processor``) through that processor's delegate; the ops the delegate rejects (and
partitions beyond the delegate's ``max_partitions``) fall back to the CPU. The plan
(:func:`tflite_plan`) therefore offers exactly one subgraph per unit, so there is no
placement choice.

Scheduling is first come, first served per processor: whenever a processor is idle it takes
the first queued job whose next subgraph runs on it. A job with a CPU fallback segment goes
back to the *front* of the queue (``reinsert_front``), so its next segment runs as soon as its
processor is free, as the segments of one ``Interpreter::Invoke`` run back to back. Requests
are never dropped for missing their SLO.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from hydra.core.config_store import ConfigStore

from baselines.band.analyzer import fallback_subgraphs
from harness.config.schema import BaselineConf
from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph
from harness.seams.plan import ModelPlan, Processor, ProcessorKind, Subgraph
from harness.seams.policy import PolicyContext
from harness.seams.records import Completion
from harness.seams.view import Assignment, Decision, SchedulerView


@dataclass
class TfliteConf(BaselineConf):
    _target_: str = "baselines.tflite.TflitePolicy"
    # processor for each model; models not listed use default_processor
    processor_map: dict[str, str] = field(default_factory=dict)
    default_processor: str = "gpu"


def register() -> None:
    ConfigStore.instance().store(group="schema/baseline", name="tflite", node=TfliteConf)


class TflitePolicy:
    """Each model whole on its configured processor; FIFO per processor; no dropping.

    ``max_partitions``: processor name -> how many delegate partitions TFLite keeps there
    (the device's :class:`~harness.seams.records.DelegateLimits`); a processor not listed
    keeps them all. ``min_partition_ops``: processor name -> the smallest partition its
    delegate accepts; a processor not listed accepts 1 op.
    """

    Conf: ClassVar[type] = TfliteConf
    reinsert_front = True

    def __init__(
        self,
        conf: TfliteConf,
        cpu_name: str = "cpu",
        max_partitions: Mapping[str, int] | None = None,
        min_partition_ops: Mapping[str, int] | None = None,
        name: str = "tflite",
    ) -> None:
        self.conf = conf
        self.name = name
        self.cpu_name = cpu_name
        self._max_partitions = dict(max_partitions or {})
        self._min_partition_ops = dict(min_partition_ops or {})

    @classmethod
    def from_config(cls, conf: TfliteConf, context: PolicyContext) -> TflitePolicy:
        """With the device's CPU fallback and each delegate's partition limits."""
        limits = context.device.delegates
        return cls(conf, context.device.fallback,
                   {p: d.max_partitions for p, d in limits.items() if d.max_partitions is not None},
                   {p: d.min_partition_ops for p, d in limits.items()}, name=context.name)

    def processor_for(self, model: str, processors: Sequence[Processor]) -> Processor:
        """The processor ``model`` is configured to run on; UserError if the device lacks it."""
        name = self.conf.processor_map.get(model, self.conf.default_processor)
        names = [p.name for p in processors]
        if name not in names:
            raise UserError(f"tflite: processor {name!r} for model {model!r} is not on this "
                            f"device; processors: {names}")
        if self.cpu_name not in names:
            raise UserError(f"tflite: fallback processor {self.cpu_name!r} is not on this "
                            f"device; processors: {names}")
        return processors[names.index(name)]

    def plan(
        self,
        graph: ModelGraph,
        processors: Sequence[Processor],
        unsupported: Mapping[str, frozenset[int]],
    ) -> ModelPlan:
        proc = self.processor_for(graph.name, processors)
        plan: ModelPlan = tflite_plan(
            graph, proc, unsupported.get(proc.name, frozenset()), cpu_name=self.cpu_name,
            max_partitions=self._max_partitions.get(proc.name),
            min_partition_ops=self._min_partition_ops.get(proc.name, 1))
        return plan

    def prepare(self, plans: Mapping[str, ModelPlan], profile: Mapping[tuple[str, int], int]
                ) -> None:
        """Nothing to learn: vanilla TFLite has no estimates."""

    def schedule(self, view: SchedulerView) -> Decision:
        free = {p.name for p in view.idle}
        out: list[Assignment] = []
        for job in view.queue:
            if not free:
                break
            for sg in view.plans[job.model].candidates(job.next_unit):
                if sg.processor in free:
                    out.append(Assignment(job.job_id, sg))
                    free.discard(sg.processor)
                    break
        return Decision(tuple(out))

    def observe(self, completion: Completion) -> None:
        """Nothing to learn."""


# -- the plan -------------------------------------------------------------------------------


def tflite_plan(
    graph: ModelGraph,
    processor: Processor,
    unsupported: frozenset[int],
    cpu_name: str,
    max_partitions: int | None,
    min_partition_ops: int = 1,
) -> ModelPlan:
    """Vanilla TFLite: the model on ``processor``; its unsupported ops, and its delegate
    partitions beyond the ``max_partitions`` largest (or smaller than ``min_partition_ops``),
    on the CPU ``cpu_name``. Units alternate processor / CPU, one subgraph each."""
    if processor.kind is ProcessorKind.CPU or processor.name == cpu_name:
        placed = [(processor.name, frozenset(range(graph.num_ops)))]
    else:
        placed = _coalesce(_place(fallback_subgraphs(graph, processor, unsupported), unsupported,
                                  processor.name, cpu_name, max_partitions, min_partition_ops))
    units = tuple(ops for _, ops in placed)
    subgraphs = tuple(Subgraph(u, graph.name, name, ops, (u,)) for u, (name, ops)
                      in enumerate(placed))
    meta = {"analyzer": "tflite", "processor": processor.name, "max_partitions": max_partitions}
    return ModelPlan(graph.name, units, tuple(frozenset({n}) for n, _ in placed), subgraphs, 1,
                     meta)


def _place(
    runs: Sequence[frozenset[int]],
    unsupported: frozenset[int],
    name: str,
    cpu_name: str,
    max_partitions: int | None,
    min_ops: int,
) -> list[tuple[str, frozenset[int]]]:
    """Each run with the processor that runs it: the delegate keeps its largest partitions."""
    delegated = [k for k, run in enumerate(runs) if not run & unsupported and len(run) >= min_ops]
    delegated.sort(key=lambda k: (-len(runs[k]), k))
    kept = set(delegated if max_partitions is None else delegated[:max_partitions])
    return [(name if k in kept else cpu_name, run) for k, run in enumerate(runs)]


def _coalesce(placed: Sequence[tuple[str, frozenset[int]]]) -> list[tuple[str, frozenset[int]]]:
    """Join neighbouring runs placed on the same processor (runs are in execution order)."""
    out: list[tuple[str, frozenset[int]]] = []
    for name, ops in placed:
        if out and out[-1][0] == name:
            out[-1] = (name, out[-1][1] | ops)
        else:
            out.append((name, ops))
    return out
