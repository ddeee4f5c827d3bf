"""No silent defaults: a twin mechanism that is on needs every one of its constants given.

A constant of a mechanism (:data:`devices.twin.config.MECHANISM_CONSTANTS`) has no default;
a device whose mechanism is on without it is refused with one line naming what is missing and
how to switch the mechanism off, before anything runs; switched off, the device runs.
"""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path
from typing import Any

import pytest

from devices.twin.config import (
    MECHANISM_CONSTANTS,
    MechanismsConf,
    TwinDeviceBlock,
    TwinProcessorBlock,
)
from devices.twin.spec import parse
from harness.experiment import session
from harness.seams.errors import UserError
from tests.devices.twin.test_twin import (
    CONV,
    DEVICE,
    chain_graph,
    make_device,
    make_plan,
    twin_conf,
)
from tests.fixtures.runs import compose_run

MECHANISMS = tuple(f.name for f in dataclasses.fields(MechanismsConf))
DEVICE_FIELDS = {f.name: f for f in dataclasses.fields(TwinDeviceBlock)}
PROCESSOR_FIELDS = {f.name: f for f in dataclasses.fields(TwinProcessorBlock)}
#: the processors of test_twin's phone
PROCESSORS = ("cpu", "gpu", "dsp")


def only_on(mechanism: str | None, **constants: Any) -> Any:
    """test_twin's phone, none of the mechanism constants given, only ``mechanism`` on."""
    block = copy.deepcopy(DEVICE)
    block.update(constants)
    block["mechanisms"] = {m: m == mechanism for m in MECHANISMS}
    return twin_conf(block)


def error_of(conf: Any) -> str:
    with pytest.raises(UserError) as raised:
        parse(conf)
    return str(raised.value)


def test_every_mechanism_names_its_constants_and_none_has_a_default() -> None:
    assert set(MECHANISM_CONSTANTS) == set(MECHANISMS)
    for constants in MECHANISM_CONSTANTS.values():
        for name in constants:
            assert (name in DEVICE_FIELDS) != (name in PROCESSOR_FIELDS), name
            declared = DEVICE_FIELDS.get(name) or PROCESSOR_FIELDS[name]
            assert declared.default is None, name


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_a_mechanism_on_without_its_constants_is_one_line_naming_them(mechanism: str) -> None:
    message = error_of(only_on(mechanism))
    assert "\n" not in message
    assert message.startswith(f"twin: device testphone: mechanism {mechanism} is on but ")
    assert message.endswith(f"(set them, or device.twin.mechanisms.{mechanism}=false)") or \
        message.endswith(f"(set it, or device.twin.mechanisms.{mechanism}=false)")
    for name in MECHANISM_CONSTANTS[mechanism]:
        wanted = [name] if name in DEVICE_FIELDS else [f"{p}.{name}" for p in PROCESSORS]
        assert all(w in message for w in wanted), (name, message)


def test_only_the_missing_constants_are_named() -> None:
    message = error_of(only_on("scheduler_cost", scheduler_fixed_us=20.0))
    assert message == ("twin: device testphone: mechanism scheduler_cost is on but "
                       "scheduler_ns_per_op is not set (set it, or "
                       "device.twin.mechanisms.scheduler_cost=false)")


def test_every_mechanism_missing_constants_is_in_the_one_line() -> None:
    block = copy.deepcopy(DEVICE)
    block["mechanisms"] = dict.fromkeys(MECHANISMS, True)
    message = error_of(twin_conf(block))
    assert "\n" not in message
    assert all(f"mechanism {m} is on" in message for m in MECHANISMS)


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_with_its_constants_given_it_parses(mechanism: str) -> None:
    device = {n: 1.0 for n in MECHANISM_CONSTANTS[mechanism] if n in DEVICE_FIELDS}
    procs = {n: 1.0 for n in MECHANISM_CONSTANTS[mechanism] if n in PROCESSOR_FIELDS}
    conf = only_on(mechanism, **device)
    for p in conf.processors:
        p.twin.update(procs)
    spec = parse(conf)
    assert getattr(spec.device.mechanisms, mechanism)


def test_switched_off_without_its_constants_it_runs() -> None:
    """Every mechanism off, none of their constants given: the CONV op's 40 us of compute,
    1 us dispatch and 10 us invoke on the cpu, nothing more."""
    graph = chain_graph([CONV])
    plan = make_plan(graph, [(0, "cpu")])
    device = make_device(graph, plan, only_on(None))
    assert device.profile(plan, plan.subgraphs[0]) == 51_000


def test_a_phone_yaml_without_a_mechanisms_constants_is_refused_before_it_runs() -> None:
    with pytest.raises(UserError, match=r"scheduler_cost is on but scheduler_fixed_us, "
                                        r"scheduler_ns_per_op are not set"):
        compose_run("device=k50pro", "device.twin.scheduler_fixed_us=null",
                    "device.twin.scheduler_ns_per_op=null")


def test_the_same_phone_runs_with_the_mechanism_off(tmp_path: Path) -> None:
    folder = session.run(["device=k50pro", "device.twin.scheduler_fixed_us=null",
                          "device.twin.scheduler_ns_per_op=null",
                          "device.twin.mechanisms.scheduler_cost=false", "run=[tflite]",
                          "scenario.duration_s=0.3", "scenario.warmup_s=0.1", "seed.count=1",
                          "plots=false"], tmp_path / "run", report=False)
    assert (folder / "requests.parquet").is_file()
