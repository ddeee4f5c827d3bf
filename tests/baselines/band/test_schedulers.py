"""Band's six schedulers (:mod:`baselines.band.schedulers`) on hand-built views, in the manner
of Band's ``band/test/scheduler_test.cc`` (mock engine -> hand-built SchedulerView): the
device-queue ones (fixed worker, round robin) and the global-queue ones (shortest expected
latency, least slack first, HEFT and its reserved variant), their SLO drops, and the
global-queue schedulers' liveness."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baselines.band.config import BandConf, SchedulerName
from baselines.band.estimator import LatencyEstimator
from baselines.band.policy import BandPolicy
from baselines.band.schedulers import (
    FixedWorker,
    HeterogeneousEarliestFinishTime,
    LeastSlackTimeFirst,
    RoundRobin,
    ShortestExpectedLatency,
    largest_subgraph,
)
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

# -- device-queue schedulers ------------------------------------------------------------------

PROCS3 = ("cpu", "gpu", "npu")


def _est(profile: dict[tuple[str, int], int]) -> LatencyEstimator:
    est = LatencyEstimator()
    est.seed(profile)
    return est


def test_largest_subgraph_prefers_most_ops() -> None:
    mp, _ = plan("m", [("gpu", 0, 0, 1), ("gpu", 0, 1, 1), ("cpu", 0, 1, 1)])
    sg = largest_subgraph(mp, 0, "gpu")
    assert sg is not None and sg.index == 1
    assert largest_subgraph(mp, 0, "npu") is None


def test_fixed_worker_sends_every_job_to_its_worker_even_when_busy() -> None:
    plans, prof = merge(single("a", {"cpu": 5, "gpu": 2}), single("b", {"cpu": 4, "gpu": 3}))
    sched = FixedWorker({"a": "gpu", "b": "cpu"})
    v = view([job(0, "a"), job(1, "b"), job(2, "a"), job(3, "c")],
             [pv("cpu"), pv("gpu", busy_ms=1)], plans)
    assert placed(sched.schedule(v, _est(prof))) == [(0, "gpu"), (1, "cpu"), (2, "gpu")]


def test_fixed_worker_drops_jobs_that_cannot_meet_their_slo_as_written() -> None:
    plans, prof = merge(single("a", {"gpu": 2}))
    sched = FixedWorker({"a": "gpu"})
    sched.slo_as_written = True
    # gpu busy for 9 ms: job 0 (slo 10) would end at 11 -> dropped; job 1 (slo 20) fits at 11
    v = view([job(0, "a", slo_ms=10), job(1, "a", slo_ms=20)], [pv("cpu"), pv("gpu", busy_ms=9)],
             plans)
    d = sched.schedule(v, _est(prof))
    assert d.drops == (0,) and placed(d) == [(1, "gpu")]
    off = FixedWorker({"a": "gpu"}, drop_on_slo=False).schedule(v, _est(prof))
    assert off.drops == () and placed(off) == [(0, "gpu"), (1, "gpu")]


def test_as_executed_only_a_job_already_past_its_deadline_is_dropped() -> None:
    """band/planner.cc IsSLOViolated reads the job's expected time before it is set, so as Band
    runs the check is ``now > deadline`` (the default ``slo_check: executed``)."""
    plans, prof = merge(single("a", {"gpu": 2}))
    sched = FixedWorker({"a": "gpu"})
    assert not sched.slo_as_written
    # at 12 ms: job 0 (arrived 0, slo 10) is past its deadline; job 1 (slo 20) is not, though
    # it cannot end before 12 + 9 + 2 = 23 > 20
    v = view([job(0, "a", slo_ms=10), job(1, "a", slo_ms=20)], [pv("cpu"), pv("gpu", busy_ms=9)],
             plans, now_ms=12)
    d = sched.schedule(v, _est(prof))
    assert d.drops == (0,) and placed(d) == [(1, "gpu")]


@pytest.mark.parametrize(
    ("n_jobs", "idle", "expected"),
    [
        (3, ("cpu", "gpu", "npu"), [(0, "cpu"), (1, "gpu"), (2, "npu")]),
        (2, ("cpu", "gpu", "npu"), [(0, "cpu"), (1, "gpu")]),
        (3, ("cpu", "npu"), [(0, "cpu"), (1, "npu")]),
    ],
)
def test_round_robin_one_job_per_idle_worker(
    n_jobs: int, idle: tuple[str, ...], expected: list[tuple[int, str]]
) -> None:
    plans, prof = merge(single("a", {"cpu": 5, "gpu": 2, "npu": 1}))
    procs_ = [pv(p) if p in idle else pv(p, busy_ms=3) for p in PROCS3]
    d = RoundRobin().schedule(view([job(k, "a") for k in range(n_jobs)], procs_, plans),
                              _est(prof))
    assert placed(d) == expected


def test_round_robin_skips_jobs_a_worker_cannot_run() -> None:
    plans, prof = merge(single("a", {"cpu": 5}), single("b", {"cpu": 5, "gpu": 1}))
    d = RoundRobin().schedule(view([job(0, "a"), job(1, "b")], [pv("gpu"), pv("cpu")], plans),
                              _est(prof))
    assert placed(d) == [(1, "gpu"), (0, "cpu")]


# -- global-queue schedulers ------------------------------------------------------------------


def test_sel_schedules_largest_shortest_latency_first() -> None:
    # Band's ShortestExepectedLatencyRequestTests: latencies {2, 1, 3} -> order 2, 0, 1
    plans, prof = merge(*(single(f"m{k}", dict.fromkeys(PROCS3, ms))
                          for k, ms in enumerate((2, 1, 3))))
    d = ShortestExpectedLatency(queue_head=5).schedule(
        view([job(k, f"m{k}") for k in range(3)], [pv(p) for p in PROCS3], plans), _est(prof))
    # equal finish on every processor: Band keeps the last minimum (npu, then gpu, then cpu)
    assert placed(d) == [(2, "npu"), (0, "gpu"), (1, "cpu")]


def test_sel_leaves_a_job_whose_best_worker_is_busy() -> None:
    plans, prof = merge(single("a", {"cpu": 9, "npu": 1}), single("b", {"cpu": 3, "gpu": 4}))
    v = view([job(0, "a"), job(1, "b")], [pv("cpu"), pv("gpu"), pv("npu", busy_ms=1)], plans)
    d = ShortestExpectedLatency().schedule(v, _est(prof))
    assert placed(d) == [(1, "cpu")]  # a's fastest chain starts on the busy npu (1 + 1 < 9)


def test_sel_queue_head_limits_the_jobs_examined() -> None:
    plans, prof = merge(single("a", {"cpu": 1, "gpu": 1}))
    v = view([job(0, "a"), job(1, "a")], [pv("cpu"), pv("gpu")], plans)
    assert len(ShortestExpectedLatency(queue_head=1).schedule(v, _est(prof)).assignments) == 1
    assert len(ShortestExpectedLatency().schedule(v, _est(prof)).assignments) == 2


@pytest.mark.parametrize(
    ("slos", "expected"),
    [((100, 80), [(1, "cpu"), (0, "gpu")]),  # with SLOs: least slack (job 1) first
     ((0, 0), [(0, "cpu"), (1, "gpu")])],  # without: queue order
)
def test_lst_orders_by_slack(slos: tuple[int, int], expected: list[tuple[int, str]]) -> None:
    plans, prof = merge(single("a", {"cpu": 5, "gpu": 8}), single("b", {"cpu": 5, "gpu": 8}))
    v = view([job(0, "a", slo_ms=slos[0]), job(1, "b", slo_ms=slos[1])],
             [pv("cpu"), pv("gpu"), pv("npu")], plans)
    assert placed(LeastSlackTimeFirst(queue_head=5).schedule(v, _est(prof))) == expected


def test_lst_drops_a_job_whose_fastest_chain_misses_the_deadline() -> None:
    plans, prof = merge(single("a", {"cpu": 5, "gpu": 8}))
    v = view([job(0, "a", slo_ms=4), job(1, "a", slo_ms=50)], [pv("cpu"), pv("gpu")], plans)
    d = LeastSlackTimeFirst().schedule(v, _est(prof))
    assert d.drops == (0,) and placed(d) == [(1, "cpu")]
    keep = LeastSlackTimeFirst(drop_on_slo=False).schedule(v, _est(prof))
    assert keep.drops == () and placed(keep) == [(0, "cpu"), (1, "gpu")]


def test_lst_does_nothing_without_idle_workers() -> None:
    plans, prof = merge(single("a", {"cpu": 5}))
    v = view([job(0, "a", slo_ms=1)], [pv("cpu", busy_ms=2)], plans)
    assert LeastSlackTimeFirst().schedule(v, _est(prof)).drops == ()


def _heft_case(latencies: tuple[int, ...], targets: tuple[str, ...], idle: tuple[str, ...],
               reserve: bool = False) -> list[int]:
    plans, prof = merge(*(single(f"m{k}", {t: ms}) for k, (ms, t)
                          in enumerate(zip(latencies, targets, strict=True))))
    procs_ = [pv(p) if p in idle else pv(p, busy_ms=5) for p in PROCS3]
    sched = HeterogeneousEarliestFinishTime(queue_head=5, reserve=reserve)
    d = sched.schedule(view([job(k, f"m{k}") for k in range(len(latencies))], procs_, plans),
                       _est(prof))
    return [a.job_id for a in d.assignments]


@pytest.mark.parametrize(
    ("latencies", "targets", "idle", "expected"),
    [  # Band's HEFTRequestTests cases 1-5
        ((2, 1, 3), ("cpu", "gpu", "npu"), (), []),
        ((2, 1, 3), ("cpu", "cpu", "cpu"), PROCS3, [2]),
        ((2, 1, 3), ("cpu", "gpu", "npu"), PROCS3, [2, 0, 1]),
        ((2, 1, 3), ("cpu", "gpu", "npu"), ("cpu", "npu"), [2, 0]),
        ((2, 3, 3), ("cpu", "cpu", "npu"), PROCS3, [1, 2]),
    ],
)
def test_heft_band_cases(
    latencies: tuple[int, ...], targets: tuple[str, ...], idle: tuple[str, ...],
    expected: list[int],
) -> None:
    assert _heft_case(latencies, targets, idle) == expected


def test_heft_reserved_counts_the_next_subgraph_of_running_jobs() -> None:
    x, px = plan("x", [("cpu", 0, 0, 1 * MS), ("npu", 1, 1, 10 * MS)])
    plans, prof = merge((x, px), single("y", {"npu": 4, "gpu": 6}))
    est = _est(prof)
    procs_ = [pv(p) for p in PROCS3]
    for reserve, where in ((False, "npu"), (True, "gpu")):
        sched = HeterogeneousEarliestFinishTime(reserve=reserve)
        first = sched.schedule(view([job(0, "x")], procs_, plans), est)
        assert placed(first) == [(0, "cpu")]
        assert (0 in sched.reserved) is reserve
        again = sched.schedule(view([job(1, "y")], procs_, plans, now_ms=0.5), est)
        assert placed(again) == [(1, where)]


def test_heft_reserved_ignores_the_jobs_own_reservation() -> None:
    x, px = plan("x", [("cpu", 0, 0, 1 * MS), ("npu", 1, 1, 10 * MS), ("gpu", 1, 1, 15 * MS)])
    plans, prof = merge((x, px))
    sched = HeterogeneousEarliestFinishTime(reserve=True)
    procs_ = [pv(p) for p in PROCS3]
    assert placed(sched.schedule(view([job(0, "x")], procs_, plans), _est(prof))) == [(0, "cpu")]
    assert sched.reserved[0].processor == "npu"
    back = view([job(0, "x", next_unit=1)], procs_, plans, now_ms=1)
    assert placed(sched.schedule(back, _est(prof))) == [(0, "npu")]
    assert sched.reserved == {}


def test_heft_drops_on_slo_and_releases_the_reservation() -> None:
    x, px = plan("x", [("cpu", 0, 0, 1 * MS), ("npu", 1, 1, 10 * MS)])
    plans, prof = merge((x, px))
    sched = HeterogeneousEarliestFinishTime(reserve=True)
    d = sched.schedule(view([job(0, "x", slo_ms=5)], [pv("cpu", busy_ms=9), pv("npu")], plans),
                       _est(prof))
    assert d.drops == () and d.assignments == ()  # cpu busy: the job waits
    # as executed: at 4.5 ms the job (deadline 5) is not yet late: it runs
    d = sched.schedule(view([job(0, "x", slo_ms=5)], [pv("cpu"), pv("npu")], plans, now_ms=4.5),
                       _est(prof))
    assert d.drops == () and placed(d) == [(0, "cpu")]
    # as written: 4.5 + 1 ms > 5: dropped, and its reservation released
    sched = HeterogeneousEarliestFinishTime(reserve=True)
    sched.slo_as_written = True
    d = sched.schedule(view([job(0, "x", slo_ms=5)], [pv("cpu"), pv("npu")], plans, now_ms=4.5),
                       _est(prof))
    assert d.drops == (0,) and sched.reserved == {}


# -- liveness ---------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(costs=st.lists(st.integers(1, 30), min_size=6, max_size=6),
       kind=st.sampled_from([k for k in SchedulerName if k not in (
           SchedulerName.fixed_worker, SchedulerName.round_robin)]))
def test_all_idle_means_some_job_runs(costs: list[int], kind: SchedulerName) -> None:
    """Liveness of the global-queue schedulers; and never two jobs on one processor."""
    plans, prof = merge(plan("m", [("cpu", 0, 1, costs[0]), ("gpu", 0, 0, costs[1]),
                                   ("npu", 1, 1, costs[2]), ("cpu", 1, 1, costs[3])]),
                        single("s", {"gpu": costs[4] / 10, "npu": costs[5] / 10}))
    policy = BandPolicy(BandConf(scheduler=kind))
    policy.prepare(plans, prof)
    q = [job(0, "s"), job(1, "m"), job(2, "m", next_unit=1), job(3, "s")]
    d = policy.schedule(view(q, [pv(p) for p in PROCS3], plans))
    assert d.assignments
    assert len({a.subgraph.processor for a in d.assignments}) == len(d.assignments)
