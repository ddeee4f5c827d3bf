"""The twin's physics: the thermal RC network, the throttling governor, power and load sensors.

The device-level tests use a test phone with small heat capacities, so that it heats past the
68 °C threshold within seconds of simulated time (the real phones take minutes)."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import numpy as np
import pytest

from devices.twin import TwinDevice, parse
from devices.twin.power import power_w
from devices.twin.thermal import Governor, ThermalNetwork
from harness.seams.plan import ModelPlan
from harness.seams.records import Completion, SensorSample
from harness.seams.units import NS_PER_MS, NS_PER_S
from tests.devices.twin.test_twin import (
    CONV,
    CPU,
    DEVICE,
    chain_graph,
    make_device,
    make_plan,
    request,
    twin_conf,
)

# 20 W busy heats past 68 °C within a second; at the throttled 500 MHz (6.4 W) it stays above the
# clear temperature 68 - 10 °C while busy
HOT_CPU = {**CPU, "capacitance_j_per_k": 0.5, "resistance_k_per_w": 4.0, "dynamic_w": 20.0,
           "hysteresis_c": 10.0}
HOT_DEVICE = {**DEVICE, "soc_capacitance_j_per_k": 2.0, "soc_resistance_k_per_w": 5.0}
# 100 ms of compute at the top frequency: 5e9 FLOP / (100 GFLOP/s x 0.5)
LONG_CONV = ("CONV_2D", 5_000_000_000, 1_000)
# 10 ms of compute (+ 1 us op + 10 us invoke) at the top frequency
TEN_MS_CONV = ("CONV_2D", 500_000_000, 1_000)


# -- thermal network and governor ----------------------------------------------------------------


def test_steady_state_matches_the_series_resistances() -> None:
    net = ThermalNetwork(25.0, 10.0, 5.0, [2.0, 2.0], [2.0, 3.0])
    net.advance([4.0, 0.0], 2_000.0)
    # node 0: 25 + 4 W x (2 + 5) K/W; the SoC node: 25 + 4 x 5; idle node 1 sits at the SoC node
    assert net.temps_c[0] == pytest.approx(53.0, abs=1e-6)
    assert net.soc_c == pytest.approx(45.0, abs=1e-6)
    assert net.temps_c[1] == pytest.approx(45.0, abs=1e-6)


def test_heating_follows_the_time_constant() -> None:
    net = ThermalNetwork(25.0, 1e9, 1e-9, [2.0], [2.0])  # an ideal heat sink at 25 °C
    net.advance([5.0], 4.0)  # one time constant R·C = 4 s
    assert net.temps_c[0] == pytest.approx(25.0 + 10.0 * (1 - np.exp(-1.0)), rel=2e-3)


def test_governor_steps_one_level_per_period_with_hysteresis() -> None:
    gov = Governor([3], [68.0], [3.0])
    steps = []
    for t in (69.0, 69.0, 69.0, 66.0, 64.9, 64.9, 64.9):
        gov.update([t])
        steps.append((gov.level[0], gov.throttled(0)))
    assert steps == [(1, True), (0, True), (0, True), (0, True), (1, True), (2, False), (2, False)]


# -- power ---------------------------------------------------------------------------------------


def test_power_scales_with_f_v_squared() -> None:
    cpu = parse(twin_conf()).processor("cpu")
    assert power_w(cpu, 1000, busy=False) == pytest.approx(0.1)
    assert power_w(cpu, 1000, busy=True) == pytest.approx(0.1 + 2.0)
    # 500 MHz at 0.8 V: 2.0 x 0.5 x 0.8^2
    assert power_w(cpu, 500, busy=True) == pytest.approx(0.1 + 0.64)


def _cpu(samples: tuple[SensorSample, ...]) -> SensorSample:
    return next(s for s in samples if s.processor == "cpu")


def test_power_and_load_rise_with_load() -> None:
    graph = chain_graph([LONG_CONV])
    plan = make_plan(graph, [(0, "cpu")])
    device = make_device(graph, plan)
    device.env.run(until=NS_PER_S)
    idle = _cpu(device.read_sensors(NS_PER_S))
    device.start(0, request(0), plan.subgraphs[0], NS_PER_S, lambda c: None)
    device.env.run(until=int(1.05 * NS_PER_S))
    busy = _cpu(device.read_sensors(int(1.05 * NS_PER_S)))
    assert (idle.load, busy.load) == (0.0, 1.0)
    assert idle.power_w == pytest.approx(0.1)
    assert idle.power_w is not None and busy.power_w is not None
    assert busy.power_w > idle.power_w + 1.0


def test_load_is_the_busy_fraction_since_the_previous_read() -> None:
    graph = chain_graph([CONV])
    plan = make_plan(graph, [(0, "cpu")])
    device = make_device(graph, plan)
    device.read_sensors(0)
    device.start(0, request(0), plan.subgraphs[0], 0, lambda c: None)  # 51 us
    device.env.run(until=102_000)
    assert _cpu(device.read_sensors(102_000)).load == pytest.approx(0.5)


# -- throttling ----------------------------------------------------------------------------------


def _keep_busy(device: TwinDevice, plan: ModelPlan, until_ns: int) -> Generator[Any, Any, None]:
    """Start the plan's first subgraph again whenever it ends, until ``until_ns``."""
    job = 0
    while device.env.now < until_ns:
        done = device.env.event()

        def finish(c: Completion, ev: Any = done) -> None:
            ev.succeed(c)

        device.start(job, request(job), plan.subgraphs[0], int(device.env.now), finish)
        yield done
        job += 1


