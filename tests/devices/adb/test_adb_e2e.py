"""``python -m harness device=adb`` with the stock tools end to end against the loopback phone,
and every fault of theirs (the native runner's runs: :mod:`.test_adb_runner`).

The phone is this machine (:mod:`tests.devices.adb.fakephone`: a fake adbd joined by the real
adb server, a folder as its filesystem, stand-in ``benchmark_model`` and ``band_benchmark``
that run the models with real LiteRT and speak the real tools' interfaces, a stand-in Monsoon
driver). The models are the tiny test models under the FRS models' names. Checked:

* a run of ``tflite_stock`` and ``band_stock`` exits 0, writes ``phone_runs`` (benchmark_model's
  aggregates: no request rows are made up from them), Band's ``requests`` and ``subgraphs``,
  sensors from the phone and whole-phone power from the monitor, and prints the comparison
  titled with the phone's probed model;
* each fault (the adbd killed mid-run, a stalled tool, a truncated output, a non-zero exit, a
  failed push, a missing binary, a serial not connected, a host-only baseline) ends with one
  ``error:`` line and exit code 2, and everything measured before it is in the run folder.
* the host interrupted (SIGINT) while the tools run exits 130 and kills them on the phone.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from harness.experiment import session
from harness.reporting.phone import phone_scenario_metrics
from harness.reporting.store import load_run
from harness.seams.errors import UserError
from tests.devices.adb.fakephone.adbd import Adbd
from tests.devices.adb.fakephone.phone import FakePhone
from tests.devices.adb.fakephone.server import AdbServer
from tests.fixtures.paths import REPO
from tests.fixtures.processes import alive
from tests.harness.experiment.test_cli import assert_user_error

MONSOON = "tests.devices.adb.fakephone.monsoon"
WAIT_S = 120.0


def harness_args(server: AdbServer, serial: str, tools: dict[str, Path], zoo: Path,
                 run_dir: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "harness", "device=adb", f"device.serial={serial}",
            f"device.adb.port={server.port}", "device.adb.retries=2", "device.adb.backoff_s=0.2",
            f"device.tools.benchmark_model={tools['benchmark_model']}",
            f"device.tools.band_benchmark={tools['band_benchmark']}",
            "device.tools.band_profile_runs=2", "device.processors.0.adb.threads=1",
            "device.power.monitor=monsoon", f"device.power.monsoon_driver={MONSOON}",
            "scenario=frs", "scenario.duration_s=1", "scenario.warmup_s=0.5",
            f"zoo_cache={zoo}", f"hydra.run.dir={run_dir}", "plots=false", "seed.count=1",
            *extra]


def env_for(server: AdbServer, phone: FakePhone) -> dict[str, str]:
    return {**server.env, "FAKE_PHONE_ROOT": str(phone.root), "COLUMNS": "200"}


def run_harness(server: AdbServer, phone: FakePhone, args: list[str],
                timeout_s: float = WAIT_S) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=REPO, env=env_for(server, phone), capture_output=True,
                          text=True, timeout=timeout_s, check=False)


@pytest.fixture
def args(adb_server: AdbServer, adbd: Adbd, tools: dict[str, Path], zoo_dir: Path,
         tmp_path: Path) -> list[str]:
    return harness_args(adb_server, adbd.serial, tools, zoo_dir, tmp_path / "run")


def test_stock_tflite_and_band_on_the_phone(args: list[str], adb_server: AdbServer,
                                      phone: FakePhone, tmp_path: Path) -> None:
    proc = run_harness(adb_server, phone, [*args, "run=[tflite_stock,band_stock]",
                                           "seed.count=2"])
    assert proc.returncode == 0, proc.stderr[-3000:]
    printed = " ".join(proc.stdout.split())  # rich wraps the title
    assert "ADB = PHONE over adb (real measurements) · device FP-1 Loopback" in printed
    assert "K50" not in printed and "band_stock" in printed
    run = load_run(tmp_path / "run")
    assert run.manifest["status"] == "completed" and run.manifest["device_kind"] == "adb"
    assert set(run.manifest["runs"]["tflite_stock"]) == {"0", "1"}  # two seeds, each its facts
    facts = run.manifest["runs"]["tflite_stock"]["1"]["device"]["facts"]
    assert facts["model"] == "FP-1 Loopback" and facts["soc"] == "FakeSilicon FS8000"
    tflite = run.phone_runs[run.phone_runs["baseline"] == "tflite_stock"]
    assert sorted(tflite["model"]) == sorted(["arcface_mobilenet", "arcface_resnet50",
                                              "retinaface"] * 2)  # per seed
    assert (tflite["status"] == "ok").all() and (tflite["count"] > 0).all()
    assert (tflite["delegate"] == "gpu").all() and tflite["delegated_nodes"].notna().all()
    assert (tflite["start_ns"] >= 0).all() and (tflite["end_ns"] > tflite["start_ns"]).all()
    assert set(run.requests["baseline"]) == {"band_stock"}  # no request rows from aggregates
    band = run.requests
    assert len(band) > 10 and (band["status"] == "ok").all()
    assert set(band["model"]) == {"arcface_mobilenet", "arcface_resnet50", "retinaface"}
    assert len(run.subgraphs) >= len(band)
    check_sensors(run.sensors)
    per_seed = phone_scenario_metrics(run.phone_runs, run.sensors)
    tflite_rows = per_seed[per_seed["baseline"] == "tflite_stock"]
    assert sorted(tflite_rows["seed"]) == [0, 1]
    assert (tflite_rows["fps"] > 0).all() and (tflite_rows["energy_per_frame_j"] > 0).all()
    summary = pd.read_csv(tmp_path / "run" / "summary.csv").set_index("baseline")
    assert summary.loc["tflite_stock", "n_seeds"] == 2
    assert summary.loc["tflite_stock", "fps"] > 0
    assert "│ tflite_stock" in proc.stdout  # the table lists the phone's vanilla run


def check_sensors(sensors: pd.DataFrame) -> None:
    for baseline in ("tflite_stock", "band_stock"):
        mine = sensors[sensors["baseline"] == baseline]
        power = mine[mine["processor"] == "device"]["power_w"]
        assert len(power) > 5 and power.max() > 1.5  # the fake phone draws more under load
        cpu = mine[mine["processor"] == "cpu"]
        assert cpu["temperature_c"].notna().all() and cpu["frequency_hz"].max() == 2.4e9


def wait_for(condition: object, proc: subprocess.Popen[str], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():  # type: ignore[operator]
        assert proc.poll() is None, f"the run ended before {what}: {proc.communicate()[1]}"
        assert time.monotonic() < deadline, f"never saw {what}"
        time.sleep(0.05)


def journal_rows(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.endswith("}")]


def test_adbd_killed_mid_run(args: list[str], adb_server: AdbServer, adbd: Adbd,
                             phone: FakePhone, tmp_path: Path) -> None:
    """The phone vanishes while Band runs: tflite's rows and sensors stay, exit 2."""
    run_dir = tmp_path / "run"
    band_args = [*args, "run=[tflite_stock,band_stock]", "scenario.duration_s=3"]
    proc = subprocess.Popen(band_args, cwd=REPO, env=env_for(adb_server, phone),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: len(journal_rows(run_dir / "phone_runs.jsonl")) == 3, proc,
                 "tflite's rows")
        wait_for(lambda: any((phone.root / ".fake/load").iterdir()), proc, "band running")
        adbd.kill()
        _, stderr = proc.communicate(timeout=WAIT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert_user_error(subprocess.CompletedProcess(band_args, proc.returncode, "", stderr),
                      "lost", adbd.serial, "kept")
    run = load_run(run_dir)
    status = run.phone_runs.groupby("baseline")["status"].agg(list)
    assert set(status["tflite_stock"]) == {"ok"} and status["band_stock"] == ["lost"]
    assert len(run.sensors[run.sensors["baseline"] == "tflite_stock"]) > 0
    assert len(run.sensors[(run.sensors["baseline"] == "band_stock") &
                           (run.sensors["processor"] == "device")]) > 0  # power kept


def tool_pids(phone: FakePhone, baseline: str) -> list[int]:
    """The process ids the tools' shells of ``baseline``'s latest run wrote on the phone (a
    file still empty counts as missing)."""
    folders = sorted((phone.root / "data/local/tmp/adms-harness/runs").glob(f"{baseline}_*"))
    texts = [f.read_text().strip() for f in folders[-1].glob("*.pid")] if folders else []
    return [int(t) for t in texts if t.isdigit()]


def interrupted(args: list[str], server: AdbServer, phone: FakePhone,
                ready: Callable[[], bool], what: str) -> tuple[int, str]:
    """``python -m harness`` with ``args``, sent SIGINT once ``ready()`` (``what``, for the
    message if it never is): its exit code and stderr."""
    proc = subprocess.Popen(args, cwd=REPO, env=env_for(server, phone),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(ready, proc, what)
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=WAIT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return proc.returncode, stderr


@pytest.mark.parametrize(("baseline", "count"), [("tflite_stock", 3), ("band_stock", 1)])
def test_an_interrupted_host_stops_the_stock_tools_on_the_phone(
        baseline: str, count: int, args: list[str], adb_server: AdbServer, phone: FakePhone,
        tmp_path: Path) -> None:
    """SIGINT while the tools run (three ``benchmark_model`` processes, or ``band_benchmark``,
    for a minute): exit 130, ``interrupted``, and every tool killed on the phone by the
    process id its shell wrote, not left running until the phone's ``timeout``."""
    pids: list[int] = []

    def ready() -> bool:
        pids[:] = tool_pids(phone, baseline)
        return len(pids) == count and all(alive(pid) for pid in pids)

    returncode, stderr = interrupted([*args, f"run=[{baseline}]", "scenario.duration_s=60"],
                                     adb_server, phone, ready, "the tools' ids")
    assert returncode == 130, stderr[-3000:]
    manifest = load_run(tmp_path / "run").manifest
    assert manifest["status"] == "interrupted" and manifest["signal"] == "SIGINT"
    deadline = time.monotonic() + 10.0
    while (left := [pid for pid in pids if alive(pid)]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not left, f"tools still running on the phone: {left}"


def run_in_process(args: list[str], phone: FakePhone, monkeypatch: pytest.MonkeyPatch,
                   *extra: str) -> str:
    """The session ``python -m harness`` runs, in this process (no second start-up); the
    one-line UserError it ends with, as the command line would print it."""
    monkeypatch.setenv("FAKE_PHONE_ROOT", str(phone.root))
    overrides = [a for a in args[3:] if not a.startswith("hydra.run.dir=")]
    run_dir = next(a for a in args if a.startswith("hydra.run.dir=")).split("=", 1)[1]
    with pytest.raises(UserError) as caught:
        session.run([*overrides, *extra], run_dir)
    message = str(caught.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize(("fault", "status", "needles"), [
    ("stall", "timeout", ["arcface_resnet50", "did not finish", "killed on the phone"]),
    ("truncate", "truncated", ["arcface_resnet50", "truncated"]),
    ("crash", "failed", ["arcface_resnet50", "exited with 1", "Benchmarking failed"]),
])
def test_a_failing_tool_keeps_the_others_rows(fault: str, status: str, needles: list[str],
                                              args: list[str], phone: FakePhone,
                                              tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                              ) -> None:
    phone.fault(fault, "arcface_resnet50")
    message = run_in_process(args, phone, monkeypatch, "run=[tflite_stock]",
                             "device.tools.grace_s=2")
    assert all(n in message for n in needles), message
    run = load_run(tmp_path / "run")
    rows = run.phone_runs.set_index("model")
    assert rows.loc["arcface_resnet50", "status"] == status
    assert rows.loc["arcface_resnet50", "output"]  # what it printed is kept
    assert (rows.drop("arcface_resnet50")["status"] == "ok").all()
    assert len(run.sensors) > 0
    assert not any((phone.root / ".fake/load").iterdir())  # nothing left running on the phone


@pytest.mark.parametrize(("override", "needles"), [
    ("device.tools.benchmark_model=/nonexistent/benchmark_model",
     ["benchmark_model not found", "/nonexistent/benchmark_model"]),
    ("device.serial=R5CT0000", ["R5CT0000", "not connected"]),
])
def test_bad_setups_on_the_command_line(override: str, needles: list[str], args: list[str],
                                        adb_server: AdbServer, phone: FakePhone,
                                        tmp_path: Path) -> None:
    assert_user_error(run_harness(adb_server, phone, [*args, "run=[tflite_stock]", override]),
                      *needles)
    assert journal_rows(tmp_path / "run" / "phone_runs.jsonl") == []


@pytest.mark.parametrize(("override", "setup", "needles"), [
    ("run=[tflite_stock,threads]", "", ["threads", "runs only on a host device"]),
    ("run=[tflite_stock]", "push", ["push of", "failed", "FAIL"]),
    ("run=[tflite_stock]", "no-monsoon", ["no Monsoon HVPM", "Unable to find device"]),
    ("run=[band_stock]", "no-band", ["band_benchmark", "device.tools.band_benchmark="]),
])
def test_bad_setups_end_before_measuring(override: str, setup: str, needles: list[str],
                                         args: list[str], phone: FakePhone, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    extra = [override]
    if setup == "push":
        phone.push_fails = "No space left on device"
    if setup == "no-monsoon":
        monkeypatch.setenv("FAKE_MONSOON", "absent")
    if setup == "no-band":
        extra.append("device.tools.band_benchmark=")
    message = run_in_process(args, phone, monkeypatch, *extra)
    assert all(n in message for n in needles), message
    assert journal_rows(tmp_path / "run" / "phone_runs.jsonl") == []


def test_periodic_traffic_with_slos(args: list[str], phone: FakePhone, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Periodic frames become ``--run_frequency`` and Band's ``periodic`` mode with
    ``period_ms``; the SLO multiplier becomes Band's ``slo_scale``."""
    monkeypatch.setenv("FAKE_PHONE_ROOT", str(phone.root))
    overrides = [a for a in args[3:] if not a.startswith("hydra.run.dir=")]
    session.run([*overrides, "run=[tflite_stock,band_stock]", "scenario.arrival=periodic",
                 "scenario.fps=40", "scenario.slo_multiplier=50"], tmp_path / "run")
    run = load_run(tmp_path / "run")
    tflite = run.phone_runs[run.phone_runs["baseline"] == "tflite_stock"]
    assert (tflite["run_frequency_hz"] == 40.0).all()
    assert tflite["count"].between(20, 60).all()  # 40/s for 1 s, as the tool paced them
    [metrics] = phone_scenario_metrics(run.phone_runs, run.sensors).to_dict("records")
    assert metrics["fps"] == pytest.approx(40.0)
    band = run.requests
    assert (band["slo_ns"] > 0).all() and band["frame_id"].max() >= 20
    config = run.manifest["runs"]["band_stock"]["0"]["config"]
    assert config["execution_mode"] == "periodic"
    assert {m["period_ms"] for m in config["models"]} == {25}
    assert {m["slo_scale"] for m in config["models"]} == {50.0}
    per_model = run.phone_runs[run.phone_runs["baseline"] == "band_stock"]
    assert sorted(per_model["model"]) == sorted(band["model"].unique())
    assert per_model["slo_satisfaction"].between(0, 1).all()
