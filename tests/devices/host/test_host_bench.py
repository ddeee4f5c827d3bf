"""Speed of the host device (``make bench``): dispatch overhead, slicing cost, sensor reads.

Figures go to pytest-benchmark's table and ``extra_info``; nothing here asserts a time.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from devices.host.config import HostDeviceConf, HostProcessorConf
from devices.host.device import HostDevice
from devices.host.sensors import HostSensors
from devices.host.spec import available_cores
from devices.opsupport import SupportRules
from harness.runtime.sensors import SensorCache
from harness.seams.plan import ModelPlan, ProcessorKind, Subgraph
from harness.seams.records import Completion, Request
from tests.fixtures import raw
from tests.fixtures.tinymodels import TinyModel

pytestmark = pytest.mark.benchmark

CORE = available_cores()[-1]
RUNS = 200


def deep_model(path: Path) -> Path:
    """A 1x32x32x16 stack of 12 3x3 convolutions (~1 ms with XNNPACK, one thread)."""
    m = TinyModel("deep", seed=7)
    x = m.input((1, 32, 32, 16))
    for _ in range(12):
        x = m.conv2d(x, 16, k=3, act="RELU")
    m.output(x)
    return m.write(path)


def plan_of(model: str, num_ops: int, parts: int) -> ModelPlan:
    bounds = np.linspace(0, num_ops, parts + 1).astype(int).tolist()
    units = tuple(frozenset(range(a, b)) for a, b in itertools.pairwise(bounds))
    subgraphs = tuple(Subgraph(i, model, "xnn", u, (i,)) for i, u in enumerate(units))
    return ModelPlan(model, units, tuple(frozenset({"xnn"}) for _ in units), subgraphs)


@pytest.fixture(scope="module")
def device(tmp_path_factory: pytest.TempPathFactory,
           tiny_models: dict[str, Path]) -> Iterator[HostDevice]:
    root = tmp_path_factory.mktemp("bench")
    models = {**tiny_models, "deep": deep_model(root / "deep.tflite")}
    proc = HostProcessorConf(name="xnn", kind=ProcessorKind.CPU, support=SupportRules.all,
                         host=raw({"kernel": "xnnpack", "threads": 1, "cores": [CORE]}))
    conf = HostDeviceConf(name="bench", processors=[proc], host=raw({"profile_runs": 20}))
    with HostDevice(conf, models, root / "slices") as dev:
        yield dev


class JobRunner:
    """Runs whole jobs through start/on_done, one subgraph at a time."""

    def __init__(self, dev: HostDevice, plan: ModelPlan) -> None:
        self.dev, self.plan, self.job = dev, plan, 0
        self.done = threading.Event()
        dev.load({plan.model: dev.graph(plan.model)}, {plan.model: plan})

    def on_done(self, c: Completion) -> None:
        self.done.set()

    def __call__(self) -> None:
        self.job += 1
        request = Request(self.job, self.plan.model, 0, 0)
        for sg in self.plan.subgraphs:
            self.done.clear()
            self.dev.start(self.job, request, sg, self.dev.now_ns(), self.on_done)
            self.done.wait()


def bare_invoke_ns(dev: HostDevice, plan: ModelPlan) -> float:
    """Median ns of ``invoke()`` alone on the same interpreter, on its worker thread."""
    runner = dev._runners.runner((plan.model, plan.subgraphs[0].ops, "xnn"))

    def timed() -> float:
        samples = []
        for _ in range(RUNS):
            t0 = time.perf_counter_ns()
            runner.interpreter.invoke()
            samples.append(time.perf_counter_ns() - t0)
        return float(np.median(samples))

    return dev.workers["xnn"].call(timed)


@pytest.mark.parametrize("model", ["chain", "deep"])
def test_dispatch_overhead(benchmark: Any, device: HostDevice, model: str) -> None:
    """start() -> worker -> set inputs, invoke, copy outputs -> on_done, versus bare invoke."""
    plan = plan_of(model, device.graph(model).num_ops, 1)
    run = JobRunner(device, plan)
    benchmark.pedantic(run, rounds=RUNS, warmup_rounds=10)
    bare = bare_invoke_ns(device, plan)
    overhead_us = (benchmark.stats.stats.median * 1e9 - bare) / 1e3
    benchmark.extra_info.update(bare_invoke_us=bare / 1e3, overhead_us=overhead_us)
    print(f"\n{model}: bare invoke {bare / 1e3:.1f} us, device overhead {overhead_us:.1f} us")


@pytest.mark.parametrize("parts", [1, 2, 4, 12])
def test_slices_versus_whole_model(benchmark: Any, device: HostDevice, parts: int) -> None:
    """The deep model whole (parts=1) and cut into 2, 4 and 12 slices on one processor."""
    plan = plan_of("deep", device.graph("deep").num_ops, parts)
    run = JobRunner(device, plan)
    benchmark.pedantic(run, rounds=RUNS // 2, warmup_rounds=5)
    profiled = sum(device.profile(plan, sg) for sg in plan.subgraphs)
    benchmark.extra_info.update(parts=parts, sum_of_profiles_us=profiled / 1e3)
    print(f"\n{parts} slices: job {benchmark.stats.stats.median * 1e6:.0f} us, "
          f"sum of slice profiles {profiled / 1e3:.0f} us")


def test_one_sensor_read(benchmark: Any) -> None:
    sensors = HostSensors(Path("/"), {"cpu": [0], "gpu": available_cores()[-1:]})
    samples = benchmark(sensors.read, 0)
    assert len(samples) == 2


def test_monitor_read_from_cache(benchmark: Any) -> None:
    """The Processor Monitor's cached read (goal: under 10 us) over the real host sensors."""
    sensors = HostSensors(Path("/"), {"cpu": [0], "gpu": available_cores()[-1:]})
    monitor = SensorCache(sensors.read, refresh_ns=10**12)
    monitor.get(0)
    latest = benchmark(monitor.get, 1)
    assert set(latest) == {"cpu", "gpu"} and monitor.reads == 1


def test_monitor_refresh(benchmark: Any) -> None:
    """One monitor refresh: a real read of /proc and sysfs for every processor."""
    sensors = HostSensors(Path("/"), {"cpu": [0], "gpu": available_cores()[-1:]})
    monitor = SensorCache(sensors.read, refresh_ns=10**12)
    latest = benchmark(monitor.refresh, 0)
    assert set(latest) == {"cpu", "gpu"}
