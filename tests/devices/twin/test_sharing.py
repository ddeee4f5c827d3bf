"""Processor sharing in the twin (:mod:`devices.twin.sharing`): contention re-priced whenever
the set of busy processors changes, from the definition; and a run whose tables do not depend
on the order in which one decision's subgraphs start."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import simpy

from devices.twin import TwinDevice, parse
from devices.twin.calibrate import PROFILES, calibration_graph, load_conf
from devices.twin.sharing import slowdown
from harness.experiment import baseline
from harness.reporting.paper import table2, table2_processor
from harness.seams.plan import ModelPlan, Subgraph
from harness.seams.records import Completion, Request
from harness.seams.units import NS_PER_MS
from harness.seams.view import Decision, SchedulerView
from tests.devices.twin.test_twin import (
    ADD,
    CPU,
    chain_graph,
    make_device,
    make_plan,
    request,
    twin_conf,
)
from tests.fixtures.paths import REPO
from tests.fixtures.runs import SHORT, compose_run, run_baselines

# Both processors may draw all of the 10 GB/s alone, half each while both are busy.
# One ADD moves 1_002_000 B (float32, the CPU) or 501_000 B (float16 on the GPU).
CPU_ALONE_1 = 1_002_000 // 10 + 10_000 + 1_000  # + invoke 10 us + dispatch 1 us
GPU_ALONE_1 = 501_000 // 10 + 100_000 + 2_000  # + invoke 100 us + dispatch 2 us


def test_the_rest_of_the_work_runs_at_the_new_rate_when_the_other_ends() -> None:
    """Two ADDs on the CPU (one subgraph) beside one ADD on the GPU, both started at 0. Both
    memory-bound: while both run each gets 5 GB/s. The GPU ends first; the CPU has done
    t_gpu / L_contended of its work and runs the rest at its rate alone."""
    graph = chain_graph([ADD, ADD, ADD])
    plan = make_plan(graph, [(0, "cpu"), (2, "gpu")])
    cpu_two = Subgraph(0, "chain", "cpu", frozenset({0, 1}), (0, 1))
    device = make_device(graph, plan, twin_conf(cpu={**CPU, "bandwidth_share": 1.0}))
    done: list[Completion] = []
    device.start(1, request(1), cpu_two, 0, done.append)
    device.start(2, request(2), plan.subgraphs[1], 0, done.append)
    device.env.run()
    ends = {c.subgraph.processor: c.end_ns for c in done}
    gpu_contended = 501_000 // 5 + 102_000
    cpu_contended = 2 * (1_002_000 // 5) + 10_000 + 2 * 1_000
    cpu_alone = 2 * (1_002_000 // 10) + 10_000 + 2 * 1_000
    assert ends["gpu"] == gpu_contended == 202_200
    left = (cpu_contended - gpu_contended) / cpu_contended  # of the CPU's work
    assert ends["cpu"] == gpu_contended + round(left * cpu_alone) == 310_561
    assert [c.processor for c in (c.subgraph for c in done)] == ["gpu", "cpu"]


def test_at_a_fixed_state_the_latency_is_the_state_latency() -> None:
    """Started together and ending together nothing is re-priced mid-way: each takes its
    contended latency; alone, its profile."""
    graph = chain_graph([ADD, ADD])
    plan = make_plan(graph, [(0, "cpu"), (1, "cpu")])
    device = make_device(graph, plan, twin_conf(cpu={**CPU, "bandwidth_share": 1.0}))
    done: list[Completion] = []
    device.start(1, request(1), plan.subgraphs[0], 0, done.append)
    device.env.run()
    assert done[0].latency_ns == CPU_ALONE_1 == device.profile(plan, plan.subgraphs[0])


def test_a_start_in_the_future_counts_no_work_before_it() -> None:
    """A decision that took time starts its subgraph late: the one beside it is re-priced at
    once, the late one runs its whole work from its start."""
    graph = chain_graph([ADD, ADD])
    plan = make_plan(graph, [(0, "cpu"), (1, "gpu")])
    device = make_device(graph, plan, twin_conf(cpu={**CPU, "bandwidth_share": 1.0}))
    done: list[Completion] = []
    device.start(1, request(1), plan.subgraphs[1], 0, done.append)
    device.start(2, request(2), plan.subgraphs[0], 0, done.append)
    device.env.run()
    by = {c.subgraph.processor: c for c in done}
    assert by["gpu"].latency_ns == 501_000 // 5 + 102_000  # both busy until the GPU ends
    assert by["cpu"].start_ns == 0 and by["cpu"].end_ns > by["gpu"].end_ns


# -- start order within one instant -----------------------------------------------------------


class _ReversedStarts:
    """A policy whose decisions start their subgraphs in the opposite processor order (each
    processor's own assignments keep their order, so its local queue is the same)."""

    def __init__(self, policy: Any) -> None:
        self._policy = policy

    def __getattr__(self, name: str) -> Any:
        return getattr(self._policy, name)

    def schedule(self, view: SchedulerView) -> Decision:
        decision = self._policy.schedule(view)
        order = sorted(decision.assignments, key=lambda a: a.subgraph.processor, reverse=True)
        return Decision(tuple(order), decision.drops, work=decision.work)


def _tables(folder: Path, cache: Path) -> Mapping[str, pd.DataFrame]:
    cfg = compose_run("device=k50pro", "scenario=frs", *SHORT, "device.twin.noise_sigma=0")
    data = run_baselines(cfg, folder, cache)[0]
    return {"requests": data.requests, "subgraphs": data.subgraphs}


def test_the_order_of_starts_in_one_decision_changes_no_table(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every baseline of a short seeded FRS run; noise off (its draws follow the order of
    starts: exchangeable, but not the same draw for the same subgraph)."""
    first = _tables(tmp_path / "a", tmp_path / "cache")
    build = baseline.build_policy
    monkeypatch.setattr(baseline, "build_policy",
                        lambda *a, **k: _ReversedStarts(build(*a, **k)))
    second = _tables(tmp_path / "b", tmp_path / "cache")
    for name, table in first.items():
        pd.testing.assert_frame_equal(table, second[name], obj=name)


# -- concurrent invocations (vanilla interpreters): paper Table II ------------------------------

#: per-copy latency of the twin against Table II's, relative (the 1-copy column is the
#: calibration target, reproduced within 1%; the ratios are taken from the same rows)
TABLE2_TOLERANCE = 0.02


def table2_cases() -> list[tuple[str, str, str]]:
    return [(r.device, r.accelerator, proc) for r in table2()
            if (proc := table2_processor(r)) is not None]


def copies_latency_ms(device: str, processor: str, copies: int, rounds: int = 5) -> float:
    """Mean latency of one of ``copies`` copies of MobileNetV1, each an interpreter of its
    own running back to back on ``processor`` (the twin's noise off)."""
    conf = load_conf(REPO / "conf" / "device" / f"{device}.yaml")
    assert conf.twin is not None
    conf.twin.noise_sigma = 0.0
    p = parse(conf).processor(processor)
    assert p.calibration is not None
    graph = calibration_graph(p.calibration.model, p.calibration.int8)
    ops = frozenset(range(graph.num_ops))
    plan = ModelPlan(graph.name, (ops,), (frozenset({processor}),),
                     (Subgraph(0, graph.name, processor, ops, (0,)),), shared_interpreter=True,
                     concurrent=True)
    twin = TwinDevice(conf, simpy.Environment(), np.random.default_rng(0), {graph.name: graph})
    twin.load({graph.name: graph}, {graph.name: plan})
    latencies: list[int] = []

    def on_done(c: Completion) -> None:
        latencies.append(c.latency_ns)
        if len(latencies) <= copies * (rounds - 1):
            twin.start(c.job_id, c.request, plan.subgraphs[0], c.end_ns, on_done)

    for k in range(copies):
        twin.start(k, Request(k, graph.name, -1, 0, stream=k), plan.subgraphs[0], 0, on_done)
    twin.env.run()
    assert len(latencies) == copies * rounds
    return float(np.mean(latencies)) / NS_PER_MS


@pytest.mark.parametrize(("device", "accelerator", "processor"), table2_cases())
def test_concurrent_copies_reproduce_table2(device: str, accelerator: str,
                                            processor: str) -> None:
    if not (PROFILES / "mobilenet_v1.json").is_file():
        pytest.skip("harness/models/zoo/profiles/mobilenet_v1.json not generated yet")
    row = next(r for r in table2(device) if r.accelerator == accelerator)
    for copies, paper_ms in row.latency_ms.items():
        twin_ms = copies_latency_ms(device, processor, copies)
        assert twin_ms == pytest.approx(paper_ms, rel=TABLE2_TOLERANCE), (copies, twin_ms)


def test_without_a_measurement_concurrent_copies_are_time_sliced() -> None:
    assert slowdown((), 1) == 1.0 and slowdown((), 3) == 3.0
    table = ((1, 1.0), (2, 2.0), (4, 2.5))
    assert slowdown(table, 3) == 2.25 and slowdown(table, 6) == 3.0


def test_two_invocations_share_a_processor_from_the_definition() -> None:
    """Two one-ADD invocations on the CPU of a concurrent plan, the second 50_000 ns after
    the first: with no measurement each runs at half rate while both run."""
    graph = chain_graph([ADD])
    sg = Subgraph(0, "chain", "cpu", frozenset({0}), (0,))
    plan = ModelPlan("chain", (frozenset({0}),), (frozenset({"cpu"}),), (sg,), concurrent=True)
    device = make_device(graph, plan)
    done: list[Completion] = []
    alone = 1_002_000 // 5 + 11_000  # 211_400 (the CPU draws 5 GB/s)
    device.start(1, request(1), sg, 0, done.append)
    device.env.run(until=50_000)
    device.start(2, Request(2, "chain", -1, 0, stream=1), sg, 50_000, done.append)
    device.env.run()
    first, second = sorted(done, key=lambda c: c.end_ns)
    # the first has alone - 50_000 left, at half rate; then the second's rest alone
    assert first.end_ns == 50_000 + 2 * (alone - 50_000)
    assert second.end_ns == first.end_ns + (alone - (first.end_ns - 50_000) // 2)
