"""A sweep over ``seed.base`` says when its jobs repeat seeds; progress lines of a sweep
name their job."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from harness.config.sweep import seed_note
from tests.fixtures.paths import REPO


def test_overlapping_seed_bases_are_said_with_their_counts() -> None:
    jobs = [(["seed.base=0"], [0, 1, 2, 3, 4]), (["seed.base=1"], [1, 2, 3, 4, 5]),
            (["seed.base=2"], [2, 3, 4, 5, 6])]
    note = seed_note(jobs)
    assert note.startswith("note: these jobs run 15 seed-runs over 7 distinct seeds")
    assert "seed.count=1" in note


def test_disjoint_seeds_or_other_settings_say_nothing() -> None:
    assert seed_note([(["seed.base=0", "seed.count=1"], [0]),
                      (["seed.base=1", "seed.count=1"], [1])]) == ""
    # the same seeds under other settings (another device) are no repetition
    assert seed_note([(["device=p20"], [0, 1]), (["device=k50pro"], [0, 1])]) == ""


def test_a_sweep_says_so_and_names_each_job_in_its_progress(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "harness", "-m", "seed.base=0,1", "seed.count=2", "run=[adms]",
         "scenario.duration_s=0.2", "scenario.warmup_s=0.1", "plots=false",
         f"hydra.sweep.dir={tmp_path}"], cwd=REPO, capture_output=True, text=True,
        timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "4 seed-runs over 3 distinct seeds" in proc.stderr
    progress = [ln for ln in proc.stdout.splitlines() if ln.startswith("progress")]
    assert any(ln.startswith("progress job 0 (") and "seed.base=0" in ln for ln in progress)
    assert any(ln.startswith("progress job 1 (") and "seed.base=1" in ln for ln in progress)
