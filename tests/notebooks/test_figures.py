"""The paper's figures hold to what a run's plots hold to: titled, footed with provenance
(kinds, devices, scenarios, seeds, versions, commit) and nothing drawn over anything. Each
figure a notebook saves leaves its overlap check beside it (``figures/<name>.layout.json``,
:func:`harness.paper.figures.save`); the default run checks Table V's figure
(``small_report``), the slow run every figure of the paper."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.paper import figures
from harness.paper.build import Built
from harness.reporting import layout

#: the figures the notebooks draw themselves (the others are a run's plots,
#: tests/harness/reporting/test_figures.py)
DRAWN = ("fig6", "fig9", "fig10_util", "table2", "table5")


def checks(out: Path) -> dict[str, dict[str, object]]:
    """Figure name -> its saved check."""
    folder = out / "report" / figures.FOLDER
    return {p.name.removesuffix(".layout.json"): json.loads(p.read_text())
            for p in sorted(folder.glob("*.layout.json"))}


def assert_clean(found: dict[str, dict[str, object]]) -> None:
    assert {name: c["overlaps"] for name, c in found.items()} == {n: [] for n in found}
    for name, check in found.items():
        footer = str(check["footer"])
        for fact in ("twin = SIMULATION", "k50pro", "seed 0-1 (2 seeds)", "numpy", "commit"):
            assert fact in footer, (name, fact)


def test_table5s_figure_is_footed_and_clean(small_report: tuple[Built, Path]) -> None:
    found = checks(small_report[1])
    assert "table5" in found
    assert_clean(found)


def test_the_check_would_catch_a_legend_over_the_data(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    fig = figures.figure(4, 3)
    ax = fig.subplots()
    ax.plot([0, 1], [0, 1], label="a line")
    ax.legend(loc="center")
    figures.save(fig, "a figure", [], "bad")
    saved = json.loads((tmp_path / "figures" / "bad.layout.json").read_text())
    assert any("legend over the plot" in line for line in saved["overlaps"])
    assert saved["overlaps"] == layout.overlaps(fig)


@pytest.mark.slow
def test_every_figure_of_the_paper_is_footed_and_clean(
        paper_report: tuple[Built, Path]) -> None:
    found = checks(paper_report[1])
    assert set(DRAWN) <= set(found)
    assert_clean(found)
