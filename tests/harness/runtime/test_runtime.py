"""The runtime loop (``Runtime`` + ``Driver`` on a SimClock) on twins: exact traces and
invariants.

Three kinds of test, from small to large:

* **Exact traces.** A two-model, two-processor twin built in Python (``noise_sigma: 0``, round
  constants so every latency can be worked out by hand) runs two frames through one
  :class:`~harness.runtime.core.Runtime` and one :class:`~harness.runtime.driver.Driver`; the
  list of ``(processor, model, start_ns, end_ns)`` in completion order is asserted exactly,
  for vanilla TFLite and for ADMS. The hand derivation is written next to each expectation.
* **Invariants on the real twins.** Short runs (1 s + 0.2 s warm-up) of every baseline on
  k50pro (FRS and ROS), p20 and mi6, through :func:`harness.experiment.baseline.run_baseline`
  into a
  real results folder, then checks on the recorded rows: one subgraph at a time per
  processor; a request's subgraphs run in unit order, one after another; an ``ok`` request
  covers its plan's units exactly once; arrival <= start <= end; warm-up flags.
* **Bad input** to :mod:`harness.experiment`: an unknown model, ADMS asked of a phone, a phone
  behind no adb server.
* **One load.** The device loads only the plans it runs, SLO base or not.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import simpy

from adms.config import AdmsConf
from adms.policy import AdmsPolicy
from baselines.tflite import TfliteConf, TflitePolicy
from devices.twin import TwinDevice
from devices.twin.config import TwinDeviceConf, TwinProcessorConf
from harness.config.schema import Arrival, RunConf, ScenarioConf
from harness.experiment.baseline import run_baseline
from harness.experiment.session import scenario_models
from harness.reporting.store import RunData, RunRecorder
from harness.runtime.core import JobRecord, Runtime
from harness.runtime.driver import Driver
from harness.runtime.sensors import SensorCache
from harness.runtime.traffic import Traffic
from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph
from harness.seams.plan import ModelPlan, ProcessorKind, Subgraph
from harness.seams.policy import Policy
from harness.seams.records import Completion, Request
from harness.seams.units import NS_PER_MS, NS_PER_S
from tests.fixtures import raw
from tests.fixtures.graphs import chain
from tests.fixtures.runs import BASELINES, SHORT, compose_run, run_baselines

# -- the hand-built twin ----------------------------------------------------------------------
#
# Every op of tests/graphs.py has 100 FLOPs and moves no bytes, so an op costs its compute
# time plus its dispatch overhead, and a subgraph adds one invoke overhead:
#   cpu: 100 FLOP / (10 GFLOP/s x 0.1) = 100 ns + 100 ns dispatch; invoke 1000 ns
#        -> a 2-op subgraph takes 1000 + 2 x 200 = 1400 ns
#   gpu: float32 runs as float16: 100 FLOP / (100 GFLOP/s x 0.1) = 10 ns + 10 ns dispatch;
#        invoke 2000 ns -> 2 ops: 2040 ns, 4 ops: 2080 ns
# An input tensor (1024 bytes) made on the other processor costs 1000 ns fixed
# + 1024 B / 1.024 GB/s = 2000 ns more. The trace lasts microseconds: the governor (100 ms
# period) never acts, and the Processor Monitor (100 ms cache) reports both processors idle.

_THERMAL = {
    "static_w": 0.1, "dynamic_w": 1.0, "v_min_v": 0.8, "v_max_v": 1.0,
    "capacitance_j_per_k": 20.0, "resistance_k_per_w": 1.0, "throttle_c": 68.0,
    "hysteresis_c": 3.0, "bandwidth_share": 1.0,
}
_EFFICIENCY = {"conv": 0.1, "depthwise": 0.1, "fully_connected": 0.1, "other": 0.1}
TINY_CPU: dict[str, Any] = {
    **_THERMAL, "peak_gflops": {"float32": 10.0}, "efficiency": _EFFICIENCY,
    "invoke_overhead_us": 1.0, "dispatch_overhead_us": 0.1, "freqs_mhz": [1000],
}
TINY_GPU: dict[str, Any] = {
    **_THERMAL, "peak_gflops": {"float16": 100.0}, "run_as": {"float32": "float16"},
    "efficiency": _EFFICIENCY, "invoke_overhead_us": 2.0, "dispatch_overhead_us": 0.01,
    "freqs_mhz": [500, 1000],
}
TINY_DEVICE: dict[str, Any] = {
    "ambient_c": 25.0, "soc_capacitance_j_per_k": 100.0, "soc_resistance_k_per_w": 10.0,
    "memory_bandwidth_gbps": 10.0, "transfer_fixed_us": 1.0, "transfer_bandwidth_gbps": 1.024,
    "governor_period_ms": 100.0, "noise_sigma": 0.0,
    # the runtime's traces by hand: no floors, copies, scheduler cost, memory or phone power
    # (each mechanism has its own exact test in tests/devices/twin/test_mechanisms.py)
    "mechanisms": dict.fromkeys(("invoke_floor", "boundary_copy", "io_copy", "scheduler_cost",
                                 "memory", "phone_power", "shutdown"), False),
}
#: model a: 4 ops in 2 units of 2; model b: 2 ops in 1 unit
UNITS = {"a": (frozenset({0, 1}), frozenset({2, 3})), "b": (frozenset({0, 1}),)}

Trace = list[tuple[str, str, int, int]]


def tiny_scenario() -> ScenarioConf:
    """Two frames in flight, issued at 0; the window ends at 3000 ns, so one more frame is
    issued (when the first ends, if before 3000 ns) and no more."""
    return ScenarioConf(name="tiny", models=["a", "b"], arrival=Arrival.frames,
                        frames_in_flight=2, duration_s=3e-6, warmup_s=0.0)


def tiny_device_conf() -> TwinDeviceConf:
    procs = [TwinProcessorConf(name=n, kind=kind, twin=raw(copy.deepcopy(block)))
             for n, kind, block in (("cpu", ProcessorKind.CPU, TINY_CPU),
                                    ("gpu", ProcessorKind.GPU, TINY_GPU))]
    return TwinDeviceConf(name="tiny", description="test", processors=procs,
                          twin=raw(copy.deepcopy(TINY_DEVICE)))


def tiny_graphs() -> dict[str, ModelGraph]:
    return {"a": chain(["CONV_2D"] * 4, name="a"), "b": chain(["CONV_2D"] * 2, name="b")}


def tiny_plan(model: str, choices: Sequence[tuple[str, tuple[int, ...]]]) -> ModelPlan:
    """A plan of ``model`` whose subgraphs are ``(processor, units)``, indexed in order."""
    units = UNITS[model]
    subgraphs = tuple(
        Subgraph(k, model, proc, frozenset().union(*(units[u] for u in us)), us)
        for k, (proc, us) in enumerate(choices))
    support = tuple(frozenset(p for p, us in choices if u in us) for u in range(len(units)))
    return ModelPlan(model, units, support, subgraphs)


def run_tiny(policy: Policy, plans: dict[str, ModelPlan]) -> Trace:
    """Run the tiny scenario; the subgraphs in completion order."""
    env = simpy.Environment()
    device = TwinDevice(tiny_device_conf(), env, np.random.default_rng(0), tiny_graphs())
    device.load(tiny_graphs(), plans)
    profile = {(m, sg.index): device.profile(p, sg) for m, p in plans.items() for sg in p.subgraphs}
    policy.prepare(plans, profile)
    trace: Trace = []

    def on_subgraph(c: Completion) -> None:
        trace.append((c.subgraph.processor, c.subgraph.model, c.start_ns, c.end_ns))

    def on_request(r: Request, status: str, rec: JobRecord) -> None:
        assert status == "ok", (r, status)

    sensors = SensorCache(device.read_sensors, 100 * NS_PER_MS)
    runtime = Runtime(policy, plans, device.describe().processors, on_request,
                      on_subgraph, sensors=sensors.get)
    traffic = Traffic(tiny_scenario(), {}, np.random.default_rng(0))
    Driver(device.start_clock(), device, runtime, traffic, sensors, 100 * NS_PER_MS).run(
        NS_PER_MS)
    return trace


def test_tiny_twin_profiles_match_the_hand_arithmetic() -> None:
    env = simpy.Environment()
    device = TwinDevice(tiny_device_conf(), env, np.random.default_rng(0), tiny_graphs())
    a = tiny_plan("a", [("cpu", (0,)), ("gpu", (0,)), ("gpu", (0, 1))])
    assert [device.profile(a, sg) for sg in a.subgraphs] == [1400, 2040, 2080]


def test_tflite_exact_trace() -> None:
    """TFLite plans: a = unit 0 on the gpu, unit 1 falls back to the cpu; b = gpu.

    t=0     queue a0 b0 a1 b1; gpu takes a0 (the others need the busy gpu)      a0 gpu 0-2040
    t=2040  a0 back to the front: a0 -> cpu (+2000 transfer), b0 -> gpu         a0 cpu 2040-5440
                                                                               b0 gpu 2040-4080
    t=4080  b0 ends; a1 -> gpu                                                  a1 gpu 4080-6120
    t=5440  a0 ends, frame 0 complete; 5440 >= 3000: no new frame; b1 waits for the gpu
    t=6120  a1 -> cpu (+2000 transfer), b1 -> gpu                               a1 cpu 6120-9520
                                                                               b1 gpu 6120-8160
    """
    plans = {"a": tiny_plan("a", [("gpu", (0,)), ("cpu", (1,))]),
             "b": tiny_plan("b", [("gpu", (0,))])}
    assert run_tiny(TflitePolicy(TfliteConf()), plans) == [
        ("gpu", "a", 0, 2040),
        ("gpu", "b", 2040, 4080),
        ("cpu", "a", 2040, 5440),
        ("gpu", "a", 4080, 6120),
        ("gpu", "b", 6120, 8160),
        ("cpu", "a", 6120, 9520),
    ]


def adms_tiny_plans() -> dict[str, ModelPlan]:
    """ADMS-style plans of the tiny models: a = unit 0 or 1 on either processor, or both
    merged on the gpu; b = either processor."""
    return {"a": tiny_plan("a", [("cpu", (0,)), ("gpu", (0,)), ("cpu", (1,)), ("gpu", (1,)),
                                 ("gpu", (0, 1))]),
            "b": tiny_plan("b", [("cpu", (0,)), ("gpu", (0,))])}


def test_adms_exact_trace() -> None:
    """ADMS plans: a = unit 0 or 1 on either processor (cpu 1400, gpu 2040 each), or both
    units merged on the gpu (2080); b = cpu (1400) or gpu (2040). Idle processors are visited
    cpu first (equal load and temperature); a processor takes, among the jobs it finishes no
    later than their earliest projected finish, the lowest score S = slack + wait + resource
    (docstring of adms.scheduler). The projection places the examined jobs in queue order,
    each where it ends first after the work already placed (``queue_aware``). Frames 0 and 1
    are issued at 0: queue a0 b0 a1 b1. Scores below in ms (no SLO: T_SLO = T_avg).

    t=0     projected finish a0 gpu 2080, b0 cpu 1400, a1 gpu 4160, b1 cpu 2800.
            cpu can meet b0, a1 (2800 <= 4160), b1; a1 scores lowest
            (slack 2080-2800, resource -2080: S = -0.0028)                      a1 cpu 0-1400
            gpu: a0 (S = -0.00208) beats b0 (S = -0.00204)                     a0 gpu 0-2080
    t=1400  queue a1(unit 1) b0 b1; cpu: b0 has waited one T_avg (wait -1)    b0 cpu 1400-2800
    t=2080  frame 0 not done (b0 runs); gpu: b1 (waited 2080/1400 T_avg)
            beats a1 (waited 680/2080)                                        b1 gpu 2080-4120
    t=2800  frame 0 done, frame 2 issued (a2 b2); cpu: a1 (waited 1400/2080)   a1 cpu 2800-4200
    t=4120  gpu: a2 (2080; b2 ends sooner on the cpu, 80 + 1400)              a2 gpu 4120-6200
    t=4200  frame 1 done (4200 > 3000: no new frame); cpu: b2                  b2 cpu 4200-5600
    """
    policy = AdmsPolicy(AdmsConf(), lambda plan, sg: 0, "tiny")
    assert run_tiny(policy, adms_tiny_plans()) == [
        ("cpu", "a", 0, 1400),
        ("gpu", "a", 0, 2080),
        ("cpu", "b", 1400, 2800),
        ("gpu", "b", 2080, 4120),
        ("cpu", "a", 2800, 4200),
        ("cpu", "b", 4200, 5600),
        ("gpu", "a", 4120, 6200),
    ]


def test_adms_exact_trace_counting_only_running_work() -> None:
    """The same run with ``queue_aware: false`` (``adms_strict``): at t=0 the cpu is only
    b's earliest choice, since the gpu looks free for a1 too (ends at 2080 < 2800)."""
    policy = AdmsPolicy(AdmsConf(queue_aware=False), lambda plan, sg: 0, "tiny")
    assert run_tiny(policy, adms_tiny_plans()) == [
        ("cpu", "b", 0, 1400),
        ("gpu", "a", 0, 2080),
        ("cpu", "b", 1400, 2800),
        ("gpu", "a", 2080, 4160),
        ("cpu", "b", 2800, 4200),
        ("gpu", "a", 4160, 6240),
    ]


