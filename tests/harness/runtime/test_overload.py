"""Overload: a decision's cost does not grow with the queue's length (counted, not timed).

A two-processor runtime (cpu, gpu) holds a queue of ``n`` waiting jobs of two one-unit
models: ``a`` runs only on the cpu, ``b`` only on the gpu, and every queued job is an ``a``,
so whenever the gpu is idle there is nothing for it anywhere in the queue — the case where a
scan walks the queue to its end. Each real policy decides a few times as the cpu finishes
its subgraphs; the runtime's counter of jobs walked per decision
(:attr:`~harness.runtime.core.Runtime.jobs_visited`) must be the same for 10, 100 and 1000
queued jobs.

ADMS's ``shed`` switch is checked on the same runtime: a job that cannot meet its SLO even if
started now is dropped, one that can is not.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest

from adms.config import AdmsConf
from adms.policy import AdmsPolicy
from baselines.band.config import BandConf
from baselines.band.policy import BandPolicy
from baselines.tflite import TfliteConf, TflitePolicy
from baselines.tflite.config import Placement
from harness.runtime.core import Runtime
from harness.seams.plan import ModelPlan
from harness.seams.policy import Policy
from harness.seams.records import Completion, Request
from tests.fixtures.policies import MS, Profile, merge, procs, single

LENGTHS = (10, 100, 1000)


def _plans(concurrent: bool = False) -> tuple[dict[str, ModelPlan], Profile]:
    """``concurrent``: the plans run beside each other (vanilla apps' interpreters)."""
    plans, profile = merge(single("a", {"cpu": 2.0}), single("b", {"gpu": 1.0}))
    return {m: dataclasses.replace(p, concurrent=concurrent) for m, p in plans.items()}, profile


def _tflite(concurrent: bool) -> Callable[[], Policy]:
    conf = TfliteConf(placement=Placement.fixed, processor_map={"a": "cpu", "b": "gpu"},
                      concurrent=concurrent)
    return lambda: TflitePolicy(conf)


def _band(window: int | None) -> Callable[[], Policy]:
    return lambda: BandPolicy(BandConf(), queue_head=window)


def _adms(shed: bool = False) -> Callable[[], Policy]:
    return lambda: AdmsPolicy(AdmsConf(window_size=1, shed=shed), lambda p, s: 0, "test")


POLICIES: dict[str, Callable[[], Policy]] = {
    "tflite": _tflite(False), "tflite_concurrent": _tflite(True), "band": _band(10),
    "adms": _adms(), "adms_shed": _adms(shed=True),
}


def _runtime(policy: Policy, n: int, slo_ms: float = 0.0) -> Runtime:
    plans, profile = _plans(isinstance(policy, TflitePolicy) and policy.conf.concurrent)
    policy.prepare(plans, profile)
    rt = Runtime(policy, plans, procs("cpu", "gpu"), lambda *_: None, lambda _: None)
    for i in range(n):
        rt.arrive(Request(i, "a", i, 0, int(slo_ms * MS)), 0)
    return rt


def _visits(policy: Policy, n: int, decisions: int = 5) -> list[int]:
    """Jobs walked by each of ``decisions`` decisions, the cpu finishing a subgraph between
    two of them and one more job arriving, so ``n`` wait at every decision."""
    rt = _runtime(policy, n)
    counts, now = [], 0
    for _ in range(decisions):
        starts = rt.decide(now)
        counts.append(rt.jobs_visited)
        assert len(starts) == 1 and starts[0].subgraph.processor == "cpu"
        now += 2 * MS
        s = starts[0]
        rt.complete(Completion(s.job_id, s.request, s.subgraph, now - 2 * MS, now), now)
        rt.arrive(Request(n + len(counts), "a", n + len(counts), now, 0), now)
    return counts


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_jobs_walked_per_decision_are_flat_in_queue_length(name: str) -> None:
    walked = {n: _visits(POLICIES[name](), n) for n in LENGTHS}
    assert all(c > 0 for c in walked[LENGTHS[0]]), walked
    assert walked[10] == walked[100] == walked[1000], walked


def test_a_whole_queue_scan_would_be_caught() -> None:
    """The counter sees a scan to the end: Band with no window (Band-7's unlimited
    ``schedule_window_size``, as Band's code defaults it) walks every job."""
    walked = {n: _visits(_band(None)(), n)[0] for n in LENGTHS}
    assert walked[1000] >= 1000 > walked[100] >= 100, walked


def test_shed_drops_only_jobs_that_cannot_meet_their_slo() -> None:
    # each job needs 2 ms on the cpu; SLO 3 ms from arrival at 0: at now = 0.5 ms it can
    # still finish (2.5 ms), at now = 1.5 ms it cannot (3.5 ms)
    for now_ms, dropped in ((0.5, 0), (1.5, 1)):
        rt = _runtime(_adms(shed=True)(), 1, slo_ms=3.0)
        rt.decide(int(now_ms * MS))
        assert [s for _, s in rt.ended].count("dropped") == dropped, now_ms


def test_without_shed_adms_drops_nothing() -> None:
    rt = _runtime(_adms()(), 3, slo_ms=1.0)
    assert len(rt.decide(5 * MS)) == 1
    assert rt.ended == []
