"""Processor sharing in the twin (:mod:`devices.twin.sharing`): contention re-priced whenever
the set of busy processors changes, from the definition; and a run whose tables do not depend
on the order in which one decision's subgraphs start."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from harness.experiment import baseline
from harness.seams.plan import Subgraph
from harness.seams.records import Completion
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
        return Decision(tuple(order), decision.drops, decision.work)


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
