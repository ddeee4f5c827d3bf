"""The runtime loop (``Runtime`` + ``Driver`` on a SimClock) on a hand-built twin: exact traces.

A two-model, two-processor twin built in Python (``noise_sigma: 0``, round constants so every
latency can be worked out by hand) runs two frames through one
:class:`~harness.runtime.core.Runtime` and one :class:`~harness.runtime.driver.Driver`; the
list of ``(processor, model, start_ns, end_ns)`` in completion order is asserted exactly, for
vanilla TFLite and for ADMS. The hand derivation is written next to each expectation.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np
import simpy

from adms.config import AdmsConf, IdleOrder, Pairing
from adms.policy import AdmsPolicy
from baselines.tflite import TfliteConf, TflitePolicy
from devices.twin import TwinDevice
from devices.twin.config import TwinDeviceConf, TwinProcessorConf
from harness.config.schema import Arrival, ScenarioConf
from harness.runtime.core import JobRecord, Runtime
from harness.runtime.driver import Driver
from harness.runtime.sensors import SensorCache
from harness.runtime.traffic import Traffic
from harness.seams.graph import ModelGraph
from harness.seams.plan import ModelPlan, ProcessorKind, Subgraph
from harness.seams.policy import Policy
from harness.seams.records import Completion, Request
from harness.seams.units import NS_PER_MS
from tests.fixtures import raw
from tests.fixtures.graphs import chain

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


#: ADMS as built (``adms_ef``): the project's four additions on (docs/adms-as-built.md)
AS_BUILT = AdmsConf(earliest_finish=True, queue_aware=True, exclusive_aware=True,
                    idle_order=IdleOrder.load, pairing=Pairing.processor_asks)


def test_adms_exact_trace() -> None:
    """ADMS as built (``adms_ef``), plans: a = unit 0 or 1 on either processor (cpu 1400, gpu 2040
    each), or both units merged on the gpu (2080); b = cpu (1400) or gpu (2040). Idle processors
    are visited cpu first (equal load and temperature); a processor takes, among the jobs it
    finishes no later than their earliest projected finish, the lowest score S = slack + wait +
    resource (docstring of adms.scheduler). The projection places the examined jobs in queue
    order, each where it ends first after the work already placed (``queue_aware``). Frames 0
    and 1 are issued at 0: queue a0 b0 a1 b1. Scores below in ms (no SLO: T_SLO = T_avg).

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
    policy = AdmsPolicy(AS_BUILT, lambda plan, sg: 0, "tiny")
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
    """The same run with ``queue_aware: false`` (``adms_strict``, on ``adms_ef``): at t=0 the
    cpu is only b's earliest choice, since the gpu looks free for a1 too (ends at 2080 < 2800)."""
    policy = AdmsPolicy(dataclasses.replace(AS_BUILT, queue_aware=False), lambda plan, sg: 0,
                        "tiny")
    assert run_tiny(policy, adms_tiny_plans()) == [
        ("cpu", "b", 0, 1400),
        ("gpu", "a", 0, 2080),
        ("cpu", "b", 1400, 2800),
        ("gpu", "a", 2080, 4160),
        ("cpu", "b", 2800, 4200),
        ("gpu", "a", 4160, 6240),
    ]


def test_tflite_concurrent_plans_share_the_gpu() -> None:
    """The same plans as concurrent interpreters (vanilla apps' threads): a0 and b0 start
    together on the GPU; a model's next request waits for its own interpreter only."""
    plans = {m: dataclasses.replace(p, concurrent=True) for m, p in {
        "a": tiny_plan("a", [("gpu", (0,)), ("cpu", (1,))]),
        "b": tiny_plan("b", [("gpu", (0,))])}.items()}
    trace = run_tiny(TflitePolicy(TfliteConf()), plans)
    gpu = [(m, s) for p, m, s, _ in trace if p == "gpu"]
    assert ("a", 0) in gpu and ("b", 0) in gpu
    for model in ("a", "b"):
        spans = sorted((s, e) for _, m, s, e in trace if m == model)
        assert all(s >= e for (_, e), (s, _) in itertools.pairwise(spans))
