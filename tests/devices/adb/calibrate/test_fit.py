"""Known answers of the calibration's fits (devices/adb/calibrate/fit.py): the latency fit
recovers the overhead and peak factors a phone was made with, and the heat-up fit the rise
and time constant of a first-order step response."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from devices.adb.calibrate.fit import fit_heating, fit_latency
from devices.adb.calibrate.profile import SliceSpec, SliceTiming
from devices.twin.calibrate import load_conf
from devices.twin.latency import OpTable
from devices.twin.spec import TwinDeviceSpec, TwinProcessorSpec, parse
from harness.models import zoo
from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph
from tests.fixtures.paths import REPO

SLICES = [frozenset(range(0, 5)), frozenset(range(5, 14)), frozenset(range(14, 31)),
          frozenset(range(0, 31))]


def alone_ns(spec: TwinProcessorSpec, device: TwinDeviceSpec, graph: ModelGraph,
             ops: frozenset[int]) -> float:
    """What the phone would measure: the slice alone, one interpreter, top frequency."""
    cost = OpTable.of(spec, graph, device).subgraph(ops, shared=True)
    return cost.latency_ns(1.0, spec.bandwidth_share * device.memory_bandwidth_gbps)


@pytest.mark.parametrize(("overhead", "peak"), [(0.5, 2.0), (1.5, 0.25)])
def test_the_latency_fit_recovers_the_factors(overhead: float, peak: float) -> None:
    spec = parse(load_conf(REPO / "conf/device/k50pro.yaml"))
    cpu, graph = spec.processor("cpu"), zoo.load_graph("mobilenet_v1")
    phone = dataclasses.replace(
        cpu, invoke_overhead_us=cpu.invoke_overhead_us * overhead,
        dispatch_overhead_us=cpu.dispatch_overhead_us * overhead,
        peak_gflops={k: v * peak for k, v in cpu.peak_gflops.items()})
    timings = [SliceTiming(SliceSpec("mobilenet_v1", "cpu", ops),
                           alone_ns(phone, spec.device, graph, ops) / 1e3, 100, 0.0)
               for ops in SLICES]
    fit = fit_latency(cpu, spec.device, {"mobilenet_v1": graph}, timings)
    assert fit.slices == 4 and fit.overhead == pytest.approx(overhead, rel=0.02)
    assert fit.peak == pytest.approx(peak, rel=0.02)


def trace(rise_c: float, tau_s: float, delay_s: float) -> pd.DataFrame:
    """The GPU zone of a phone at 30 °C that starts heating ``delay_s`` into the trace,
    cooling slightly before (as after the profiling runs)."""
    t = np.arange(0, delay_s + 5 * tau_s, 0.1)
    before = 30.0 + 0.5 * np.exp(-t / 0.5)
    after = 30.0 + rise_c * (1 - np.exp(-(t - delay_s) / tau_s))
    temp = np.where(t < delay_s, before, np.maximum(after, 30.0))
    return pd.DataFrame({"processor": "gpu", "t_ns": (t * 1e9).astype(np.int64),
                         "temperature_c": temp})


def test_the_heat_fit_starts_at_the_onset_and_recovers_rise_and_tau() -> None:
    fit = fit_heating(trace(8.0, 2.0, 1.0), "gpu")
    assert fit.rise_c == pytest.approx(8.0, rel=0.05)
    assert fit.tau_s == pytest.approx(2.0, rel=0.05)
    assert fit.start_c == pytest.approx(30.0, abs=0.2)


def test_a_trace_without_temperatures_is_one_error() -> None:
    empty = trace(8.0, 2.0, 1.0).assign(temperature_c=np.nan)
    with pytest.raises(UserError, match="thermal zone unreadable"):
        fit_heating(empty, "gpu")
