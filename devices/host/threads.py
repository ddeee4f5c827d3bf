"""The ``threads`` baseline as the host runs it: one LiteRT interpreter per model, each in its
own thread, the operating system sharing the cores.

This is what a user of the host has without a scheduler: every model of the scenario whole
in one interpreter (``kernel``, ``threads`` of the baseline's config; XNNPACK and one thread
by default), built from the model's own ``.tflite`` (no slicing), on a thread of its own that
may run on every core of ``cores`` (default: every core of the device's processors). Nothing
is pinned per model: the OS scheduler shares the cores among the threads.

It goes through the same traffic, runtime loop and records as every other baseline: the
harness hands its loop over (:attr:`~harness.seams.device.BaselineRun.loop`), and
:class:`ModelThreads` is the :class:`~harness.seams.device.Engine` it drives. The runtime sees
one *lane* per model, named ``thread:<model>`` (:func:`lane_name`), whose plan is the whole
model as one subgraph, and :class:`FirstComeFirstServed` hands each request to its model's
lane, where requests of that model wait in arrival order. So ``requests`` rows, FPS, latency and
SLO results are those of any baseline; ``subgraphs`` rows carry the lane as their processor
(its utilization is the share of time the model's thread was running an inference, the OS
may have descheduled it meanwhile); ``sensors`` rows are the device's processors' (per-core
load from ``/proc/stat``, which counts every process of the machine).

Before the clock starts each model is timed alone in its thread (``host.warmup_runs`` untimed
runs, the median of ``host.profile_runs``), for the manifest and the baseline's own bound:
with whole models on ``len(cores)`` cores, at most ``min(len(cores) / sum(t), 1 / max(t))``
frames per second, ``t`` the models' times alone (a model cannot run faster than alone, and
the frame's work cannot exceed the cores' time).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from devices.host.config import HostSettingsConf, Kernel
from devices.host.jobs import InputFrames, Tensors
from devices.host.spec import parse_cores, parse_kernel
from devices.host.workers import SliceRunner, Worker
from harness.seams.clocks import WallClock
from harness.seams.device import BaselineRun
from harness.seams.errors import UserError
from harness.seams.fields import check
from harness.seams.graph import ModelGraph
from harness.seams.plan import ModelPlan, Processor, ProcessorKind, Subgraph
from harness.seams.records import Completion, Request, SensorSample
from harness.seams.units import NS_PER_S
from harness.seams.view import Assignment, Decision, SchedulerView


def lane_name(model: str) -> str:
    """The runtime lane (``processor`` in the rows) of a model's thread."""
    return f"thread:{model}"


@dataclass(frozen=True, slots=True)
class ThreadsSpec:
    """How every model's interpreter runs: kernels, interpreter threads, shared cores."""

    kernel: Kernel
    threads: int
    cores: tuple[int, ...]


@dataclass(frozen=True)
class HostFacts:
    """What the run needs of the host device it runs on."""

    paths: Mapping[str, Path]
    graph: Callable[[str], ModelGraph]
    cores: tuple[int, ...]
    settings: HostSettingsConf
    read_sensors: Callable[[int], tuple[SensorSample, ...]]
    start_clock: Callable[[], WallClock]
    now_ns: Callable[[], int]


def threads_spec(conf: Any, device_cores: Sequence[int]) -> ThreadsSpec:
    """The baseline's config (:class:`baselines.threads.config.ThreadsConf`), held to its
    fields' declared ranges: a known kernel, threads >= 1, cores of the device."""
    where = "baseline threads"
    check(conf, "baselines.threads")
    return ThreadsSpec(
        kernel=parse_kernel(conf.kernel, where),
        threads=conf.threads,
        cores=parse_cores(conf.cores or list(device_cores), device_cores, where),
    )


def whole_plan(graph: ModelGraph) -> ModelPlan:
    """The model as one subgraph on its own lane."""
    ops = frozenset(range(graph.num_ops))
    lane = lane_name(graph.name)
    sg = Subgraph(0, graph.name, lane, ops, (0,))
    return ModelPlan(graph.name, (ops,), (frozenset({lane}),), (sg,), 1,
                     {"analyzer": "threads"}, shared_interpreter=True)


class FirstComeFirstServed:
    """The runtime's policy for ``threads``: each request to its model's lane, in arrival
    order (the lane's local queue holds the ones its thread has not reached)."""

    name = "threads"
    reinsert_front = False

    def __init__(self, alone_ns: Mapping[str, int]) -> None:
        self.alone_ns = dict(alone_ns)

    def plan(self, graph: ModelGraph, processors: Sequence[Processor],
             unsupported: Mapping[str, frozenset[int]]) -> ModelPlan:
        return whole_plan(graph)

    def prepare(self, plans: Mapping[str, ModelPlan],
                profile: Mapping[tuple[str, int], int]) -> None:
        """Nothing to learn: the assignment is fixed."""

    def schedule(self, view: SchedulerView) -> Decision:
        out = tuple(Assignment(job.job_id, view.plans[job.model].subgraphs[0])
                    for job in view.queue)
        return Decision(out, work=len(out))  # one step per job (the host charges real time)

    def observe(self, completion: Completion) -> None:
        """Nothing to learn: the assignment is fixed."""

    def expected_ns(self, subgraph: Subgraph) -> int:
        return self.alone_ns.get(subgraph.model, 0)


