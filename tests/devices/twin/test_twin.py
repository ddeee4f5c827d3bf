"""The twin: known roofline answers, exact event traces, transfers, contention, noise, config
validation and calibration against paper Table II (single-model column only)."""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
import simpy

from devices.twin import TwinDevice, parse
from devices.twin.calibrate import PROFILES, calibration_graph, load_conf, whole_model_ns
from devices.twin.config import TwinDeviceConf, TwinProcessorConf
from devices.twin.latency import subgraph_cost
from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph, Op, Tensor
from harness.seams.plan import ModelPlan, ProcessorKind, Subgraph
from harness.seams.records import Completion, Request
from harness.seams.units import NS_PER_MS
from tests.devices.contract import SENSOR_FIELDS, DeviceContract, DeviceUnderTest
from tests.fixtures import raw
from tests.fixtures.paths import REPO

ROOT = REPO
ACT_BYTES = 1000  # bytes of every activation tensor of the hand-built graphs

# Round constants so latencies can be worked out by hand (1 GFLOP/s = 1 FLOP/ns, 1 GB/s = 1 B/ns).
DEVICE = {
    "ambient_c": 25.0, "soc_capacitance_j_per_k": 10.0, "soc_resistance_k_per_w": 5.0,
    "memory_bandwidth_gbps": 10.0, "transfer_fixed_us": 100.0, "transfer_bandwidth_gbps": 1.0,
    "governor_period_ms": 100.0, "noise_sigma": 0.0,
    "provenance": {"memory_bandwidth_gbps": "test [S]"},
    # the roofline and transfer by hand; each mechanism has its own test (test_mechanisms.py)
    "mechanisms": dict.fromkeys(("invoke_floor", "boundary_copy", "io_copy", "scheduler_cost",
                                 "memory", "phone_power", "shutdown"), False),
}
_COMMON = {
    "static_w": 0.1, "dynamic_w": 2.0, "v_min_v": 0.8, "v_max_v": 1.0,
    "capacitance_j_per_k": 2.0, "resistance_k_per_w": 2.0, "throttle_c": 68.0, "hysteresis_c": 3.0,
}
CPU_EFFICIENCY = {"conv": 0.5, "depthwise": 0.25, "fully_connected": 0.5, "other": 0.1}
CPU: dict[str, Any] = {
    **_COMMON, "peak_gflops": {"float32": 100.0, "int8": 200.0},
    "efficiency": CPU_EFFICIENCY,
    "bandwidth_share": 0.5, "invoke_overhead_us": 10.0, "dispatch_overhead_us": 1.0,
    "freqs_mhz": [500, 1000], "provenance": {"peak_gflops": "test [S]"},
}
GPU = {
    **_COMMON, "peak_gflops": {"float16": 400.0}, "run_as": {"float32": "float16"},
    "efficiency": {"conv": 0.5, "depthwise": 0.1, "fully_connected": 0.5, "other": 0.1},
    "bandwidth_share": 1.0, "invoke_overhead_us": 100.0, "dispatch_overhead_us": 2.0,
    "freqs_mhz": [250, 500, 1000], "dynamic_w": 3.0,
}
DSP = {
    **_COMMON, "peak_gflops": {"int8": 200.0},
    "efficiency": {"conv": 0.5, "depthwise": 0.5, "fully_connected": 0.5, "other": 0.5},
    "bandwidth_share": 0.5, "invoke_overhead_us": 50.0, "dispatch_overhead_us": 1.0,
    "freqs_mhz": [1000],
}
CONV = ("CONV_2D", 2_000_000, ACT_BYTES)  # compute-bound: 40 us on the CPU
ADD = ("ADD", 1_000, 1_000_000)  # memory-bound: 1 MB of constant input


def twin_conf(device: dict[str, Any] | None = None, **procs: dict[str, Any]) -> TwinDeviceConf:
    """A test device: cpu, gpu, dsp with the constants above (``procs`` override blocks)."""
    blocks = {"cpu": CPU, "gpu": GPU, "dsp": DSP, **procs}
    kinds = {"cpu": ProcessorKind.CPU, "gpu": ProcessorKind.GPU, "dsp": ProcessorKind.DSP}
    processors = [TwinProcessorConf(name=n, kind=kinds[n], twin=raw(copy.deepcopy(b)))
                  for n, b in blocks.items()]
    return TwinDeviceConf(name="testphone", description="test SoC",
                          processors=processors, twin=raw(copy.deepcopy(device or DEVICE)))


