"""Figures without defects: nothing overlaps (checked on every plot of a run, and shown to
fail on a deliberately bad figure), one colour per baseline, a title and a provenance footer
on every figure."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from matplotlib.colors import to_hex

from harness.reporting import layout, plots
from harness.reporting.plots import figure
from tests.harness.reporting.test_metrics import small_run

MANIFEST = {"device": {"name": "k50pro", "kind": "twin"},
            "kind_meaning": "SIMULATION (digital twin)", "scenario": "frs", "seeds": [7],
            "versions": {"numpy": "2.4", "pandas": "3.1", "simpy": "4.1"},
            "git_commit": "abcdef1234567",
            "config": {"scenario": {"arrival": "frames", "frames_in_flight": 2}}}


def drawn(tmp_path: Path) -> dict[str, Any]:
    """Every figure :func:`plots.plot_all` makes for a small run, by file name."""
    figures: dict[str, Any] = {}
    save = plots._save

    def keep(fig: Any, identity: Any, title: str, path: Path) -> Path:
        figures[path.name] = fig
        return save(fig, identity, title, path)

    with mock.patch.object(plots, "_save", keep):
        plots.plot_all(small_run(tmp_path / "run", manifest=MANIFEST), tmp_path / "out")
    return figures


@pytest.fixture(scope="module")
def figures(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return drawn(tmp_path_factory.mktemp("figures"))


def test_no_plot_of_a_run_has_an_overlap(figures: dict[str, Any]) -> None:
    assert sorted(figures) == ["fps.png", "latency_cdf.png", "power.png", "thermal.png",
                               "timeline.png"]
    assert {name: layout.overlaps(fig) for name, fig in figures.items()} == {
        name: [] for name in figures}


def test_the_check_fails_on_a_deliberately_bad_figure() -> None:
    fig = figure(4, 3)
    ax = fig.subplots()
    ax.plot([0, 1, 2], [0, 1, 4], label="a line")
    ax.plot([0, 1, 2], [4, 1, 0], label="another")
    ax.set_xticks(range(3), ["a long tick label", "another long tick label", "a third one"],
                  fontsize=14)  # wider than their slots
    ax.set_title("a title")
    ax.legend(loc="upper center")  # over the data
    fig.text(0.5, 0.93, "a text over the title", ha="center")
    found = layout.overlaps(fig)
    assert any("tick" in line and "over" in line for line in found), found
    assert any("legend over the plot" in line for line in found), found
    assert any("title" in line and "text" in line for line in found), found


def test_every_figure_is_titled_and_footed_with_provenance(figures: dict[str, Any]) -> None:
    for name, fig in figures.items():
        title = fig.get_suptitle()
        footer = fig._supxlabel.get_text()  # the footer (plots._save)
        assert "TWIN = SIMULATION" in title and "frames in flight 2" in title, name
        for fact in ("twin", "k50pro", "frs", "seed 7", "numpy 2.4", "commit abcdef1234"):
            assert fact in footer.replace("\n", " "), (name, fact)


def test_a_baseline_has_one_colour_in_every_plot(figures: dict[str, Any]) -> None:
    seen: dict[str, set[str]] = {}
    for name in ("latency_cdf.png", "power.png"):
        for legend in figures[name].legends:
            for line, text in zip(legend.get_lines(), legend.get_texts(), strict=True):
                seen.setdefault(text.get_text(), set()).add(to_hex(line.get_color()))
    assert seen == {"tflite (oracle)": {layout.colour("tflite")},
                    "band": {layout.colour("band")}, "adms": {layout.colour("adms")}}
    fps = figures["fps.png"].axes[0]
    bars = {to_hex(p.get_facecolor()) for p in fps.patches}
    assert {layout.colour(b) for b in ("tflite", "band", "adms")} <= bars


def test_colours_do_not_depend_on_the_run() -> None:
    assert layout.palette(["band", "adms"]) == {"band": layout.colour("band"),
                                                "adms": layout.colour("adms")}
    assert layout.colour("my_policy") == layout.colour("my_policy")
    assert layout.colour("my_policy") not in layout.FIXED.values()
    assert len(set(layout.FIXED.values())) == len(layout.FIXED)


def test_band_bests_schedulers_have_colours_of_their_own() -> None:
    bands = ["band", "band7", "band_fixed_worker", "band_round_robin", "band_sel", "band_heft",
             "band_heft_reserved"]
    assert len({layout.colour(b) for b in bands}) == len(bands)
