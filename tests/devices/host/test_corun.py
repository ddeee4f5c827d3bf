"""A slice timed beside another processor's loop (the twin's ``corun_factor``)."""

from __future__ import annotations

from typing import Any

import pytest

from devices.host.slicekey import slice_key
from tests.devices.host.test_host_device import (
    load,
    same_kernels,
    whole_plan,
)


def test_the_background_loops_while_the_slice_is_timed_and_stops_after(
        make_device: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    dev = make_device(same_kernels())
    plans = {"chain": whole_plan("chain", dev.graph("chain").num_ops, "a"),
             "branchy": whole_plan("branchy", dev.graph("branchy").num_ops, "b")}
    load(dev, plans)
    key, background = slice_key(plans["chain"].subgraphs[0]), slice_key(
        plans["branchy"].subgraphs[0])
    runner = dev._runners.runner(background)
    real, calls = runner.run, []

    def counted(tensors: Any) -> None:
        calls.append(1)
        real(tensors)

    monkeypatch.setattr(runner, "run", counted)
    alone, beside = dev.time_beside(key, background)
    ran = len(calls)
    assert alone > 0 and beside > 0
    assert ran > 1  # it looped while the slice was timed the second time
    dev.workers["b"].call(lambda: None)
    assert len(calls) == ran  # and stopped before time_beside returned


def test_a_background_on_the_slices_own_processor_is_refused(make_device: Any) -> None:
    dev = make_device(same_kernels())
    plan = whole_plan("chain", dev.graph("chain").num_ops, "a")
    load(dev, {"chain": plan})
    key = slice_key(plan.subgraphs[0])
    with pytest.raises(ValueError, match="the slice's own processor"):
        dev.time_beside(key, key)
