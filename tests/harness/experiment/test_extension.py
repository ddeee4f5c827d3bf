"""Adding a scheduler, a device, a device kind or a metric is one module plus one YAML.

This module is that module, four times over: :class:`FifoPolicy` (every idle processor takes
the first job it can run), :class:`IdealDevice` (every processor runs every op at one fixed
rate, on a simulated clock), :class:`SketchDevice` (the same, declaring a device kind of its
own) and :data:`FINISHED_PCT` (a metric: the share of measured requests that finished).
Each test writes one YAML per component into a config folder of its own, puts that folder on
``hydra.searchpath`` and runs the harness; no file of the harness, ``conf/`` or any other
component is touched, and nothing registers them anywhere.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import pandas as pd
import pytest
import simpy

from harness.config.schema import BaselineConf, DeviceConf
from harness.experiment import session
from harness.reporting.measures import Metric, SeedRows, Shown, Table
from harness.reporting.store import load_run
from harness.seams.clocks import SimClock
from harness.seams.device import DeviceContext, DeviceDefaults, DeviceKind
from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph
from harness.seams.plan import ModelPlan, Processor, ProcessorKind, Subgraph
from harness.seams.policy import PolicyContext, PolicyDefaults
from harness.seams.records import Completion, DeviceInfo, Request, SensorSample
from harness.seams.view import Assignment, Decision, SchedulerView

HERE = "tests.harness.experiment.test_extension"

# -- a scheduler -------------------------------------------------------------------------------


@dataclass
class FifoConf(BaselineConf):
    _target_: str = f"{HERE}.FifoPolicy"


class FifoPolicy(PolicyDefaults):
    """Each model whole on the first processor that is free; first come, first served."""

    Conf: ClassVar[type] = FifoConf
    reinsert_front = False

    def __init__(self, name: str) -> None:
        self.name = name

    @classmethod
    def from_config(cls, conf: FifoConf, context: PolicyContext) -> FifoPolicy:
        return cls(context.name)

    def plan(self, graph: ModelGraph, processors: Sequence[Processor],
             unsupported: Mapping[str, frozenset[int]]) -> ModelPlan:
        ops = frozenset(range(graph.num_ops))
        able = [p.name for p in processors if not unsupported.get(p.name, frozenset()) & ops]
        subgraphs = tuple(Subgraph(k, graph.name, p, ops, (0,)) for k, p in enumerate(able))
        return ModelPlan(graph.name, (ops,), (frozenset(able),), subgraphs)

    def prepare(self, plans: Mapping[str, ModelPlan],
                profile: Mapping[tuple[str, int], int]) -> None:
        """Nothing to learn."""

    def schedule(self, view: SchedulerView) -> Decision:
        free, out = {p.name for p in view.idle}, []
        for job in view.queue:
            sg = next((s for s in view.plans[job.model].candidates(job.next_unit)
                       if s.processor in free), None)
            if sg is not None:
                out.append(Assignment(job.job_id, sg))
                free.discard(sg.processor)
        return Decision(tuple(out), work=len(view.queue))  # one step per job read

    def observe(self, completion: Completion) -> None:
        """Nothing to learn."""

    def expected_ns(self, subgraph: Subgraph) -> int:
        return 0


FIFO_YAML = f"_target_: {HERE}.FifoPolicy\n"

# -- a device ----------------------------------------------------------------------------------


@dataclass
class IdealConf(DeviceConf):
    _target_: str = f"{HERE}.IdealDevice"
    # processor names; each runs every op
    processors: list[str] = field(default_factory=lambda: ["cpu"])
    # FLOPs per nanosecond of every processor
    gflops: float = 10.0


class IdealDevice(DeviceDefaults):
    """Every processor runs every op at ``gflops``; no overheads, no heat, no sensors."""

    Conf: ClassVar[type] = IdealConf
    kind: ClassVar[DeviceKind] = DeviceKind("twin", "SIMULATION (digital twin)")
    needs_model_files: ClassVar[bool] = False
    default_seeds: ClassVar[int] = 2

    def __init__(self, conf: IdealConf, graphs: Mapping[str, ModelGraph]) -> None:
        self.conf, self.graphs, self.env = conf, dict(graphs), simpy.Environment()

    @classmethod
    def open(cls, conf: IdealConf, context: DeviceContext) -> IdealDevice:
        return cls(conf, context.graphs)

    def describe(self) -> DeviceInfo:
        kinds = [ProcessorKind.CPU] + [ProcessorKind.GPU] * (len(self.conf.processors) - 1)
        procs = tuple(Processor(n, k) for n, k in zip(self.conf.processors, kinds, strict=True))
        return DeviceInfo(self.conf.name, self.kind.word, procs, fallback=self.conf.processors[0])

    def op_support(self, graph: ModelGraph) -> dict[str, frozenset[int]]:
        return {name: frozenset() for name in self.conf.processors}

    def load(self, graphs: Mapping[str, ModelGraph], plans: Mapping[str, ModelPlan]) -> None:
        self.graphs.update(graphs)

    def profile(self, plan: ModelPlan, subgraph: Subgraph) -> int:
        ops = self.graphs[subgraph.model].ops
        return max(1, round(sum(ops[i].flops for i in subgraph.ops) / self.conf.gflops))

    def handoff_ns(self, plan: ModelPlan, subgraph: Subgraph) -> int:
        return 0  # tensors move for free

    def decision_ns(self, work: int) -> int:
        return 0  # decisions take no simulated time

    def start_clock(self) -> SimClock:
        return SimClock(self.env)

    def start(self, job_id: int, request: Request, subgraph: Subgraph, now_ns: int,
              on_done: Callable[[Completion], None]) -> None:
        def run() -> Any:
            yield self.env.timeout(self.profile(ModelPlan("", (), (), ()), subgraph))
            on_done(Completion(job_id, request, subgraph, now_ns, int(self.env.now)))

        self.env.process(run())

    def read_sensors(self, now_ns: int) -> tuple[SensorSample, ...]:
        return tuple(SensorSample(name, now_ns) for name in self.conf.processors)

    def close(self) -> None:
        """Nothing to release."""


IDEAL_YAML = (f"_target_: {HERE}.IdealDevice\n"
              "name: ideal\ndescription: every op at 10 GFLOP/s\nprocessors: [cpu, gpu]\n")

# -- a device kind ------------------------------------------------------------------------------


@dataclass
class SketchConf(IdealConf):
    _target_: str = f"{HERE}.SketchDevice"


class SketchDevice(IdealDevice):
    """:class:`IdealDevice` as a kind of its own: numbers drawn on paper, not simulated."""

    Conf: ClassVar[type] = SketchConf
    kind: ClassVar[DeviceKind] = DeviceKind("sketch", "A SKETCH (every op at one fixed rate)")


SKETCH_YAML = (f"_target_: {HERE}.SketchDevice\n"
               "name: napkin\ndescription: drawn on paper\nprocessors: [cpu, gpu]\n")

# -- a metric ------------------------------------------------------------------------------------


def finished_pct(rows: SeedRows) -> float:
    """Of one seed's measured requests, the share that finished, %."""
    finished = rows.requests["outcome"] == "finished"
    return 100 * float(finished.mean()) if len(finished) else float("nan")


