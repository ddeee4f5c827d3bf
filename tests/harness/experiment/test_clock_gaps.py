"""A host run stopped (SIGSTOP) and continued (SIGCONT) is flagged, not silently completed.

The host runs on the wall clock: a stop of several seconds carries it past the window's end,
so the run ends at once, with a few seconds of requests standing for the whole window. The
run must say so: the gap in ``wall_clock_gaps``, each seed's ``coverage`` under
``min_coverage`` in ``flags``, a ``FLAG`` line on stderr, a ``flag`` column in
``summary.csv``, invalid verdicts and the same ``FLAG`` line from ``harness report``. A run
left alone on the same settings is not flagged (the control).

The unit tests below check :mod:`harness.reporting.coverage` on hand-made rows.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from harness.reporting import coverage
from harness.reporting.verdict import Verdict, Word, flag_short
from tests.devices.host.test_host_e2e import finished_requests, harness_args, zoo_dir
from tests.fixtures.paths import REPO

__all__ = ["zoo_dir"]  # (the fixture, imported for this module's tests)

#: a hang guard, not a timing check
WAIT_S = 120.0
#: the measured window, s, and how long the process is stopped, s (longer than the window)
WINDOW_S, STOP_S = 4.0, 6.0


def _run(zoo: Path, folder: Path, stop: bool) -> tuple[subprocess.CompletedProcess[str], dict]:
    args = harness_args(zoo, folder, "run=[tflite]", "seed.count=1", "scenario.warmup_s=0",
                        f"scenario.duration_s={WINDOW_S}")
    proc = subprocess.Popen(args, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        if stop:
            deadline = time.monotonic() + WAIT_S
            journal = folder / "requests.arrows"
            while not journal.exists() or finished_requests(journal) < 1:
                assert proc.poll() is None, proc.communicate()[1][-2000:]
                assert time.monotonic() < deadline, "no request finished"
                time.sleep(0.05)
            os.kill(proc.pid, signal.SIGSTOP)
            time.sleep(STOP_S)
            os.kill(proc.pid, signal.SIGCONT)
        out, err = proc.communicate(timeout=WAIT_S)
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGCONT)
            proc.kill()
            proc.communicate()
    done = subprocess.CompletedProcess(args, proc.returncode, out, err)
    return done, json.loads((folder / "manifest.json").read_text())


def test_a_stopped_host_run_is_flagged_everywhere(zoo_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "stopped"
    done, manifest = _run(zoo_dir, folder, stop=True)
    assert done.returncode == 0, done.stderr[-2000:]
    gaps = manifest["wall_clock_gaps"]
    assert gaps and max(g["gap_s"] for g in gaps) > STOP_S / 2
    share = manifest["coverage"]["tflite"]["0"]
    assert share < manifest["min_coverage"] == 0.9
    assert any("tflite seed 0 covered" in line for line in manifest["flags"])
    assert "FLAG: the wall clock jumped" in done.stderr
    summary = pd.read_csv(folder / "summary.csv")
    assert summary["flag"].fillna("").str.contains("covered").all()
    report = subprocess.run([sys.executable, "-c", "import sys; from harness.cli.main import main; "
                             "main(sys.argv[1:])", "report", str(folder),
                             "--out", str(tmp_path / "again")], cwd=REPO,
                            capture_output=True, text=True, timeout=WAIT_S)
    assert report.returncode == 0, report.stderr[-2000:]
    assert "FLAG: the wall clock jumped" in report.stdout


def test_a_run_left_alone_is_not_flagged(zoo_dir: Path, tmp_path: Path) -> None:
    done, manifest = _run(zoo_dir, tmp_path / "alone", stop=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "flags" not in manifest and "FLAG" not in done.stderr
    assert manifest["coverage"]["tflite"]["0"] >= 0.9


# -- the rules, on hand-made rows ------------------------------------------------------------


def _rows(ends_s: list[float]) -> pd.DataFrame:
    ns = [int(e * 1e9) for e in ends_s]
    return pd.DataFrame({"baseline": "a", "seed": 0, "arrival_ns": ns, "end_ns": ns})


def test_coverage_is_the_reach_into_the_window_less_its_gaps() -> None:
    assert coverage.shares(_rows([1.0, 3.0]), 1.0, 4.0) == {"a": {0: 0.5}}
    gap = {"baseline": "a", "seed": 0, "at_s": 2.0, "gap_s": 1.0}
    assert coverage.shares(_rows([1.0, 3.0]), 1.0, 4.0, [gap]) == {"a": {0: 0.25}}
    assert coverage.shares(_rows([9.0]), 1.0, 4.0) == {"a": {0: 1.0}}
    assert coverage.shares(_rows([]), 1.0, 4.0) == {}


def test_flags_name_the_short_seed_and_the_gaps() -> None:
    gap = {"baseline": "a", "seed": 0, "at_s": 2.0, "gap_s": 20.0}
    lines = coverage.flags({"a": {0: 0.2, 1: 0.95}}, 0.9, [gap])
    assert len(lines) == 2 and "longest 20.0 s" in lines[0]
    assert lines[1].startswith("a seed 0 covered 20%")
    manifest = {"coverage": {"a": {"0": 0.2}}, "min_coverage": 0.9, "wall_clock_gaps": [gap]}
    assert coverage.flagged_baselines(manifest) == {"a": "covered 20% of its window"}
    assert coverage.flagged_baselines({"coverage": {"a": {"0": 0.2}}}) == {}
    hiccup = {"baseline": "a", "seed": 0, "at_s": 2.0, "gap_s": 0.3}
    assert coverage.flags({"a": {0: 0.97}}, 0.9, [hiccup]) == []


@pytest.mark.parametrize("flagged", [{}, {"band": "covered 20% of its window"}])
def test_a_verdict_on_a_flagged_side_is_invalid(flagged: dict[str, str]) -> None:
    from harness.reporting.stats import Interval

    v = Verdict("adms", "band", Interval(1.2, 1.1, 1.3, (1.1, 1.2, 1.3)), Word.REPRODUCED, "")
    (out,) = flag_short([v], flagged)
    assert out.word is (Word.INVALID if flagged else Word.REPRODUCED)
    assert ("band covered 20%" in out.why) == bool(flagged)
