"""The ``adb`` device: a real phone over adb; every policy runs there in the native runner.

What runs where (DESIGN.md, "What runs where on a phone"):

* ``tflite``, ``band``, ``adms`` and every variant of them (each baseline the runtime would
  dispatch): the harness analyses the models and plans them on the host as for any device,
  cuts every subgraph into a slice and pushes it (:mod:`devices.adb.slices`), profiles every
  subgraph alone on the phone with the runner (:meth:`AdbDevice.profile`,
  :mod:`devices.adb.profiling`), prepares the policy on that profile, and hands it over
  (:class:`~harness.seams.device.PolicyRunner`): the runner runs the policy's C++ twin on
  the phone, with the same executor, clocks and logs for all three systems, and the harness
  writes ``requests``, ``subgraphs`` and ``sensors`` rows from its logs and replays its
  decision trace (:mod:`devices.adb.runner_run`);
* ``tflite_stock`` and ``band_stock``, cross-checks with the tools their authors ship: the
  stock ``benchmark_model``, one process per model (:mod:`devices.adb.vanilla`, rows in
  ``phone_runs``), and Band's own ``band_benchmark`` (:mod:`devices.adb.band_run`, its job
  log parsed into ``requests`` and ``subgraphs``).

So :class:`AdbDevice` is a :class:`~harness.seams.device.BaselineRunner` for the stock
tools and a :class:`~harness.seams.device.PolicyRunner` for the rest; the runtime never
dispatches subgraphs over adb (a round trip per subgraph), so :meth:`AdbDevice.start` is
never called. Every baseline opens the phone afresh (connect, probe), measures in its own
:class:`~devices.adb.measure.Measurement` (sensor loop, power, conditioning) and writes its
rows; a failure after measuring leaves every row written, then one error.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from devices.adb import leftovers
from devices.adb.band_run import run_band
from devices.adb.config import AdbDeviceConf, Leftovers
from devices.adb.phone import Phone, connect
from devices.adb.profiling import PhoneProfiles
from devices.adb.runner_exe import RunnerOnPhone, push_runner
from devices.adb.runner_run import RunnerRun
from devices.adb.sensors import loop_script, parse_log, samples_for
from devices.adb.slices import PhoneSlices
from devices.adb.vanilla import run_vanilla
from devices.opsupport import delegate_limits, fallback_processor, unsupported_ops
from harness.seams.clocks import WallClock
from harness.seams.device import (
    BaselineRun,
    DeviceContext,
    DeviceDefaults,
    DeviceKind,
    PolicyRun,
    RowSink,
)
from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph
from harness.seams.plan import ModelPlan, Processor, Subgraph
from harness.seams.policy import Runner
from harness.seams.records import Completion, DeviceInfo, Request, SensorSample

#: the baselines a phone runs with its stock tools: runner -> how
STOCK: dict[Runner, Callable[[Phone, BaselineRun, RowSink, Mapping[str, Path]], dict[str, Any]]]
STOCK = {Runner.TFLITE_STOCK: run_vanilla, Runner.BAND_STOCK: run_band}
#: the baselines whose policy the phone's runner runs
IN_RUNNER = (Runner.RUNTIME, Runner.TFLITE, Runner.BAND)


def check_runner(name: str, runner: Runner) -> None:
    """Refuse a baseline a phone cannot run."""
    if runner not in STOCK and runner not in IN_RUNNER:
        raise UserError(f"baseline {name!r} ({runner.value}) cannot run on a phone: a phone "
                        f"runs tflite, band and adms (and their variants) in the native "
                        f"runner, and tflite_stock and band_stock with the stock tools")


class AdbDevice(DeviceDefaults):
    """A phone over adb; see the module docstring."""

    Conf: ClassVar[type] = AdbDeviceConf
    kind: ClassVar[DeviceKind] = DeviceKind("adb", "PHONE over adb (real measurements)")
    needs_model_files: ClassVar[bool] = True
    #: a phone's repetitions take real minutes
    default_seeds: ClassVar[int] = 3

    def __init__(self, conf: AdbDeviceConf, context: DeviceContext) -> None:
        if not conf.processors:
            raise UserError(f"phone config {conf.name!r} declares no processors")
        self.conf, self.paths = conf, dict(context.paths)
        self.graphs, self.cache_dir = dict(context.graphs), context.cache_dir
        self.phone = connect(conf)
        self.phone.host_run = leftovers.this_run()
        leftovers.settle(self.phone.transport, conf.remote_dir,
                         refuse=conf.leftovers is Leftovers.refuse)
        self.slices = PhoneSlices(context.cache_dir, self.phone.deployer, self.paths)
        self._runner: RunnerOnPhone | None = None
        self._profiles: PhoneProfiles | None = None

    @classmethod
    def open(cls, conf: AdbDeviceConf, context: DeviceContext) -> AdbDevice:
        return cls(conf, context)

    @classmethod
    def prepare_run(cls, conf: AdbDeviceConf, run: Sequence[str],
                    runners: Mapping[str, Runner], dry_run: bool) -> AdbDeviceConf:
        """Before anything runs: refuse baselines a phone cannot run; name the generic
        config (``name: adb``) after the phone's probed model."""
        for name in run:
            check_runner(name, runners[name])
        if dry_run or conf.name != "adb":
            return conf
        conf.name = connect(conf).facts.model
        return conf

    # -- BaselineRunner (the stock tools) and PolicyRunner (the native runner) -------------

    def runs_baseline(self, runner: Runner) -> bool:
        """The stock tools' baselines; the runner runs the others' policies."""
        return runner in STOCK

    def run_baseline(self, run: BaselineRun, sink: RowSink) -> Mapping[str, object]:
        check_runner(run.name, run.runner)
        facts = STOCK[run.runner](self.phone, run, sink, self.paths)
        return {"device": self.describe(), **facts}

    @property
    def runner(self) -> RunnerOnPhone:
        """The native runner, pushed on first use."""
        if self._runner is None:
            self._runner = push_runner(self.phone)
        return self._runner

    def run_policy(self, run: PolicyRun, sink: RowSink) -> Mapping[str, object]:
        """Run the prepared policy in the runner (:mod:`devices.adb.runner_run`)."""
        facts = RunnerRun(self.phone, self.runner, self.slices, self.graphs)(run, sink)
        return {**facts, "profiled_on_phone": self.profiles().measured}

    # -- the Device protocol ---------------------------------------------------------------

    def describe(self) -> DeviceInfo:
        procs = self.conf.processors
        return DeviceInfo(self.phone.facts.model, self.kind.word,
                          tuple(Processor(p.name, p.kind) for p in procs),
                          self.phone.describe(), fallback_processor(procs),
                          delegate_limits(procs))

    def op_support(self, graph: ModelGraph) -> Mapping[str, frozenset[int]]:
        """Ops each processor's delegate rejects, by the delegates' public rules."""
        return {p.name: unsupported_ops(graph, p) for p in self.conf.processors}

    def load(self, graphs: Mapping[str, ModelGraph], plans: Mapping[str, ModelPlan]) -> None:
        """Cut every subgraph's slice and push it (by content hash)."""
        self.graphs.update(graphs)
        for plan in plans.values():
            for sg in plan.subgraphs:
                self.slices.place(sg)

    def profiles(self) -> PhoneProfiles:
        if self._profiles is None:
            self._profiles = PhoneProfiles(self.phone, self.runner, self.slices,
                                           self.cache_dir)
        return self._profiles

    def profile(self, plan: ModelPlan, subgraph: Subgraph) -> int:
        """ns of the subgraph alone on its processor, measured on the phone by the runner."""
        return self.profiles().profile(plan, subgraph)

    def handoff_ns(self, plan: ModelPlan, subgraph: Subgraph) -> int:
        """0: a subgraph's profile on the phone counts the copies of its tensors."""
        return 0

    def decision_ns(self, work: int) -> int:
        """A phone's decisions take the real time they take."""
        return 0

    def start_clock(self) -> WallClock:
        return WallClock()

    def start(self, job_id: int, request: Request, subgraph: Subgraph, now_ns: int,
              on_done: Callable[[Completion], None]) -> None:
        """Never called: the phone runs its policies in the runner (:meth:`run_policy`)."""
        raise UserError("a phone runs subgraphs only in its native runner, never dispatched "
                        "one by one over adb")

    def read_sensors(self, now_ns: int) -> tuple[SensorSample, ...]:
        """One reading of every processor now (one pass of the sampling loop)."""
        plan = self.phone.sensor_plan()
        script = loop_script(plan, "/dev/stdout", "/nonexistent", 0, 1)
        loop = parse_log(self.phone.transport.check(script, "reading the sensors"))
        return tuple(samples_for(plan, loop[-1:], lambda _phone_ns: now_ns))

    def close(self) -> None:
        """Nothing is held open (each adb call has its own connection); the host's slice
        cache is trimmed to its budget."""
        self.slices.trim()
