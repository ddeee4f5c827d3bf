"""The ``host`` device: real LiteRT subgraphs on this machine's cores.

Each processor of the device config is a :class:`~devices.host.workers.Worker` thread pinned
to its cores, with its own kernels (XNNPACK, built-in or reference) and thread count. A
subgraph (a set of op indices of one model) runs as an exact slice of the model's ``.tflite``
file (:mod:`devices.host.slicing`) on its processor's own interpreter.

**Tensors flow for real.** Per job the device keeps the tensors produced so far, in the
original model's tensor numbering; a slice reads its inputs from them and writes its outputs
back (copies, as between processors). A model input is seeded random data: request ``r`` gets
frame ``r % host.input_frames``, drawn once (seed ``host.seed``, frame, tensor index) and kept,
so that drawing random numbers (~0.3 ms for 64 KB) is not counted as the processor's work.
After each subgraph the device drops the tensors that no op still to run reads; when a job has
run every op, its model outputs move to a small table readable through
:meth:`HostDevice.outputs` (:mod:`devices.host.jobs`).

**Time.** ``now_ns`` is ``time.monotonic_ns() - t0_ns``, where :attr:`HostDevice.t0_ns` is
set at construction and again by :meth:`HostDevice.start_clock`, which the experiment calls
when the run starts, after loading and profiling (these can take seconds to minutes and
must not eat into the scenario's warm-up and duration); the
:class:`~harness.seams.clocks.WallClock` it returns uses the same origin. A
:class:`Completion`'s
``start_ns`` is when the worker began the subgraph (after the dispatch from :meth:`start`),
``end_ns`` when its outputs were copied out; ``on_done`` is called from the worker thread.

**Concurrent plans** (vanilla TFLite's interpreters, each on an app thread of its own) run on
lanes, a thread per model and processor pinned to the processor's cores, so the kernel
time-slices the core among them (:mod:`devices.host.lanes`); every other plan's subgraphs
queue on the processor's worker, one at a time.

**Building and profiles** (:class:`~devices.host.runners.RunnerTable`). :meth:`HostDevice.load`
slices every subgraph and builds interpreters for the first ``host.eager_build_limit``
distinct (model, op set, processor) slices, each on its own worker (workers build in
parallel), and reports both as phases (``DeviceContext.phases``: "cutting 22 slices",
"building 22 interpreters"). Plans with more subgraphs than that (Band with
``minimum_subgraph_size`` 1 makes thousands) build the rest on first use: in
:meth:`profile`, which the runtime calls before it starts the clock, or, failing that, in
the first :meth:`start`. :meth:`HostDevice.profile`
times a slice alone on its processor's worker; measurements persist on disk unless
``host.profile_cache`` is false, so every baseline of a run, and every later run, starts from
the same numbers and profiles each subgraph once.

**Contention.** This machine may be shared. Each worker adds up the wall and thread CPU time
of the subgraphs it runs (:meth:`HostDevice.cpu_shares`), and the device notes the CPU time
the whole machine and this process used from the first :meth:`start` on;
:meth:`HostDevice.close` warns when other processes used more than ``FOREIGN_LOAD_LIMIT``
cores on average (:meth:`HostDevice.foreign_load`; :mod:`devices.host.contention`).

**Op support.** A processor with ``support: xnnpack`` emulates an accelerator that runs what
XNNPACK takes, found by trial (:func:`~devices.host.workers.xnnpack_unsupported_ops`); other
rule sets come from :func:`devices.opsupport.unsupported_ops`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import ClassVar

import numpy as np

from devices.host.config import HostDeviceConf, HostProcessorConf
from devices.host.contention import FOREIGN_LOAD_LIMIT as FOREIGN_LOAD_LIMIT
from devices.host.contention import ContentionMonitor
from devices.host.corun import time_beside
from devices.host.jobs import InputFrames, JobTable, Liveness
from devices.host.jobs import Job as Job
from devices.host.jobs import Tensors as Tensors
from devices.host.lanes import Lanes
from devices.host.profiles import ProfileCache, time_copy_in
from devices.host.runners import RunnerTable
from devices.host.sensors import HostSensors
from devices.host.slicekey import SliceKey as SliceKey
from devices.host.slicekey import describe_slice, slice_key
from devices.host.spec import HostProcessorSpec, parse_device
from devices.host.threads import HostFacts, run_threads
from devices.host.workers import Worker, litert_version, xnnpack_unsupported_ops
from devices.opsupport import delegate_limits, fallback_processor
from devices.processors import ProcessorConf, SupportRules
from harness.seams.clocks import WallClock
from harness.seams.device import BaselineRun, DeviceContext, DeviceDefaults, DeviceKind, RowSink
from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph
from harness.seams.plan import ModelPlan, Subgraph
from harness.seams.policy import Runner
from harness.seams.progress import StartPhase, no_phases
from harness.seams.records import Completion, DeviceInfo, Request, SensorSample

log = logging.getLogger(__name__)


class HostDevice(DeviceDefaults):
    """Runs subgraphs of real models on worker threads; see the module docstring."""

    Conf: ClassVar[type] = HostDeviceConf
    kind: ClassVar[DeviceKind] = DeviceKind("host", "THIS MACHINE (real measurements)")
    needs_model_files: ClassVar[bool] = True
    #: real runs take real time: fewer repetitions by default
    default_seeds: ClassVar[int] = 3

    def __init__(
        self, conf: HostDeviceConf, model_paths: Mapping[str, Path], cache_dir: Path,
        phases: StartPhase = no_phases,
    ) -> None:
        self.conf = conf
        self.settings, specs = parse_device(conf)
        self.specs: dict[str, HostProcessorSpec] = {s.name: s for s in specs}
        self.model_paths = {m: Path(p) for m, p in model_paths.items()}
        self.cache_dir = Path(cache_dir)
        #: origin of ``now_ns``: ``time.monotonic_ns()`` at construction
        self.t0_ns = time.monotonic_ns()
        self.sensors = HostSensors(processors={s.name: s.cores for s in specs})
        self._proc_confs: dict[str, HostProcessorConf] = {p.name: p for p in conf.processors}
        self._graphs: dict[str, ModelGraph] = {}
        self._liveness: dict[str, Liveness] = {}
        #: each slice's interpreter and profile
        self._runners = RunnerTable(self.settings, self.specs, self.cache_dir, self._worker,
                                    self._model_path, phases)
        #: subgraphs' wall and worker CPU time, and machine CPU time from the first start()
        self._contention = ContentionMonitor({s.name: s.threads for s in specs})
        self._xnnpack: dict[str, frozenset[int]] = {}
        self._jobs = JobTable(self.settings.keep_outputs)
        self._frames = InputFrames(self.settings.seed, self.settings.input_frames)
        self.workers: dict[str, Worker] = {}
        #: threads of the models whose interpreters run concurrently (vanilla TFLite)
        self.lanes = Lanes({s.name: s.cores for s in specs})
        self._concurrent: frozenset[str] = frozenset()
        self._start_workers(specs)

    def _start_workers(self, specs: Iterable[HostProcessorSpec]) -> None:
        try:
            for spec in specs:
                self.workers[spec.name] = Worker(spec.name, spec.cores)
        except OSError as exc:
            self.close()
            raise UserError(str(exc)) from None

    @classmethod
    def open(cls, conf: HostDeviceConf, context: DeviceContext) -> HostDevice:
        return cls(conf, context.paths, context.cache_dir, context.phases)

    def now_ns(self) -> int:
        """Nanoseconds since :attr:`t0_ns`."""
        return time.monotonic_ns() - self.t0_ns

    def handoff_ns(self, plan: ModelPlan, subgraph: Subgraph) -> int:
        """0: a host subgraph's measured profile includes copying its inputs in."""
        return 0

    def decision_ns(self, work: int) -> int:
        """0: the host's decisions take real time."""
        return 0

    def start_clock(self) -> WallClock:
        """Make this instant time 0 (call before the run's first arrival); the sensors'
        load and power start from here too."""
        self.sensors.restart()
        self.t0_ns = time.monotonic_ns()
        return WallClock(self.t0_ns)

    # -- BaselineRunner: the threads baseline ------------------------------------------------

    def runs_baseline(self, runner: Runner) -> bool:
        """Plain threads only (:mod:`devices.host.threads`); the runtime drives every other
        baseline through :meth:`start`."""
        return runner is Runner.THREADS

    def run_baseline(self, run: BaselineRun, sink: RowSink) -> Mapping[str, object]:
        """Run the scenario as one interpreter per model in its own thread, on the
        harness's loop (``run.loop``), which records the rows (``sink`` is unused)."""
        cores = tuple(sorted({c for s in self.specs.values() for c in s.cores}))
        host = HostFacts(self.model_paths, self.graph, cores, self.settings, self.read_sensors,
                         self.start_clock, self.now_ns)
        return {"device": self.describe(), **run_threads(host, run)}

    # -- Device protocol -------------------------------------------------------------------

    def describe(self) -> DeviceInfo:
        return DeviceInfo(
            name=self.conf.name, kind=self.kind.word,
            processors=tuple(s.processor for s in self.specs.values()), facts=self.facts(),
            fallback=fallback_processor(self.conf.processors),
            delegates=delegate_limits(self.conf.processors),
        )

    def facts(self) -> dict[str, object]:
        """Machine facts for the manifest: CPU, cores, kernel, versions, sensors, workers."""
        workers = {
            s.name: {"kernel": s.kernel.name, "threads": s.threads, "cores": list(s.cores),
                     "support": s.support.name}
            for s in self.specs.values()
        }
        return {**self.sensors.facts(), "litert_version": litert_version(), "workers": workers}

    def load(self, graphs: Mapping[str, ModelGraph], plans: Mapping[str, ModelPlan]) -> None:
        """Slice and build up to ``eager_build_limit`` subgraphs now; the rest on first use."""
        for model in plans:
            self._graphs[model] = graphs[model] if model in graphs else self.graph(model)
            self._liveness[model] = Liveness.of(self._graphs[model])
        subgraphs = [sg for plan in plans.values() for sg in plan.subgraphs]
        self._runners.load(list(dict.fromkeys(slice_key(sg) for sg in subgraphs)))
        self._concurrent = frozenset(m for m, plan in plans.items() if plan.concurrent)
        self.lanes.open({m: sorted({sg.processor for sg in plans[m].subgraphs})
                          for m in self._concurrent})

    def profile(self, plan: ModelPlan, subgraph: Subgraph) -> int:
        """Median ns of the subgraph alone on its processor (from the disk cache if there)."""
        return self._runners.profile(slice_key(subgraph))

    def profile_slice(self, model: str, ops: frozenset[int], processor: str) -> int:
        """:meth:`profile` of an op set that no plan needs (a calibration's slice)."""
        return self._runners.profile((model, ops, processor))

    def time_beside(self, key: SliceKey, background: SliceKey) -> tuple[int, int]:
        """(alone, beside) median ns of a slice on its worker, alone and then while another
        processor runs ``background`` in a loop (:mod:`devices.host.corun`; not cached)."""
        return time_beside(self._runners, self._worker, key, background, self.settings)

    def time_input_copy(self, model: str, ops: frozenset[int], processor: str,
                        runs: int) -> tuple[int, int, int]:
        """(median ns, bytes, tensors) of copying a slice's inputs into its interpreter
        (``set_tensor`` of each, as :meth:`SliceRunner.run` does), on its worker."""
        key = (model, ops, processor)
        return self._worker(processor).call(lambda: time_copy_in(self._runners.runner(key),
                                                                 runs, self.settings.seed))

    @property
    def profile_store(self) -> ProfileCache | None:
        """The on-disk profile cache (with its hit and store counts), or ``None`` when
        ``host.profile_cache`` is false."""
        return self._runners.profile_store

    def start(
        self, job_id: int, request: Request, subgraph: Subgraph, now_ns: int,
        on_done: Callable[[Completion], None],
    ) -> None:
        worker = self._worker(subgraph.processor)
        judged = subgraph.model not in self._concurrent
        if not judged:  # its own thread beside the others' (devices.host.lanes)
            worker = self.lanes.lane(subgraph.processor, subgraph.model)
        self._contention.mark_start()
        worker.post(lambda: self._run(job_id, request, subgraph, on_done, judged))

    def read_sensors(self, now_ns: int) -> tuple[SensorSample, ...]:
        return self.sensors.read(now_ns)

    def drain(self) -> None:
        """Wait until every task posted to the workers so far (and its ``on_done``) has ended."""
        for worker in self.workers.values():
            worker.call(lambda: None)
        self.lanes.drain()

    def close(self) -> None:
        """Stop the workers (each joined with ``host.join_timeout_s``); idempotent. Logs the
        profile cache's use, trims the slice cache to its budget
        (:meth:`~devices.host.slicecache.SliceCache.trim`) and warns about workers that did not
        have their cores."""
        self._runners.log_profile_use()
        for name in self.lanes.close(self.settings.join_timeout_s):
            log.warning("host lane %s did not stop within %ss", name,
                        self.settings.join_timeout_s)
        for name, worker in self.workers.items():
            if not worker.close(self.settings.join_timeout_s):
                log.warning("host worker %s did not stop within %ss", name,
                            self.settings.join_timeout_s)
        self._runners.close()
        self._warn_contention()

    def cpu_shares(self) -> dict[str, float | None]:
        """Per processor: the share of its subgraphs' wall time its worker thread ran
        (``None``: nothing run yet, or a multi-threaded interpreter, not judged)."""
        return self._contention.cpu_shares()

    def foreign_load(self) -> float | None:
        """Average CPU (in cores) that other processes used since the first :meth:`start`
        (``None``: nothing started, or ``/proc/stat`` unreadable)."""
        return self._contention.foreign_load()

    def _warn_contention(self) -> None:
        self._contention.warn()

    def __enter__(self) -> HostDevice:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- op support ------------------------------------------------------------------------

    def op_support(self, graph: ModelGraph) -> dict[str, frozenset[int]]:
        """Processor name -> indices of the ops of ``graph`` it cannot run."""
        self._graphs.setdefault(graph.name, graph)
        return self.unsupported_ops(graph.name)

    def unsupported_ops(self, model: str) -> dict[str, frozenset[int]]:
        """Processor name -> indices of the ops of ``model`` it cannot run."""
        return {name: self._unsupported(model, conf) for name, conf in self._proc_confs.items()}

    def _unsupported(self, model: str, conf: HostProcessorConf) -> frozenset[int]:
        if conf.support is not SupportRules.xnnpack:
            from devices.opsupport import unsupported_ops

            return unsupported_ops(self.graph(model), conf)
        if model not in self._xnnpack:
            self._xnnpack[model] = xnnpack_unsupported_ops(self._model_path(model))
        return adjust_by_kind(self._xnnpack[model], self.graph(model), conf)

    def graph(self, model: str) -> ModelGraph:
        """The model's graph (as loaded, or read from its ``.tflite``)."""
        if model not in self._graphs:
            from harness.models.tflite_io import read_tflite

            self._graphs[model] = read_tflite(self._model_path(model), model)
        return self._graphs[model]

    # -- results ---------------------------------------------------------------------------

    def outputs(self, job_id: int) -> dict[int, np.ndarray]:
        """Model outputs (original tensor index -> array) of a recently finished job."""
        return self._jobs.outputs(job_id)

    # -- running ---------------------------------------------------------------------------

    def _run(
        self, job_id: int, request: Request, subgraph: Subgraph,
        on_done: Callable[[Completion], None], judged: bool = True,
    ) -> None:
        """Worker task: run one subgraph of one job and report it (``judged``: its thread
        had the core to itself, so its CPU share measures other processes' load)."""
        start_ns, cpu_ns = self.now_ns(), time.thread_time_ns()
        try:
            self._execute(job_id, request, subgraph)
            ok = True
        except Exception:
            log.exception("job %d: %s failed", job_id, describe_slice(slice_key(subgraph)))
            self._jobs.drop(job_id)
            ok = False
        end_ns = self.now_ns()
        if judged:
            self._contention.add(subgraph.processor, end_ns - start_ns,
                                 time.thread_time_ns() - cpu_ns)
        on_done(Completion(job_id, request, subgraph, start_ns, end_ns, ok))

    def _execute(self, job_id: int, request: Request, subgraph: Subgraph) -> None:
        runner = self._runners.runner(slice_key(subgraph))
        job = self._jobs.job(job_id)
        self._frames.fill(job.tensors, runner, request, self.graph(request.model).inputs)
        runner.run(job.tensors)
        self._retire(job_id, job, subgraph)

    def _retire(self, job_id: int, job: Job, subgraph: Subgraph) -> None:
        """Drop the tensors no op still to run reads; a finished job keeps its outputs."""
        self._jobs.retire(job_id, job, subgraph.ops, self._live(subgraph.model))

    def _live(self, model: str) -> Liveness:
        if model not in self._liveness:
            self._liveness[model] = Liveness.of(self.graph(model))
        return self._liveness[model]

    # -- helpers ---------------------------------------------------------------------------

    def _worker(self, processor: str) -> Worker:
        if processor not in self.workers:
            known = list(self.workers)
            raise UserError(f"unknown processor {processor!r}; host processors: {known}")
        return self.workers[processor]

    def _model_path(self, model: str) -> Path:
        if model not in self.model_paths:
            raise UserError(f"no .tflite for model {model!r}; known: {sorted(self.model_paths)}")
        return self.model_paths[model]


def adjust_by_kind(
    ops: frozenset[int], graph: ModelGraph, conf: ProcessorConf
) -> frozenset[int]:
    """Apply ``reject_ops`` (added) and ``accept_ops`` (removed; reject wins) by op kind."""
    reject, accept = set(conf.reject_ops), set(conf.accept_ops) - set(conf.reject_ops)
    return frozenset(
        op.index for op in graph.ops
        if op.kind in reject or (op.index in ops and op.kind not in accept)
    )
