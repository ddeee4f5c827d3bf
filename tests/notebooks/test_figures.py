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


# -- the drawings, on hand-made data ---------------------------------------------------------


def test_figure9_shows_two_baselines_with_the_same_values_apart() -> None:
    """adms and tflite both at 0% at every multiplier: one line would hide the other, so
    each is shifted sideways and has its own marker."""
    import pandas as pd

    ours = pd.DataFrame([{"multiplier": m, "baseline": b, "model": "inception_v4", "seed": s,
                          "slo_pct": 0.0}
                         for m in (0.5, 1.0, 1.5) for b in ("adms", "tflite") for s in (0, 1)])
    fig = figures.figure(4, 3)
    (ax,) = figures.slo_panels(fig, ours, lambda _b: {})
    fig.canvas.draw()
    lines = {c.get_label().split()[1]: c.lines[0] for c in ax.containers}
    adms, tflite = lines["adms"], lines["tflite"]
    assert list(adms.get_ydata()) == list(tflite.get_ydata()) == [0.0] * 3
    assert adms.get_marker() != tflite.get_marker()
    gap = [ax.transData.transform((b, 0))[0] - ax.transData.transform((a, 0))[0]
           for a, b in zip(adms.get_xdata(), tflite.get_xdata(), strict=True)]
    assert min(gap) > 3  # pixels: the two series are drawn side by side
    assert all(abs(b - a - figures.SLO_SHIFT) < 1e-9  # 2% of the multipliers' span (1.0)
               for a, b in zip(adms.get_xdata(), tflite.get_xdata(), strict=True))


def test_table5s_chart_centres_each_group_and_its_label_on_its_tick() -> None:
    import pandas as pd

    models = ["deeplabv3", "efficientnet_b4", "arcface_resnet50"]
    ours = pd.DataFrame({"band": [30.0, 12.0, 55.0], "adms": [25.0, 11.0, 40.0]}, index=models)
    ref = pd.DataFrame({"band": [28.0, 14.0, 50.0], "adms": [20.0, 10.0, 41.0]}, index=models)
    fig = figures.figure(8, 3.6)
    ax = fig.subplots()
    figures.latency_bars(ax, ours, ref)
    fig.canvas.draw()
    ticks = list(ax.get_xticks())
    assert ticks == [0, 1, 2] and [t.get_text() for t in ax.get_xticklabels()] == models
    centres = [p.get_x() + p.get_width() / 2 for p in ax.patches]
    assert len(centres) == 4 * len(models)
    for k in ticks:
        group = [c for c in centres if abs(c - k) < 0.5]
        assert len(group) == 4 and abs(sum(group) / 4 - k) < 1e-9
    to_data = ax.transData.inverted()
    for k, label in zip(ticks, ax.get_xticklabels(), strict=True):
        box = label.get_window_extent()
        middle = to_data.transform(((box.x0 + box.x1) / 2, box.y0))[0]
        assert abs(middle - k) < 0.05, (label.get_text(), middle)