FINISHED_PCT = Metric("finished_pct", "%", "measured requests that finished", finished_pct,
                      shown=Shown(Table.SERVICE, "finished %", "{:.1f}", 35))
FINISHED_YAML = f"_target_: {HERE}.FINISHED_PCT\n"

# -- the harness runs them ---------------------------------------------------------------------


def config_folder(tmp_path: Path, **yamls: str) -> str:
    """One YAML per component (``group/name=text``) in a folder of the test's own."""
    root = tmp_path / "conf"
    for where, text in yamls.items():
        group, name = where.split("__")
        (root / group).mkdir(parents=True, exist_ok=True)
        (root / group / f"{name}.yaml").write_text(text)
    return f"hydra.searchpath=[file://{root}]"


SHORT = ["scenario.duration_s=0.2", "scenario.warmup_s=0", "plots=false"]


def test_a_fifo_scheduler_runs_beside_the_built_in_baselines(tmp_path: Path) -> None:
    search = config_folder(tmp_path, baseline__fifo=FIFO_YAML)
    folder = session.run([search, "+baseline@baselines.fifo=fifo", "run=[tflite,fifo]",
                          *SHORT], tmp_path / "run")
    requests = load_run(folder).requests
    assert set(requests["baseline"]) == {"tflite", "fifo"}
    fifo = requests[requests["baseline"] == "fifo"]
    assert (fifo["status"] == "ok").sum() > 0 and (fifo["n_subgraphs"] <= 1).all()


def test_an_ideal_device_runs_every_built_in_baseline(tmp_path: Path) -> None:
    search = config_folder(tmp_path, device__ideal=IDEAL_YAML)
    folder = session.run([search, "device=ideal", *SHORT], tmp_path / "run")
    data = load_run(folder)
    assert data.manifest["device"] == "ideal" and data.manifest["device_kind"] == "twin"
    ok = data.requests[data.requests["status"] == "ok"]
    assert set(ok["baseline"]) == {"tflite", "tflite_gpu", "band", "adms", "adms_ef"}
    assert set(data.subgraphs["processor"]) <= {"cpu", "gpu"}


def test_a_new_device_kind_says_what_it_is_everywhere(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    search = config_folder(tmp_path, device__napkin=SKETCH_YAML)
    folder = session.run([search, "device=napkin", "run=[tflite]", *SHORT], tmp_path / "run")
    words = "SKETCH = A SKETCH (every op at one fixed rate)"
    assert capsys.readouterr().out.count(words) >= 2  # before the run, and atop the table
    manifest = load_run(folder).manifest
    assert (manifest["device_kind"], manifest["kind_words"]) == ("sketch", words)
    assert set(pd.read_csv(folder / "summary.csv")["device_kind"]) == {"sketch"}


def test_a_new_metric_is_computed_summarised_and_printed(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    search = config_folder(tmp_path, metric__finished_pct=FINISHED_YAML)
    folder = session.run([search, "+metric@metrics.finished_pct=finished_pct",
                          "run=[tflite,adms]", "seed.count=2", *SHORT], tmp_path / "run")
    per_seed = pd.read_csv(folder / "summary_seeds.csv")
    assert len(per_seed) == 4 and per_seed["finished_pct"].between(0, 100).all()
    summary = pd.read_csv(folder / "summary.csv").set_index("baseline")
    for b in ("tflite", "adms"):
        mine = per_seed[per_seed["baseline"] == b]["finished_pct"]
        assert summary.loc[b, "finished_pct"] == pytest.approx(mine.mean())
        assert summary.loc[b, "finished_pct_low"] <= summary.loc[b, "finished_pct_high"]
    printed = capsys.readouterr().out
    service = printed[printed.index("latency, SLO, power, heat"):]
    header = next(line for line in service.splitlines() if "p50 ms" in line)
    assert header.index("SLO %") < header.index("finished %") < header.index("dropped")


def test_a_metric_that_is_not_one_is_refused_before_the_run(tmp_path: Path) -> None:
    search = config_folder(tmp_path, metric__bad=f"_target_: {HERE}.finished_pct\n")
    with pytest.raises(UserError, match=r"metric 'bad'.*not a Metric"):
        session.run([search, "+metric@metrics.bad=bad", *SHORT], tmp_path / "run")
