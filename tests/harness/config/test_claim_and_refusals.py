"""A run claims its folder only once its config composed and validated, and the refusals of
odd input are one line (real ``python -m harness`` processes, and ``main()`` in this process
with ``sys.argv`` set): a typo, then the corrected command into the same folder; a list given
to a single-valued group without ``-m``; a run folder that is a dangling symlink or lies under
a symlink loop; an SLO multiplier whose nanoseconds would overflow; ``harness.compare`` on a
requests table missing a column or holding text where numbers belong."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from harness.__main__ import main
from harness.experiment.slo import slo_ns
from harness.seams.errors import UserError
from tests.fixtures.paths import REPO

RUN = ("scenario=single", "scenario.duration_s=0.2", "scenario.warmup_s=0.1", "seed.count=1",
       "plots=false", "run=[tflite]")
ENV = {**os.environ, "HARNESS_NATIVE": "0"}


def python(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=REPO, env=ENV, capture_output=True,
                          text=True, timeout=300, check=False)


def one_error_line(err: str, *needles: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def test_a_typo_then_its_fix_into_one_folder_and_compare_checks_tables(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    typo = python("-m", "harness", *RUN, "scenario.duraton_s=0.2", f"hydra.run.dir={folder}")
    assert typo.returncode == 2
    one_error_line(typo.stderr, "duraton_s")
    assert not folder.exists() or not any(folder.iterdir())  # nothing claimed
    fixed = python("-m", "harness", *RUN, f"hydra.run.dir={folder}")
    assert fixed.returncode == 0, fixed.stderr
    assert json.loads((folder / "manifest.json").read_text())["status"] == "completed"
    for name, damage in (("dropped", lambda f: f.drop(columns=["end_ns"])),
                         ("text", lambda f: f.assign(end_ns=f["end_ns"].astype(str)))):
        copy = tmp_path / name
        shutil.copytree(folder, copy)
        table = copy / "requests.parquet"
        damage(pd.read_parquet(table)).to_parquet(table)
        done = python("-m", "harness.compare", str(folder), str(copy))
        assert done.returncode == 2, done.stdout + done.stderr
        one_error_line(done.stderr, str(copy), "requests table", "'end_ns'")


def symlinked(tmp: Path, kind: str) -> Path:
    if kind == "dangling":
        (tmp / "link").symlink_to(tmp / "nowhere")
        return tmp / "link"
    (tmp / "a").symlink_to(tmp / "b")
    (tmp / "b").symlink_to(tmp / "a")
    return tmp / "a" / "run"


@pytest.mark.parametrize(("args", "needles"), [
    (["device=[k50pro,p20]"], ["device=[k50pro,p20] gives a list to device", "-m device="]),
    (["scenario.slo_multiplier=1e13"], ["scenario.slo_multiplier=", "<= 1000000"]),
    (["@dangling"], ["is a symlink to", "which does not exist"]),
    (["@loop"], ["is a symlink loop"]),
])
def test_odd_input_is_one_line_and_claims_nothing(
        args: list[str], needles: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "run"
    if args[0].startswith("@"):
        folder, args = symlinked(tmp_path, args[0][1:]), []
    monkeypatch.chdir(REPO)
    monkeypatch.setattr(sys, "argv", ["harness", *RUN, *args, f"hydra.run.dir={folder}"])
    with pytest.raises(SystemExit) as ended:
        main()
    assert ended.value.code == 2
    one_error_line(capsys.readouterr().err, *needles)
    assert not os.path.lexists(tmp_path / "run")


def test_an_slo_is_bounded_where_it_becomes_nanoseconds() -> None:
    assert slo_ns("m", 2.0, 5_000_000) == 10_000_000
    with pytest.raises(UserError, match=r"slo_multiplier=1e\+06 makes m's SLO 2e\+06 s"):
        slo_ns("m", 1e6, 2_000_000_000)
