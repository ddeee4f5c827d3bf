"""ADMS as a policy (:class:`adms.policy.AdmsPolicy`): a fixed window and estimates that follow
observed latencies, bad settings refused, and the real analyzer and tuner choosing the window
and the plan that the scheduler then runs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from adms.config import AdmsConf
from adms.policy import AdmsPolicy
from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph
from harness.seams.plan import ModelPlan, Processor, Subgraph
from harness.seams.records import Completion
from tests.fixtures.policies import (
    MS,
    chain_graph,
    job,
    plan,
    procs,
    pv,
    view,
)


def _fake_analyze(
    graph: ModelGraph, processors: Sequence[Processor], unsupported: Mapping[str, frozenset[int]],
    window_size: int = 1, merge: bool = True,
) -> ModelPlan:
    mp, _ = plan(graph.name, [("cpu", 0, 0, 1)], window_size=window_size)
    return mp


def test_policy_fixed_window_and_observe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("adms.analyzer.analyze", _fake_analyze)
    policy = AdmsPolicy(AdmsConf(window_size=5), lambda p, sg: 1, "dev", None)
    mp = policy.plan(chain_graph("a"), procs("cpu"), {})
    assert mp.window_size == 5 and policy.reinsert_front
    policy.prepare({"a": mp}, {("a", 0): 10 * MS})
    assert policy.scheduler.rest(mp)[0] == 10 * MS
    sg: Subgraph = mp.subgraphs[0]
    req = job(0, "a").request
    policy.observe(Completion(0, req, sg, 0, 20 * MS))
    assert policy.scheduler.rest(mp)[0] == 11 * MS  # 0.1 * 20 + 0.9 * 10


def test_policy_rejects_bad_settings() -> None:
    with pytest.raises(UserError):
        AdmsPolicy(AdmsConf(loop_call_size=0), lambda p, sg: 1, "dev", None)
    with pytest.raises(UserError):
        AdmsPolicy(AdmsConf(window_size=-1), lambda p, sg: 1, "dev", None)
    with pytest.raises(UserError):
        AdmsPolicy(AdmsConf(window_candidates=[]), lambda p, sg: 1, "dev", None)


def test_policy_with_the_real_analyzer_and_tuner() -> None:
    def profile(mp: ModelPlan, sg: Subgraph) -> int:
        return 10 * len(sg.ops) if sg.processor == "cpu" else len(sg.ops) + 5

    policy = AdmsPolicy(AdmsConf(window_candidates=[1, 4], earliest_finish=True), profile,
                        "dev", None)
    mp = policy.plan(chain_graph("m", 6), procs("cpu", "gpu"),
                     {"cpu": frozenset(), "gpu": frozenset({2})})
    assert mp.window_size == 1
    policy.prepare({"m": mp}, {("m", sg.index): profile(mp, sg) for sg in mp.subgraphs})
    d = policy.schedule(view([job(0, "m")], [pv("cpu"), pv("gpu")], {"m": mp}))
    assert [a.subgraph.processor for a in d.assignments] == ["gpu"]


def test_slow_drift_refreshes_the_cached_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each moving-average step below is under ``estimate_refresh`` (5%), but together they
    move the estimate 10 -> ~10.9 ms: the tables must follow once the estimate is 5% from its
    value when they were derived (the old rule compared one step with the previous one only,
    and kept 10 ms for ever)."""
    monkeypatch.setattr("adms.analyzer.analyze", _fake_analyze)
    policy = AdmsPolicy(AdmsConf(window_size=5), lambda p, sg: 1, "dev", None)
    mp = policy.plan(chain_graph("a"), procs("cpu"), {})
    policy.prepare({"a": mp}, {("a", 0): 10 * MS})
    assert policy.scheduler.rest(mp)[0] == 10 * MS  # the table, derived (as a decision does)
    sg: Subgraph = mp.subgraphs[0]
    req = job(0, "a").request
    for _ in range(20):
        policy.observe(Completion(0, req, sg, 0, 11 * MS))
    estimate = policy.estimator.expected(sg.key)
    assert estimate > 10.8 * MS
    cached = policy.scheduler.rest(mp)[0]
    assert abs(cached - estimate) <= 0.05 * cached  # within one refresh threshold
    assert cached > 10.5 * MS
