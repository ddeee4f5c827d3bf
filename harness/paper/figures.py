"""Figures of the paper notebooks: matplotlib's object API on Agg canvases (no pyplot
state), every title naming the device kind and seeds that produced the data."""

from __future__ import annotations

from pathlib import Path

from matplotlib.figure import Figure

from harness.reporting import plots

DPI = 100
FOLDER = Path("figures")


def figure(width: float, height: float) -> Figure:
    return plots.figure(width, height, DPI)


def save(fig: Figure, title: str, produced_by: str, name: str) -> Path:
    """Title it (the artifact, then who produced it), write ``figures/<name>.png``."""
    fig.suptitle(f"{title}\n{produced_by}", fontsize=9)  # the constrained layout places it
    FOLDER.mkdir(exist_ok=True)
    path = FOLDER / f"{name}.png"
    fig.savefig(path)
    return path
