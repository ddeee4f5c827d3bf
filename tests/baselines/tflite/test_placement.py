"""The best assignment of whole models to processors (vanilla TFLite's placement)."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from baselines.tflite import placement
from baselines.tflite.placement import best_assignment

ORDER = ("cpu", "gpu", "npu")


def _alone(ms: dict[str, dict[str, int]]) -> dict[str, dict[str, dict[str, int]]]:
    """Loads of models with no fallback: all of a model's time on its own processor."""
    return {m: {p: {p: t} for p, t in by.items()} for m, by in ms.items()}


def _busiest(loads: dict, assignment: dict[str, str]) -> int:
    busy = dict.fromkeys(ORDER, 0)
    for m, p in assignment.items():
        for q, ns in loads[m][p].items():
            busy[q] += ns
    return max(busy.values())


def test_one_model_per_processor_when_that_is_cheapest() -> None:
    loads = _alone({"a": {"cpu": 9, "gpu": 3, "npu": 4}, "b": {"cpu": 9, "gpu": 3, "npu": 4},
                    "c": {"cpu": 5, "gpu": 3, "npu": 4}})
    # all on the gpu: 9; a, b on gpu/npu and c on the cpu: 5; c on gpu, a npu, b npu: 8
    assert best_assignment(loads, ORDER) == {"a": "gpu", "b": "npu", "c": "cpu"}


def test_fallback_time_counts_on_the_cpu() -> None:
    """b on the gpu falls back to the cpu for 4 of its ms: with a on the cpu that makes the
    cpu the busiest, so b goes to the npu."""
    loads = {"a": {"cpu": {"cpu": 5}, "gpu": {"gpu": 9}, "npu": {"npu": 9}},
             "b": {"cpu": {"cpu": 9}, "gpu": {"gpu": 1, "cpu": 4}, "npu": {"npu": 6}}}
    assert best_assignment(loads, ORDER) == {"a": "cpu", "b": "npu"}


def test_ties_go_to_fewer_models_per_processor_then_device_order() -> None:
    loads = _alone({"a": {"cpu": 2, "gpu": 2}, "b": {"cpu": 2, "gpu": 2}})
    assert best_assignment(loads, ORDER) == {"a": "cpu", "b": "gpu"}


def test_pinned_models_stay() -> None:
    loads = _alone({"a": {"cpu": 9, "gpu": 1}, "b": {"cpu": 9, "gpu": 1}})
    assert best_assignment(loads, ORDER, {"a": "cpu"}) == {"a": "cpu", "b": "gpu"}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(*(st.integers(1, 50),) * 3), min_size=1, max_size=5))
def test_exhaustive_is_optimal_and_greedy_is_never_better(times: list[tuple[int, ...]]) -> None:
    loads = _alone({f"m{i}": dict(zip(ORDER, t, strict=True)) for i, t in enumerate(times)})
    best = best_assignment(loads, ORDER)
    brute = min(_busiest(loads, dict(zip(sorted(loads), pick, strict=True)))
                for pick in itertools.product(ORDER, repeat=len(loads)))
    assert _busiest(loads, best) == brute
    greedy = placement._greedy(loads, {m: list(ORDER) for m in loads}, ORDER)
    assert _busiest(loads, greedy) >= brute
