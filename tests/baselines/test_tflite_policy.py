"""Vanilla TFLite: placement by configuration, FIFO per processor, no dropping."""

from __future__ import annotations

from typing import Any

import pytest

from baselines.tflite import TfliteConf, TflitePolicy
from harness.seams.errors import UserError
from harness.seams.plan import ModelPlan
from tests.fixtures.policies import chain_graph, job, merge, placed, plan, procs, pv, view

PROCS = procs("cpu", "gpu", "npu")


def test_processor_from_map_or_default() -> None:
    policy = TflitePolicy(TfliteConf(processor_map={"a": "npu"}, default_processor="gpu"))
    assert policy.processor_for("a", PROCS).name == "npu"
    assert policy.processor_for("b", PROCS).name == "gpu"


def test_unknown_processor_is_a_user_error() -> None:
    with pytest.raises(UserError, match=r"'dsp'.*cpu"):
        TflitePolicy(TfliteConf(default_processor="dsp")).processor_for("a", PROCS)
    with pytest.raises(UserError, match="fallback"):
        TflitePolicy(TfliteConf(), cpu_name="big").processor_for("a", PROCS)


def test_plan_passes_the_processor_and_its_delegate_limits(monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    seen: dict[str, Any] = {}

    def fake(graph: Any, processor: Any, unsupported: Any, cpu_name: str,
             max_partitions: int | None, min_partition_ops: int = 1) -> ModelPlan:
        seen.update(processor=processor, unsupported=unsupported, cpu=cpu_name,
                    max_partitions=max_partitions, min_ops=min_partition_ops)
        return plan(graph.name, [("gpu", 0, 0, 1)])[0]

    monkeypatch.setattr("baselines.tflite.tflite_plan", fake)
    policy = TflitePolicy(TfliteConf(), max_partitions={"gpu": 1}, min_partition_ops={"gpu": 2})
    policy.plan(chain_graph("a"), PROCS, {"gpu": frozenset({1}), "npu": frozenset({0})})
    assert seen == {"processor": PROCS[1], "unsupported": frozenset({1}), "cpu": "cpu",
                    "max_partitions": 1, "min_ops": 2}
    TflitePolicy(TfliteConf(default_processor="npu")).plan(chain_graph("a"), PROCS, {})
    assert seen["max_partitions"] is None and seen["unsupported"] == frozenset()


def test_plan_with_the_analyzer_puts_fallback_ops_on_the_cpu() -> None:
    policy = TflitePolicy(TfliteConf(default_processor="gpu"))
    mp = policy.plan(chain_graph("a", 3), PROCS, {"gpu": frozenset({1})})
    assert all(len(mp.candidates(u)) == 1 for u in range(mp.num_units))
    placement = {op: sg.processor for sg in mp.subgraphs for op in sg.ops}
    assert placement[1] == "cpu" and placement[0] == placement[2] == "gpu"


def _plans() -> dict[str, ModelPlan]:
    plans, _ = merge(plan("a", [("gpu", 0, 0, 1), ("cpu", 1, 1, 1), ("gpu", 2, 2, 1)]),
                     plan("b", [("cpu", 0, 0, 1)]))
    return plans


def test_fifo_per_processor() -> None:
    q = [job(0, "a"), job(1, "a"), job(2, "b"), job(3, "a", next_unit=1)]
    policy = TflitePolicy(TfliteConf())
    d = policy.schedule(view(q, [pv("cpu"), pv("gpu")], _plans()))
    assert placed(d) == [(0, "gpu"), (2, "cpu")]
    d = policy.schedule(view(q, [pv("cpu"), pv("gpu", busy_ms=1)], _plans()))
    assert placed(d) == [(2, "cpu")]


def test_fallback_segment_at_the_front_runs_first_and_nothing_is_dropped() -> None:
    policy = TflitePolicy(TfliteConf())
    assert policy.reinsert_front
    q = [job(3, "a", next_unit=1, slo_ms=1), job(2, "b", slo_ms=1)]
    d = policy.schedule(view(q, [pv("cpu"), pv("gpu")], _plans(), now_ms=50))
    assert placed(d) == [(3, "cpu")] and d.drops == ()
