"""Vanilla TFLite as a :class:`~harness.runtime.api.Policy`: no scheduler at all.

Each model runs on the one processor it was configured for (``processor_map``, else
``default_processor``) through that processor's delegate; the ops the delegate rejects (and
partitions beyond the delegate's ``max_partitions``) fall back to the CPU. The plan
(:func:`adms.analyzer.tflite_plan`) therefore offers exactly one subgraph per unit, so there
is no placement choice.

Scheduling is first come, first served per processor: whenever a processor is idle it takes
the first queued job whose next subgraph runs on it. A job with a CPU fallback segment goes
back to the *front* of the queue (``reinsert_front``), so its next segment runs as soon as its
processor is free, as the segments of one ``Interpreter::Invoke`` run back to back. Requests
are never dropped for missing their SLO.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from harness.config import TfliteConf
from harness.errors import UserError
from harness.graph import ModelGraph
from harness.plan import ModelPlan, Processor
from harness.runtime.api import Assignment, Completion, Decision, SchedulerView


class TflitePolicy:
    """Each model whole on its configured processor; FIFO per processor; no dropping.

    ``max_partitions``: processor name -> how many delegate partitions TFLite keeps there
    (see :func:`harness.opsupport.max_partitions`); a processor not listed keeps them all.
    ``min_partition_ops``: processor name -> the smallest partition its delegate accepts
    (:func:`harness.opsupport.min_partition_ops`); a processor not listed accepts 1 op.
    """

    reinsert_front = True

    def __init__(
        self,
        conf: TfliteConf,
        cpu_name: str = "cpu",
        max_partitions: Mapping[str, int] | None = None,
        min_partition_ops: Mapping[str, int] | None = None,
    ) -> None:
        self.conf = conf
        self.name = conf.name
        self.cpu_name = cpu_name
        self._max_partitions = dict(max_partitions or {})
        self._min_partition_ops = dict(min_partition_ops or {})

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
        from adms.analyzer import tflite_plan

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
