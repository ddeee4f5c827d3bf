"""The decisions of the ADMS scheduler (:class:`adms.scheduler.AdmsScheduler`) on hand-built
views: its score is eq. (4); the job nearer its deadline, waiting longer, or on the less
loaded processor runs first; the queue head it examines; thermal steering; work
conservation; queue-aware, exclusive-aware and LP-split choices; and liveness."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adms.config import AdmsConf, IdleOrder, LatencyReading, Pairing
from adms.policy import AdmsPolicy
from adms.priority import priority
from adms.scheduler import AdmsScheduler
from baselines.band.estimator import LatencyEstimator
from harness.seams.plan import ModelPlan
from tests.fixtures.policies import (
    MS,
    job,
    merge,
    placed,
    plan,
    pv,
    single,
    view,
)

# -- decisions --------------------------------------------------------------------------------

#: the project's additions, all on: `adms_ef` (conf/baseline/adms_ef.yaml); the tests below
#: are of ADMS as built unless they say ``paper=True`` (`adms`, the additions off)
EF = {"earliest_finish": True, "queue_aware": True, "exclusive_aware": True,
      "idle_order": IdleOrder.load, "pairing": Pairing.processor_asks}


def _sched(plans_prof: tuple[dict[str, ModelPlan], dict[tuple[str, int], int]],
           paper: bool = False, **conf: float) -> tuple[AdmsScheduler, dict[str, ModelPlan]]:
    plans, prof = plans_prof
    est = LatencyEstimator()
    est.seed(prof)
    # (the tests read T_latency on the processor scored: `adms_asks`'s and `adms_ef`'s reading)
    fields = {"t_latency": LatencyReading.on_processor, "pairing": Pairing.processor_asks,
              **(conf if paper else {**EF, **conf})}
    return AdmsScheduler(AdmsConf(**fields), est), plans  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None)
@given(st.floats(0, 3), st.floats(0, 3), st.floats(0, 3), st.floats(0, 1), st.floats(1, 50),
       st.floats(0, 200), st.floats(0, 100))
def test_the_schedulers_score_is_eq_4(alpha: float, gamma: float, delta: float, load: float,
                                      slo_ms: float, now_ms: float, latency_ms: float) -> None:
    """The decision computes eq. (4) inline (eq. 2 once per job): it must equal
    :func:`priority`, which tests/adms/test_priority.py checks term by term."""
    sched, plans = _sched(merge(single("m", {"cpu": 5})), alpha=alpha, gamma=gamma, delta=delta)
    j = job(0, "m", slo_ms=slo_ms)
    item = sched._job(0, j, view([j], [pv("cpu")], plans, now_ms=now_ms), frozenset(), now_ms)
    latency_ns = int(latency_ms * MS)
    got = sched._score(item, latency_ns, delta * (2.0 * load - 1.0))
    assert item.slo_ms is not None
    want = priority(sched.conf, slo_ms=item.slo_ms, latency_ms=latency_ns / MS, now_ms=now_ms,
                    enqueue_ms=0.0, avg_ms=item.avg_ms, load=load, capacity=1.0,
                    remaining_ms=item.remaining_ms)
    assert got == pytest.approx(want, rel=1e-12, abs=1e-9)


def test_job_closer_to_its_deadline_runs_first() -> None:
    sched, plans = _sched(merge(single("a", {"cpu": 5})))
    for slos, winner in (((100, 20), 1), ((20, 100), 0)):
        q = [job(0, "a", slo_ms=slos[0]), job(1, "a", slo_ms=slos[1])]
        assert placed(sched.schedule(view(q, [pv("cpu")], plans))) == [(winner, "cpu")]


def test_waiting_longer_raises_priority() -> None:
    q = [job(0, "a", enqueue_ms=50), job(1, "a", enqueue_ms=0)]  # same arrival, job 1 waited
    sched, plans = _sched(merge(single("a", {"cpu": 5})))
    assert placed(sched.schedule(view(q, [pv("cpu")], plans, now_ms=60))) == [(1, "cpu")]
    fair_off, _ = _sched(merge(single("a", {"cpu": 5})), alpha=0.0)
    assert placed(fair_off.schedule(view(q, [pv("cpu")], plans, now_ms=60))) == [(0, "cpu")]


def test_less_loaded_processor_gets_the_job() -> None:
    sched, plans = _sched(merge(single("a", {"cpu": 5, "gpu": 5})))
    for loads, where in (((0.9, 0.1), "gpu"), ((0.1, 0.9), "cpu")):
        procs = [pv("cpu", load=loads[0]), pv("gpu", load=loads[1])]
        assert placed(sched.schedule(view([job(0, "a")], procs, plans))) == [(0, where)]


def test_loaded_processor_takes_small_jobs_an_unloaded_one_big_jobs() -> None:
    built = merge(single("small", {"cpu": 2}), single("big", {"cpu": 20}))
    sched, plans = _sched(built, alpha=0.0, gamma=0.0, delta=1.0)
    busy = view([job(0, "big"), job(1, "small")], [pv("cpu", load=1.0)], plans)
    assert placed(sched.schedule(busy)) == [(1, "cpu")]
    calm = view([job(0, "small"), job(1, "big")], [pv("cpu", load=0.0)], plans)
    assert placed(sched.schedule(calm)) == [(1, "cpu")]


def test_loop_call_size_limits_the_jobs_examined() -> None:
    built = merge(single("g", {"gpu": 1}), single("c", {"cpu": 1}))
    q = [job(0, "g"), job(1, "c")]
    procs = [pv("cpu"), pv("gpu", busy_ms=3)]
    narrow, plans = _sched(built, loop_call_size=1)
    assert narrow.schedule(view(q, procs, plans)).assignments == ()
    wide, _ = _sched(built, loop_call_size=2)
    assert placed(wide.schedule(view(q, procs, plans))) == [(1, "cpu")]


def test_thermal_steering_away_from_a_processor_near_throttling() -> None:
    sched, plans = _sched(merge(single("a", {"cpu": 10, "gpu": 2}), single("g", {"gpu": 2})),
                          thermal_margin_c=3.0)
    hot = pv("gpu", temp_c=66.0, throttle_c=68.0)
    cool = pv("gpu", temp_c=60.0, throttle_c=68.0)
    assert placed(sched.schedule(view([job(0, "a")], [pv("cpu"), hot], plans))) == [(0, "cpu")]
    assert placed(sched.schedule(view([job(0, "a")], [pv("cpu"), cool], plans))) == [(0, "gpu")]
    # nothing else can run model g: the hot gpu still takes it
    assert placed(sched.schedule(view([job(0, "g")], [pv("cpu"), hot], plans))) == [(0, "gpu")]


def test_without_work_conservation_a_job_waits_for_a_processor_that_finishes_it_sooner(
) -> None:
    sched, plans = _sched(merge(single("a", {"npu": 1, "cpu": 9})), work_conserving=False)
    soon = view([job(0, "a")], [pv("cpu"), pv("npu", busy_ms=2)], plans)
    assert sched.schedule(soon).assignments == ()
    late = view([job(0, "a")], [pv("cpu"), pv("npu", busy_ms=10)], plans)
    assert placed(sched.schedule(late)) == [(0, "cpu")]


def test_work_conserving_an_idle_processor_takes_work_it_can_run() -> None:
    """The variant: the npu (busy 2 ms) would finish job 0 sooner, but the cpu is idle and
    no idle processor is its earliest choice, so the cpu takes it."""
    sched, plans = _sched(merge(single("a", {"npu": 1, "cpu": 9})), work_conserving=True)
    soon = view([job(0, "a")], [pv("cpu"), pv("npu", busy_ms=2)], plans)
    assert placed(sched.schedule(soon)) == [(0, "cpu")]


def test_earliest_choices_go_first_then_work_conservation_fills_the_rest() -> None:
    """cpu is visited first (device order) but is nobody's earliest choice; the gpu takes job 0
    (its earliest), then the cpu, idle, takes job 1 (which would finish sooner on the gpu)."""
    sched, plans = _sched(merge(single("a", {"cpu": 10, "gpu": 2})), work_conserving=True)
    d = sched.schedule(view([job(0, "a"), job(1, "a")], [pv("cpu"), pv("gpu")], plans))
    assert placed(d) == [(0, "gpu"), (1, "cpu")]


def test_queue_aware_earliest_finish_counts_the_jobs_ahead_on_the_fast_processor() -> None:
    """a: cpu 4 ms, gpu 2 ms; the gpu is busy for 1 ms more, the cpu idle. Job 0 ends first on
    the gpu (1 + 2 = 3 < 4). Counting job 0 there, job 1 would end on the gpu at 5, so the
    cpu (4) is its earliest choice and takes it now. Counting only running work, the gpu
    looks free at 1 for job 1 too (3 < 4) and, without work conservation, the cpu idles."""
    jobs = [job(0, "a"), job(1, "a")]
    for queue_aware, expected in ((True, [(1, "cpu")]), (False, [])):
        sched, plans = _sched(merge(single("a", {"cpu": 4, "gpu": 2})), work_conserving=False,
                              queue_aware=queue_aware)
        procs_now = [pv("cpu"), pv("gpu", busy_ms=1)]
        assert placed(sched.schedule(view(jobs, procs_now, plans))) == expected


def test_queue_aware_earliest_finish_keeps_work_off_a_much_slower_processor() -> None:
    """a: cpu 10 ms, gpu 2 ms. Job 1 ends on the gpu at 4 after job 0, sooner than 10 on the
    cpu: without work conservation the cpu stays idle rather than take it."""
    sched, plans = _sched(merge(single("a", {"cpu": 10, "gpu": 2})), work_conserving=False)
    d = sched.schedule(view([job(0, "a"), job(1, "a")], [pv("cpu"), pv("gpu")], plans))
    assert placed(d) == [(0, "gpu")]


def test_each_assignment_counts_against_its_processor() -> None:
    sched, plans = _sched(merge(single("a", {"cpu": 1.5, "npu": 1})))
    d = sched.schedule(view([job(0, "a"), job(1, "a"), job(2, "a")], [pv("cpu"), pv("npu")],
                            plans))
    assert sorted(placed(d)) == [(0, "npu"), (1, "cpu")]


def test_multi_unit_job_starts_where_its_model_finishes_first() -> None:
    built = merge(plan("m", [("cpu", 0, 1, 20 * MS), ("gpu", 0, 0, 2 * MS),
                             ("cpu", 1, 1, 3 * MS), ("gpu", 1, 1, 30 * MS)]))
    sched, plans = _sched(built)
    d = sched.schedule(view([job(0, "m")], [pv("cpu"), pv("gpu")], plans))
    assert [(a.job_id, a.subgraph.index) for a in d.assignments] == [(0, 1)]  # gpu 2 + cpu 3
    d = sched.schedule(view([job(0, "m", next_unit=1)], [pv("cpu"), pv("gpu")], plans))
    assert [(a.job_id, a.subgraph.index) for a in d.assignments] == [(0, 2)]


def test_a_job_holds_a_processor_others_can_only_use_for_as_short_as_it_can() -> None:
    """Two equal processors. r: unit 0 runs only on the cpu (5 ms), unit 1 on either (95 ms);
    r whole on the cpu as one subgraph takes 99 ms (no boundary). f runs only on the cpu
    (10 ms). Finishing r first alone takes the 99-ms subgraph: f waits 99 ms and the gpu
    idles. ``exclusive_aware`` counts the 99 ms r would hold the cpu from f: 99 + 99 = 198
    against 100 + 5 = 105 for the 5-ms extent, so the cpu runs unit 0 alone (index 0) and
    unit 1 can go to the gpu."""
    built = merge(plan("r", [("cpu", 0, 0, 5 * MS), ("cpu", 0, 1, 99 * MS),
                             ("cpu", 1, 1, 95 * MS), ("gpu", 1, 1, 95 * MS)]),
                  single("f", {"cpu": 10}))
    q = [job(0, "r"), job(1, "f")]
    for aware, extent in ((True, 0), (False, 1)):
        sched, plans = _sched(built, exclusive_aware=aware)
        d = sched.schedule(view(q, [pv("cpu"), pv("gpu")], plans))
        assert [(a.job_id, a.subgraph.index) for a in d.assignments] == [(0, extent)]
    # alone, r takes the whole-model subgraph either way
    sched, plans = _sched(built, exclusive_aware=True)
    d = sched.schedule(view([job(0, "r")], [pv("cpu"), pv("gpu")], plans))
    assert [(a.job_id, a.subgraph.index) for a in d.assignments] == [(0, 1)]


def test_work_others_can_run_nowhere_else_is_counted_first() -> None:
    """Equal processors. t runs on either (100 ms), f only on the cpu (10 ms), t queued first.
    By name the cpu wins t's tie, and f then waits 100 ms. ``exclusive_aware`` counts f on the
    cpu before t is projected: t ends at 110 there against 100 on the gpu, so the gpu takes t
    and the cpu takes f."""
    built = merge(single("t", {"cpu": 100, "gpu": 100}), single("f", {"cpu": 10}))
    q = [job(0, "t"), job(1, "f")]
    for aware, expected in ((True, [(0, "gpu"), (1, "cpu")]), (False, [(0, "cpu")])):
        sched, plans = _sched(built, exclusive_aware=aware)
        d = sched.schedule(view(q, [pv("cpu"), pv("gpu")], plans))
        assert sorted(placed(d)) == expected


def test_lp_split_alternates_in_the_lps_proportions() -> None:
    """m: unit 0 on the cpu (4 ms) or the gpu (8 ms), unit 1 only on the cpu (6 ms). The
    frame-rate LP (tests/harness/models/test_bound.py works it by hand) starts 25 of its
    150 frames/s on the cpu and 125 on the gpu: a 1 : 5 split. With ``lp_split`` six jobs, one
    at a time on an idle device, follow the deficit count (gpu, gpu, gpu by the larger share
    at the tie, cpu, gpu, gpu); without it each takes the earliest finish, the cpu (10 ms
    against 14). A job at unit 1 has the LP's one subgraph there either way."""
    plans, prof = merge(plan("m", [("cpu", 0, 0, 4 * MS), ("gpu", 0, 0, 8 * MS),
                                   ("cpu", 1, 1, 6 * MS)]))
    for split, expected in ((True, ["gpu", "gpu", "gpu", "cpu", "gpu", "gpu"]),
                            (False, ["cpu"] * 6)):
        policy = AdmsPolicy(AdmsConf(lp_split=split), lambda p, sg: 1, "dev", None)
        policy.prepare(plans, prof)
        got = [placed(policy.schedule(view([job(k, "m")], [pv("cpu"), pv("gpu")], plans)))
               for k in range(6)]
        assert got == [[(k, p)] for k, p in enumerate(expected)]
        assert placed(policy.schedule(view([job(9, "m", next_unit=1)], [pv("cpu"), pv("gpu")],
                                           plans))) == [(9, "cpu")]


