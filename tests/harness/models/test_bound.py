"""The frame-rate bound on small cases whose answers are known: worked by hand (the LP's
optimum, and where it is unique its busy times, shares and flows), and equal to the literal
flow program (:func:`tests.harness.models.bound_cases.flow_program`) on a larger case.

Plans come from :func:`tests.fixtures.policies.plan`: spans ``(processor, first, last, ns)``;
unit ``u`` holds op ``u``. Times in the comments are ms; a processor has 1000 ms per second.
"""

from __future__ import annotations

import pytest

from harness.models.bound import ModelWork, frame_rate_bound
from tests.fixtures.policies import MS
from tests.harness.models.bound_cases import (
    TWO_UNITS,
    flow_program,
    plans,
    uneven_ranges,
    work,
)


def test_one_processor_one_model_whole() -> None:
    # 10 ms a frame on the only processor: 1000 / 10 = 100 frames/s
    b = frame_rate_bound(["cpu"], {"m": work("m", ("cpu", 0, 0, 10 * MS))})
    assert b.frames_per_s == pytest.approx(100.0, rel=1e-9)
    assert b.busy == pytest.approx({"cpu": 1.0})


def test_two_processors_split_the_model() -> None:
    # x on cpu (10 ms), y on gpu (5 ms): x <= 100, y <= 200, F = x + y = 300, both saturated,
    # so the optimum is unique: busy 1 s/s each and the model's time splits 1 : 1
    b = frame_rate_bound(["cpu", "gpu"],
                         {"m": work("m", ("cpu", 0, 0, 10 * MS), ("gpu", 0, 0, 5 * MS))})
    assert b.frames_per_s == pytest.approx(300.0, rel=1e-9)
    assert b.busy == pytest.approx({"cpu": 1.0, "gpu": 1.0})
    assert b.share == {"m": pytest.approx({"cpu": 0.5, "gpu": 0.5})}


def test_a_unit_only_the_cpu_supports() -> None:
    # a frames start on cpu (4 + 6 ms there), b on gpu (8 ms there, then 6 ms on cpu):
    # cpu 10a + 6b <= 1000, gpu 8b <= 1000; F = a + b = 100 + 0.4b is largest at b = 125:
    # a = 25, F = 150; cpu 250 + 750 = 1000 ms, gpu 1000 ms
    b = frame_rate_bound(["cpu", "gpu"], {"m": work("m", *TWO_UNITS)})
    assert b.frames_per_s == pytest.approx(150.0, rel=1e-9)
    assert b.busy == pytest.approx({"cpu": 1.0, "gpu": 1.0})
    # the flow program: u0 on cpu, u0 on gpu, u1 entered from cpu or from gpu, and F
    assert b.variables == 5 == flow_program(["cpu", "gpu"], {"m": work("m", *TWO_UNITS)})[1]
    # the optimum is unique, and so are the flows: 25 frames/s start on cpu, 125 on gpu,
    # all 150 run unit 1 on cpu
    assert b.flow == {"m": pytest.approx({(0, 0): 25.0, (0, 1): 125.0, (0, 2): 150.0})}


def test_a_handoff_lowers_the_bound_as_computed() -> None:
    # entering unit 1 from the gpu costs 1 ms more: cpu 10a + 7b <= 1000, gpu 8b <= 1000;
    # F = 100 + 0.3b, b = 125, a = 12.5: F = 137.5 (was 150)
    w = work("m", *TWO_UNITS, handoff={2: 1 * MS})
    assert frame_rate_bound(["cpu", "gpu"], {"m": w}).frames_per_s == pytest.approx(
        137.5, rel=1e-9)


def test_a_handoff_is_not_charged_when_the_processor_stays() -> None:
    # with the gpu off, every frame runs cpu -> cpu: 10 ms, 100 frames/s, handoff or not
    # (charged, it would be 1000 / 11)
    w = work("m", *TWO_UNITS, handoff={2: 1 * MS})
    b = frame_rate_bound(["cpu", "gpu"], {"m": w}, {"gpu": 0.0})
    assert b.frames_per_s == pytest.approx(100.0, rel=1e-9)
    assert b.busy == pytest.approx({"cpu": 1.0, "gpu": 0.0})


