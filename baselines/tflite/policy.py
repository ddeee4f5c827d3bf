"""Vanilla TFLite as a :class:`~harness.seams.policy.Policy`: no scheduler at all.

Each model runs on the one processor its placement gives it (:mod:`.placement`: the best
assignment by single-model profiles, or under ``placement: fixed`` ``processor_map``, then
``quantized_processors`` for an 8-bit model, then ``default_processor``) through that
processor's delegate; the ops the delegate rejects (and partitions beyond the delegate's
``max_partitions``) fall back to the CPU. The plan
(:func:`~baselines.tflite.plan.tflite_plan`) therefore offers exactly one subgraph per unit,
so there is no placement choice at run time.

Scheduling, with ``concurrent`` (as apps run vanilla TFLite): each model's interpreter (one per
model and stream) runs on a thread of its own, so a queued job starts at once unless its
interpreter is busy with an earlier request; models that share a processor run concurrently
and the device shares the processor among them. Without it, first come, first served per
processor: whenever a processor is idle it takes the first queued job whose next subgraph
runs on it. A job with a CPU fallback segment goes
back to the *front* of the queue (``reinsert_front``), so its next segment runs as soon as its
processor is free, as the segments of one ``Interpreter::Invoke`` run back to back. Requests
are never dropped for missing their SLO.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from baselines.tflite.config import Placement, TfliteConf
from baselines.tflite.placement import best_assignment
from baselines.tflite.plan import tflite_plan
from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph
from harness.seams.plan import ModelPlan, Processor, Subgraph
from harness.seams.policy import PolicyContext, ProfileFn, Runner
from harness.seams.records import Completion
from harness.seams.view import Assignment, Decision, SchedulerView


class TflitePolicy:
    """Each model whole on one processor; FIFO per processor; no dropping.

    ``max_partitions``: processor name -> how many delegate partitions TFLite keeps there
    (the device's :class:`~harness.seams.records.DelegateLimits`); a processor not listed
    keeps them all. ``min_partition_ops``: processor name -> the smallest partition its
    delegate accepts; a processor not listed accepts 1 op. Under ``placement: best`` the
    policy needs the device's ``profile`` and the run's ``models`` with their ``op_support``
    to find the assignment; it computes it when it plans the first model.
    """

    Conf: ClassVar[type] = TfliteConf
    #: vanilla TFLite: a phone runs it with the stock ``benchmark_model``
    runner: ClassVar[Runner] = Runner.TFLITE
    reinsert_front = True

    def __init__(
        self,
        conf: TfliteConf,
        cpu_name: str = "cpu",
        max_partitions: Mapping[str, int] | None = None,
        min_partition_ops: Mapping[str, int] | None = None,
        name: str = "tflite",
        profile: ProfileFn | None = None,
        models: Mapping[str, ModelGraph] | None = None,
        op_support: Mapping[str, Mapping[str, frozenset[int]]] | None = None,
    ) -> None:
        self.conf = conf
        self.name = name
        self.cpu_name = cpu_name
        self._max_partitions = dict(max_partitions or {})
        self._min_partition_ops = dict(min_partition_ops or {})
        self._profile, self._models = profile, dict(models or {})
        self._op_support = dict(op_support or {})
        #: model -> processor, once placed
        self.assignment: dict[str, str] = {}
        self._profiled: dict[tuple[str, int], int] = {}
        #: (model, stream) -> the job its interpreter runs (``concurrent``)
        self._holders: dict[tuple[str, int], int] = {}
        #: model -> its plan's last unit
        self._last_unit: dict[str, int] = {}
        #: the prepared plans run concurrently (``ModelPlan.concurrent``)
        self._concurrent = False

    @classmethod
    def check_device(cls, name: str, kind: str) -> None:
        """Every device kind runs it (written out, not inherited: a compiled class)."""

    @classmethod
    def from_config(cls, conf: TfliteConf, context: PolicyContext) -> TflitePolicy:
        """With the device's CPU fallback, each delegate's partition limits, and what the best
        placement needs: the device's profile and the run's models."""
        limits = context.device.delegates
        return cls(conf, context.device.fallback,
                   {p: d.max_partitions for p, d in limits.items() if d.max_partitions is not None},
                   {p: d.min_partition_ops for p, d in limits.items()}, name=context.name,
                   profile=context.profile, models=context.models,
                   op_support=context.op_support)

    @classmethod
    def from_trace(cls, conf: TfliteConf, header: Mapping[str, Any]) -> TflitePolicy:
        """As recorded in a decision trace's header (``harness.replay``): its decisions read
        only its config and the plans it is prepared with."""
        return cls(conf, name=str(header["name"]))

    def _delegated(self, graph: ModelGraph, proc: Processor,
                   unsupported: Mapping[str, frozenset[int]]) -> ModelPlan:
        plan: ModelPlan = tflite_plan(
            graph, proc, unsupported.get(proc.name, frozenset()), cpu_name=self.cpu_name,
            max_partitions=self._max_partitions.get(proc.name),
            min_partition_ops=self._min_partition_ops.get(proc.name, 1),
            concurrent=self.conf.concurrent)
        return plan

    def _loads(self, graph: ModelGraph, processors: Sequence[Processor]
               ) -> dict[str, dict[str, int]]:
        """Processor ``graph`` may be delegated to -> busy ns per inference on each processor.
        A processor is left out unless every op of its plan lands on a processor that supports
        it (a custom op only XNNPACK runs cannot fall back to a CPU of built-in kernels)."""
        assert self._profile is not None
        unsupported = self._op_support.get(graph.name, {})
        loads = {}
        for proc in processors:
            plan = self._delegated(graph, proc, unsupported)
            if any(sg.ops & unsupported.get(sg.processor, frozenset()) for sg in plan.subgraphs):
                continue
            busy = {p.name: 0 for p in processors}
            for sg in plan.subgraphs:
                busy[sg.processor] += self._profile(plan, sg)
            loads[proc.name] = busy
        return loads

    def _place(self, processors: Sequence[Processor]) -> dict[str, str]:
        if self._profile is None or not self._models:
            raise UserError("tflite placement=best needs the device's profiles and the run's "
                            "models; use placement=fixed with processor_map/default_processor")
        self._check_fallback(processors)
        loads = {m: self._loads(g, processors) for m, g in self._models.items()}
        for model, by_proc in loads.items():
            if not by_proc:
                raise UserError(f"tflite: model {model!r} cannot run whole on any processor "
                                f"with CPU fallback here (the fallback {self.cpu_name!r} lacks "
                                f"an op the others reject); run band or adms")
        return best_assignment(loads, [p.name for p in processors], self.conf.processor_map)

    def _check_fallback(self, processors: Sequence[Processor]) -> None:
        names = [p.name for p in processors]
        if self.cpu_name not in names:
            raise UserError(f"tflite: fallback processor {self.cpu_name!r} is not on this "
                            f"device; processors: {names}")

    def processor_for(self, model: str, processors: Sequence[Processor],
                      quantized: bool = False) -> Processor:
        """The processor ``model`` (``quantized``: an 8-bit model) runs on; UserError if the
        device lacks it."""
        if self.conf.placement is Placement.best:
            if not self.assignment:
                self.assignment = self._place(processors)
            if model not in self.assignment:
                raise UserError(f"tflite: model {model!r} is not among the run's models "
                                f"{sorted(self.assignment)}")
            name = self.assignment[model]
        else:
            name = self.conf.fixed_processor(model, quantized, [p.name for p in processors])
        names = [p.name for p in processors]
        if name not in names:
            raise UserError(f"tflite: processor {name!r} for model {model!r} is not on this "
                            f"device; processors: {names}")
        self._check_fallback(processors)
        return processors[names.index(name)]

    def plan(
        self,
        graph: ModelGraph,
        processors: Sequence[Processor],
        unsupported: Mapping[str, frozenset[int]],
    ) -> ModelPlan:
        proc = self.processor_for(graph.name, processors, graph.is_quantized)
        return self._delegated(graph, proc, unsupported)

    def prepare(self, plans: Mapping[str, ModelPlan], profile: Mapping[tuple[str, int], int]
                ) -> None:
        """Vanilla TFLite has no estimates; the profile only reports waiting times."""
        self._profiled = dict(profile)
        self._last_unit = {m: p.num_units - 1 for m, p in plans.items()}
        self._concurrent = any(p.concurrent for p in plans.values())

    def expected_ns(self, subgraph: Subgraph) -> int:
        return self._profiled.get((subgraph.model, subgraph.index), 0)

    def schedule(self, view: SchedulerView) -> Decision:
        """First come, first served per processor; the work counted is the jobs looked at.
        A plan offers one subgraph per unit, so a job can take only what the first queued
        job of its kind (model, next unit) could: the queue's kind heads, where the runtime
        keeps them, are every choice there is (a decision's cost does not grow with the
        queue's length)."""
        if self._concurrent:
            return self._beside(view)
        free = {p.name for p in view.idle}
        out: list[Assignment] = []
        scanned = 0
        heads = getattr(view.queue, "heads", None)
        for job in view.queue if heads is None else heads():
            if not free:
                break
            scanned += 1
            for sg in view.plans[job.model].candidates(job.next_unit):
                if sg.processor in free:
                    out.append(Assignment(job.job_id, sg))
                    free.discard(sg.processor)
                    break
        return Decision(tuple(out), work=scanned)

    def _beside(self, view: SchedulerView) -> Decision:
        """Every queued job whose interpreter (model, stream) is free starts now. Streams of
        one model are separate interpreters (Table II's copies), so the choices are the
        first queued job of each interpreter (the queue's stream heads, where the runtime
        keeps them): a later job of an interpreter waits for its first, and a job whose
        segment ended waits at the front (``reinsert_front``), before its interpreter's
        others. The work counted is the whole queue, the jobs this rule is defined over
        (the same count whichever way the heads are found)."""
        heads = getattr(view.queue, "stream_heads", None)
        out: list[Assignment] = []
        for job in view.queue if heads is None else heads():
            key = (job.model, job.request.stream)
            if self._holders.setdefault(key, job.job_id) != job.job_id:
                continue
            out.append(Assignment(job.job_id, view.plans[job.model].candidates(job.next_unit)[0]))
        return Decision(tuple(out), work=len(view.queue))

    def observe(self, completion: Completion) -> None:
        """With concurrent plans, a job's interpreter is free once its last segment (or a
        failed one) ended; nothing else to learn."""
        if not self._concurrent:
            return
        sg = completion.subgraph
        if not completion.ok or sg.last_unit >= self._last_unit.get(sg.model, 0):
            key = (sg.model, completion.request.stream)
            if self._holders.get(key) == completion.job_id:
                del self._holders[key]
