"""Decision time of every policy: 10 models queued on 4 idle processors.

Run with ``.venv/bin/python -m pytest -m benchmark tests/adms/test_scheduler_bench.py
--benchmark-enable``. Nothing here asserts on time (the ADMS goal is < 50 µs per decision);
each benchmark checks only that the decision placed work, so a broken policy cannot post a
fast empty figure.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from adms.config import AdmsConf
from adms.policy import AdmsPolicy
from baselines.band.config import BandConf, SchedulerName
from baselines.band.policy import BandPolicy
from baselines.tflite import TfliteConf, TflitePolicy
from harness.seams.policy import Policy
from harness.seams.view import SchedulerView
from tests.fixtures.policies import all_ranges, job, merge, pv, view

PROCESSORS = ("cpu", "gpu", "dsp", "npu")
N_MODELS, N_UNITS = 10, 4


def _setup() -> tuple[SchedulerView, dict[tuple[str, int], int]]:
    built = [all_ranges(f"m{k}", N_UNITS, {"cpu": 4.0 + k, "gpu": 2.0 + k % 3,
                                            "dsp": 3.0 + k % 2, "npu": 1.0 + k % 4})
             for k in range(N_MODELS)]
    plans, profile = merge(*built)
    queue = [job(k, f"m{k}", slo_ms=60.0 if k % 2 else 0.0) for k in range(N_MODELS)]
    return view(queue, [pv(p) for p in PROCESSORS], plans, now_ms=1.0), profile


def _band(kind: SchedulerName) -> Callable[[], Policy]:
    return lambda: BandPolicy(BandConf(scheduler=kind))


def _adms(loop_call_size: int) -> Callable[[], Policy]:
    return lambda: AdmsPolicy(AdmsConf(loop_call_size=loop_call_size), lambda p, sg: 1, "bench")


def _policies() -> dict[str, Callable[[], Policy]]:
    out: dict[str, Callable[[], Policy]] = {"tflite": lambda: TflitePolicy(TfliteConf())}
    out.update({f"band-{kind.value}": _band(kind) for kind in SchedulerName})
    out.update({f"adms-loop{size}": _adms(size) for size in (4, 10)})
    return out


@pytest.mark.benchmark(group="decision")
@pytest.mark.parametrize("name", list(_policies()))
def test_decision_time(benchmark: BenchmarkFixture, name: str) -> None:
    v, profile = _setup()
    policy = _policies()[name]()
    policy.prepare(v.plans, profile)
    decision = benchmark(policy.schedule, v)
    assert decision.assignments


@pytest.mark.benchmark(group="decision")
def test_adms_decision_time_after_a_completion(benchmark: BenchmarkFixture) -> None:
    """As the runtime calls it: a completion has just changed one model's estimates."""
    v, profile = _setup()
    policy = AdmsPolicy(AdmsConf(), lambda p, sg: 1, "bench", None)
    policy.prepare(v.plans, profile)

    def after_completion() -> object:
        policy.scheduler.forget("m0")
        return policy.schedule(v)

    assert benchmark(after_completion)
