"""Analyzer speed (``make bench``): Band-style partitioning that yields thousands of subgraphs,
and the largest zoo model on the K50 Pro's processors when its graph profile exists."""

from __future__ import annotations

from typing import Any

import pytest

from baselines.band.analyzer import analyze
from devices.opsupport import support_table
from harness.models.zoo import PROFILE_DIR as PROFILES
from harness.seams.graph import ModelGraph
from harness.seams.plan import Processor
from tests.fixtures.graphs import CPU, GPU, NPU, chain
from tests.fixtures.runs import compose_run


@pytest.mark.benchmark
def test_band_partitioning_of_300_alternating_ops(benchmark: Any) -> None:
    n = 300
    graph = chain(["CONV_2D"] * n)
    unsupported = {"cpu": frozenset(),
                   "gpu": frozenset(i for i in range(n) if i % 8 == 7),
                   "npu": frozenset(i for i in range(n) if i % 12 in (0, 1))}
    plan = benchmark(analyze, graph, [CPU, GPU, NPU], unsupported, 1, True)
    assert (plan.counts().unit, plan.counts().total) == (112, 6650)


@pytest.mark.benchmark
def test_largest_zoo_model_on_k50pro(benchmark: Any) -> None:
    profiles = sorted(PROFILES.glob("*.json"), key=lambda p: p.stat().st_size)
    if not profiles:
        pytest.skip("no zoo graph profiles yet (make zoo)")
    graph = ModelGraph.load(profiles[-1])
    device = compose_run("device=k50pro").device
    processors = [Processor(p.name, p.kind) for p in device.processors]

    def run() -> int:
        plan = analyze(graph, processors, support_table(graph, device.processors), 1, True)
        return plan.counts().total

    assert benchmark(run) >= 1