def _trace(device: TwinDevice, duration_ns: int, step_ns: int) -> list[SensorSample]:
    """CPU readings every ``step_ns`` for ``duration_ns`` from now."""
    samples = []
    start = int(device.env.now)
    for t in range(start + step_ns, start + duration_ns + 1, step_ns):
        device.env.run(until=t)
        samples.append(_cpu(device.read_sensors(t)))
    return samples


def test_sustained_load_heats_throttles_and_idle_cools() -> None:
    graph = chain_graph([TEN_MS_CONV])
    plan = make_plan(graph, [(0, "cpu")])
    device = make_device(graph, plan, twin_conf(HOT_DEVICE, cpu=HOT_CPU))
    device.env.process(_keep_busy(device, plan, 20 * NS_PER_S))
    hot = _trace(device, 20 * NS_PER_S, 50 * NS_PER_MS)
    assert hot[0].temperature_c is not None and hot[0].temperature_c > 25.0
    assert all(s.throttle_temperature_c == 68.0 for s in hot)
    crossed = next(i for i, s in enumerate(hot) if (s.temperature_c or 0.0) > 68.0)
    assert not any(s.throttled for s in hot[:crossed])
    assert hot[-1].throttled is True
    assert hot[-1].frequency_hz == 500e6 < (hot[-1].max_frequency_hz or 0.0)
    cool = _trace(device, 120 * NS_PER_S, NS_PER_S)[-1]
    assert cool.temperature_c is not None and cool.temperature_c < 30.0
    assert (cool.throttled, cool.frequency_hz, cool.load) == (False, 1000e6, 0.0)


def test_a_throttled_processor_runs_slower() -> None:
    graph = chain_graph([TEN_MS_CONV])
    plan = make_plan(graph, [(0, "cpu")])
    device = make_device(graph, plan, twin_conf(HOT_DEVICE, cpu=HOT_CPU))
    device.env.process(_keep_busy(device, plan, 10 * NS_PER_S))
    device.env.run(until=10 * NS_PER_S + 100 * NS_PER_MS)
    assert device.frequency_mhz("cpu") == 500
    done: list[Completion] = []
    device.start(99, request(99), plan.subgraphs[0], int(device.env.now), done.append)
    device.env.run()
    # compute at half frequency: 20 ms instead of 10 ms, + 1 us op + 10 us invoke
    assert done[0].latency_ns == 20_011_000
    assert device.profile(plan, plan.subgraphs[0]) == 10_011_000
