"""The twin's mechanisms, each switched on alone on the hand-built phone of test_twin.py.

Every expectation is worked out by hand from the round constants there: a CONV op on the CPU
takes 40 us of compute + 1 us dispatch + 10 us invoke = 51_000 ns; on the GPU 10 us + 2 us +
100 us = 112_000 ns; every activation is 1000 bytes.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import numpy as np
import pytest
import simpy

from devices.twin import TwinDevice
from devices.twin.config import MECHANISM_CONSTANTS, TwinProcessorBlock
from devices.twin.device import FAIL_NS
from devices.twin.heat import DEVICE as DEVICE_ROW
from harness.seams.errors import RunFailure
from harness.seams.plan import ModelPlan
from harness.seams.units import NS_PER_S
from tests.devices.twin.test_twin import (
    CONV,
    CPU,
    DEVICE,
    DSP,
    GPU,
    chain_graph,
    make_device,
    make_plan,
    request,
    run_one,
    twin_conf,
)

MECHANISMS = ("invoke_floor", "boundary_copy", "io_copy", "scheduler_cost", "memory",
              "phone_power", "shutdown")
PROCESSOR_CONSTANTS = {f.name for f in dataclasses.fields(TwinProcessorBlock)}


#: the constants of the mechanism a test switches on that it does not set itself: the device's
#: copies at 10 GB/s and 2 us a tensor, everything else charging nothing (no floor, no I/O
#: copy, no scheduler cost, no budget, no rest of the phone, never shut down)
UNSET = {"memcpy_gbps": 10.0, "copy_fixed_us": 2.0, "scheduler_fixed_us": 0.0,
         "scheduler_ns_per_op": 0.0, "memory_budget_mb": 0.0, "interpreter_overhead_kb": 0.0,
         "rest_of_phone_w": 0.0, "invoke_floor_us": 0.0, "io_copy_gbps": 0.0, "critical_c": 0.0}


def device_with(mechanism: str | None, **constants: Any) -> Any:
    """test_twin's phone with only ``mechanism`` on; ``cpu=``/``gpu=``/``dsp=`` replace a
    processor's block, other keywords set device constants; the mechanism's constants not
    given are :data:`UNSET`'s."""
    blocks = {"cpu": CPU, "gpu": GPU, "dsp": DSP}
    procs = {p: copy.deepcopy(constants.pop(p, blocks[p])) for p in blocks}
    block = copy.deepcopy(DEVICE)
    block.update(constants)
    block["mechanisms"] = {m: m == mechanism for m in MECHANISMS}
    for name in MECHANISM_CONSTANTS.get(mechanism or "", ()):
        for target in procs.values() if name in PROCESSOR_CONSTANTS else (block,):
            target.setdefault(name, UNSET[name])
    return twin_conf(block, **procs)


def shared(plan: ModelPlan) -> ModelPlan:
    return ModelPlan(plan.model, plan.units, plan.unit_support, plan.subgraphs,
                     shared_interpreter=True)


# -- boundary copies ---------------------------------------------------------------------------


def test_every_subgraph_boundary_copies_its_inputs_same_processor_too() -> None:
    """memcpy 10 GB/s, 2 us per tensor: 1000 B in -> 100 + 2000 ns, at op 0 (the app's input)
    and at op 1 (made by op 0 on the same cpu, in another interpreter)."""
    graph = chain_graph([CONV, CONV])
    plan = make_plan(graph, [(0, "cpu"), (1, "cpu")])
    conf = device_with("boundary_copy", memcpy_gbps=10.0, copy_fixed_us=2.0)
    device = make_device(graph, plan, conf)
    assert [device.profile(plan, sg) for sg in plan.subgraphs] == [53_100, 53_100]
    assert run_one(device, plan.subgraphs[1], job=1).latency_ns == 53_100


def test_partitions_of_one_interpreter_copy_nothing() -> None:
    graph = chain_graph([CONV, CONV])
    plan = shared(make_plan(graph, [(0, "cpu"), (1, "cpu")]))
    device = make_device(graph, plan, device_with("boundary_copy"))
    assert [device.profile(plan, sg) for sg in plan.subgraphs] == [51_000, 51_000]


def test_without_the_switch_no_boundary_copy() -> None:
    graph = chain_graph([CONV])
    plan = make_plan(graph, [(0, "cpu")])
    assert make_device(graph, plan, device_with(None)).profile(plan, plan.subgraphs[0]) == 51_000


# -- delegate I/O copies and the invoke floor ----------------------------------------------------


