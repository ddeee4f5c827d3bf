"""The runner's processor monitor (``--sensors``): files of a fake sysfs in a temporary
folder, rewritten while an ADMS run (its monitor on) goes; the sensor log holds every
sample, the views' states follow the files, and the phone's decision trace, states
included, replays clean in Python and C++. Skipped when cmake or g++ is missing.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from harness.replay.phone import check_phone_trace
from tests.runner import candidates, native
from tests.runner.test_runner_alternatives import CORES, MODELS, adms, error_of

pytestmark = pytest.mark.skipif(native.missing_tools() is not None,
                                reason=f"runner not buildable: {native.missing_tools()}")

LOG_COLUMNS = ["t_ns", "processor", "temperature_c", "frequency_hz", "max_frequency_hz",
               "load", "power_w", "throttled", "throttle_temperature_c"]


@pytest.fixture(scope="module")
def binary() -> Path:
    return native.build()


def put(path: Path, text: str) -> None:
    """Writes ``path`` whole at once, as sysfs gives a value (never half a file)."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def stat_text(k: int) -> str:
    """/proc/stat with cpu0 and cpu1 busy 3 jiffies of every 4 since the start."""
    return "cpu  1 2 3 4 5 6 7 8 0 0\n" + "".join(
        f"cpu{c} {3 * k} 0 0 {k} 0 0 0 0 0 0\n" for c in (0, 1)) + "intr 1\n"


def fake_sysfs(root: Path, k: int) -> None:
    """Sample ``k`` of the fake phone: cpu0 heats up past its throttling point and is capped
    from k = 3 on."""
    put(root / "temp0", f"{40000 + 4000 * k}\n")
    put(root / "cap0", f"{1800000 if k < 3 else 1200000}\n")
    put(root / "cur0", f"{1800000 - 100000 * min(k, 6)}\n")
    put(root / "stat", stat_text(k))


def sensors_file(root: Path) -> Path:
    (root / "max0").write_text("1800000\n")
    (root / "trip0").write_text("50\n")
    (root / "temp1").write_text("38500 extra words\n")
    (root / "power1").write_text("NA\n")
    fake_sysfs(root, 0)
    lines = ["sensor cpu0 temperature_c path={r}/temp0 scale=0.001",
             "sensor cpu0 frequency_hz path={r}/cur0 scale=1000",
             "sensor cpu0 max_frequency_hz path={r}/max0 scale=1000",
             "sensor cpu0 cap_frequency_hz path={r}/cap0 scale=1000",
             "sensor cpu0 throttle_temperature_c path={r}/trip0",
             "sensor cpu0 load cpus=0,1 stat={r}/stat",
             "sensor cpu1 temperature_c path={r}/temp1 scale=0.001",
             "sensor cpu1 power_w path={r}/power1  # unreadable while running: not available"]
    path = root / "sensors.txt"
    path.write_text("".join(line.format(r=root) + "\n" for line in lines))
    return path


def test_the_monitor_reads_the_files_and_the_trace_replays(
        binary: Path, tiny_models: dict[str, Path], tmp_path: Path) -> None:
    plan = candidates.lay_out(tmp_path, {m: tiny_models[m] for m in MODELS}, adms(), "adms",
                              CORES)
    (tmp_path / "header.json").write_text(json.dumps(plan.header))
    sysfs = tmp_path / "sysfs"
    sysfs.mkdir()
    sensors = sensors_file(sysfs)
    arrivals = tmp_path / "arrivals.txt"
    arrivals.write_text("".join(f"{k * 8_000_000} {m} {s}\n" for k in range(40)
                                for s, m in enumerate(MODELS)))
    command = [str(binary), "--plan", str(plan.layout.plan), "--slices",
               str(plan.layout.slices), "--log", str(tmp_path / "jobs.tsv"), "--arrivals",
               str(arrivals), "--policy", str(tmp_path / "header.json"), "--decisions",
               str(tmp_path / "trace.jsonl"), "--sensors", str(sensors),
               "--sensor-interval-ms", "10", "--sensor-log", str(tmp_path / "sensors.tsv")]
    with subprocess.Popen(command, stderr=subprocess.PIPE, text=True) as runner:
        for k in range(1, 1000):
            if runner.poll() is not None:
                break
            time.sleep(0.03)
            fake_sysfs(sysfs, min(k, 8))
        assert runner.wait(timeout=300) == 0, runner.stderr.read() if runner.stderr else ""
    header, *rows = [line.split("\t") for line in
                     (tmp_path / "sensors.tsv").read_text().splitlines()]
    assert header == LOG_COLUMNS
    cpu0 = [dict(zip(LOG_COLUMNS, r, strict=True)) for r in rows if r[1] == "cpu0"]
    cpu1 = [dict(zip(LOG_COLUMNS, r, strict=True)) for r in rows if r[1] == "cpu1"]
    assert len(cpu0) == len(cpu1) >= 5
    assert cpu0[0]["load"] == "" and {r["load"] for r in cpu0[1:]} <= {"0.75", ""}
    assert "0.75" in {r["load"] for r in cpu0}
    assert {r["throttled"] for r in cpu0} == {"0", "1"}
    assert {r["max_frequency_hz"] for r in cpu0} == {"1800000000.0"}
    assert {(r["temperature_c"], r["power_w"], r["throttled"]) for r in cpu1} == {
        ("38.5", "", "")}
    lines = [json.loads(line) for line in (tmp_path / "trace.jsonl").read_text().splitlines()]
    states = [p["state"] for line in lines[1:] if line["call"] == "schedule"
              for p in line["processors"]]
    assert all(s is not None for s in states)
    assert {s["processor"] for s in states} == {"cpu0", "cpu1"}
    assert {s["throttled"] for s in states if s["processor"] == "cpu0"} == {False, True}
    assert check_phone_trace(tmp_path / "trace.jsonl") is None
    replayed = subprocess.run([str(native.BUILD / "replay"), str(tmp_path / "trace.jsonl")],
                              capture_output=True, text=True)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr


@pytest.mark.parametrize(("line", "message"), [
    ("sensor cpu0 temperature_c path={r}/nowhere", "cannot read {r}/nowhere"),
    ("sensor gpu temperature_c path={r}/max0", "no processor gpu"),
    ("sensor cpu0 colour path={r}/max0", "unknown field 'colour'"),
    ("sensor cpu0 load", "load wants cpus="),
])
def test_a_bad_sensor_line_is_one_error(binary: Path, tiny_models: dict[str, Path],
                                        tmp_path: Path, line: str, message: str) -> None:
    layout = native.lay_out(tmp_path, {"chain": tiny_models["chain"]}, 1, CORES[:1])
    (tmp_path / "max0").write_text("1\n")
    sensors = tmp_path / "sensors.txt"
    sensors.write_text(line.format(r=tmp_path) + "\n")
    got = error_of(native.run(binary, layout, "--frames", "1", "--sensors", str(sensors),
                              check=False))
    assert f"sensors.txt:1: {message.format(r=tmp_path)}" in got
