"""The host device on real LiteRT: jobs through slices, profiling, errors, op support."""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter

from devices.host.config import HostDeviceConf, HostProcessorConf
from devices.host.device import HostDevice
from devices.host.sensors import HostSensors
from devices.host.spec import available_cores
from devices.host.workers import Worker, request_input, xnnpack_unsupported_ops
from devices.opsupport import SupportRules
from harness.models.tflite_io import read_tflite
from harness.seams.device import Device
from harness.seams.errors import UserError
from harness.seams.plan import ModelPlan, ProcessorKind, Subgraph
from harness.seams.records import Completion, Request
from tests.devices.contract import DeviceContract, DeviceUnderTest
from tests.fixtures import raw
from tests.fixtures.paths import REPO
from tests.fixtures.runs import compose_run

REPO = REPO
CORES = available_cores()
#: the second processor's core: core 1 where there is one
OTHER_CORE = CORES[1] if len(CORES) > 1 else CORES[0]
SEED = 0
FRAMES = 8


def proc(name: str, kernel: str, core: int, support: SupportRules = SupportRules.all,
         **extra: Any) -> HostProcessorConf:
    kind = ProcessorKind.CPU if support is SupportRules.all else ProcessorKind.GPU
    host = {"kernel": kernel, "threads": 1, "cores": [core]}
    return HostProcessorConf(name=name, kind=kind, support=support, host=raw(host), **extra)


def device_conf(*procs: HostProcessorConf, **host: Any) -> HostDeviceConf:
    settings = {"seed": SEED, "input_frames": FRAMES, "profile_runs": 3, "warmup_runs": 1, **host}
    return HostDeviceConf(name="test-host", processors=list(procs), host=raw(settings))


def same_kernels() -> HostDeviceConf:
    """Two XNNPACK processors on two cores: results must be bit-identical to the whole model."""
    return device_conf(proc("a", "xnnpack", CORES[0]), proc("b", "xnnpack", OTHER_CORE))


def mixed_kernels() -> HostDeviceConf:
    return device_conf(proc("cpu", "reference", CORES[0]),
                       proc("gpu", "xnnpack", OTHER_CORE, SupportRules.xnnpack))


def plan_of(model: str, num_ops: int, cuts: Sequence[int], procs: Sequence[str]) -> ModelPlan:
    """One unit per op range between ``cuts``; unit i runs on ``procs[i % len(procs)]``."""
    bounds = [0, *cuts, num_ops]
    units = tuple(frozenset(range(a, b)) for a, b in itertools.pairwise(bounds))
    subgraphs = tuple(
        Subgraph(i, model, procs[i % len(procs)], u, (i,)) for i, u in enumerate(units)
    )
    support = tuple(frozenset(procs) for _ in units)
    return ModelPlan(model, units, support, subgraphs)


def whole_plan(model: str, num_ops: int, processor: str) -> ModelPlan:
    return plan_of(model, num_ops, [], [processor])


class Collector:
    """An ``on_done`` that keeps completions and signals each one."""

    def __init__(self) -> None:
        self.done: list[Completion] = []
        self.event = threading.Event()

    def __call__(self, completion: Completion) -> None:
        self.done.append(completion)
        self.event.set()

    def wait(self) -> Completion:
        assert self.event.wait(30), "no completion within 30 s"
        self.event.clear()
        return self.done[-1]


def run_job(dev: HostDevice, job_id: int, request: Request, plan: ModelPlan) -> list[Completion]:
    """Walk a job through its plan's subgraphs in unit order, one start/on_done at a time."""
    collect = Collector()
    for sg in plan.subgraphs:
        dev.start(job_id, request, sg, dev.now_ns(), collect)
        collect.wait()
    return collect.done


def reference_outputs(path: Path, request_id: int) -> dict[int, np.ndarray]:
    """The whole model in a plain interpreter (XNNPACK) on the request's input frame."""
    interpreter = Interpreter(model_path=str(path), num_threads=1)
    interpreter.allocate_tensors()
    for d in interpreter.get_input_details():
        data = request_input(SEED, request_id % FRAMES, int(d["index"]), tuple(d["shape"]),
                             np.dtype(d["dtype"]))
        interpreter.set_tensor(d["index"], data)
    interpreter.invoke()
    return {int(d["index"]): interpreter.get_tensor(d["index"])
            for d in interpreter.get_output_details()}


