"""Farm nights as real ``python -m harness.farm`` processes (a K50 Pro twin cell, Hydra's basic
launcher): two farms started on one night (the second is refused in one line, the first's
cell is not recorded failed), a cell folder another process records into (``BUSY``, not
failed), and a previous night whose ``requests.parquet`` is damaged (one failed comparison;
the report is written)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from harness.farm.cell import run_cell
from harness.farm.lock import holding
from harness.farm.night import collect
from harness.farm.plan import Cell
from tests.fixtures.paths import REPO

CELL = "k50/frs/tflite/seed0"
INVENTORY = ("phones: []\ntwins: [{name: k50, device: k50pro, baselines: [tflite], "
             "overrides: []}]\n")
SHORT = "matrix.overrides=['plots=false','scenario.duration_s=0.2','scenario.warmup_s=0.1']"
ENV = {**os.environ, "HARNESS_NATIVE": "0"}


def farm_command(tmp: Path, night: str) -> list[str]:
    (tmp / "conf" / "inventory").mkdir(parents=True, exist_ok=True)
    (tmp / "conf" / "inventory" / "lab.yaml").write_text(INVENTORY)
    return [sys.executable, "-m", "harness.farm", f"hydra.searchpath=[file://{tmp / 'conf'}]",
            "inventory=lab", f"results={tmp / 'farm'}", f"lock_dir={tmp / 'locks'}",
            "launcher=basic", SHORT, f"night={night}"]


def farm(tmp: Path, night: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(farm_command(tmp, night), cwd=REPO, capture_output=True, text=True,
                          timeout=300, check=False, env=ENV)


def summary(tmp: Path, night: str) -> dict[str, Any]:
    return dict(json.loads((tmp / "farm" / night / "summary.json").read_text()))


def test_a_second_farm_on_a_night_is_refused_and_the_first_cell_stands(tmp_path: Path) -> None:
    first = subprocess.Popen(farm_command(tmp_path, "n1"), cwd=REPO, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=ENV)
    deadline = time.monotonic() + 120
    while not (tmp_path / "farm" / "n1" / "plan.json").exists():  # the night is held
        assert first.poll() is None and time.monotonic() < deadline, first.communicate()
        time.sleep(0.05)
    second = farm(tmp_path, "n1")
    _, err = first.communicate(timeout=300)
    assert second.returncode == 2, second.stderr
    lines = [ln for ln in second.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: night n1 is being run by another "
                                                   f"farm (pid {first.pid}"), second.stderr
    assert first.returncode == 0, err
    assert summary(tmp_path, "n1")["failed"] == []
    assert "1 cells, 0 failed" in (tmp_path / "farm" / "n1" / "report.md").read_text()


def test_a_cell_another_process_records_into_is_busy_not_failed(tmp_path: Path) -> None:
    folder = tmp_path / "farm" / "n1" / CELL
    with subprocess.Popen(
            [sys.executable, "-c", "import sys, time; from pathlib import Path; "
             "from harness.seams import claim; claim.claim(Path(sys.argv[1])); print('held', "
             "flush=True); time.sleep(600)", str(folder)],
            cwd=REPO, stdout=subprocess.PIPE, text=True) as holder:
        try:
            assert holder.stdout is not None and holder.stdout.readline() == "held\n"
            done = farm(tmp_path, "n1")
        finally:
            holder.kill()
    assert done.returncode == 3, done.stderr
    assert f"BUSY {CELL}: another process (pid {holder.pid})" in done.stderr
    assert "FAILED" not in done.stderr
    night = summary(tmp_path, "n1")
    assert night["failed"] == [] and [o["cell"] for o in night["busy"]] == [CELL]
    assert "1 cells, 0 failed, 1 busy" in (tmp_path / "farm" / "n1" / "report.md").read_text()


def test_a_damaged_previous_night_is_one_failed_comparison(tmp_path: Path) -> None:
    assert farm(tmp_path, "n1").returncode == 0
    parquet = tmp_path / "farm" / "n1" / CELL / "requests.parquet"
    parquet.write_bytes(parquet.read_bytes()[:300])
    done = farm(tmp_path, "n2")
    assert done.returncode == 3, done.stderr
    assert f"COMPARISON FAILED {CELL}: night n1:" in done.stderr and "Traceback" not in done.stderr
    report = (tmp_path / "farm" / "n2" / "report.md").read_text()
    assert "1 comparisons failed" in report and f"`{CELL}` (n1)" in report
    assert summary(tmp_path, "n2")["failed"] == []


def test_a_cell_whose_phone_another_job_holds_is_busy_not_failed(tmp_path: Path) -> None:
    """The phone's lock held past the timeout by another holder (another open file: flock
    locks of two descriptions conflict in one process too)."""
    cell = Cell("p0", "adb", "127.0.0.1:5601", "frs", "tflite_stock", 0, ())
    plan = {"night": str(tmp_path / "n1"), "lock_dir": str(tmp_path / "locks"),
            "lock_timeout_s": 0.2}
    with holding(tmp_path / "locks", cell.serial, 1.0):
        found = run_cell(plan, cell)
    assert found["status"] == "busy" and "stayed locked by another job" in found["error"]
    night = collect(tmp_path / "n1", [cell])
    assert night.failed == [] and [o["cell"] for o in night.busy] == [cell.id]
