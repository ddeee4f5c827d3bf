"""The Band baseline as a policy (:class:`baselines.band.policy.BandPolicy`): whole-model
plans for the schedulers that place no subgraphs, the real analyzer for the others, the
fixed worker's default map, estimates that follow observed latencies, and bad settings
refused."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from baselines.band.config import BandConf, SchedulerName
from baselines.band.policy import BandPolicy, whole_model_plan
from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph
from harness.seams.plan import ModelPlan, Processor
from harness.seams.records import Completion, Request
from tests.fixtures.policies import (
    MS,
    chain_graph,
    job,
    merge,
    placed,
    procs,
    pv,
    single,
    view,
)


def test_whole_model_plan_leaves_out_processors_that_reject_an_op() -> None:
    mp = whole_model_plan(chain_graph("g", 3), procs("cpu", "gpu", "npu"), {"gpu": frozenset({1})})
    assert [sg.processor for sg in mp.subgraphs] == ["cpu", "npu"]
    assert mp.num_units == 1 and mp.subgraphs[0].ops == frozenset({0, 1, 2})


@pytest.mark.parametrize("kind", list(SchedulerName))
def test_policy_plans_whole_models_only_for_no_fallback_schedulers(
    kind: SchedulerName, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []

    def fake_analyze(graph: ModelGraph, processors: Sequence[Processor],
                     unsupported: Mapping[str, frozenset[int]], minimum_subgraph_size: int = 1,
                     merge: bool = True) -> ModelPlan:
        calls.append(minimum_subgraph_size)
        return whole_model_plan(graph, processors, unsupported)

    monkeypatch.setattr("baselines.band.policy.analyze", fake_analyze)
    policy = BandPolicy(BandConf(scheduler=kind, minimum_subgraph_size=3))
    policy.plan(chain_graph("g", 2), procs("cpu", "gpu"), {})
    fallback = kind not in (SchedulerName.fixed_worker, SchedulerName.round_robin)
    assert calls == ([3] if fallback else [])
    assert policy.reinsert_front


def test_policy_fixed_worker_defaults_to_fastest_profiled_worker() -> None:
    plans, prof = merge(single("a", {"cpu": 5, "gpu": 2}), single("b", {"cpu": 1, "gpu": 3}))
    policy = BandPolicy(BandConf(scheduler=SchedulerName.fixed_worker))
    policy.prepare(plans, prof)
    d = policy.schedule(view([job(0, "a"), job(1, "b")], [pv("cpu"), pv("gpu")], plans))
    assert placed(d) == [(0, "gpu"), (1, "cpu")]
    bad = BandPolicy(BandConf(scheduler=SchedulerName.fixed_worker), worker_map={"a": "npu"})
    with pytest.raises(UserError, match="npu"):
        bad.prepare(plans, prof)


def test_policy_observe_updates_the_estimate() -> None:
    plans, prof = merge(single("a", {"cpu": 10}))
    policy = BandPolicy(BandConf(ema_alpha=0.5))
    policy.prepare(plans, prof)
    sg = plans["a"].subgraphs[0]
    req = Request(0, "a", -1, 0)
    policy.observe(Completion(0, req, sg, 0, 20 * MS))
    policy.observe(Completion(0, req, sg, 0, 99 * MS, ok=False))
    assert policy.estimator.expected(("a", 0)) == 15 * MS


def test_policy_rejects_bad_settings() -> None:
    with pytest.raises(UserError):
        BandPolicy(BandConf(minimum_subgraph_size=0))
    with pytest.raises(UserError):
        BandPolicy(BandConf(), queue_head=0)


def test_policy_with_the_real_analyzer() -> None:
    policy = BandPolicy(BandConf(minimum_subgraph_size=4))
    g = chain_graph("m", 6)
    unsupported = {"cpu": frozenset[int](), "gpu": frozenset({2})}
    mp = policy.plan(g, procs("cpu", "gpu"), unsupported)
    assert mp.processors() == {"cpu"}  # both gpu runs (2 and 3 ops) are below 4 ops
    loose = BandPolicy(BandConf(minimum_subgraph_size=1)).plan(g, procs("cpu", "gpu"),
                                                                unsupported)
    assert loose.processors() == {"cpu", "gpu"}