def load(dev: HostDevice, plans: Mapping[str, ModelPlan]) -> None:
    dev.load({m: dev.graph(m) for m in plans}, plans)


# -- real tensors through slices ----------------------------------------------------------

SPLITS = {"chain": [3, 6], "branchy": [2, 5], "mobile_block": [3, 5], "int8": [2, 6],
          "fp16": [2], "fallback": [2, 4]}


@pytest.mark.parametrize("model", sorted(SPLITS))
def test_split_job_equals_whole_model(model: str, make_device: Any,
                                      tiny_models: dict[str, Path]) -> None:
    dev = make_device(same_kernels())
    n = dev.graph(model).num_ops
    split = plan_of(model, n, SPLITS[model], ["a", "b"])
    load(dev, {model: split})
    done = run_job(dev, 1, Request(11, model, 0, 0), split)
    assert [c.ok for c in done] == [True] * len(split.subgraphs)
    assert [c.subgraph.processor for c in done] == ["a", "b", "a"][: len(done)]
    expected = reference_outputs(tiny_models[model], 11)
    got = dev.outputs(1)
    assert sorted(got) == sorted(expected)
    for t, value in expected.items():
        np.testing.assert_array_equal(got[t], value)


def test_whole_and_split_agree_across_kernels(make_device: Any) -> None:
    dev = make_device(mixed_kernels())
    n = dev.graph("mobile_block").num_ops
    whole = whole_plan("mobile_block", n, "cpu")
    split = plan_of("mobile_block", n, [2, 4, 6], ["gpu", "cpu"])
    load(dev, {"mobile_block": split})
    load(dev, {"mobile_block": whole})
    run_job(dev, 1, Request(5, "mobile_block", 0, 0), whole)
    run_job(dev, 2, Request(5, "mobile_block", 0, 0), split)
    a, b = dev.outputs(1), dev.outputs(2)
    assert sorted(a) == sorted(b) == list(dev.graph("mobile_block").outputs)
    for t in a:
        np.testing.assert_allclose(a[t], b[t], rtol=1e-4, atol=1e-6)


def test_requests_get_their_own_seeded_inputs(make_device: Any) -> None:
    dev = make_device(same_kernels())
    plan = whole_plan("chain", dev.graph("chain").num_ops, "a")
    load(dev, {"chain": plan})
    for job, request_id in ((1, 1), (2, 2), (3, 1 + FRAMES)):
        run_job(dev, job, Request(request_id, "chain", 0, 0), plan)
    (t,) = dev.graph("chain").outputs
    assert not np.array_equal(dev.outputs(1)[t], dev.outputs(2)[t])
    np.testing.assert_array_equal(dev.outputs(1)[t], dev.outputs(3)[t])


def test_two_processors_run_jobs_concurrently(make_device: Any) -> None:
    dev = make_device(same_kernels())
    n = dev.graph("branchy").num_ops
    plans = {"a": whole_plan("branchy", n, "a"), "b": whole_plan("branchy", n, "b")}
    load(dev, {"branchy": plans["a"]})
    load(dev, {"branchy": plans["b"]})
    results: dict[int, Completion] = {}
    all_done = threading.Barrier(3)

    def on_done(c: Completion) -> None:
        results[c.job_id] = c
        all_done.wait(30)

    for job, name in enumerate("ab"):
        dev.start(job, Request(job, "branchy", 0, 0), plans[name].subgraphs[0], dev.now_ns(),
                  on_done)
    all_done.wait(30)  # passes only if both workers reached on_done at once
    assert sorted(results) == [0, 1] and all(c.ok for c in results.values())


