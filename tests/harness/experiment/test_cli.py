"""`python -m harness`: bad input ends in one line on stderr, exit code 2, no traceback.

Two cases run as real ``python -m harness`` processes (an unknown device, a bad sweep value
under ``-m``); the others call the same ``main()`` in this process with ``sys.argv`` set, and
read its exit code and its stderr (a subprocess per case costs seconds of imports).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness.__main__ import main
from tests.fixtures.paths import REPO

ROOT = REPO


def run_harness(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harness", *args], cwd=cwd, capture_output=True, text=True,
        timeout=300, check=False,
    )


def assert_user_error(proc: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    for needle in needles:
        assert needle in lines[0]


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["device=pixel9"], ["pixel9"]),
        (["-m", "seed.base=0,1", "scenario.duration_s=-"], ["scenario.duration_s"]),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    args: list[str], needles: list[str], tmp_path: Path
) -> None:
    assert_user_error(run_harness(*args, f"hydra.run.dir={tmp_path}", cwd=ROOT), *needles)


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["baselines.band.scheduler=fastest_first"], ["fastest_first"]),
        (["scenario.slo_multiplier=-1", "run=[adms]"], ["slo_multiplier", "-1"]),
        (["scenario.models=[mobilenet_v2,resnet999]"], ["resnet999"]),
        (["run=[adms,magic]"], ["magic"]),
        (["scenario.models=[mobilenet_v1,mobilenet_v1]"], ["mobilenet_v1", "more than once"]),
        (["device=adb", "run=[adms,threads]"], ["threads", "runs only on a host device"]),
        (["device.processors.1.twin.peak_gflops.float32=0", "run=[tflite]"], ["peak_gflops"]),
        (["device.twin.copy_fixed_us=null", "run=[tflite]"],
         ["boundary_copy is on", "copy_fixed_us", "device.twin.mechanisms.boundary_copy=false"]),
    ],
)
def test_bad_input_in_process_is_one_line_and_exit_2(
    args: list[str], needles: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(sys, "argv", ["harness", *args, f"hydra.run.dir={tmp_path}"])
    with pytest.raises(SystemExit) as ended:
        main()
    err = capsys.readouterr().err
    code = ended.value.code
    assert isinstance(code, int), code
    assert_user_error(subprocess.CompletedProcess(args, code, "", err), *needles)


def test_dry_run_prints_the_plan_and_measures_nothing(tmp_path: Path) -> None:
    proc = run_harness("dry_run=true", f"hydra.run.dir={tmp_path / 'run'}", cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert "TWIN" in proc.stdout and "nothing was measured" in proc.stdout
    assert not (tmp_path / "run").exists()  # no empty folder left behind


def test_a_dry_run_refuses_a_model_the_run_would_refuse(tmp_path: Path) -> None:
    from tests.harness.test_byo import custom_op_model

    model = custom_op_model(tmp_path / "lmk.tflite", "Landmarks2TransformMatrix")
    proc = run_harness("dry_run=true", "device=host", "scenario=single",
                       f"scenario.models=[{model}]", f"zoo_cache={tmp_path / 'cache'}",
                       f"hydra.run.dir={tmp_path / 'run'}", cwd=ROOT)
    errors = [ln for ln in proc.stderr.splitlines() if ln.startswith("error: ")]
    assert proc.returncode == 2 and "Traceback" not in proc.stderr  # (LiteRT's INFO line
    assert len(errors) == 1 and "Landmarks2TransformMatrix" in errors[0]  # comes first)
    assert "estimate" not in proc.stdout
