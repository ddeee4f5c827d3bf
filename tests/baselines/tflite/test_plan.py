"""Vanilla TFLite's plan: the model on one delegate, its unsupported ops and the partitions
past the delegate's limits on the CPU (Figure 5(b)), on hand-built graphs and random DAGs."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from baselines.tflite import tflite_plan
from tests.baselines.band.test_analyzer import (
    FIG5,
    FIG5_UNSUPPORTED,
    assert_units_topological,
    cases,
    layout,
)
from tests.fixtures.graphs import CPU, GPU, chain


def test_figure5_vanilla_tflite_puts_three_ops_on_the_gpu() -> None:
    plan = tflite_plan(FIG5, GPU, FIG5_UNSUPPORTED["gpu"], "cpu", max_partitions=1)
    assert [(sg.processor, sorted(sg.ops)) for sg in plan.subgraphs] == [
        ("cpu", [0, 4]), ("gpu", [1, 2, 3]), ("cpu", [5, 6])]


@settings(max_examples=300, deadline=None)
@given(cases(), st.integers(0, 3), st.integers(1, 2))
def test_tflite_plan_alternates_and_respects_the_partition_cap(
    case: tuple, cap: int, min_ops: int
) -> None:
    graph, unsupported = case
    plan = tflite_plan(graph, GPU, unsupported["gpu"], "cpu", cap, min_ops)
    names = [sg.processor for sg in plan.subgraphs]
    assert all(a != b for a, b in itertools.pairwise(names))
    assert names.count("gpu") <= cap
    assert sorted(o for u in plan.units for o in u) == list(range(graph.num_ops))
    for sg in plan.subgraphs:
        assert sg.processor == "cpu" or (not sg.ops & unsupported["gpu"]
                                         and len(sg.ops) >= min_ops)
    assert_units_topological(graph, plan)


def test_tflite_plan_keeps_the_largest_partitions() -> None:
    g = chain(["CONV_2D"] * 8)
    unsupported = frozenset({2, 4})  # GPU runs: {0,1}, {3}, {5,6,7}
    plan = tflite_plan(g, GPU, unsupported, "cpu", max_partitions=2)
    assert [(sg.processor, sorted(sg.ops)) for sg in plan.subgraphs] == [
        ("gpu", [0, 1]), ("cpu", [2, 3, 4]), ("gpu", [5, 6, 7])]
    uncapped = tflite_plan(g, GPU, unsupported, "cpu", max_partitions=None)
    assert [sg.processor for sg in uncapped.subgraphs] == ["gpu", "cpu", "gpu", "cpu", "gpu"]


def test_tflite_plan_on_the_cpu_is_one_unit() -> None:
    plan = tflite_plan(FIG5, CPU, frozenset(), "cpu", None)
    assert layout(plan) == [("cpu", (0,))]
