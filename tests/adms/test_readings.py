"""The readings of the paper's rule (adms/config.py: ``pairing``, ``idle_order``,
``t_latency``, ``score_order``) make the decisions their definitions say, on hand-built views;
every named reading composes with the fields its YAML states; and a job's options price the
handoff from the processor its last subgraph ran on."""

from __future__ import annotations

from typing import Any

import pytest

from adms.config import AdmsConf, IdleOrder, LatencyReading, Pairing, ScoreOrder
from adms.policy import AdmsPolicy
from adms.scheduler import AdmsScheduler
from baselines.band.estimator import LatencyEstimator
from harness.seams.plan import ModelPlan
from harness.seams.view import JobView
from tests.fixtures.policies import MS, job, merge, placed, plan, pv, single, view
from tests.fixtures.runs import compose_run

Built = tuple[dict[str, ModelPlan], dict[tuple[str, int], int]]


def _sched(built: Built, **fields: object) -> tuple[AdmsScheduler, dict[str, ModelPlan]]:
    """A scheduler with ``fields`` over the T_latency-on-the-processor reading."""
    plans, prof = built
    est = LatencyEstimator()
    est.seed(prof)
    conf = AdmsConf(**{"t_latency": LatencyReading.on_processor, **fields})  # type: ignore[arg-type]
    return AdmsScheduler(conf, est), plans


#: job 0 (model a) takes 2 ms on the gpu, 20 on the cpu; job 1 (model b) 5 ms on either
FIGURE = merge(single("a", {"cpu": 20, "gpu": 2}), single("b", {"cpu": 5, "gpu": 5}))
QUEUE = [job(0, "a", slo_ms=2), job(1, "b", slo_ms=5)]


def test_processor_asks_gives_the_first_idle_processor_its_lowest_scoring_job() -> None:
    """The cpu, asked first, scores job 0 at 2 - 20 ms and job 1 at 5 - 5: job 0 goes there."""
    sched, plans = _sched(FIGURE, pairing=Pairing.processor_asks)
    assert placed(sched.schedule(view(QUEUE, [pv("cpu"), pv("gpu")], plans))) == [
        (0, "cpu"), (1, "gpu")]


def test_reverse_idle_order_asks_the_last_listed_processor_first() -> None:
    sched, plans = _sched(FIGURE, pairing=Pairing.processor_asks, idle_order=IdleOrder.reverse,
                          alpha=0.0, delta=0.0)
    assert placed(sched.schedule(view(QUEUE, [pv("cpu"), pv("gpu")], plans))) == [
        (0, "gpu"), (1, "cpu")]


def test_job_first_sends_the_lowest_scoring_job_where_its_model_finishes_first() -> None:
    """Eq. (1) alone: job 0 would finish first on the gpu (2 ms), its slack 0; job 1's best is
    the cpu (5 ms, first of equals), slack 0. Equal scores: the earlier finish (job 0) goes
    first."""
    sched, plans = _sched(FIGURE, pairing=Pairing.job_first, alpha=0.0, delta=0.0)
    assert placed(sched.schedule(view(QUEUE, [pv("cpu"), pv("gpu")], plans))) == [
        (0, "gpu"), (1, "cpu")]


def test_t_latency_since_arrival_makes_the_score_the_same_on_every_processor() -> None:
    """With T_latency = time since arrival, the job that arrived earlier (less SLO left)
    scores lower, whichever processor it would run on."""
    built = merge(single("a", {"cpu": 1}), single("b", {"cpu": 30}))
    q = [job(0, "a", slo_ms=40, arrival_ms=10), job(1, "b", slo_ms=40, arrival_ms=0)]
    on_proc, plans = _sched(built, alpha=0.0, delta=0.0)
    assert placed(on_proc.schedule(view(q, [pv("cpu")], plans, now_ms=10))) == [(1, "cpu")]
    arrival, _ = _sched(built, alpha=0.0, delta=0.0, t_latency=LatencyReading.since_arrival)
    assert placed(arrival.schedule(view(q, [pv("cpu")], plans, now_ms=10))) == [(1, "cpu")]
    q2 = [job(0, "a", slo_ms=40, arrival_ms=0), job(1, "b", slo_ms=40, arrival_ms=10)]
    assert placed(arrival.schedule(view(q2, [pv("cpu")], plans, now_ms=10))) == [(0, "cpu")]
    assert placed(on_proc.schedule(view(q2, [pv("cpu")], plans, now_ms=10))) == [(1, "cpu")]


def test_t_latency_free_device_is_the_models_remaining_latency() -> None:
    """Job 0 (a) runs 4 ms on the cpu but 1 ms on the busy gpu; job 1 (b) 3 ms on the cpu.
    On the cpu (on_processor) job 0's slack is 10 - 4 and job 1's 10 - 3: job 0 first. On a
    free device job 0 needs 1 ms (slack 9): job 1 first."""
    built = merge(single("a", {"cpu": 4, "gpu": 1}), single("b", {"cpu": 3}))
    q = [job(0, "a", slo_ms=10), job(1, "b", slo_ms=10)]
    procs = [pv("cpu"), pv("gpu", busy_ms=50)]
    here, plans = _sched(built, alpha=0.0, delta=0.0, pairing=Pairing.processor_asks)
    assert placed(here.schedule(view(q, procs, plans))) == [(0, "cpu")]
    free, _ = _sched(built, alpha=0.0, delta=0.0, pairing=Pairing.processor_asks,
                     t_latency=LatencyReading.free_device)
    assert placed(free.schedule(view(q, procs, plans))) == [(1, "cpu")]