def chain_graph(
    ops: Sequence[tuple[str, int, int]], name: str = "chain", dtype: str = "float32"
) -> ModelGraph:
    """Ops ``(kind, flops, weight_bytes)`` in a chain, each reading the previous activation."""
    tensors = [Tensor(0, "x0", (ACT_BYTES,), dtype, ACT_BYTES, False)]
    graph_ops = []
    for i, (kind, flops, wbytes) in enumerate(ops):
        w = Tensor(len(tensors), f"w{i}", (wbytes,), dtype, wbytes, True)
        out = Tensor(len(tensors) + 1, f"x{i + 1}", (ACT_BYTES,), dtype, ACT_BYTES, False)
        graph_ops.append(Op(i, kind, 1, (tensors[-1].index, w.index), (out.index,), flops // 2,
                            flops, wbytes, ACT_BYTES, ACT_BYTES))
        tensors += [w, out]
    return ModelGraph(name, tuple(tensors), tuple(graph_ops), (0,), (tensors[-1].index,))


def make_plan(graph: ModelGraph, placements: Sequence[tuple[int, str]]) -> ModelPlan:
    """One unit per op; a subgraph per ``(op index, processor)``."""
    subgraphs = tuple(Subgraph(i, graph.name, p, frozenset({op}), (op,))
                      for i, (op, p) in enumerate(placements))
    support = tuple(frozenset(p for op, p in placements if op == u) for u in range(graph.num_ops))
    units = tuple(frozenset({u}) for u in range(graph.num_ops))
    return ModelPlan(graph.name, units, support, subgraphs)


def make_device(
    graph: ModelGraph, plan: ModelPlan, conf: TwinDeviceConf | None = None, seed: int = 0
) -> TwinDevice:
    device = TwinDevice(conf or twin_conf(), simpy.Environment(), np.random.default_rng(seed))
    device.load({graph.name: graph}, {plan.model: plan})
    return device


def request(i: int, model: str = "chain") -> Request:
    return Request(request_id=i, model=model, frame_id=-1, arrival_ns=0)


def run_one(device: TwinDevice, sg: Subgraph, job: int = 0) -> Completion:
    done: list[Completion] = []
    device.start(job, request(job, sg.model), sg, int(device.env.now), done.append)
    device.env.run()
    return done[0]


# -- roofline known answers ----------------------------------------------------------------------


def test_compute_bound_op_known_answer() -> None:
    spec = parse(twin_conf()).processor("cpu")
    cost = subgraph_cost(spec, chain_graph([CONV]), [0])
    # compute 2e6 / (100 x 0.5) = 40_000 > memory 3000 B / 5 GB/s = 600; + 1 us op + 10 us invoke
    assert cost.latency_ns(1.0, 5.0) == 40_000 + 1_000 + 10_000
    # at half frequency only the compute term doubles
    assert cost.latency_ns(0.5, 5.0) == 80_000 + 1_000 + 10_000


def test_memory_bound_op_known_answer() -> None:
    conf = twin_conf()
    cpu, gpu = parse(conf).processor("cpu"), parse(conf).processor("gpu")
    graph = chain_graph([ADD])
    # CPU: 1_002_000 B / 5 GB/s = 200_400 ns > compute 1000 / (100 x 0.1) = 100
    assert subgraph_cost(cpu, graph, [0]).latency_ns(1.0, 5.0) == 200_400 + 1_000 + 10_000
    # GPU computes float32 as float16: half the bytes, 501_000 B / 10 GB/s
    assert subgraph_cost(gpu, graph, [0]).latency_ns(1.0, 10.0) == 50_100 + 2_000 + 100_000


def test_profile_is_deterministic_and_equals_an_unloaded_run() -> None:
    graph = chain_graph([CONV, ADD])
    plan = make_plan(graph, [(0, "cpu"), (0, "gpu"), (1, "cpu"), (1, "gpu")])
    # gpu conv: 2e6 / (400 x 0.5) = 10_000 > 1500 B / 10 GB/s; + 2 us op + 100 us invoke
    expected = [51_000, 112_000, 211_400, 152_100]
    for sg, ns in zip(plan.subgraphs, expected, strict=True):
        device = make_device(graph, plan)
        assert device.profile(plan, sg) == device.profile(plan, sg) == ns
        assert run_one(device, sg).latency_ns == ns


