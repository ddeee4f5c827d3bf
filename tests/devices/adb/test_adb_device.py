"""The ``adb`` device against the backend-neutral contract (:mod:`tests.devices.contract`).

A phone answers the protocol where it can today (describe, op support by the delegates'
rules, a one-shot sensor reading, the run's clock); the execution half (``load``, ``profile``,
``start``) is the seam an on-device executor will fill and says so in one clear error. The
contract's two execution tests are replaced here by that check.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from devices.adb.device import NO_EXECUTOR, AdbDevice
from harness.models.tflite_io import read_tflite
from harness.seams.device import BaselineRunner
from harness.seams.errors import UserError
from harness.seams.plan import ModelPlan, Subgraph
from harness.seams.policy import Runner
from harness.seams.records import Request
from tests.devices.adb.conftest import phone_conf
from tests.devices.adb.fakephone.adbd import Adbd
from tests.devices.adb.fakephone.server import AdbServer
from tests.devices.contract import DeviceContract, DeviceUnderTest


class TestAdbDeviceContract(DeviceContract):
    #: the CPU's: its zone, policies' clocks and caps (load needs two samples; no power meter)
    available_sensors = frozenset({"temperature_c", "frequency_hz", "max_frequency_hz",
                                   "throttled"})

    @pytest.fixture
    def device_under_test(self, adb_server: AdbServer, adbd: Adbd,
                          tiny_models: dict[str, Path]) -> Iterator[DeviceUnderTest]:
        conf = phone_conf(adb_server, adbd.serial)
        conf.processors = conf.processors[:1]  # the CPU: every sensor it has is readable
        device = AdbDevice(conf, tiny_models)
        graph = read_tflite(tiny_models["chain"], "chain")
        ops = frozenset(range(graph.num_ops))
        plan = ModelPlan("chain", (ops,), (frozenset({"cpu"}),),
                         (Subgraph(0, "chain", "cpu", ops, (0,)),))
        yield device, plan, graph, lambda: None
        device.close()

    def test_profile_is_a_positive_int(self, device_under_test: DeviceUnderTest) -> None:
        device, plan, _, _ = device_under_test
        with pytest.raises(UserError, match="on-device executor"):
            device.profile(plan, plan.subgraphs[0])

    def test_start_reports_one_completion(self, device_under_test: DeviceUnderTest) -> None:
        device, plan, graph, _ = device_under_test
        with pytest.raises(UserError) as caught:
            device.load({graph.name: graph}, {plan.model: plan})
        assert str(caught.value) == NO_EXECUTOR
        with pytest.raises(UserError, match="twin"):
            device.start(0, Request(0, "chain", -1, 0), plan.subgraphs[0], 0, lambda c: None)

    def test_it_runs_whole_baselines_itself(self, device_under_test: DeviceUnderTest) -> None:
        device = device_under_test[0]
        info = device.describe()
        assert info.name == "FP-1 Loopback" and info.kind == "adb"
        assert isinstance(device, BaselineRunner) and all(
            device.runs_baseline(r) for r in Runner)
