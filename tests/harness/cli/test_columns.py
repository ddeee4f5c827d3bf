"""At ``COLUMNS=80`` every command's output fits 80 columns and names every row: the run,
``harness report``, ``harness runs``, ``harness list``, ``harness.compare``,
``harness.zoo list`` and ``harness.analyze``, each run as a user runs it (a subprocess whose
output is a pipe)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures.paths import REPO

#: seven subprocesses, a run among them: about 1 min on 2 idle cores
pytestmark = pytest.mark.slow

ROWS = ("tflite_gpu", "band", "adms")


def run(*args: str) -> str:
    env = {**os.environ, "COLUMNS": "80"}
    proc = subprocess.run([sys.executable, *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


#: characters only a drawn table or box has
DRAWN = set("│┃┏┡└╭╰")


def assert_fits(text: str) -> None:
    """Every line of a table or box fits 80 columns and no cell is cut (a line of prose
    naming a long path may be longer: the terminal wraps it, whole)."""
    drawn = [line for line in text.splitlines() if DRAWN & set(line)]
    assert [line for line in drawn if len(line) > 80] == []
    assert [line for line in drawn if "…" in line] == []


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("columns") / "results"
    out = run("-m", "harness", f"run=[{','.join(ROWS)}]", "scenario.duration_s=0.5",
              "scenario.warmup_s=0.1", "seed.count=2",
              f"hydra.run.dir={root / 'k50pro' / 'run'}")
    return root, out


def test_the_run_fits(results: tuple[Path, str]) -> None:
    _, out = results
    assert_fits(out)
    assert all(row in out for row in ROWS)


@pytest.mark.parametrize("command", [
    ["report", "{run}", "--no-plots", "--out", "{root}/../report"], ["runs", "{root}"],
    ["list"], ["compare", "{run}", "{run}"], ["zoo", "list"],
    ["analyze", "device=k50pro", "model=all", "hydra.run.dir={root}/../analyze"]],
    ids=lambda c: c[0])
def test_every_command_fits(results: tuple[Path, str], command: list[str]) -> None:
    root, _ = results
    args = [a.format(run=root / "k50pro" / "run", root=root) for a in command]
    out = run("-c", "import sys; from harness.cli.main import main; main(sys.argv[1:])",
              *args)
    assert_fits(out)
    if command[0] in ("report", "compare"):
        assert all(f"│ {row} " in out for row in ROWS)  # every row named in its table
    if command[0] == "zoo":
        assert "mobilenet_v1" in out and "top op types" in out