def test_completion_times_use_the_device_origin(make_device: Any) -> None:
    dev = make_device(same_kernels())
    plan = whole_plan("chain", dev.graph("chain").num_ops, "b")
    load(dev, {"chain": plan})
    before = dev.now_ns()
    (c,) = run_job(dev, 1, Request(1, "chain", 0, 0), plan)
    assert 0 <= before <= c.start_ns < c.end_ns <= dev.now_ns()


def test_job_with_missing_inputs_reports_failure(make_device: Any) -> None:
    dev = make_device(same_kernels())
    plan = plan_of("chain", dev.graph("chain").num_ops, [3], ["a", "b"])
    load(dev, {"chain": plan})
    collect = Collector()
    dev.start(9, Request(1, "chain", 0, 0), plan.subgraphs[1], dev.now_ns(), collect)
    assert collect.wait().ok is False
    with pytest.raises(KeyError):
        dev.outputs(9)


def test_start_returns_before_the_subgraph_runs(make_device: Any) -> None:
    dev = make_device(same_kernels())
    plan = whole_plan("chain", dev.graph("chain").num_ops, "a")
    load(dev, {"chain": plan})
    gate = threading.Event()
    dev.workers["a"].post(lambda: gate.wait(30))  # hold the worker
    collect = Collector()
    dev.start(1, Request(1, "chain", 0, 0), plan.subgraphs[0], dev.now_ns(), collect)
    assert collect.done == []
    gate.set()
    assert collect.wait().ok


def test_read_sensors_gives_one_sample_per_processor(make_device: Any) -> None:
    dev = make_device(mixed_kernels())
    samples = dev.read_sensors(123)
    assert [(s.processor, s.t_ns) for s in samples] == [("cpu", 123), ("gpu", 123)]


# -- profiling ------------------------------------------------------------------------------

def test_profile_is_positive_and_cached(make_device: Any) -> None:
    dev = make_device(mixed_kernels())
    plan = plan_of("chain", dev.graph("chain").num_ops, [4], ["cpu", "gpu"])
    load(dev, {"chain": plan})
    first = [dev.profile(plan, sg) for sg in plan.subgraphs]
    assert all(isinstance(ns, int) and ns > 0 for ns in first)
    assert [dev.profile(plan, sg) for sg in plan.subgraphs] == first


def test_profile_builds_slices_beyond_the_eager_limit(make_device: Any) -> None:
    dev = make_device(device_conf(proc("a", "builtin", CORES[0]), eager_build_limit=0))
    plan = plan_of("fp16", dev.graph("fp16").num_ops, [2], ["a"])
    load(dev, {"fp16": plan})
    assert all(dev.profile(plan, sg) > 0 for sg in plan.subgraphs)
    assert run_job(dev, 1, Request(1, "fp16", 0, 0), plan)[-1].ok


# -- configuration errors -------------------------------------------------------------------

def test_missing_core_is_a_user_error(tiny_models: dict[str, Path], cache_dir: Path) -> None:
    missing = max(CORES) + 1
    conf = device_conf(proc("cpu", "xnnpack", missing))
    with pytest.raises(UserError, match=rf"core {missing}.*available cores: {CORES[0]}"):
        HostDevice(conf, tiny_models, cache_dir)


def test_unknown_kernel_is_a_user_error(tiny_models: dict[str, Path], cache_dir: Path) -> None:
    conf = device_conf(proc("cpu", "nnapi", CORES[0]))
    with pytest.raises(UserError, match="unknown kernel 'nnapi'; allowed: xnnpack, builtin, ref"):
        HostDevice(conf, tiny_models, cache_dir)


def test_unknown_host_key_is_a_user_error(tiny_models: dict[str, Path], cache_dir: Path) -> None:
    conf = device_conf(proc("cpu", "xnnpack", CORES[0]), profile_run=3)
    with pytest.raises(UserError, match=r"unknown key\(s\) \['profile_run'\]"):
        HostDevice(conf, tiny_models, cache_dir)


def test_slice_that_cannot_be_built_names_model_and_ops(make_device: Any) -> None:
    dev = make_device(same_kernels())
    bad = ModelPlan("chain", (frozenset({40, 41}),), (frozenset({"a"}),),
                    (Subgraph(0, "chain", "a", frozenset({40, 41}), (0,)),))
    with pytest.raises(UserError, match="model 'chain' ops 40-41"):
        dev.load({"chain": dev.graph("chain")}, {"chain": bad})


