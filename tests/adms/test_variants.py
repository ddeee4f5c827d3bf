"""`adms` (the paper's rule) and `adms_ef` (ADMS as built) side by side: the paper's rule picks
by eq. (4) where the earliest-finish filter would pick otherwise; both examine only
``loop_call_size`` jobs; and `adms_ef` with every addition switched off makes `adms`'s
decisions on a seeded run (the YAMLs differ in nothing else)."""

from __future__ import annotations

from pathlib import Path

import pytest

from adms.config import AdmsConf, IdleOrder, LatencyReading, Pairing
from adms.priority import priority
from adms.scheduler import AdmsScheduler
from baselines.band.estimator import LatencyEstimator
from harness.seams.plan import ModelPlan
from tests.fixtures.policies import job, merge, placed, pv, single, view
from tests.fixtures.runs import SHORT, compose_run, run_baselines

#: the project's additions (conf/baseline/adms_ef.yaml)
ADDITIONS = ("earliest_finish", "queue_aware", "exclusive_aware", "idle_order")


def _conf(ef: bool, loop_call_size: int = 4) -> AdmsConf:
    """`adms_ef` (``ef``) or `adms_asks` (the reading `adms_ef` is built on): the four
    additions on or off."""
    return AdmsConf(earliest_finish=ef, queue_aware=ef, exclusive_aware=ef,
                    idle_order=IdleOrder.load if ef else IdleOrder.device,
                    pairing=Pairing.processor_asks, t_latency=LatencyReading.on_processor,
                    loop_call_size=loop_call_size)


def _sched(built: tuple[dict[str, ModelPlan], dict[tuple[str, int], int]], ef: bool,
           loop_call_size: int = 4) -> tuple[AdmsScheduler, dict[str, ModelPlan]]:
    plans, prof = built
    est = LatencyEstimator()
    est.seed(prof)
    return AdmsScheduler(_conf(ef, loop_call_size), est), plans


def test_the_papers_rule_picks_by_eq_4_where_earliest_finish_picks_otherwise() -> None:
    """Idle cpu (listed first) and gpu. Job 0 (model a) takes 2 ms on the gpu, 20 on the cpu;
    job 1 (model b) 5 ms on either. The cpu, served first, scores both by eq. (4): job 0's
    slack there is 2 - 20 ms, job 1's 5 - 5, so job 0 scores lowest and the paper's rule puts
    it on the cpu. Earliest-finish leaves job 0 to the gpu, where it ends first, and gives the
    cpu job 1."""
    built = merge(single("a", {"cpu": 20, "gpu": 2}), single("b", {"cpu": 5, "gpu": 5}))
    q = [job(0, "a", slo_ms=2), job(1, "b", slo_ms=5)]
    procs = [pv("cpu"), pv("gpu")]
    paper, plans = _sched(built, ef=False)
    scores = [priority(paper.conf, slo_ms=slo, latency_ms=on_cpu, now_ms=0.0, enqueue_ms=0.0,
                       avg_ms=avg, load=0.0, capacity=1.0, remaining_ms=avg)
              for slo, on_cpu, avg in ((2, 20, 2), (5, 5, 5))]
    assert scores[0] < scores[1]  # eq. (4) on the cpu: job 0 first
    assert placed(paper.schedule(view(q, procs, plans))) == [(0, "cpu"), (1, "gpu")]
    built_ef, _ = _sched(built, ef=True)
    assert placed(built_ef.schedule(view(q, procs, plans))) == [(1, "cpu"), (0, "gpu")]


@pytest.mark.parametrize("ef", [False, True])
def test_loop_call_size_limits_the_jobs_examined(ef: bool) -> None:
    """Job 0 runs only on the busy gpu, job 1 only on the idle cpu: with a head of one job
    nothing is assigned, with two the cpu takes job 1."""
    built = merge(single("g", {"gpu": 1}), single("c", {"cpu": 1}))
    q = [job(0, "g"), job(1, "c")]
    procs = [pv("cpu"), pv("gpu", busy_ms=3)]
    for size, want in ((1, []), (2, [(1, "cpu")])):
        sched, plans = _sched(built, ef, loop_call_size=size)
        assert placed(sched.schedule(view(q, procs, plans))) == want


def test_adms_ef_yaml_is_adms_asks_with_the_additions_on() -> None:
    cfg = compose_run("device=k50pro", "scenario=frs")
    paper, built = vars(cfg.baselines["adms_asks"]), vars(cfg.baselines["adms_ef"])
    assert paper["idle_order"] is IdleOrder.device and built["idle_order"] is IdleOrder.load
    assert all(not paper[f] and built[f] for f in ADDITIONS if f != "idle_order")
    assert {k: v for k, v in paper.items() if k not in ADDITIONS} == {
        k: v for k, v in built.items() if k not in ADDITIONS}


def _requests(overrides: tuple[str, ...], tmp: Path, tag: str) -> dict[str, str]:
    """Both rows' request tables; decisions are not priced (each baseline has its own
    measured price per unit of work, docs/decision-cost.md: equal decisions, other times)."""
    cfg = compose_run("device=k50pro", "scenario=frs", *SHORT, "seed.base=0",
                      "run=[adms_asks,adms_ef]", "device.twin.mechanisms.scheduler_cost=false",
                      *overrides)
    data, _ = run_baselines(cfg, tmp / tag, tmp / "cache")
    table = data.requests
    return {b: table[table["baseline"] == b].drop(columns=["baseline"]).to_csv(index=False)
            for b in ("adms_asks", "adms_ef")}


def test_adms_ef_with_every_addition_off_makes_adms_askss_decisions(tmp_path: Path) -> None:
    off = tuple(f"baselines.adms_ef.{f}=false" for f in ADDITIONS if f != "idle_order")
    same = _requests((*off, "baselines.adms_ef.idle_order=device"), tmp_path, "off")
    assert same["adms_asks"] == same["adms_ef"]
    differs = _requests((), tmp_path, "on")  # (the comparison can fail)
    assert differs["adms_asks"] != differs["adms_ef"]