def test_highest_first_reverses_the_choice() -> None:
    q = [job(0, "a", slo_ms=100), job(1, "a", slo_ms=20)]
    built = merge(single("a", {"cpu": 5}))
    low, plans = _sched(built)
    assert placed(low.schedule(view(q, [pv("cpu")], plans))) == [(1, "cpu")]
    high, _ = _sched(built, score_order=ScoreOrder.highest_first)
    assert placed(high.schedule(view(q, [pv("cpu")], plans))) == [(0, "cpu")]


def test_job_first_counts_the_work_waiting_on_a_busy_processor_in_t_latency() -> None:
    """Only the cpu is idle. Job 0 (a) takes 5 ms there, 1 ms on the gpu; job 1 (b) 5 ms on
    the cpu only; both have 20 ms SLOs. With the gpu free soon (waiting 0.5 ms) job 0's
    earliest finish is 1.5 ms, its slack large: job 1, the more urgent, takes the cpu. With
    the gpu busy for 10 ms job 0's earliest finish is its 5 ms on the cpu, as urgent as
    job 1, and it goes first (earlier in the queue): the waiting work is in T_latency."""
    built = merge(single("a", {"cpu": 5, "gpu": 1}), single("b", {"cpu": 5}))
    q = [job(0, "a", slo_ms=20), job(1, "b", slo_ms=20)]
    sched, plans = _sched(built, alpha=0.0, delta=0.0)
    soon = [pv("cpu"), pv("gpu", busy_ms=0.5)]
    assert placed(sched.schedule(view(q, soon, plans))) == [(1, "cpu")]
    late = [pv("cpu"), pv("gpu", busy_ms=10)]
    assert placed(sched.schedule(view(q, late, plans))) == [(0, "cpu")]


def test_a_job_stays_where_its_last_subgraph_ran_when_the_handoff_costs_more() -> None:
    """Unit 1 runs 3 ms on the cpu or 2 on the gpu; moving costs 5 ms. A job at unit 1 whose
    unit 0 ran on the cpu goes to the cpu with handoffs priced, to the gpu without."""
    mp, prof = plan("m", [("cpu", 0, 0, 3 * MS), ("gpu", 0, 0, 2 * MS), ("cpu", 1, 1, 3 * MS),
                          ("gpu", 1, 1, 2 * MS)])
    after_cpu = JobView(0, job(0, "m").request, 1, 0, 1, "cpu")
    procs = [pv("cpu"), pv("gpu")]
    blind, plans = _sched(({"m": mp}, prof))
    assert placed(blind.schedule(view([after_cpu], procs, plans))) == [(0, "gpu")]
    priced, _ = _sched(({"m": mp}, prof))
    priced.set_handoffs({("m", 2): 5 * MS, ("m", 3): 5 * MS})
    assert placed(priced.schedule(view([after_cpu], procs, plans))) == [(0, "cpu")]


def test_the_policy_takes_its_handoffs_from_the_device_and_a_trace_keeps_them() -> None:
    mp, prof = plan("m", [("cpu", 0, 0, 3), ("gpu", 0, 0, 2), ("cpu", 1, 1, 3), ("gpu", 1, 1, 2)])
    policy = AdmsPolicy(AdmsConf(window_size=1), lambda p, sg: prof[sg.key], "dev",
                        handoff_fn=lambda p, sg: 7 * sg.first_unit)
    policy.prepare({"m": mp}, prof)
    assert policy.handoff == {("m", 2): 7, ("m", 3): 7}
    header = {"name": "adms", "facts": policy.trace_facts()}
    assert AdmsPolicy.from_trace(AdmsConf(), header).handoff == policy.handoff


READINGS: dict[str, dict[str, Any]] = {
    "adms_asks": {"pairing": Pairing.processor_asks, "idle_order": IdleOrder.device},
    "adms_asks_reverse": {"pairing": Pairing.processor_asks, "idle_order": IdleOrder.reverse},
    "adms_asks_load": {"pairing": Pairing.processor_asks, "idle_order": IdleOrder.load},
    "adms_job_first_since_arrival": {"pairing": Pairing.job_first,
                                     "t_latency": LatencyReading.since_arrival},
    "adms_job_first_wait": {"pairing": Pairing.job_first, "earliest_finish": True},
    "adms_highest_first": {"score_order": ScoreOrder.highest_first},
}


@pytest.mark.parametrize("name", sorted(READINGS))
def test_each_reading_yaml_sets_its_fields_and_leaves_the_additions_off(name: str) -> None:
    cfg = compose_run("device=k50pro", "scenario=frs")
    conf = vars(cfg.baselines[name])
    assert {k: conf[k] for k in READINGS[name]} == READINGS[name]
    additions = ("queue_aware", "exclusive_aware", "lp_split", "work_conserving", "shed")
    assert not any(conf[k] for k in additions)
    assert name == "adms_highest_first" or name in cfg.groups["adms_readings"]
