"""A benchmark of the frame-rate bound on Band's EfficientNet-B4 plan (minimum_subgraph_size 1,
K50 Pro): the chain generation's wall time against the literal flow program's, and their
agreement (marked ``benchmark``, out of the default run)."""

from __future__ import annotations

import time

import numpy as np
import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from baselines.band.analyzer import analyze
from devices.opsupport import support_table
from harness.models.bound import Bound, ModelWork, frame_rate_bound, handoff_bytes
from harness.models.zoo import load_graph
from harness.seams.plan import Processor
from tests.fixtures.runs import compose_run
from tests.harness.models.bound_cases import flow_program


def efficientnet_b4_work() -> tuple[list[str], dict[str, ModelWork]]:
    """Band's plan of EfficientNet-B4 at minimum_subgraph_size 1 on the K50 Pro, with made-up
    costs (a seeded per unit and processor figure; merged ranges 10% below their units) and
    handoffs of 20 us + 1 ns per 4 bytes moved."""
    graph = load_graph("efficientnet_b4")
    device = compose_run("device=k50pro").device
    processors = [Processor(p.name, p.kind) for p in device.processors]
    mp = analyze(graph, processors, support_table(graph, device.processors), 1)
    names = [p.name for p in processors]
    unit = np.random.default_rng(11).integers(20_000, 400_000, size=(mp.num_units, len(names)))
    cost = {(0, sg.index): 1 + int(0.9 * unit[list(sg.units), names.index(sg.processor)].sum())
            for sg in mp.subgraphs}
    moved = {(0, sg.index): handoff_bytes(graph, mp, sg) for sg in mp.subgraphs}
    hand = {key: 20_000 + b // 4 for key, b in moved.items() if b}
    return names, {mp.model: ModelWork((mp,), cost, hand)}


@pytest.mark.benchmark(group="bound")
def test_bound_on_band_efficientnet_b4(benchmark: BenchmarkFixture) -> None:
    names, models = efficientnet_b4_work()
    walls: list[float] = []

    def timed() -> Bound:
        start = time.perf_counter()
        found = frame_rate_bound(names, models)
        walls.append(time.perf_counter() - start)
        return found

    b = benchmark.pedantic(timed, rounds=3)
    start = time.perf_counter()
    literal, cols = flow_program(names, models)
    literal_s = time.perf_counter() - start
    assert b.frames_per_s == pytest.approx(literal, rel=1e-7) and b.variables == cols
    (w,) = models.values()
    figures = {"subgraphs": len(w.plans[0].subgraphs), "variables": b.variables,
               "frames_per_s": b.frames_per_s, "solve_s": min(walls),
               "flow_program_s": literal_s}
    benchmark.extra_info.update(figures)
    print(" ".join(f"{k}={v}" if isinstance(v, int) else f"{k}={v:.4g}"
                   for k, v in figures.items()))
