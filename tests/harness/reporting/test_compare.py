"""``python -m harness.compare``: exit 0, 1 on a regression, 2 on a bad folder."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.harness.reporting.test_metrics import small_run


def compare(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness.compare", *args],
                          capture_output=True, text=True, check=False)


def test_same_runs_pass(tmp_path: Path) -> None:
    small_run(tmp_path / "a")
    small_run(tmp_path / "b")
    done = compare(str(tmp_path / "a"), str(tmp_path / "b"))
    assert done.returncode == 0, done.stderr
    assert "TWIN = SIMULATION" in done.stdout
    assert "no regressions" in done.stdout


def test_slower_run_is_a_regression(tmp_path: Path) -> None:
    small_run(tmp_path / "a")
    small_run(tmp_path / "b", speed={"adms": 1.5})
    done = compare(str(tmp_path / "a"), str(tmp_path / "b"), "--tolerance", "10")
    assert done.returncode == 1, done.stderr
    flagged = [line for line in done.stdout.splitlines() if line.startswith("REGRESSION")]
    assert len(flagged) == 1 and "adms latency_p90_ms" in flagged[0]


def test_tolerance_lets_small_changes_pass(tmp_path: Path) -> None:
    small_run(tmp_path / "a")
    small_run(tmp_path / "b", speed={"adms": 1.5})
    assert compare(str(tmp_path / "a"), str(tmp_path / "b"), "--tolerance", "200").returncode == 0


def test_bad_folder_is_one_line_exit_2(tmp_path: Path) -> None:
    small_run(tmp_path / "a")
    (tmp_path / "empty").mkdir()
    done = compare(str(tmp_path / "a"), str(tmp_path / "empty"))
    assert done.returncode == 2
    assert done.stderr.strip().startswith("error: ")
    assert len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr
