"""Speed of the native runner against the Python host device (``make bench``), on the same
model cut into the same slices, either alternating between two processors pinned to two
cores (``two``: every hand-over wakes the other worker) or all on one (``one``):

* the ready-to-start gap: a subgraph's start minus its predecessor's end;
* the per-subgraph overhead: a request's span minus the sum of its invokes, per subgraph.

The host device is driven by the smallest loop that can drive it (wait for ``on_done``, start
the next subgraph), without a scheduler: a lower bound for the Python side. Figures go to
pytest-benchmark's ``extra_info`` and are printed; nothing asserts a time.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from devices.host.config import HostDeviceConf, HostProcessorConf
from devices.host.device import HostDevice
from devices.opsupport import SupportRules
from harness.seams.plan import ModelPlan, ProcessorKind, Subgraph
from harness.seams.records import Completion, Request
from tests.devices.host.test_host_bench import deep_model
from tests.fixtures import raw
from tests.runner import native

pytestmark = [pytest.mark.benchmark,
              pytest.mark.skipif(native.missing_tools() is not None,
                                 reason=f"runner not buildable: {native.missing_tools()}")]

CORES = sorted(os.sched_getaffinity(0))[:2]
SLICES = 12
FRAMES = 200


def figures(rows: Sequence[native.JobRow]) -> dict[str, float]:
    """Gap and overhead statistics in microseconds (the first 10 requests are warm-up)."""
    rows = [r for r in rows if r.request >= 10]
    gaps = np.array(native.ready_gaps_ns(rows)) / 1e3
    spans: dict[int, list[native.JobRow]] = {}
    for r in rows:
        spans.setdefault(r.request, []).append(r)
    overhead = [((max(j.end_ns for j in js) - min(j.start_ns for j in js))
                 - sum(j.invoke_ns for j in js)) / len(js) / 1e3 for js in spans.values()]
    return {"gap_median_us": float(np.median(gaps)), "gap_min_us": float(gaps.min()),
            "gap_p90_us": float(np.percentile(gaps, 90)),
            "overhead_per_subgraph_median_us": float(np.median(overhead)),
            "invoke_median_us": float(np.median([r.invoke_ns for r in rows]) / 1e3)}


def report(benchmark: Any, who: str, values: dict[str, float]) -> None:
    benchmark.extra_info.update(values)
    print(f"\n{who}: " + ", ".join(f"{k} {v:.1f}" for k, v in values.items()))


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return deep_model(tmp_path_factory.mktemp("bench") / "deep.tflite")


#: layout -> (cores, spin_us)
LAYOUTS = {"two": (CORES, 0), "one": (CORES[:1], 0), "two-spinning": (CORES, 2000)}


@pytest.mark.parametrize("layout_name", LAYOUTS)
def test_runner_gap_and_overhead(benchmark: Any, model: Path, tmp_path: Path,
                                 layout_name: str) -> None:
    binary = native.build()
    cores, spin_us = LAYOUTS[layout_name]
    layout = native.lay_out(tmp_path, {"deep": model}, parts=SLICES, cores=cores)
    if spin_us:
        text = layout.plan.read_text().replace("threads=1", f"threads=1 spin_us={spin_us}")
        layout.plan.write_text(text)
    benchmark.pedantic(native.run, args=(binary, layout, "--frames", str(FRAMES)), rounds=1)
    rows = native.read_jobs(tmp_path / "jobs.tsv")
    assert len(rows) == FRAMES * layout.subgraphs["deep"]
    report(benchmark, f"runner, {layout_name}", figures(rows))


class ChainDriver:
    """Runs requests through the host device one subgraph at a time; keeps the rows."""

    def __init__(self, device: HostDevice, plan: ModelPlan) -> None:
        self.device, self.plan = device, plan
        self.done = threading.Event()
        self.last: Completion | None = None
        self.rows: list[native.JobRow] = []

    def on_done(self, completion: Completion) -> None:
        self.last = completion
        self.done.set()

    def frames(self, count: int) -> None:
        for job in range(count):
            request = Request(job, self.plan.model, 0, 0)
            for sg in self.plan.subgraphs:
                self.done.clear()
                self.device.start(job, request, sg, self.device.now_ns(), self.on_done)
                self.done.wait()
                assert self.last is not None and self.last.ok
                c = self.last
                self.rows.append(native.JobRow(job, "deep", sg.index, sg.processor, c.start_ns,
                                               c.end_ns, 0, c.end_ns - c.start_ns))


def host_plan(num_ops: int, cores: Sequence[int]) -> ModelPlan:
    bounds = np.linspace(0, num_ops, SLICES + 1).astype(int).tolist()
    units = tuple(frozenset(range(a, b)) for a, b in itertools.pairwise(bounds))
    names = [f"cpu{i}" for i in range(len(cores))]
    subgraphs = tuple(Subgraph(i, "deep", names[i % len(names)], u, (i,))
                      for i, u in enumerate(units))
    return ModelPlan("deep", units, tuple(frozenset(names) for _ in units), subgraphs)


@pytest.mark.parametrize("layout_name", ["two", "one"])
def test_host_device_gap_and_overhead(benchmark: Any, model: Path, tmp_path: Path,
                                      layout_name: str) -> None:
    cores = LAYOUTS[layout_name][0]
    processors = [HostProcessorConf(name=f"cpu{i}", kind=ProcessorKind.CPU,
                                    support=SupportRules.all,
                                    host=raw({"kernel": "xnnpack", "threads": 1, "cores": [c]}))
                  for i, c in enumerate(cores)]
    conf = HostDeviceConf(name="bench", processors=processors, host=raw({"profile_runs": 1}))
    with HostDevice(conf, {"deep": model}, tmp_path / "slices") as device:
        plan = host_plan(device.graph("deep").num_ops, cores)
        device.load({"deep": device.graph("deep")}, {"deep": plan})
        driver = ChainDriver(device, plan)
        benchmark.pedantic(driver.frames, args=(FRAMES,), rounds=1)
    # the host device times the invoke with the copies: its overhead excludes them
    report(benchmark, f"python host device, {layout_name}", figures(driver.rows))