def test_an_accelerator_copies_inputs_in_and_outputs_out() -> None:
    """io_copy_gbps 1: (1000 B in + 1000 B out) / 1 GB/s = 2000 ns on the gpu; the cpu has no
    I/O copy (io_copy_gbps 0)."""
    graph = chain_graph([CONV])
    plan = make_plan(graph, [(0, "cpu"), (0, "gpu")])
    conf = device_with("io_copy", gpu={**GPU, "io_copy_gbps": 1.0})
    device = make_device(graph, plan, conf)
    assert [device.profile(plan, sg) for sg in plan.subgraphs] == [51_000, 114_000]


def test_the_invoke_floor_is_the_shortest_a_delegate_takes() -> None:
    graph = chain_graph([CONV])
    plan = make_plan(graph, [(0, "gpu")])
    slow = device_with("invoke_floor", gpu={**GPU, "invoke_floor_us": 500.0})
    fast = device_with("invoke_floor", gpu={**GPU, "invoke_floor_us": 50.0})
    off = device_with(None, gpu={**GPU, "invoke_floor_us": 500.0})
    sg = plan.subgraphs[0]
    assert make_device(graph, plan, slow).profile(plan, sg) == 500_000
    assert make_device(graph, plan, fast).profile(plan, sg) == 112_000
    assert make_device(graph, plan, off).profile(plan, sg) == 112_000


# -- the scheduler's cost ----------------------------------------------------------------------


def test_a_dispatched_subgraph_pays_the_schedulers_fixed_cost() -> None:
    graph = chain_graph([CONV])
    plan = make_plan(graph, [(0, "cpu")])
    conf = device_with("scheduler_cost", scheduler_fixed_us=20.0, scheduler_ns_per_op=10.0)
    device = make_device(graph, plan, conf)
    assert device.profile(plan, plan.subgraphs[0]) == 71_000
    assert make_device(graph, shared(plan), conf).profile(shared(plan), plan.subgraphs[0]) \
        == 51_000  # vanilla TFLite: no scheduler


def test_a_decision_costs_its_counted_work_and_delays_what_it_starts() -> None:
    graph = chain_graph([CONV])
    plan = make_plan(graph, [(0, "cpu")])
    conf = device_with("scheduler_cost", scheduler_fixed_us=0.0, scheduler_ns_per_op=10.0)
    device = make_device(graph, plan, conf)
    assert device.decision_ns(1_000) == 10_000 and device.decision_ns(0) == 0
    assert make_device(graph, plan, device_with(None, scheduler_ns_per_op=10.0)
                       ).decision_ns(1_000) == 0
    done: list[Any] = []
    device.start(0, request(0), plan.subgraphs[0], device.decision_ns(1_000), done.append)
    device.env.run()
    assert (done[0].start_ns, done[0].end_ns) == (10_000, 61_000)


def test_each_policy_pays_its_own_price_per_unit_of_work() -> None:
    graph = chain_graph([CONV])
    plan = make_plan(graph, [(0, "cpu")])
    prices = {"band": 2.5, "band_heft": 5.0, "adms": 8.0}
    conf = device_with("scheduler_cost", scheduler_fixed_us=0.0, scheduler_ns_per_op=10.0,
                       scheduler_ns_per_work=prices)
    device = make_device(graph, plan, conf)
    assert device.decision_ns(1_000) == 10_000  # (before a run is priced: the default)
    charged = {}
    for baseline, policy in (("band", "band"), ("band_heft", "band"), ("band_sel", "band"),
                             ("adms_ef", "adms"), ("tflite", "tflite")):
        device.price_decisions(baseline, policy)
        charged[baseline] = device.decision_ns(1_000)
    # the baseline's own price first, then its policy's, then scheduler_ns_per_op
    assert charged == {"band": 2_500, "band_heft": 5_000, "band_sel": 2_500,
                       "adms_ef": 8_000, "tflite": 10_000}
    off = make_device(graph, plan, device_with(None, scheduler_ns_per_op=10.0,
                                               scheduler_ns_per_work=prices))
    off.price_decisions("band", "band")
    assert off.decision_ns(1_000) == 0  # the mechanism switched off charges nothing


@pytest.mark.parametrize("bad", [-1.0, "fast", True])
def test_a_bad_price_is_one_error_naming_it(bad: Any) -> None:
    from devices.twin.spec import parse
    from harness.seams.errors import UserError

    conf = device_with("scheduler_cost", scheduler_ns_per_work={"band": bad})
    with pytest.raises(UserError, match=r"scheduler_ns_per_work\.band"):
        parse(conf)


# -- memory ------------------------------------------------------------------------------------

KB = 1024