def test_float_op_on_an_int8_only_processor_is_a_programming_error() -> None:
    graph = chain_graph([CONV])
    plan = make_plan(graph, [(0, "dsp")])
    with pytest.raises(AssertionError, match="dsp cannot compute float32"):
        make_device(graph, plan)
    q8 = chain_graph([CONV], name="q8", dtype="int8")
    q8_plan = make_plan(q8, [(0, "dsp")])
    # 2e6 / (200 x 0.5) = 20_000 > 3000 B / 5 GB/s; + 1 us op + 50 us invoke
    assert make_device(q8, q8_plan).profile(q8_plan, q8_plan.subgraphs[0]) == 71_000


# -- events ----------------------------------------------------------------------------------------


def trace_two_jobs(device: TwinDevice, plan: ModelPlan) -> list[tuple[str, int, int, int]]:
    """Job 1 on the CPU, job 2 on the GPU, both at 0; each then runs op 1 on the CPU."""
    s0_cpu, s0_gpu, s1_cpu, _ = plan.subgraphs
    trace: list[tuple[str, int, int, int]] = []

    def on_done(c: Completion) -> None:
        trace.append((c.subgraph.processor, c.job_id, c.start_ns, c.end_ns))
        if c.subgraph.first_unit == 0:
            device.start(c.job_id, c.request, s1_cpu, c.end_ns, on_done)

    device.start(1, request(1), s0_cpu, 0, on_done)
    device.start(2, request(2), s0_gpu, 0, on_done)
    device.env.run()
    return trace


def test_exact_event_trace_of_two_processors() -> None:
    graph = chain_graph([CONV, CONV])
    plan = make_plan(graph, [(0, "cpu"), (0, "gpu"), (1, "cpu"), (1, "gpu")])
    # GPU conv while the CPU is busy: 10_000 compute vs 1500 B / 5 GB/s, + 2 us + 100 us.
    # Job 2's op 1 reads x1 made on the GPU: + 100 us + 1000 B / 1 GB/s.
    assert trace_two_jobs(make_device(graph, plan), plan) == [
        ("cpu", 1, 0, 51_000),
        ("cpu", 1, 51_000, 102_000),
        ("gpu", 2, 0, 112_000),
        ("cpu", 2, 112_000, 112_000 + 51_000 + 101_000),
    ]


def run_job(device: TwinDevice, subgraphs: Sequence[Subgraph]) -> list[int]:
    """Run a job's subgraphs back to back; their latencies."""
    latencies: list[int] = []
    remaining = list(subgraphs)

    def on_done(c: Completion) -> None:
        latencies.append(c.latency_ns)
        if remaining:
            device.start(0, c.request, remaining.pop(0), c.end_ns, on_done)

    device.start(0, request(0), remaining.pop(0), 0, on_done)
    device.env.run()
    return latencies


def test_transfer_cost_only_when_the_producer_ran_elsewhere() -> None:
    graph = chain_graph([CONV, CONV])
    plan = make_plan(graph, [(0, "cpu"), (0, "gpu"), (1, "cpu"), (1, "gpu")])
    s0_cpu, s0_gpu, s1_cpu, s1_gpu = plan.subgraphs
    device = make_device(graph, plan)
    alone = {sg.index: device.profile(plan, sg) for sg in plan.subgraphs}
    transfer = 100_000 + ACT_BYTES  # 100 us + 1000 B / 1 GB/s
    assert run_job(device, [s0_gpu, s1_gpu]) == [alone[1], alone[3]]
    assert run_job(device, [s0_cpu, s1_cpu]) == [alone[0], alone[2]]
    assert run_job(device, [s0_gpu, s1_cpu]) == [alone[1], alone[2] + transfer]
    assert run_job(device, [s0_cpu, s1_gpu]) == [alone[0], alone[3] + transfer]