def test_lp_split_waits_for_the_lps_processor() -> None:
    """The same model with the gpu busy for 50 ms: ``lp_split`` keeps the first job queued
    for the gpu (its share there is behind) while the idle cpu takes nothing."""
    plans, prof = merge(plan("m", [("cpu", 0, 0, 4 * MS), ("gpu", 0, 0, 8 * MS),
                                   ("cpu", 1, 1, 6 * MS)]))
    policy = AdmsPolicy(AdmsConf(lp_split=True), lambda p, sg: 1, "dev", None)
    policy.prepare(plans, prof)
    d = policy.schedule(view([job(0, "m")], [pv("cpu"), pv("gpu", busy_ms=50)], plans))
    assert d.assignments == ()


# -- liveness ---------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(costs=st.lists(st.integers(1, 30), min_size=12, max_size=12),
       hot=st.sets(st.sampled_from(["cpu", "gpu", "npu"])),
       loads=st.lists(st.floats(0.0, 1.0), min_size=3, max_size=3))
def test_all_idle_means_some_job_runs(costs: list[int], hot: set[str], loads: list[float]) -> None:
    """Liveness: with every processor idle, a non-empty queue always yields an assignment."""
    built = merge(plan("m", [("cpu", 0, 1, costs[0]), ("gpu", 0, 0, costs[1]),
                             ("npu", 1, 1, costs[2]), ("cpu", 1, 1, costs[3])]),
                  single("s", {"gpu": costs[4] / 10, "npu": costs[5] / 10}))
    sched, plans = _sched(built)
    procs_ = [pv(p, load=ld, temp_c=80.0 if p in hot else 20.0, throttle_c=70.0)
              for p, ld in zip(("cpu", "gpu", "npu"), loads, strict=True)]
    d = sched.schedule(view([job(0, "s"), job(1, "m"), job(2, "m", next_unit=1)], procs_, plans))
    assert d.assignments
    assert len({a.subgraph.processor for a in d.assignments}) == len(d.assignments)
