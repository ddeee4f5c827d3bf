"""Concurrent plans on the host: each model's interpreter on a thread of its own.

Vanilla TFLite's interpreters run at once on a shared processor (the OS time-slices the
core); a non-concurrent plan's subgraphs queue on the processor's one worker."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from devices.host.device import HostDevice
from devices.host.slicekey import slice_key
from harness.seams.plan import ModelPlan
from harness.seams.records import Request
from tests.devices.host.test_host_device import (
    Collector,
    load,
    same_kernels,
    whole_plan,
)


def concurrent(plan: ModelPlan) -> ModelPlan:
    return ModelPlan(plan.model, plan.units, plan.unit_support, plan.subgraphs,
                     concurrent=True, shared_interpreter=True)


def slow_chain_then_branchy(dev: HostDevice, plans: dict[str, ModelPlan],
                            monkeypatch: pytest.MonkeyPatch) -> tuple[Collector, Any]:
    """Start a ``chain`` job whose invoke holds processor a until the gate opens, then a
    ``branchy`` job on processor a."""
    load(dev, plans)
    gate = threading.Event()
    chain = plans["chain"].subgraphs[0]
    runner = dev._runners.runner(slice_key(chain))  # built by load
    real = runner.run

    def slow(tensors: Any) -> None:
        gate.wait(30)
        real(tensors)

    monkeypatch.setattr(runner, "run", slow)
    dev.start(0, Request(0, "chain", 0, 0), chain, dev.now_ns(), Collector())
    collect = Collector()
    dev.start(1, Request(1, "branchy", 0, 0), plans["branchy"].subgraphs[0], dev.now_ns(),
              collect)
    return collect, gate


@pytest.mark.parametrize("shared", [True, False])
def test_a_concurrent_model_does_not_queue_behind_another_models_invoke(
        make_device: Any, shared: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    dev = make_device(same_kernels())
    plans = {m: whole_plan(m, dev.graph(m).num_ops, "a") for m in ("chain", "branchy")}
    if shared:
        plans = {m: concurrent(p) for m, p in plans.items()}
    collect, gate = slow_chain_then_branchy(dev, plans, monkeypatch)
    try:
        finished = collect.event.wait(10 if shared else 0.5)
        assert finished is shared  # its own thread: done; one worker: stuck behind chain
    finally:
        gate.set()
    if not shared:
        assert collect.wait().ok
    assert collect.done[-1].ok


def test_lanes_are_made_before_the_clock_and_stopped_with_the_device(
        tiny_models: dict[str, Path], cache_dir: Path) -> None:
    dev = HostDevice(same_kernels(), tiny_models, cache_dir)
    plans = {m: concurrent(whole_plan(m, dev.graph(m).num_ops, "b"))
             for m in ("chain", "branchy")}
    load(dev, plans)
    assert len(dev.lanes) == 2
    lanes = [dev.lanes.lane("b", m) for m in plans]
    dev.close()
    assert not any(w.alive for w in lanes) and len(dev.lanes) == 0