# -- invariants on the real twins -------------------------------------------------------------

#: (device, scenario): both scenarios on k50pro, one each on p20 and mi6
CASES = (("k50pro", "frs"), ("k50pro", "ros"), ("p20", "frs"), ("mi6", "ros"))

Run = tuple[RunData, dict, RunConf]


@pytest.fixture(scope="module")
def twin_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str, str], Run]]:
    """``twin_run(device, scenario)``: every baseline, short, run once per module."""
    cache_dir = tmp_path_factory.mktemp("tuner_cache")
    done: dict[tuple[str, str], Run] = {}

    def get(device: str, scenario: str) -> Run:
        if (device, scenario) not in done:
            cfg = compose_run(f"device={device}", f"scenario={scenario}",
                              f"run=[{','.join(baselines_of(device, scenario))}]", *SHORT)
            folder = tmp_path_factory.mktemp(f"{device}_{scenario}")
            data, facts = run_baselines(cfg, folder, cache_dir)
            done[(device, scenario)] = (data, facts, cfg)
        return done[(device, scenario)]

    yield get


def rows_of(run: Run, baseline: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    data = run[0]
    req = data.requests[data.requests["baseline"] == baseline]
    sub = data.subgraphs[data.subgraphs["baseline"] == baseline]
    return req, sub


def overlaps(sub: pd.DataFrame) -> list[tuple[str, int, int]]:
    """(processor, previous end, start) wherever a subgraph starts before the previous ends."""
    bad = []
    for proc, rows in sub.groupby("processor"):
        rows = rows.sort_values(["start_ns", "end_ns"])
        prev_end = rows["end_ns"].shift(1)
        for start, end in zip(rows["start_ns"], prev_end, strict=True):
            if not pd.isna(end) and start < end:
                bad.append((str(proc), int(end), int(start)))
    return bad


def chain_faults(sub: pd.DataFrame) -> list[str]:
    """Requests whose subgraphs do not run units 0, 1, ... consecutively, one after another."""
    bad = []
    for rid, rows in sub.groupby("request_id"):
        rows = rows.sort_values("start_ns")
        expected_first = [0, *(rows["last_unit"].iloc[:-1] + 1)]
        if list(rows["first_unit"]) != expected_first:
            bad.append(f"request {rid}: first units {list(rows['first_unit'])}")
        if (rows["start_ns"].iloc[1:].to_numpy() < rows["end_ns"].iloc[:-1].to_numpy()).any():
            bad.append(f"request {rid}: a subgraph starts before the previous one ended")
    return bad


def coverage_faults(req: pd.DataFrame, sub: pd.DataFrame, units: dict[str, int]) -> list[str]:
    """``ok`` requests that do not end at their plan's last unit, or whose row disagrees with
    its subgraph rows (count, first start, last end, processors in order of first use)."""
    bad = []
    by_request = dict(tuple(sub.groupby("request_id")))
    for r in req[req["status"] == "ok"].itertuples():
        rows = by_request.get(r.request_id)
        if rows is None:
            bad.append(f"request {r.request_id}: ok without subgraphs")
            continue
        rows = rows.sort_values("start_ns")
        seen = ",".join(dict.fromkeys(rows["processor"]))
        facts = (int(rows["last_unit"].iloc[-1]), len(rows), int(rows["start_ns"].iloc[0]),
                 int(rows["end_ns"].iloc[-1]), seen, bool(rows["ok"].all()))
        want = (units[str(r.model)] - 1, r.n_subgraphs, r.start_ns, r.end_ns, r.processors, True)
        if facts != want:
            bad.append(f"request {r.request_id}: {facts} != {want}")
    return bad


def num_units(run: Run, baseline: str) -> dict[str, int]:
    facts = run[1][baseline]
    return {m: c.unit for m, c in facts.get("plans", {}).items()}


#: Band-7 runs everywhere, beside the default baselines
RUN_BASELINES = (*BASELINES, "band7")


def baselines_of(device: str, scenario: str) -> tuple[str, ...]:
    """The baselines a case runs: on k50pro ROS not Band at size 1, which loads 38,556
    interpreters there to be killed for memory (the longest run of the module; that failure
    is shown by tests/notebooks/test_notebooks.py)."""
    if (device, scenario) == ("k50pro", "ros"):
        return tuple(b for b in RUN_BASELINES if b != "band")
    return RUN_BASELINES


BASELINE_CASES = [pytest.param(d, s, b, id=f"{d}-{s}-{b}") for d, s in CASES
                  for b in baselines_of(d, s)]


@pytest.mark.parametrize(("device", "scenario", "baseline"), BASELINE_CASES)
def test_every_model_finishes_requests(device: str, scenario: str, baseline: str,
                                       twin_run: Callable[[str, str], Run]) -> None:
    run = twin_run(device, scenario)
    req, sub = rows_of(run, baseline)
    assert "failed" not in run[1][baseline]
    ok = req[req["status"] == "ok"]
    assert set(ok["model"]) == set(run[2].scenario.models)
    assert len(sub) >= len(ok) > 0
    assert set(sub["request_id"]) <= set(req["request_id"])


@pytest.mark.parametrize(("device", "scenario", "baseline"), BASELINE_CASES)
def test_one_subgraph_at_a_time_per_processor(device: str, scenario: str, baseline: str,
                                              twin_run: Callable[[str, str], Run]) -> None:
    _, sub = rows_of(twin_run(device, scenario), baseline)
    assert overlaps(sub) == []


@pytest.mark.parametrize(("device", "scenario", "baseline"), BASELINE_CASES)
def test_subgraphs_of_a_request_run_units_in_order(device: str, scenario: str, baseline: str,
                                                   twin_run: Callable[[str, str], Run]) -> None:
    _, sub = rows_of(twin_run(device, scenario), baseline)
    assert chain_faults(sub) == []


@pytest.mark.parametrize(("device", "scenario", "baseline"), BASELINE_CASES)
def test_ok_requests_cover_their_plan_once(device: str, scenario: str, baseline: str,
                                           twin_run: Callable[[str, str], Run]) -> None:
    run = twin_run(device, scenario)
    req, sub = rows_of(run, baseline)
    assert coverage_faults(req, sub, num_units(run, baseline)) == []


@pytest.mark.parametrize(("device", "scenario", "baseline"), BASELINE_CASES)
def test_request_times_and_warmup_flags(device: str, scenario: str, baseline: str,
                                        twin_run: Callable[[str, str], Run]) -> None:
    run = twin_run(device, scenario)
    req, _ = rows_of(run, baseline)
    ok = req[req["status"] == "ok"]
    assert (ok["arrival_ns"] <= ok["start_ns"]).all()
    assert (ok["start_ns"] <= ok["end_ns"]).all()
    warmup_ns = int(run[2].scenario.warmup_s * NS_PER_S)
    assert (req["warmup"] == (req["arrival_ns"] < warmup_ns)).all()
    assert req["warmup"].any() and not req["warmup"].all()


def test_invariant_checks_catch_faults() -> None:
    """The checkers themselves: overlapping, out-of-order and short rows are reported."""
    sub = pd.DataFrame({"request_id": [1, 1, 2], "processor": ["cpu", "gpu", "cpu"],
                        "first_unit": [0, 2, 0], "last_unit": [0, 2, 1],
                        "start_ns": [0, 5, 8], "end_ns": [10, 20, 30], "ok": [True] * 3})
    assert overlaps(sub) == [("cpu", 10, 8)]
    assert len(chain_faults(sub)) == 2  # request 1: unit 1 skipped and starts before 10
    req = pd.DataFrame({"request_id": [2], "model": ["m"], "status": ["ok"], "n_subgraphs": [1],
                        "start_ns": [8], "end_ns": [30], "processors": ["cpu"]})
    assert coverage_faults(req, sub, {"m": 2}) == []
    assert len(coverage_faults(req, sub, {"m": 3})) == 1


# -- bad input ---------------------------------------------------------------------------------


def test_unknown_model_is_a_user_error_before_anything_runs() -> None:
    with pytest.raises(UserError, match=r"no_such_model.*zoo lacks"):
        compose_run("scenario.models=[mobilenet_v1,no_such_model]")


def test_a_phone_refuses_adms_before_anything_runs() -> None:
    """ADMS needs an on-device executor: composing such a run fails, naming the twin."""
    with pytest.raises(UserError, match=r"'adms' \(ADMS\) cannot run on a phone.*twin"):
        compose_run("scenario=single", "device=adb")


def test_a_phone_behind_no_adb_server_is_a_user_error() -> None:
    """The adb backend end to end is in tests/devices/adb; here only: no server, one error."""
    with pytest.raises(UserError, match=r"no adb server answers at 127\.0\.0\.2:1"):
        compose_run("device=adb", "run=[tflite]", "device.adb.host=127.0.0.2",
                    "device.adb.port=1")


def test_the_device_loads_only_the_baselines_own_plans(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With SLOs, TFLite plans are profiled for the SLO base; the device must still load only
    the baseline's own plans (the twin tracks where a job's tensors live by plan), once."""
    loaded: list[int] = []
    real_load = TwinDevice.load

    def recording_load(self: TwinDevice, graphs: Any, plans: Any) -> None:
        loaded.append(max(p.num_units for p in plans.values()))
        real_load(self, graphs, plans)

    monkeypatch.setattr(TwinDevice, "load", recording_load)
    cfg = compose_run("scenario=frs", "scenario.slo_multiplier=1.0", *SHORT)
    recorder = RunRecorder(tmp_path / "run")
    try:
        facts = run_baseline(cfg, "adms", scenario_models(cfg), recorder, lambda _ns: None, None)
    finally:
        recorder.close()
    assert set(facts["slo_ns"]) == set(cfg.scenario.models)  # the TFLite base was profiled
    assert loaded == [max(c.unit for c in facts["plans"].values())] and loaded[0] > 1
