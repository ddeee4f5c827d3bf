"""The window-sweep figure of ``python -m harness.analyze``: labelled log ticks, an axis that
holds only data, a title and a provenance footer, and nothing drawn over anything."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from harness.reporting import layout, windowplot

FOOTER = "device config k50pro (twin): op support · numpy 2.4 · commit abcdef1234"


def sweep(models: list[str], merged: bool = True) -> pd.DataFrame:
    rows = []
    for k, model in enumerate(models):
        for w in (1, 2, 3, 5, 8, 12):
            unit = (250 + 40 * k) // w
            merge = 3000 // (w * w) if merged else 0
            rows.append({"model": model, "window_size": w, "unit_subgraphs": unit,
                         "merged": merge, "total": unit + merge})
    return pd.DataFrame(rows)


@pytest.mark.parametrize("models", [["deeplabv3"], [f"model_{k}" for k in range(5)]])
def test_the_sweep_is_clean_titled_and_footed(models: list[str]) -> None:
    title = windowplot.title("k50pro", True, models)
    fig = windowplot.sweep_figure(sweep(models), title, FOOTER)
    assert layout.overlaps(fig) == []
    assert "window size" in fig.get_suptitle() and "k50pro" in fig.get_suptitle()
    assert fig._supxlabel.get_text().replace("\n", " ") == FOOTER  # type: ignore[attr-defined]
    assert [ax.get_title() for ax in fig.axes if ax.get_visible()] == models


def test_the_y_axis_starts_at_the_data_and_labels_its_ticks() -> None:
    fig = windowplot.sweep_figure(sweep(["deeplabv3"]), "t", FOOTER)
    ax = fig.axes[0]
    low, high = ax.get_ylim()
    assert (low, ax.get_yscale()) == (10, "log")  # the smallest count is 20: no empty decade
    assert 3250 < high < 4500  # a little above the largest count (3250), not a decade more
    fig.canvas.draw()
    assert [t.get_text() for t in ax.get_yticklabels()] == ["10", "100", "1,000"]


def test_nothing_merged_draws_the_unit_count_alone_from_zero() -> None:
    frame = sweep(["deeplabv3"], merged=False)
    frame.loc[frame["window_size"] == 12, ["unit_subgraphs", "total"]] = 0
    fig = windowplot.sweep_figure(frame, "t", FOOTER)
    ax = fig.axes[0]
    assert [line.get_label() for line in ax.lines] == ["unit subgraphs"]
    assert ax.get_ylim()[0] == 0 and ax.get_yscale() == "symlog"


def test_write_leaves_a_png_with_its_footer(tmp_path: Path) -> None:
    path = windowplot.write(sweep(["deeplabv3"]), "title", FOOTER, tmp_path / "s.png")
    assert path.read_bytes()[:4] == b"\x89PNG"
