"""The tornado figure: how far each constant's range moves each ratio.

One panel per ratio (rows) and device and scenario (columns). Each constant is a bar from
the ratio at the low end of its range to the ratio at the high end (blue end: low value,
orange end: high value; thin whiskers: their 95% intervals), constants ordered by their
largest swing in any panel, largest on top. The default configuration's ratio is the solid
line, the verdict lines (1, and the paper's stated ratio where it has one) are dashed.
A measured anchor is a black diamond at the ratio interpolated at its value, on its
constant's bar.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd
from matplotlib.artist import Artist
from matplotlib.axes import Axes

from harness.reporting import plots
from harness.sensitivity.analysis import thresholds

LOW_COLOUR, HIGH_COLOUR = "#1f77b4", "#ff7f0e"
#: inches per constant of a panel, and per panel's width
ROW_IN, PANEL_W_IN = 0.24, 3.6
#: the narrowest figure, inches (room for the legend's one row)
MIN_W_IN = 9.0


def order(bars: pd.DataFrame) -> list[str]:
    """Constants by their largest swing in any panel, largest first."""
    return list(bars.groupby("constant")["swing"].max().sort_values(ascending=False).index)


def _panel(ax: Axes, bars: pd.DataFrame, names: list[str], marks: pd.DataFrame,
           labels: bool) -> None:
    device, scenario, ratio = bars.iloc[0][["device", "scenario", "ratio"]]
    by = bars.set_index("constant")
    for y, name in enumerate(reversed(names)):
        if name not in by.index:
            continue
        b = by.loc[name]
        ax.plot([b["at_low"], b["at_high"]], [y, y], color="#bbbbbb", lw=5, solid_capstyle="butt")
        for end, colour in (("low", LOW_COLOUR), ("high", HIGH_COLOUR)):
            ax.plot([b[f"{end}_ci_low"], b[f"{end}_ci_high"]], [y, y], color=colour, lw=1)
            ax.plot([b[f"at_{end}"]], [y], "o", color=colour, ms=4,
                    label=f"{end} end of the range")
        hit = marks[marks["constant"] == name]
        if len(hit):
            ax.plot(hit["mean"], [y] * len(hit), "D", color="black", ms=5, label="measured")
    ax.axvline(float(bars["default"].iloc[0]), color="black", lw=1, label="default")
    for line, what in thresholds(str(device), str(scenario), str(ratio).split("/")[1]):
        ax.axvline(line, color="#d62728" if what == "paper" else "#555555", ls="--", lw=1,
                   label="the paper's ratio" if what == "paper" else "ratio 1")
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels(list(reversed(names)) if labels else [], fontsize=7)
    ax.set_title(f"{device} {scenario}: {ratio}", fontsize=8)
    ax.tick_params(axis="x", labelsize=7)


def draw(bars: pd.DataFrame, marks: pd.DataFrame, path: Path, title: str, provenance: str,
         ratios: Sequence[str], cells: Sequence[tuple[str, str]]) -> Path:
    """Write the tornado PNG (``marks``: device, scenario, ratio, constant, mean)."""
    names = order(bars)
    fig = plots.figure(max(MIN_W_IN, PANEL_W_IN * len(cells) + 1.5),
                       ROW_IN * len(names) * len(ratios) + 2.5)
    axes = fig.subplots(len(ratios), len(cells), squeeze=False)
    for i, ratio in enumerate(ratios):
        for j, (device, scenario) in enumerate(cells):
            mine = bars[(bars["ratio"] == ratio) & (bars["device"] == device)
                        & (bars["scenario"] == scenario)]
            if mine.empty:
                axes[i][j].set_axis_off()
                continue
            where = ((marks["ratio"] == ratio) & (marks["device"] == device)
                     & (marks["scenario"] == scenario))
            _panel(axes[i][j], mine, names, marks[where], j == 0)
    _legend(axes[0][-1])
    return plots.footed(fig, title, provenance, path, 9)


def _legend(ax: Axes) -> None:
    """One legend, in the first row's last panel, each label of every panel once."""
    unique: dict[str, Artist] = {}
    for other in ax.figure.axes:
        for handle, label in zip(*other.get_legend_handles_labels(), strict=True):
            unique.setdefault(label, handle)
    ax.legend(list(unique.values()), list(unique), fontsize=6, loc="lower right")
