"""``python -m harness.compare``: exit 0, 1 on a regression, 2 on a bad folder."""

from __future__ import annotations

import os
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


def test_a_candidate_without_requests_fails_without_a_traceback(tmp_path: Path) -> None:
    import pyarrow.parquet as pq
    small_run(tmp_path / "a")
    small_run(tmp_path / "b")
    rows = pq.read_table(tmp_path / "b/requests.parquet")
    pq.write_table(rows.slice(0, 0), tmp_path / "b/requests.parquet")
    done = compare(str(tmp_path / "a"), str(tmp_path / "b"))
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "finished no request" in done.stdout


def test_markdown_on_an_ascii_terminal_is_printed(tmp_path: Path) -> None:
    small_run(tmp_path / "a")
    done = subprocess.run([sys.executable, "-m", "harness.compare", str(tmp_path / "a"),
                           "--markdown"], capture_output=True, text=True, check=False,
                          env={**os.environ, "PYTHONIOENCODING": "ascii"})
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