class ModelThreads:
    """One worker thread per model, each with the whole model's interpreter, on shared
    cores: the :class:`~harness.seams.device.Engine` the runtime's loop drives (the host's
    clock and sensors, this baseline's lanes)."""

    def __init__(self, spec: ThreadsSpec, host: HostFacts,
                 graphs: Mapping[str, ModelGraph]) -> None:
        self.graphs, self.host = dict(graphs), host
        self.frames = InputFrames(host.settings.seed, host.settings.input_frames)
        self.now_ns = host.now_ns
        self.workers: dict[str, Worker] = {}
        self.runners: dict[str, SliceRunner] = {}
        try:
            for model in graphs:
                self.workers[model] = Worker(lane_name(model), spec.cores)
        except OSError as exc:
            self.close(1.0)
            raise UserError(str(exc)) from None
        futures = {m: w.submit(_builder(host.paths[m], graphs[m], spec))
                   for m, w in self.workers.items()}
        for model, future in futures.items():
            try:
                self.runners[model] = future.result()
            except Exception as exc:
                self.close(1.0)
                raise UserError(f"cannot build model {model!r} for baseline threads: "
                                f"{exc}") from None

    def decision_ns(self, work: int) -> int:
        """0: decisions take real time."""
        return 0

    def start_clock(self) -> WallClock:
        """The host's clock: this instant is time 0."""
        return self.host.start_clock()

    def read_sensors(self, now_ns: int) -> tuple[SensorSample, ...]:
        """The host's processors' sensors."""
        return self.host.read_sensors(now_ns)

    def start(self, job_id: int, request: Request, subgraph: Subgraph, now_ns: int,
              on_done: Callable[[Completion], None]) -> None:
        self.workers[request.model].post(lambda: self._run(job_id, request, subgraph, on_done))

    def _run(self, job_id: int, request: Request, subgraph: Subgraph,
             on_done: Callable[[Completion], None]) -> None:
        start_ns = self.now_ns()
        ok = self._infer(request)
        on_done(Completion(job_id, request, subgraph, start_ns, self.now_ns(), ok))

    def _infer(self, request: Request) -> bool:
        runner, tensors = self.runners[request.model], Tensors()
        try:
            self.frames.fill(tensors, runner, request, self.graphs[request.model].inputs)
            runner.run(tensors)
        except Exception:  # a failed inference is a failed request, as on any baseline
            return False
        return True

    def time_alone(self, model: str) -> int:
        """Median ns of one inference of ``model`` alone in its thread."""
        runner = self.runners[model]
        request = Request(-1, model, 0, 0, 0, 0)

        def timed() -> int:
            tensors = Tensors()
            self.frames.fill(tensors, runner, request, self.graphs[model].inputs)
            for _ in range(self.host.settings.warmup_runs):
                runner.run(dict(tensors))
            return int(statistics.median(_timed_run(runner, tensors)
                                         for _ in range(self.host.settings.profile_runs)))

        return self.workers[model].call(timed)

    def close(self, timeout_s: float) -> None:
        for worker in self.workers.values():
            worker.close(timeout_s)
        self.runners.clear()


def _builder(path: Path, graph: ModelGraph, spec: ThreadsSpec) -> Callable[[], SliceRunner]:
    """Build the whole model's interpreter (on its worker, so its threads share its cores)."""
    return lambda: SliceRunner(path, graph.inputs, graph.outputs, spec.kernel, spec.threads)


def _timed_run(runner: SliceRunner, tensors: Mapping[int, Any]) -> int:
    start = time.perf_counter_ns()
    runner.run(dict(tensors))
    return time.perf_counter_ns() - start


def own_bound(alone_ns: Mapping[str, int], cores: int) -> dict[str, object]:
    """Frames per second no run of whole models on ``cores`` shared cores can beat."""
    total_s = sum(alone_ns.values()) / NS_PER_S
    longest_s = max(alone_ns.values()) / NS_PER_S
    fps = min(cores / total_s, 1 / longest_s) if total_s > 0 else float("inf")
    return {"frames_per_s": fps, "cores": cores, "alone_ns": dict(alone_ns)}


# -- a run -----------------------------------------------------------------------------------


def run_threads(host: HostFacts, run: BaselineRun) -> dict[str, object]:
    """Run the scenario as plain threads on the harness's loop; facts for the manifest."""
    if run.scenario.slo_multiplier > 0:
        raise UserError("baseline threads with scenario.slo_multiplier > 0 is not "
                        "implemented (its SLO base, vanilla TFLite alone, is not measured "
                        "on this path); use scenario.slo_multiplier=0")
    spec = threads_spec(run.conf, host.cores)
    graphs = {m: host.graph(m) for m in run.scenario.models}
    plans = {m: whole_plan(g) for m, g in graphs.items()}
    lanes = tuple(Processor(lane_name(m), ProcessorKind.CPU) for m in graphs)
    engine = ModelThreads(spec, host, graphs)
    try:
        alone = {m: engine.time_alone(m) for m in graphs}
        end_ns = run.loop(FirstComeFirstServed(alone), plans, lanes, engine)
    finally:
        engine.close(host.settings.join_timeout_s)
    return {"plans": {m: p.counts() for m, p in plans.items()},
            "threads": {"kernel": spec.kernel.name, "threads": spec.threads,
                        "cores": list(spec.cores)},
            "alone_ns": alone, "bound": own_bound(alone, len(spec.cores)), "end_ns": end_ns}