def test_contention_slows_a_memory_bound_op() -> None:
    graph = chain_graph([CONV, ADD])
    plan = make_plan(graph, [(0, "cpu"), (1, "gpu")])
    device = make_device(graph, plan)
    done: list[Completion] = []
    device.start(1, request(1), plan.subgraphs[0], 0, done.append)  # the CPU is busy
    device.start(2, request(2), plan.subgraphs[1], 0, done.append)
    device.env.run()
    gpu = next(c for c in done if c.subgraph.processor == "gpu")
    # while the CPU runs (51_000 ns) the GPU gets half of the 10 GB/s: 501_000 B / 5 GB/s =
    # 100_200 ns instead of 50_100; then the rest of its work at the full rate
    # (devices.twin.sharing; test_sharing.py has the definition's own tests)
    contended, alone = 100_200 + 2_000 + 100_000, 50_100 + 2_000 + 100_000
    assert gpu.latency_ns == 51_000 + round((contended - 51_000) * alone / contended)
    assert device.profile(plan, plan.subgraphs[1]) == 50_100 + 2_000 + 100_000


@pytest.mark.parametrize("factor", [1.0, 1.25])
def test_corun_interference_slows_a_compute_bound_op_while_another_processor_runs(
        factor: float) -> None:
    graph = chain_graph([CONV, CONV])
    plan = make_plan(graph, [(0, "cpu"), (1, "cpu")])
    gpu_plan = make_plan(chain_graph([CONV], name="other"), [(0, "gpu")])
    conf = twin_conf(cpu={**CPU, "corun_factor": factor})
    device = TwinDevice(conf, simpy.Environment(), np.random.default_rng(0))
    other = chain_graph([CONV], name="other")
    device.load({graph.name: graph, "other": other}, {"chain": plan, "other": gpu_plan})
    alone = run_one(device, plan.subgraphs[0]).latency_ns
    done: list[Completion] = []
    now = int(device.env.now)
    device.start(1, request(1, "other"), gpu_plan.subgraphs[0], now, done.append)
    device.start(2, request(2), plan.subgraphs[1], now, done.append)
    device.env.run()
    cpu = next(c for c in done if c.subgraph.processor == "cpu")
    gpu = next(c for c in done if c.subgraph.processor == "gpu")
    # a compute-bound op: no bandwidth slowdown; the factor applies while the GPU runs
    beside = min(gpu.latency_ns, cpu.latency_ns)
    expected = beside + (alone - beside / factor)
    assert cpu.latency_ns == pytest.approx(expected, abs=2)
    assert (cpu.latency_ns > alone) is (factor > 1.0)
    assert device.profile(plan, plan.subgraphs[1]) == alone  # a profile is alone


def test_a_busy_processor_refuses_a_second_subgraph() -> None:
    graph = chain_graph([CONV])
    plan = make_plan(graph, [(0, "cpu")])
    device = make_device(graph, plan)
    device.start(0, request(0), plan.subgraphs[0], 0, lambda c: None)
    with pytest.raises(AssertionError, match="cpu already runs"):
        device.start(1, request(1), plan.subgraphs[0], 0, lambda c: None)


def noisy_latencies(seed: int, sigma: float = 0.2) -> list[int]:
    graph = chain_graph([CONV, CONV, CONV, CONV])
    plan = make_plan(graph, [(i, "cpu") for i in range(4)])
    conf = twin_conf({**DEVICE, "noise_sigma": sigma})
    return run_job(make_device(graph, plan, conf, seed), plan.subgraphs)


def test_seeded_noise_is_reproducible_and_differs_between_seeds() -> None:
    assert noisy_latencies(1) == noisy_latencies(1)
    assert noisy_latencies(1) != noisy_latencies(2)
    assert len(set(noisy_latencies(1))) > 1
    assert noisy_latencies(1, sigma=0.0) == [51_000] * 4


