"""Every notebook in ``notebooks/`` (jupytext percent format) executes without error."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixtures.paths import REPO

jupytext = pytest.importorskip("jupytext")
nbclient = pytest.importorskip("nbclient")

ROOT = REPO
NOTEBOOKS = ROOT / "notebooks"
NAMES = ["fig8_fps.py", "table3_subgraphs.py", "table5_single_model.py"]


def execute(path: Path, cwd: Path) -> None:
    """Run every cell in a fresh kernel (which inherits this process's environment)."""
    client = nbclient.NotebookClient(jupytext.read(path), timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(cwd)}})
    client.execute()


@pytest.mark.parametrize("name", NAMES)
def test_notebook_runs(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RESULTS_DIR", raising=False)
    monkeypatch.setenv("DURATION_S", "1")
    execute(NOTEBOOKS / name, tmp_path)


def test_every_notebook_is_listed() -> None:
    assert sorted(p.name for p in NOTEBOOKS.glob("*.py")) == sorted(NAMES)


def test_fig8_reads_a_run_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.harness.reporting.test_metrics import small_run

    small_run(tmp_path / "run")
    monkeypatch.setenv("RESULTS_DIR", str(tmp_path))
    execute(NOTEBOOKS / "fig8_fps.py", tmp_path)
    assert (tmp_path / "run" / "fps.png").stat().st_size > 0