def test_two_models_share_the_processors() -> None:
    # a: cpu 10 ms or gpu 5 ms; b: cpu 10 ms only. b alone fills the cpu at 100 frames/s,
    # so a must run on the gpu (100 x 5 ms = 0.5 s/s): F = 100, cpu 1.0, gpu 0.5, and each
    # model's time is all on one processor
    models = {"a": work("a", ("cpu", 0, 0, 10 * MS), ("gpu", 0, 0, 5 * MS)),
              "b": work("b", ("cpu", 0, 0, 10 * MS))}
    b = frame_rate_bound(["cpu", "gpu"], models)
    assert b.frames_per_s == pytest.approx(100.0, rel=1e-9)
    assert b.busy == pytest.approx({"cpu": 1.0, "gpu": 0.5})
    assert b.share == {"a": pytest.approx({"cpu": 0.0, "gpu": 1.0}),
                       "b": pytest.approx({"cpu": 1.0, "gpu": 0.0})}


def test_capacity_below_one() -> None:
    # cpu may give 0.5 s/s (50 frames of 10 ms), gpu 0.25 s/s (50 frames of 5 ms): F = 100
    b = frame_rate_bound(["cpu", "gpu"],
                         {"m": work("m", ("cpu", 0, 0, 10 * MS), ("gpu", 0, 0, 5 * MS))},
                         {"cpu": 0.5, "gpu": 0.25})
    assert b.frames_per_s == pytest.approx(100.0, rel=1e-9)
    assert b.busy == pytest.approx({"cpu": 0.5, "gpu": 0.25})


def test_no_capacity_no_frames() -> None:
    b = frame_rate_bound(["cpu"], {"m": work("m", ("cpu", 0, 0, 10 * MS))}, {"cpu": 0.0})
    assert (b.frames_per_s, b.busy, b.share) == (0.0, {"cpu": 0.0}, {"m": {"cpu": 0.0}})


def test_the_plans_of_one_model_add_up() -> None:
    # one plan runs the model on the cpu (10 ms), another on the gpu in two units (2 + 3 ms):
    # 100 + 200 = 300 frames/s, as if one plan offered both
    w = plans("m", [("cpu", 0, 0, 10 * MS)], [("gpu", 0, 0, 2 * MS), ("gpu", 1, 1, 3 * MS)])
    b = frame_rate_bound(["cpu", "gpu"], {"m": w})
    assert b.frames_per_s == pytest.approx(300.0, rel=1e-9)
    assert b.variables == 4  # F, cpu whole, gpu unit 0, gpu unit 1 entered from gpu


def test_a_merged_subgraph_is_used_when_cheaper() -> None:
    # units 0 and 1 on the cpu: 6 + 6 ms apart, 9 ms merged: 1000 / 9 frames/s
    w = work("m", ("cpu", 0, 0, 6 * MS), ("cpu", 1, 1, 6 * MS), ("cpu", 0, 1, 9 * MS))
    assert frame_rate_bound(["cpu"], {"m": w}).frames_per_s == pytest.approx(1000 / 9)


def test_matches_the_flow_program_on_uneven_ranges() -> None:
    names = ["cpu", "gpu", "npu"]
    models = {"a": uneven_ranges("a", 8, names, 5), "b": uneven_ranges("b", 5, names, 6)}
    expected, cols = flow_program(names, models, {"npu": 0.5})
    b = frame_rate_bound(names, models, {"npu": 0.5})
    assert b.frames_per_s == pytest.approx(expected, rel=1e-7)
    assert b.variables == cols
    # and the handoffs matter here: without them the bound is higher
    free = {m: ModelWork(w.plans, w.cost_ns) for m, w in models.items()}
    assert frame_rate_bound(names, free, {"npu": 0.5}).frames_per_s > b.frames_per_s * 1.001
