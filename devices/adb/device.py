"""The ``adb`` device: a real phone over adb, running whole baselines with its own tools.

What runs where (DESIGN.md, "What runs where on a phone"):

* ``tflite`` (vanilla TFLite): the stock ``benchmark_model``, one process per model on its
  processor's delegate, concurrently (:mod:`devices.adb.vanilla`); rows in ``phone_runs``;
* ``band``: Band's own ``band_benchmark`` with a config the harness writes, its job log parsed
  into ``requests`` and ``subgraphs`` (:mod:`devices.adb.band_run`);
* ``adms``: not on the phone. ADMS needs an executor on the phone that runs subgraphs as the
  runtime dispatches them (native, on the LiteRT C API), which does not exist yet; running it
  is refused up front (:meth:`AdbDevice.prepare_run`), naming what to run instead.

So :class:`AdbDevice` is a :class:`~harness.seams.device.BaselineRunner` for every baseline.
It also implements the :class:`~harness.seams.device.Device` protocol where a phone can
answer today (describe, op support by the delegates' rules, a one-shot sensor reading, the
wall clock) and keeps the execution methods (``load``, ``profile``, ``start``) as the seam an
on-device executor will fill: today they raise :data:`NO_EXECUTOR`.

Every baseline opens the phone afresh (connect, probe), measures in its own
:class:`~devices.adb.measure.Measurement` (sensor loop, power, conditioning) and writes its
rows as it goes; a failure after measuring leaves every row written, then one error.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from devices.adb.band_run import run_band
from devices.adb.config import AdbDeviceConf
from devices.adb.phone import Phone, connect
from devices.adb.sensors import loop_script, parse_log, samples_for
from devices.adb.vanilla import run_vanilla
from devices.opsupport import delegate_limits, fallback_processor, unsupported_ops
from harness.seams.clocks import WallClock
from harness.seams.device import BaselineRun, DeviceContext, DeviceDefaults, DeviceKind, RowSink
from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph
from harness.seams.plan import ModelPlan, Processor, Subgraph
from harness.seams.policy import Runner
from harness.seams.records import Completion, DeviceInfo, Request, SensorSample

NO_EXECUTOR = (
    "a phone runs ADMS only with an on-device executor (subgraphs dispatched one by one, "
    "native on the LiteRT C API), which does not exist yet: run adms on a twin "
    "(device=k50pro|p20|mi6, or a twin calibrated from this phone's single-model "
    "benchmark_model runs with devices/twin/calibrate.py), and tflite/band on the phone: "
    "run=[tflite,band]")
#: the baselines a phone runs with its own tools: runner -> how
RUNNERS: dict[Runner, Callable[[Phone, BaselineRun, RowSink, Mapping[str, Path]], dict[str, Any]]]
RUNNERS = {Runner.TFLITE: run_vanilla, Runner.BAND: run_band}


def runner_for(name: str, runner: Runner) -> Callable[..., dict[str, Any]]:
    """The phone's tool run of baseline ``name``, by what it is (its declared runner)."""
    if runner in RUNNERS:
        return RUNNERS[runner]
    if runner is Runner.RUNTIME:
        raise UserError(f"baseline {name!r} cannot run on a phone yet: {NO_EXECUTOR}")
    raise UserError(f"baseline {name!r} ({runner.value}) has no runner on a phone; the phone "
                    f"runs vanilla TFLite (benchmark_model) and Band (band_benchmark)")


class AdbDevice(DeviceDefaults):
    """A phone over adb; see the module docstring."""

    Conf: ClassVar[type] = AdbDeviceConf
    kind: ClassVar[DeviceKind] = DeviceKind("adb", "PHONE over adb (real measurements)")
    needs_model_files: ClassVar[bool] = True
    #: a phone's repetitions take real minutes
    default_seeds: ClassVar[int] = 3

    def __init__(self, conf: AdbDeviceConf, paths: Mapping[str, Path]) -> None:
        if not conf.processors:
            raise UserError(f"phone config {conf.name!r} declares no processors")
        self.conf, self.paths = conf, dict(paths)
        self.phone = connect(conf)

    @classmethod
    def open(cls, conf: AdbDeviceConf, context: DeviceContext) -> AdbDevice:
        return cls(conf, context.paths)

    @classmethod
    def prepare_run(cls, conf: AdbDeviceConf, run: Sequence[str],
                    runners: Mapping[str, Runner], dry_run: bool) -> AdbDeviceConf:
        """Before anything runs: refuse baselines a phone cannot run; name the generic
        config (``name: adb``) after the phone's probed model."""
        for name in run:
            runner_for(name, runners[name])
        if dry_run or conf.name != "adb":
            return conf
        conf.name = connect(conf).facts.model
        return conf

    # -- BaselineRunner --------------------------------------------------------------------

    def runs_baseline(self, runner: Runner) -> bool:
        """Every baseline: the phone runs it with its own tools, or refuses it."""
        return True

    def run_baseline(self, run: BaselineRun, sink: RowSink) -> Mapping[str, object]:
        runner = runner_for(run.name, run.runner)
        facts = runner(self.phone, run, sink, self.paths)
        return {"device": self.describe(), **facts}

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
        raise UserError(NO_EXECUTOR)

    def profile(self, plan: ModelPlan, subgraph: Subgraph) -> int:
        raise UserError(NO_EXECUTOR)

    def handoff_ns(self, plan: ModelPlan, subgraph: Subgraph) -> int:
        raise UserError(NO_EXECUTOR)

    def decision_ns(self, work: int) -> int:
        """A phone's decisions take the real time they take."""
        return 0

    def start_clock(self) -> WallClock:
        return WallClock()

    def start(self, job_id: int, request: Request, subgraph: Subgraph, now_ns: int,
              on_done: Callable[[Completion], None]) -> None:
        raise UserError(NO_EXECUTOR)

    def read_sensors(self, now_ns: int) -> tuple[SensorSample, ...]:
        """One reading of every processor now (one pass of the sampling loop)."""
        plan = self.phone.sensor_plan()
        script = loop_script(plan, "/dev/stdout", "/nonexistent", 0, 1)
        loop = parse_log(self.phone.transport.check(script, "reading the sensors"))
        return tuple(samples_for(plan, loop[-1:], lambda _phone_ns: now_ns))

    def close(self) -> None:
        """Nothing is held open: each adb call has its own connection."""
