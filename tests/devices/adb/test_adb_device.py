"""The ``adb`` device against the backend-neutral contract (:mod:`tests.devices.contract`).

A phone answers the protocol's planning half as any device does: describe, op support by
the delegates' rules, a sensor reading, the run's clock, and ``load`` (every subgraph cut and
pushed) and ``profile`` (measured on the phone by the native runner, the fake phone's x86-64
build). Its execution half is the runner's: a prepared policy is handed over
(:class:`~harness.seams.device.PolicyRunner`), so ``start`` (one subgraph over adb) is
refused; the contract's dispatch test is replaced by that check.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from devices.adb.device import AdbDevice
from devices.adb.runner_exe import default_litert_lib, push_runner
from harness.models.tflite_io import read_tflite
from harness.seams.device import BaselineRunner, DeviceContext, PolicyRunner
from harness.seams.errors import UserError
from harness.seams.plan import ModelPlan, Subgraph
from harness.seams.policy import Runner
from harness.seams.records import Request
from tests.devices.adb.conftest import phone_conf
from tests.devices.adb.fakephone.adbd import Adbd
from tests.devices.adb.fakephone.phone import FakePhone
from tests.devices.adb.fakephone.server import AdbServer
from tests.devices.contract import DeviceContract, DeviceUnderTest


class TestAdbDeviceContract(DeviceContract):
    #: the CPU's: its zone, policies' clocks and caps (load needs two samples; no power meter)
    available_sensors = frozenset({"temperature_c", "frequency_hz", "max_frequency_hz",
                                   "throttled"})

    @pytest.fixture
    def device_under_test(self, adb_server: AdbServer, adbd: Adbd, runner_binary: Path,
                          tiny_models: dict[str, Path], tmp_path: Path
                          ) -> Iterator[DeviceUnderTest]:
        conf = phone_conf(adb_server, adbd.serial, runner=runner_binary)
        conf.processors = conf.processors[:1]  # the CPU: every sensor it has is readable
        graph = read_tflite(tiny_models["chain"], "chain")
        context = DeviceContext({"chain": graph}, tiny_models, np.random.default_rng(0),
                                tmp_path / "cache")
        device = AdbDevice(conf, context)
        ops = frozenset(range(graph.num_ops))
        plan = ModelPlan("chain", (ops,), (frozenset({"cpu"}),),
                         (Subgraph(0, "chain", "cpu", ops, (0,)),))
        device.load({graph.name: graph}, {plan.model: plan})
        yield device, plan, graph, lambda: None
        device.close()

    def test_start_reports_one_completion(self, device_under_test: DeviceUnderTest) -> None:
        device, plan, _, _ = device_under_test
        with pytest.raises(UserError, match="only in its native runner"):
            device.start(0, Request(0, "chain", -1, 0), plan.subgraphs[0], 0, lambda c: None)

    def test_profiles_are_measured_once_per_phone(self, device_under_test: DeviceUnderTest,
                                                  phone: FakePhone) -> None:
        device, plan, _, _ = device_under_test
        first = device.profile(plan, plan.subgraphs[0])
        assert device.profiles().measured == 1
        assert device.profile(plan, plan.subgraphs[0]) == first
        assert device.profiles().measured == 1  # (kept on the host by serial and slice hash)
        pushed = list((phone.root / "data/local/tmp/adms-harness").glob("*/runner"))
        assert len(pushed) == 1 and pushed[0].stat().st_mode & 0o111

    def test_it_hands_policies_to_its_runner(self, device_under_test: DeviceUnderTest) -> None:
        device = device_under_test[0]
        info = device.describe()
        assert info.name == "FP-1 Loopback" and info.kind == "adb"
        assert isinstance(device, BaselineRunner) and isinstance(device, PolicyRunner)
        assert {r for r in Runner if device.runs_baseline(r)} == {Runner.TFLITE_STOCK,
                                                                   Runner.BAND_STOCK}

    def test_accelerator_libraries_are_pushed_into_one_folder(
            self, device_under_test: DeviceUnderTest, phone: FakePhone, tmp_path: Path) -> None:
        device = device_under_test[0]
        libs = []
        for name in ("libLiteRtGpuAccelerator.so", "libLiteRtDispatch_Fake.so"):
            libs.append(tmp_path / name)
            shutil.copy(default_litert_lib(), libs[-1])
        device.conf.tools.litert_accelerators = [str(p) for p in libs]
        pushed = push_runner(device.phone)
        folder = pushed.accelerators_dir
        assert folder.startswith("/data/local/tmp/adms-harness/litert-")
        assert sorted(p.name for p in phone.host_path(folder).iterdir()) == sorted(
            p.name for p in libs)
        assert f"--litert-runtime-dir {folder} --litert-dispatch-dir {folder}" in \
            pushed.command("--plan", "p")
