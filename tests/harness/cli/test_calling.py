"""A run's last line says how this shell calls ``harness``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from harness.cli.calling import harness_command, next_steps

SCRIPT = Path(sys.executable).parent / "harness"
needs_script = pytest.mark.skipif(not SCRIPT.is_file(), reason="no harness script installed")


@needs_script
def test_on_the_path_it_is_plain_harness(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(SCRIPT.parent))
    assert harness_command() == "harness"
    assert next_steps(Path("results/x")) == ("results: results/x · next: `harness report "
                                             "results/x`, `harness runs`")


@needs_script
def test_off_the_path_it_is_the_venvs_script(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    monkeypatch.chdir(SCRIPT.parents[2])  # the folder holding .venv
    relative = str(SCRIPT.relative_to(SCRIPT.parents[2]))
    assert harness_command() == relative
    line = next_steps(Path("results/x"))
    assert f"`{relative} report results/x`" in line
    if relative.startswith(".venv"):
        assert "source .venv/bin/activate" in line
