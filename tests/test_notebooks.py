"""Every notebook in ``notebooks/`` (jupytext percent format) executes without error.

A notebook whose modules do not exist yet is skipped, naming what it waits for.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

jupytext = pytest.importorskip("jupytext")
nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"

#: notebook -> (module, attribute) pairs it needs
NEEDS = {
    "fig8_fps.py": [("harness.results", "RunRecorder"), ("harness.report", "report_table")],
    "table3_subgraphs.py": [("adms.analyzer", "analyze"), ("harness.opsupport", "support_table"),
                            ("harness.zoo", "load_graph")],
}


def missing(needs: list[tuple[str, str]]) -> list[str]:
    absent = []
    for module, attribute in needs:
        try:
            found = hasattr(importlib.import_module(module), attribute)
        except ImportError:
            found = False
        if not found:
            absent.append(f"{module}.{attribute}")
    return absent


def execute(path: Path, cwd: Path) -> None:
    """Run every cell in a fresh kernel (which inherits this process's environment)."""
    client = nbclient.NotebookClient(jupytext.read(path), timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(cwd)}})
    client.execute()


@pytest.mark.parametrize("name", sorted(NEEDS))
def test_notebook_runs(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    absent = missing(NEEDS[name])
    if absent:
        pytest.skip(f"{name} needs {', '.join(absent)}, not written yet")
    monkeypatch.delenv("RESULTS_DIR", raising=False)
    execute(NOTEBOOKS / name, tmp_path)


def test_every_notebook_is_listed() -> None:
    assert sorted(p.name for p in NOTEBOOKS.glob("*.py")) == sorted(NEEDS)


def test_fig8_reads_a_run_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.test_metrics import small_run

    small_run(tmp_path / "run")
    monkeypatch.setenv("RESULTS_DIR", str(tmp_path))
    execute(NOTEBOOKS / "fig8_fps.py", tmp_path)
    assert (tmp_path / "run" / "fps.png").stat().st_size > 0