# -- config ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("procs", "device", "needles"),
    [
        ({"gpu": {**GPU, "peak_gflops": {"float16": 0}}}, None,
         ["gpu", "twin.peak_gflops.float16=0 is out of range: it must be > 0 GFLOP/s"]),
        ({"cpu": {**CPU, "peak_gflop": 1.0}}, None, ["cpu", "unknown key", "peak_gflop"]),
        ({"cpu": {**CPU, "efficiency": {**CPU_EFFICIENCY, "conv": 1.5}}}, None,
         ["cpu", "efficiency.conv=1.5 is out of range: it must be > 0 and <= 1"]),
        ({"dsp": {**DSP, "peak_gflops": {"int4": 9.0}}}, None, ["dsp", "int4"]),
        ({"gpu": {k: v for k, v in GPU.items() if k != "freqs_mhz"}}, None, ["gpu", "freqs_mhz"]),
        ({}, {**DEVICE, "memory_bandwidth_gbps": -1}, ["device", "device.twin."
                                                        "memory_bandwidth_gbps=-1 is out of "
                                                        "range: it must be > 0 GB/s"]),
        ({}, {**DEVICE, "mechanisms": {"memroy": False}}, ["device", "unknown key", "memroy"]),
        ({"cpu": {**CPU, "hysteresis_c": -1.0}}, None, ["cpu", "hysteresis_c=-1", ">= 0"]),
        ({}, {**DEVICE, "ambient": 25}, ["device", "unknown key", "ambient"]),
    ],
)
def test_a_bad_twin_block_is_a_user_error(
    procs: dict[str, Any], device: dict[str, Any] | None, needles: list[str]
) -> None:
    with pytest.raises(UserError) as info:
        parse(twin_conf(device, **procs))
    message = str(info.value)
    assert "\n" not in message
    for needle in needles:
        assert needle in message


def test_a_missing_twin_block_is_a_user_error() -> None:
    conf = twin_conf()
    conf.processors[1].twin = None
    with pytest.raises(UserError, match="gpu has no twin"):
        parse(conf)


@pytest.mark.parametrize("name", ["k50pro", "p20", "mi6"])
def test_the_paper_phones_parse_with_provenance(name: str) -> None:
    conf = load_conf(ROOT / "conf" / "device" / f"{name}.yaml")
    device = TwinDevice(conf, simpy.Environment(), np.random.default_rng(0))
    info = device.describe()
    assert info.kind == "twin" and [p.name for p in info.processors] == [
        p.name for p in conf.processors]
    provenance = info.facts["provenance"]
    assert isinstance(provenance, dict)
    assert all(f"{p.name}.peak_gflops" in provenance for p in conf.processors)


# -- calibration (paper Table II, single-model column) ----------------------------------------


def _calibrated() -> list[tuple[str, str]]:
    rows = []
    for name in ("k50pro", "p20", "mi6"):
        conf = load_conf(ROOT / "conf" / "device" / f"{name}.yaml")
        rows += [(name, p.name) for p in parse(conf).processors if p.calibration is not None]
    return rows


@pytest.mark.parametrize(("device", "processor"), _calibrated())
def test_calibration_reproduces_the_single_model_targets(device: str, processor: str) -> None:
    if not (PROFILES / "mobilenet_v1.json").is_file():
        pytest.skip("harness/models/zoo/profiles/mobilenet_v1.json not generated yet")
    conf = load_conf(ROOT / "conf" / "device" / f"{device}.yaml")
    spec = parse(conf)
    p = spec.processor(processor)
    assert p.calibration is not None
    graph = calibration_graph(p.calibration.model, p.calibration.int8)
    plan = ModelPlan(graph.name, (frozenset(range(graph.num_ops)),), (frozenset({p.name}),),
                     (Subgraph(0, graph.name, p.name, frozenset(range(graph.num_ops)), (0,)),),
                     shared_interpreter=True)  # the whole model in one interpreter
    twin = TwinDevice(conf, simpy.Environment(), np.random.default_rng(0), {graph.name: graph})
    target_ns = p.calibration.target_ms * NS_PER_MS
    assert twin.profile(plan, plan.subgraphs[0]) == pytest.approx(target_ns, rel=0.01)
    assert whole_model_ns(p, spec.device, graph) == pytest.approx(target_ns, rel=0.01)


# -- the device contract ----------------------------------------------------------------------


class TestTwinContract(DeviceContract):
    available_sensors = frozenset(SENSOR_FIELDS)

    @pytest.fixture
    def device_under_test(self) -> DeviceUnderTest:
        graph = chain_graph([CONV, ADD])
        plan = make_plan(graph, [(0, "cpu"), (0, "gpu"), (1, "cpu")])
        device = make_device(graph, plan)
        run: Callable[[], None] = device.env.run
        return device, plan, graph, run
