"""A sweep with a failing job, run as a real ``python -m harness -m`` process: the failing
job is recorded in its own folder, the jobs beside and after it run and keep their results,
and the sweep ends with one line per job and exit code 1 (joblib and basic launchers)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures.paths import REPO

TINY = ("scenario.duration_s=0.2", "scenario.warmup_s=0.1", "seed.count=1", "plots=false",
        "run=[tflite]")


def sweep(tmp_path: Path, *launcher: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    bad = tmp_path / "bad.tflite"
    bad.write_bytes(b"not a model" * 100)
    out = tmp_path / "sweep"
    proc = subprocess.run(
        [sys.executable, "-m", "harness", "-m", *launcher, f"hydra.sweep.dir={out}", *TINY,
         f"scenario.models=[mobilenet_v1],[{bad}],[mobilenet_v1]"],
        cwd=REPO, capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "HARNESS_NATIVE": "0"})
    return proc, out / "k50pro" / "frs"


def status(folder: Path) -> str:
    return str(json.loads((folder / "manifest.json").read_text())["status"])


@pytest.mark.parametrize("launcher", [["hydra/launcher=joblib"], []], ids=["joblib", "basic"])
def test_a_failing_job_is_its_own(tmp_path: Path, launcher: list[str]) -> None:
    proc, jobs = sweep(tmp_path, *launcher)
    assert proc.returncode == 1, proc.stderr
    assert [status(jobs / n) for n in "012"] == ["completed", "failed", "completed"]
    assert "not a TFLite model" in json.loads((jobs / "1" / "manifest.json").read_text())[
        "error"]
    for n in "02":
        assert (jobs / n / "requests.parquet").exists()
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("  job #")]
    assert [ln.split("]: ")[1].split()[0] for ln in lines] == [
        "completed", "failed:", "completed"], proc.stdout
    errors = [ln for ln in proc.stderr.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1 and "sweep job #1" in errors[0], proc.stderr
    assert "Traceback" not in proc.stderr