# -- workers ---------------------------------------------------------------------------------

def test_worker_pins_its_own_thread_only() -> None:
    main_affinity = os.sched_getaffinity(0)
    worker = Worker("w", [OTHER_CORE])
    try:
        assert worker.call(lambda: os.sched_getaffinity(0)) == {OTHER_CORE}
        assert os.sched_getaffinity(0) == main_affinity
    finally:
        assert worker.close(5.0)


def test_worker_reraises_errors_to_the_caller() -> None:
    worker = Worker("w", CORES)
    try:
        with pytest.raises(ZeroDivisionError):
            worker.call(lambda: 1 // 0)
        assert worker.call(lambda: 42) == 42
    finally:
        worker.close(5.0)


def test_close_stops_every_worker(tiny_models: dict[str, Path], cache_dir: Path) -> None:
    dev = HostDevice(same_kernels(), tiny_models, cache_dir)
    workers = list(dev.workers.values())
    dev.close()
    dev.close()
    assert not any(w.alive for w in workers)


# -- op support by trial ----------------------------------------------------------------------

def test_xnnpack_rejects_int8_softmax_by_trial(tiny_models: dict[str, Path]) -> None:
    graph = read_tflite(tiny_models["fallback"], "fallback")
    rejected = xnnpack_unsupported_ops(tiny_models["fallback"])
    kinds = {graph.ops[i].kind for i in rejected}
    assert "SOFTMAX" in kinds and "CONV_2D" not in kinds
    assert xnnpack_unsupported_ops(tiny_models["chain"]) == frozenset()


def test_unsupported_ops_per_processor(make_device: Any) -> None:
    xnn = proc("gpu", "xnnpack", OTHER_CORE, SupportRules.xnnpack, reject_ops=["CONV_2D"])
    dev = make_device(device_conf(proc("cpu", "builtin", CORES[0]), xnn))
    table = dev.unsupported_ops("fallback")
    graph = dev.graph("fallback")
    assert table["cpu"] == frozenset()
    kinds = {graph.ops[i].kind for i in table["gpu"]}
    assert {"SOFTMAX", "CONV_2D"} <= kinds and "QUANTIZE" not in kinds


# -- the shipped config and the protocol ------------------------------------------------------

def test_shipped_host_config_composes_and_runs(tiny_models: dict[str, Path],
                                               cache_dir: Path) -> None:
    conf = compose_run("device=host").device
    assert isinstance(conf, HostDeviceConf)
    if len(CORES) < 2:
        pytest.skip("conf/device/host.yaml pins its processors to cores 0 and 1")
    with HostDevice(conf, tiny_models, cache_dir) as dev:
        assert isinstance(dev, Device)
        info = dev.describe()
        assert [p.name for p in info.processors] == ["cpu", "gpu"]
        assert info.kind == "host" and info.facts["litert_version"]
        assert dev.specs["cpu"].cores == (0,) and dev.specs["gpu"].cores == (1,)
        assert dev.unsupported_ops("fallback")["gpu"]
        assert dev.op_support(dev.graph("fallback")) == dev.unsupported_ops("fallback")


class TestHostDeviceContract(DeviceContract):
    """The backend-neutral device contract, on the mixed-kernel device and a 3-way split."""

    available_sensors = frozenset(
        name for name, ok in HostSensors(
            Path("/"), {"cpu": [CORES[0]], "gpu": [OTHER_CORE]}).available().items() if ok
    )

    @pytest.fixture
    def device_under_test(self, tiny_models: dict[str, Path],
                          cache_dir: Path) -> Iterator[DeviceUnderTest]:
        with HostDevice(mixed_kernels(), tiny_models, cache_dir) as dev:
            graph = dev.graph("branchy")
            plan = plan_of("branchy", graph.num_ops, [3, 6], ["cpu", "gpu"])
            dev.load({"branchy": graph}, {"branchy": plan})
            yield dev, plan, graph, dev.drain
