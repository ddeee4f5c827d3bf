"""ADMS without subgraph partitioning: each model whole on any processor that runs all of it."""

from __future__ import annotations

import pytest

from adms.analyzer import whole_model_plan
from adms.config import AdmsConf
from adms.policy import AdmsPolicy
from harness.seams.errors import UserError
from tests.fixtures.policies import chain_graph, procs


def test_one_unit_and_one_subgraph_per_processor_that_runs_every_op() -> None:
    graph = chain_graph("m", 4)
    plan = whole_model_plan(graph, procs("cpu", "gpu", "npu"),
                            {"cpu": frozenset(), "gpu": frozenset({2}), "npu": frozenset()})
    assert plan.units == (frozenset(range(4)),)
    assert [(sg.processor, sg.ops, sg.units) for sg in plan.subgraphs] == [
        ("cpu", frozenset(range(4)), (0,)), ("npu", frozenset(range(4)), (0,))]
    assert [sg.index for sg in plan.subgraphs] == [0, 1]
    assert plan.unit_support == (frozenset({"cpu", "npu"}),)
    assert plan.counts().merged == 0


def test_a_model_no_processor_runs_whole_is_a_clear_error() -> None:
    with pytest.raises(UserError, match="no processor runs all of its ops"):
        whole_model_plan(chain_graph("m", 2), procs("cpu", "gpu"),
                         {"cpu": frozenset({0}), "gpu": frozenset({1})})


def test_the_policy_plans_whole_models_when_partition_is_off() -> None:
    policy = AdmsPolicy(AdmsConf(partition=False), lambda _p, _s: 1, "dev")
    plan = policy.plan(chain_graph("m", 3), procs("cpu", "gpu"),
                       {"cpu": frozenset(), "gpu": frozenset()})
    assert plan.num_units == 1 and plan.processors() == {"cpu", "gpu"}
