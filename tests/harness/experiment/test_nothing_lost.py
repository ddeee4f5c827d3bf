"""Nothing measured is lost (issue 25), with real ``python -m harness`` processes on the twin:
a run compared while it runs ends with the rows of an undisturbed run of the same seed; of
two runs racing for one folder exactly one records and the other is refused with one line;
a closed or ASCII-only stdout costs no file; a SIGTERM during start-up leaves a manifest; a
disk that fills gives one line and keeps what fit."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from harness.reporting.compare import compare
from harness.reporting.store import load_run
from tests.fixtures.paths import REPO

RUN = ("scenario=single", "seed.count=1", "run=[tflite]", "plots=false")


def _start(folder: Path, *extra: str, env: dict[str, str] | None = None,
           stdout: int | None = subprocess.DEVNULL) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    return subprocess.Popen([sys.executable, "-m", "harness", *RUN, *extra,
                             f"hydra.run.dir={folder}"], cwd=REPO, env=env, stdout=stdout,
                            stderr=subprocess.PIPE, text=True)


def _manifest(folder: Path) -> dict:
    return json.loads((folder / "manifest.json").read_text())


def _rows(folder: Path) -> dict[str, pd.DataFrame]:
    data = load_run(folder)
    return {"requests": data.requests, "subgraphs": data.subgraphs, "sensors": data.sensors}


def _caught_running(folder: Path) -> tuple[subprocess.Popen[str], int]:
    """A run stopped (SIGSTOP) with rows in its journal while it still runs: the simulated
    duration grows tenfold until one is (the compiled core runs 40 simulated seconds in well
    under one). A run that got past its journal before the stop is continued and retried."""
    for duration in (40, 400, 4000):
        shutil.rmtree(folder, ignore_errors=True)
        proc = _start(folder, f"scenario.duration_s={duration}")
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline:
            if (folder / "requests.arrows").exists() and load_run(folder).requests.size:
                os.kill(proc.pid, signal.SIGSTOP)
                if proc.poll() is None and not (folder / "requests.parquet").exists():
                    return proc, duration
                os.kill(proc.pid, signal.SIGCONT)
                break
            time.sleep(0.05)
        proc.kill()
        proc.communicate()
    raise AssertionError("no run was caught while it ran")


def test_a_run_compared_while_it_runs_loses_nothing(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """The run is stopped (SIGSTOP) once seen running, so the comparison looks at a run that
    is certainly still going however fast it is, then continued: a simulated run's rows do
    not depend on wall-clock pauses."""
    live, quiet = tmp_path / "live", tmp_path / "quiet"
    proc, duration = _caught_running(live)
    try:
        assert compare([str(live)], 5.0) == 0  # mid-run
        assert f"FLAG {live}: the run is still going (pid {proc.pid})" in capsys.readouterr().out
        assert (live / "requests.arrows").exists() and not (live / "requests.parquet").exists()
        os.kill(proc.pid, signal.SIGCONT)
        _, err = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGCONT)
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    other = _start(quiet, f"scenario.duration_s={duration}")
    _, err = other.communicate(timeout=600)
    assert other.returncode == 0, err
    assert _manifest(live)["status"] == "completed"
    mine, theirs = _rows(live), _rows(quiet)
    assert len(mine["requests"]) > 0
    for name in ("requests", "subgraphs"):
        pd.testing.assert_frame_equal(mine[name], theirs[name], check_exact=True)


def _race(folder: Path) -> list[tuple[int, str]]:
    procs = [_start(folder, "scenario.duration_s=2") for _ in range(2)]
    return [(p.wait(timeout=600), p.communicate()[1]) for p in procs]


@pytest.mark.parametrize("tries", [pytest.param(2, id="2"),
                                   pytest.param(10, id="10", marks=pytest.mark.slow)])
def test_of_two_runs_racing_for_one_folder_exactly_one_records(tmp_path: Path,
                                                               tries: int) -> None:
    for k in range(tries):
        folder = tmp_path / f"race {k}"
        ended = sorted(_race(folder))
        (ok, _), (refused, err) = ended
        assert (ok, refused) == (0, 2), ended
        assert err.strip().count("\n") == 0 and err.startswith("error: results folder")
        assert "already holds a run" in err
        assert _manifest(folder)["status"] == "completed" and len(load_run(folder).requests)
        overrides = (folder / ".hydra" / "overrides.yaml").read_text()
        assert "scenario.duration_s=2" in overrides


def test_a_quoted_run_dir_is_checked_as_hydra_uses_it(tmp_path: Path) -> None:
    folder = tmp_path / "a b"
    folder.mkdir()
    (folder / "manifest.json").write_text("{}")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-m", "harness", *RUN, "scenario.duration_s=1",
                           f"hydra.run.dir='{folder}'"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2 and "already holds a run" in proc.stderr, proc.stderr
    assert not (folder / ".hydra").exists()


def test_a_closed_or_ascii_stdout_costs_no_file(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "LANG": "C", "LC_ALL": "C",
           "PYTHONIOENCODING": "ascii"}
    folder = tmp_path / "ascii"
    cmd = (f"{sys.executable} -m harness {' '.join(RUN)} scenario.duration_s=1 plots=true "
           f"hydra.run.dir={folder} | head -1")
    proc = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert _manifest(folder)["status"] == "completed"
    assert (folder / "summary.csv").exists() and list(folder.glob("*.png"))


def test_sigterm_during_start_up_leaves_an_interrupted_manifest(tmp_path: Path) -> None:
    folder = tmp_path / "early"
    proc = _start(folder, "scenario.duration_s=5")
    deadline = time.monotonic() + 60
    while not (folder / "run.lock").exists():
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.01)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 128 + signal.SIGTERM, err
    manifest = _manifest(folder)
    assert manifest["status"] == "interrupted" and manifest["signal"] == "SIGTERM"


def _mount_tmpfs(folder: Path, size: str) -> bool:
    folder.mkdir()
    if shutil.which("mount") is None or os.geteuid() != 0:
        return False
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
                          capture_output=True, check=False)
    return done.returncode == 0


def test_a_disk_that_fills_mid_run_gives_one_line_and_keeps_what_fit(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    if not _mount_tmpfs(disk, "8m"):
        pytest.skip("mounting a tmpfs needs root and a mount that permits it")
    try:
        folder = disk / "run"
        proc = _start(folder, "scenario.duration_s=600", "scenario=frs")
        _, err = proc.communicate(timeout=900)
        lines = [ln for ln in err.splitlines() if ln.strip()]
        assert proc.returncode == 2, err
        assert lines[-1].startswith("error: ") and "No space left" in lines[-1], err
        assert "Traceback" not in err
        manifest = _manifest(folder)
        assert manifest["status"] == "failed" and "No space left" in manifest["error"]
        data = load_run(folder)  # what fit is kept, and readable (which table's rows fit
        # first depends on when each journal flushed its batch before the disk was full)
        assert len(data.requests) + len(data.subgraphs) + len(data.sensors) > 0
    finally:
        subprocess.run(["umount", str(disk)], check=False)


def test_a_wall_clock_that_stood_still_is_flagged(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from harness.experiment.outcome import ClockGaps, SessionState
    from tests.harness.reporting.test_metrics import small_run

    state = SessionState()
    gaps = ClockGaps(100_000_000, state.gaps)
    for now_ns in (0, 100_000_000, 210_000_000, 10_300_000_000, 10_400_000_000):
        gaps.see("tflite", 0, now_ns)  # a 10 s stop between 0.21 s and 10.3 s
    assert state.gaps == [{"baseline": "tflite", "seed": 0, "at_s": 0.21, "gap_s": 10.09}]
    folder = tmp_path / "host"
    small_run(folder, manifest={"status": "completed", **state.manifest()})
    compare([str(folder)], 5.0)
    assert "the wall clock stood still 1 time(s) (longest 10.1 s)" in capsys.readouterr().out
