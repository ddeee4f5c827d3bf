"""The window-size sweep figure: how many subgraphs the Model Analyzer cuts at each window size.

``python -m harness.analyze ... window_size=[1,2,3,5,8]`` draws it (the counts of the paper's
Figure 6 and Table III): one panel per model, the window sizes swept on a linear x axis, and
per count (unit subgraphs, merged subgraphs, their total; the unit count alone where
nothing was merged) one line in its own colour. Counts
run from a handful to thousands, so the y axis is logarithmic from the decade below the
smallest count to a little above the largest, so that no part of a panel is empty; where a
count drawn is 0 it is symmetric-log instead, linear below 1, and starts at 0.
Every tick is labelled with its plain number (0, 1, 10, 100, 1,000). The figure is titled
and footed with what produced it (:func:`harness.reporting.plots.label`); the overlap check
(:func:`harness.reporting.layout.overlaps`) holds for it as for a run's plots.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from harness.reporting.plots import figure, label

#: each count drawn, with its label and colour (``tab10``)
COUNTS = (("unit_subgraphs", "unit subgraphs", "#1f77b4"),
          ("merged", "merged subgraphs", "#ff7f0e"),
          ("total", "total (unit + merged)", "#2ca02c"))
#: panels per row
COLUMNS = 3


def sweep_figure(frame: pd.DataFrame, title: str, provenance: str) -> Figure:
    """The figure of ``frame`` (one row per model and window size, :data:`COUNTS` columns),
    titled and footed (:func:`~harness.reporting.plots.label`), not yet written."""
    models = list(dict.fromkeys(str(m) for m in frame["model"]))
    cols = min(COLUMNS, len(models))
    rows = math.ceil(len(models) / cols)
    fig = figure(3.6 * cols + 1.8, 3.0 * rows + 1.2)
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    drawn = drawn_counts(frame)
    span = y_span(frame[[c for c, _, _ in drawn]])
    for ax, model in zip(axes, models, strict=False):
        _panel(ax, frame[frame["model"] == model], model, span, drawn)
    for ax in axes[len(models):]:
        ax.set_visible(False)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=8, loc="outside right center")
    label(fig, title, provenance)
    return fig


def drawn_counts(frame: pd.DataFrame) -> tuple[tuple[str, str, str], ...]:
    """:data:`COUNTS`, or only the unit subgraphs where nothing was merged (``merge=false``:
    the total is the unit count, and its line would hide it)."""
    return COUNTS if frame["merged"].astype(bool).any() else COUNTS[:1]


def _panel(ax: Any, rows: pd.DataFrame, model: str, span: tuple[float, float],
           drawn: Sequence[tuple[str, str, str]]) -> None:
    rows = rows.sort_values("window_size")
    for column, name, tint in drawn:
        ax.plot(rows["window_size"], rows[column], marker="o", color=tint, label=name)
    low, high = span
    if low > 0:
        ax.set_yscale("log")
    else:
        ax.set_yscale("symlog", linthresh=1, linscale=0.5)
    ax.set_ylim(low, high)
    first = int(math.log10(low)) if low > 0 else 0
    ticks = [*([0.0] if low == 0 else []),
             *(10.0 ** k for k in range(first, int(math.log10(high)) + 1))]
    ax.yaxis.set_major_locator(FixedLocator(ticks))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.set_xticks(sorted(int(w) for w in rows["window_size"].unique()))
    ax.set_title(model, fontsize=9)
    ax.set_xlabel("window size (ops)")
    ax.set_ylabel("subgraphs")
    ax.grid(axis="y", color="0.9")


def y_span(counts: pd.DataFrame) -> tuple[float, float]:
    """The y axis' limits: from the decade at or below the smallest count (0 when a count
    is 0) to a little above the largest, so that every decade drawn holds data."""
    values = counts.to_numpy(dtype=float)
    smallest, largest = float(values.min()), float(values.max())
    low = 0.0 if smallest <= 0 else 10.0 ** math.floor(math.log10(smallest))
    return low, max(10.0, 1.3 * largest, 3 * low)


def write(frame: pd.DataFrame, title: str, provenance: str, path: Path) -> Path:
    """Draw the sweep of ``frame`` and write it as a PNG."""
    sweep_figure(frame, title, provenance).savefig(path)
    return path


def title(device: str, merge: bool, models: Sequence[str]) -> str:
    """The figure's title: what is drawn, the device config, the models and whether merged
    subgraphs are added."""
    what = "unit and merged subgraphs" if merge else "unit subgraphs only (merge=false)"
    many = f"{len(models)} model{'s' if len(models) != 1 else ''}"
    return f"Subgraphs against window size · Model Analyzer on {device}\n{many}; {what}"
