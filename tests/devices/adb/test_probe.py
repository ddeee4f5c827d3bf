"""Probing the loopback phone: its facts, a draft device YAML that composes, the
``python -m harness.probe`` command, and what a run checks before it starts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from devices.adb.device import AdbDevice
from devices.adb.draft import draft_yaml, slug
from devices.adb.phone import connect
from harness.config.compose import compose
from harness.experiment.components import register, typed
from harness.seams.errors import UserError
from harness.seams.policy import Runner
from tests.devices.adb.conftest import phone_conf
from tests.devices.adb.fakephone.adbd import Adbd
from tests.devices.adb.fakephone.server import AdbServer
from tests.fixtures.paths import REPO
from tests.harness.experiment.test_cli import assert_user_error


def test_the_facts_a_phone_reports(adb_server: AdbServer, adbd: Adbd) -> None:
    facts = connect(phone_conf(adb_server, adbd.serial)).facts
    assert (facts.model, facts.soc, facts.abi, facts.api_level) == (
        "FP-1 Loopback", "FakeSilicon FS8000", "x86_64", 33)
    assert facts.abilist == ("x86_64", "x86")
    assert [(c.policy, c.cpus, c.freqs_khz[-1], c.governor) for c in facts.clusters] == [
        (0, (0, 1), 1800000, "schedutil"), (2, (2, 3), 2400000, "schedutil")]
    zones = {z.type: z.temperature_c for z in facts.zones}
    assert zones["skin-therm"] is None  # unreadable: recorded as such, not guessed
    assert zones["cpu-0-0-usr"] is not None and 25 < zones["cpu-0-0-usr"] < 60
    assert facts.gpu_frequency_path() == "/sys/class/kgsl/kgsl-3d0/gpuclk"
    assert set(facts.delegates) == {"cpu", "xnnpack", "gpu", "nnapi"}


def test_the_draft_yaml_composes_as_a_device_config(adb_server: AdbServer, adbd: Adbd,
                                                    tmp_path: Path) -> None:
    facts = connect(phone_conf(adb_server, adbd.serial)).facts
    (tmp_path / "device").mkdir()
    (tmp_path / "device" / f"{slug(facts.model)}.yaml").write_text(
        draft_yaml(facts, adbd.serial))
    register()
    raw = compose("config", [f"hydra.searchpath=[file://{tmp_path}]",
                             f"device={slug(facts.model)}"])
    conf = typed(raw.device, AdbDevice)
    assert conf.name == "fp_1_loopback" and conf.serial == adbd.serial
    assert [(p.name, p.adb.delegate.value, p.adb.thermal_zone) for p in conf.processors] == [
        ("cpu", "cpu", "cpu-0-0-usr"), ("gpu", "gpu", "gpu0-usr"), ("npu", "nnapi", "")]
    assert conf.sensors.gpu_frequency_path == "/sys/class/kgsl/kgsl-3d0/gpuclk"


def probe_cli(server: AdbServer, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness.probe",
                           f"device.adb.port={server.port}", *args], cwd=REPO, env=server.env,
                          capture_output=True, text=True, timeout=60, check=False)


def test_the_probe_command(adb_server: AdbServer, adbd: Adbd, tmp_path: Path) -> None:
    out = tmp_path / "phone.yaml"
    proc = probe_cli(adb_server, f"device.serial={adbd.serial}", f"out={out}")
    assert proc.returncode == 0, proc.stderr
    assert "model: FP-1 Loopback" in proc.stdout and "skin-therm=unreadable" in proc.stdout
    assert "name: fp_1_loopback" in out.read_text()
    assert '"model": "FP-1 Loopback"' in out.with_suffix(".json").read_text()


def test_the_probe_command_with_no_such_phone(adb_server: AdbServer, adbd: Adbd) -> None:
    assert_user_error(probe_cli(adb_server, "device.serial=R5CT0000"), "R5CT0000",
                      "not connected")


def test_a_run_names_the_phone_and_refuses_host_baselines_up_front(adb_server: AdbServer,
                                                                    adbd: Adbd) -> None:
    conf = phone_conf(adb_server, adbd.serial)
    runners = {"tflite": Runner.TFLITE, "adms": Runner.RUNTIME, "threads": Runner.THREADS}
    named = AdbDevice.prepare_run(conf, ["tflite", "adms"], runners, dry_run=False)
    assert named.name == "FP-1 Loopback"
    with pytest.raises(UserError, match=r"'threads' \(threads\) cannot run on a phone"):
        AdbDevice.prepare_run(conf, ["tflite", "threads"], runners, dry_run=True)