def test_loading_past_the_budget_fails() -> None:
    """Two loaded subgraphs hold 2 x 1 KB of interpreter against a 1.5 KB budget."""
    graph = chain_graph([CONV, CONV])
    plan = make_plan(graph, [(0, "cpu"), (1, "cpu")])
    conf = device_with("memory", interpreter_overhead_kb=1.0, memory_budget_mb=1.5 * KB / 2**20)
    with pytest.raises(RunFailure, match=r"out of memory on testphone at 0.00 s: 2 loaded"):
        make_device(graph, plan, conf)
    off = device_with(None, interpreter_overhead_kb=1.0, memory_budget_mb=1.5 * KB / 2**20)
    assert make_device(graph, plan, off).memory.bytes == 2 * KB


def test_an_arena_becomes_resident_at_its_subgraphs_first_run() -> None:
    """Budget 4 KB: load holds 2 KB; op 0's first run adds its arena (1000 B in + 1000 B out)
    -> 4048 B; running it again adds nothing; op 1's first run -> 6048 B: killed."""
    graph = chain_graph([CONV, CONV])
    plan = make_plan(graph, [(0, "cpu"), (1, "cpu")])
    conf = device_with("memory", interpreter_overhead_kb=1.0, memory_budget_mb=4 * KB / 2**20)
    device = make_device(graph, plan, conf)
    assert device.memory.bytes == 2 * KB
    run_one(device, plan.subgraphs[0], job=0)
    run_one(device, plan.subgraphs[0], job=1)
    assert device.memory.bytes == 2 * KB + 2000
    with pytest.raises(RunFailure, match=r"at 0.00 s: 2 subgraphs have run"):
        run_one(device, plan.subgraphs[1], job=2)
    assert device.memory.bytes == 2 * KB + 4000


# -- the rest of the phone -------------------------------------------------------------------


def _idle_for(conf: Any, seconds: float) -> TwinDevice:
    graph = chain_graph([CONV])
    plan = make_plan(graph, [(0, "cpu")])
    device = make_device(graph, plan, conf)
    device.env.run(until=int(seconds * NS_PER_S))
    device.heat.advance(int(device.env.now))  # the heat advances lazily, when looked at
    return device


def test_the_rest_of_the_phone_counts_in_power_and_heats_the_soc() -> None:
    """Idle: three processors' static 0.1 W, and 1 W for the rest of the phone."""
    on = _idle_for(device_with("phone_power", rest_of_phone_w=1.0), 50.0)
    rows = {r.processor: r for r in on.read_sensors(int(on.env.now))}
    assert rows[DEVICE_ROW].power_w == pytest.approx(0.3 + 1.0)
    off = _idle_for(device_with(None, rest_of_phone_w=1.0), 50.0)
    rows_off = {r.processor: r for r in off.read_sensors(int(off.env.now))}
    assert DEVICE_ROW not in rows_off
    hot, cool = rows["cpu"].temperature_c, rows_off["cpu"].temperature_c
    assert hot is not None and cool is not None and hot > cool + 1.0


# -- shutdown at the critical temperature ----------------------------------------------------


def test_a_processor_past_its_critical_temperature_takes_no_work() -> None:
    """Ambient 40 C is past the cpu's critical 30 C: after the first governor tick (100 ms)
    it is down; a subgraph started there fails at once, and the cpu reads 0 Hz."""
    hot = {"ambient_c": 40.0}
    conf = device_with("shutdown", cpu={**CPU, "critical_c": 30.0}, **hot)
    device = _idle_for(conf, 0.2)
    done = run_one(device, make_plan(chain_graph([CONV]), [(0, "cpu")]).subgraphs[0])
    assert not done.ok and done.latency_ns == FAIL_NS
    cpu = next(r for r in device.read_sensors(int(device.env.now)) if r.processor == "cpu")
    assert cpu.frequency_hz == 0.0 and cpu.throttled
    off = _idle_for(device_with(None, cpu={**CPU, "critical_c": 30.0}, **hot), 0.2)
    assert run_one(off, make_plan(chain_graph([CONV]), [(0, "cpu")]).subgraphs[0]).ok


def test_a_processor_comes_back_once_it_cooled_by_its_hysteresis() -> None:
    device = _idle_for(device_with("shutdown", cpu={**CPU, "critical_c": 30.0},
                                   ambient_c=40.0), 0.2)
    assert device.heat.down[0]
    network = device.heat.network
    network.temps_c = [20.0] * len(network.temps_c)  # past 30 - 3 C
    network.soc_c = network.ambient_c = 20.0
    device.env.run(until=int(device.env.now) + int(0.2 * NS_PER_S))
    device.heat.advance(int(device.env.now))
    assert not device.heat.down[0]


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_each_switch_is_reported_in_the_device_facts(mechanism: str) -> None:
    graph = chain_graph([CONV])
    device = TwinDevice(device_with(mechanism), simpy.Environment(), np.random.default_rng(0))
    device.load({graph.name: graph}, {})
    facts = device.describe().facts["mechanisms"]
    assert isinstance(facts, dict) and facts == {m: m == mechanism for m in MECHANISMS}
