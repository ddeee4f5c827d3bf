"""``python -m harness device=adb run=[tflite,band,adms]``: the three systems in the native
runner on the loopback phone (the runner's x86-64 build is the fake phone's binary: real
LiteRT running real slices, pushed and started over the real adb protocol), and its faults.

Checked: the run exits 0 and prints the three systems; each wrote ``requests`` and
``subgraphs`` rows in the host's schema (every subgraph row one of its plan's subgraphs)
and sensors; the phone's decision trace replayed clean through the Python policy; subgraphs
were profiled on the phone once and kept. Each fault of the runner (killed, stalled, the
adbd killed under it) ends with one ``error:`` line and exit 2, every row up to it kept. The
host interrupted (SIGINT) mid-run exits 130 with its rows and the runner killed on the phone;
the host killed (SIGKILL) mid-run leaves the rows written while the runner ran.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from harness.reporting.store import load_run
from harness.seams.rows import REQUEST_COLUMNS, SUBGRAPH_COLUMNS
from tests.devices.adb.fakephone.adbd import Adbd
from tests.devices.adb.fakephone.phone import FakePhone
from tests.devices.adb.fakephone.server import AdbServer
from tests.devices.adb.test_adb_e2e import (
    WAIT_S,
    env_for,
    harness_args,
    interrupted,
    run_harness,
    wait_for,
)
from tests.fixtures.paths import REPO
from tests.fixtures.processes import alive
from tests.harness.experiment.test_cli import assert_user_error

SYSTEMS = ("tflite", "band", "adms")


@pytest.fixture
def args(adb_server: AdbServer, adbd: Adbd, tools: dict[str, Path], zoo_dir: Path,
         runner_binary: Path, tmp_path: Path) -> list[str]:
    """The stock tools' arguments, with the runner, and the GPU emulated on the CPU backend
    (LiteRT's GPU accelerator does not run on this machine)."""
    return [*harness_args(adb_server, adbd.serial, tools, zoo_dir, tmp_path / "run"),
            f"device.tools.runner={runner_binary}", "device.tools.profile_runs=3",
            "device.processors.1.adb.accelerator=cpu", f"zoo_cache={zoo_dir}"]


#: open-loop traffic the runner ends by itself: 50 frames/s for 0.7 s (the closed loop runs
#: the tiny models thousands of times a second: under -m slow)
PERIODIC = ("scenario.arrival=periodic", "scenario.fps=50", "scenario.duration_s=0.5",
            "scenario.warmup_s=0.2")


def test_the_three_systems_run_in_the_runner(args: list[str], adb_server: AdbServer,
                                             phone: FakePhone, tmp_path: Path) -> None:
    proc = run_harness(adb_server, phone, [*args, f"run=[{','.join(SYSTEMS)}]", *PERIODIC])
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert all(f"│ {name}" in proc.stdout for name in SYSTEMS), proc.stdout
    run = load_run(tmp_path / "run")
    assert run.manifest["status"] == "completed"
    for name in SYSTEMS:
        facts = run.manifest["runs"][name]["0"]
        assert facts["decisions"] == "clean", facts["decisions"]
        assert facts["binary_abi"] == "x86_64" and facts["requests"] == {"ok": 35 * 3}
        mine = run.requests[run.requests["baseline"] == name]
        assert sorted(mine["arrival_ns"].unique()) == [20_000_000 * k for k in range(35)]
        assert (mine["stream"] == mine["model"].map(
            {"retinaface": 0, "arcface_mobilenet": 1, "arcface_resnet50": 2})).all()
        assert list(mine.columns[:len(REQUEST_COLUMNS)]) == list(REQUEST_COLUMNS)
        assert set(mine["model"]) == {"arcface_mobilenet", "arcface_resnet50", "retinaface"}
        assert (mine["arrival_ns"] >= 0).all() and mine["warmup"].any()
        subgraphs = run.subgraphs[run.subgraphs["baseline"] == name]
        assert list(subgraphs.columns[:len(SUBGRAPH_COLUMNS)]) == list(SUBGRAPH_COLUMNS)
        assert (subgraphs["end_ns"] > subgraphs["start_ns"]).all()
        assert (subgraphs["n_ops"] > 0).all()
        cpu = run.sensors[(run.sensors["baseline"] == name) & (run.sensors["processor"] == "cpu")]
        assert len(cpu) > 3 and cpu["temperature_c"].notna().all()  # (the runner's samples)
        assert cpu["max_frequency_hz"].eq(2.4e9).all() and cpu["load"].notna().any()
    assert run.manifest["runs"]["tflite"]["0"]["profiled_on_phone"] > 0


@pytest.mark.slow
def test_closed_loop_frames_are_stopped_at_the_traffics_time(
        args: list[str], adb_server: AdbServer, phone: FakePhone, tmp_path: Path) -> None:
    """FRS's closed loop over frames: the runner runs frames until the host stops it, the
    scenario's frames in flight (two: frames 0 and 1 arrive at the start); the rows hold the
    frames issued within warm-up + duration, and every trace replays clean."""
    # (with two frames in flight this took 126 s on a loaded two-core machine, 108 s with
    # one: past WAIT_S)
    proc = run_harness(adb_server, phone, [*args, f"run=[{','.join(SYSTEMS)}]"],
                       timeout_s=3 * WAIT_S)
    assert proc.returncode == 0, proc.stderr[-3000:]
    run = load_run(tmp_path / "run")
    scenario = run.manifest["config"]["scenario"]
    for name in SYSTEMS:
        facts = run.manifest["runs"][name]["0"]
        assert facts["decisions"] == "clean" and facts["stopped_after_s"] == 3.5
        assert (facts["frames_in_flight"], facts["drop_wait_ns"]) == (
            scenario["frames_in_flight"], int(1e9 / scenario["fps"]))
        mine = run.requests[run.requests["baseline"] == name]
        first = mine[mine["frame_id"] < scenario["frames_in_flight"]]
        assert set(first["arrival_ns"]) == {0}
        assert len(first) == scenario["frames_in_flight"] * len(scenario["models"])
        assert mine["arrival_ns"].max() < 1_500_000_000 and mine["frame_id"].max() > 10
        assert set(mine["status"]) <= {"ok", "unfinished"}


def runner_files(phone: FakePhone, name: str) -> tuple[Path, Path]:
    """The runner's pid file and job log on the phone, for baseline ``name``'s run."""
    folders = sorted((phone.root / "data/local/tmp/adms-harness/runs").glob(f"{name}_*"))
    return (folders[-1] / "pid", folders[-1] / "jobs.tsv") if folders else \
        (Path("/nonexistent"), Path("/nonexistent"))


def lines_in(path: Path) -> int:
    return path.read_text().count("\n") if path.is_file() else 0


@pytest.mark.parametrize(("fault", "needles"), [
    ("kill", ["adms on the phone", "the runner was killed (signal 9)", "kept"]),
    ("stop", ["adms on the phone", "the runner stalled", "killed on the phone", "kept"]),
    ("adbd", ["lost", "kept"]),
])
def test_a_failed_runner_keeps_every_row_so_far(fault: str, needles: list[str],
                                                 args: list[str], adb_server: AdbServer,
                                                 adbd: Adbd, phone: FakePhone,
                                                 tmp_path: Path) -> None:
    """The runner killed, stalled (stopped: its log stops growing) or the phone lost under
    it: one error line, exit 2, the rows of the lines read before it in the run folder."""
    run_args = [*args, "run=[adms]", "scenario.arrival=periodic", "scenario.fps=50",
                "scenario.duration_s=6", "device.tools.stall_s=1.5"]
    proc = subprocess.Popen(run_args, cwd=REPO, env=env_for(adb_server, phone),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: lines_in(runner_files(phone, "adms")[1]) > 20, proc, "jobs logged")
        pid = int(runner_files(phone, "adms")[0].read_text())
        if fault == "adbd":
            time.sleep(1.0)  # (the host has read some lines)
            adbd.kill()
        else:
            os.kill(pid, signal.SIGKILL if fault == "kill" else signal.SIGSTOP)
        _, stderr = proc.communicate(timeout=WAIT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert_user_error(subprocess.CompletedProcess(run_args, proc.returncode, "", stderr),
                      *needles)
    run = load_run(tmp_path / "run")
    assert len(run.requests) > 10 and set(run.requests["baseline"]) == {"adms"}
    assert len(run.subgraphs) >= len(run.requests)
    if fault != "adbd":
        assert len(run.sensors) > 0


def requests_in(folder: Path) -> int:
    """The ``requests`` rows the run folder holds now, read in place."""
    return len(load_run(folder).requests) if folder.is_dir() else 0


#: a long open-loop run of ADMS (the test ends it long before its end)
LONG = ("run=[adms]", "scenario.arrival=periodic", "scenario.fps=50", "scenario.duration_s=60")


def test_an_interrupted_phone_run_keeps_its_rows_and_stops_the_runner(
        args: list[str], adb_server: AdbServer, phone: FakePhone, tmp_path: Path) -> None:
    """SIGINT while the runner runs: exit 130, ``interrupted``, the rows of every whole line
    the host had, and the runner killed on the phone."""
    returncode, stderr = interrupted([*args, *LONG], adb_server, phone,
                                     lambda: lines_in(runner_files(phone, "adms")[1]) > 20,
                                     "jobs logged")
    pid = int(runner_files(phone, "adms")[0].read_text())
    assert returncode == 130, stderr[-3000:]
    run = load_run(tmp_path / "run")
    assert run.manifest["status"] == "interrupted" and run.manifest["signal"] == "SIGINT"
    assert len(run.requests) > 0 and set(run.requests["baseline"]) == {"adms"}
    assert len(run.subgraphs) >= len(run.requests)
    assert not alive(pid)


def test_a_killed_host_keeps_the_phone_runs_rows_flushed_before(
        args: list[str], adb_server: AdbServer, phone: FakePhone, tmp_path: Path) -> None:
    """SIGKILL of the host while the runner runs, once its rows reached the run folder (the
    runner still running, so they were written on the way): they stay there."""
    run_dir = tmp_path / "run"
    proc = subprocess.Popen([*args, *LONG], cwd=REPO, env=env_for(adb_server, phone),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: requests_in(run_dir) > 0, proc, "requests rows in the run folder")
        assert alive(int(runner_files(phone, "adms")[0].read_text()))
        proc.kill()
        proc.communicate()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    run = load_run(run_dir)
    assert run.manifest["status"] == "running"
    assert len(run.requests) > 0 and set(run.requests["baseline"]) == {"adms"}
    assert len(run.subgraphs) >= len(run.requests) and len(run.sensors) > 0
