"""Figures of the paper notebooks: matplotlib's object API on Agg canvases (no pyplot
state), titled with the artifact and the device kinds and seeds that produced the data,
footed with their provenance as a run's plots are (:func:`provenance`: kinds, devices,
scenarios, seeds, main versions, commits of every run the figure reads).

Each saved figure is checked for overlapping texts and legends
(:func:`harness.reporting.layout.overlaps`); what the check found is written beside the PNG
as ``figures/<name>.layout.json`` (an empty list: clean), which the paper's tests read.
Legends go outside the panels, one per figure (:func:`legend`); a baseline keeps its colour
of every plot (:func:`harness.reporting.layout.colour`), a processor its own
(:data:`PROCESSOR_COLOURS`), the paper's values beside ours in the same colour, dashed or
crossed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from harness.paper import nb
from harness.reporting import layout, paper, plots
from harness.reporting.report import FOOTER_PACKAGES

DPI = 100
FOLDER = Path("figures")
#: the title's font size, points
TITLE_PT = 9


def figure(width: float, height: float) -> Figure:
    return plots.figure(width, height, DPI)


def save(fig: Figure, title: str, found: list[nb.Run], name: str) -> Path:
    """Title it (the artifact, then who produced it: :func:`nb.produced_by`), foot it with
    :func:`provenance`, write ``figures/<name>.png`` and its overlap check beside it."""
    FOLDER.mkdir(exist_ok=True)
    path = plots.footed(fig, f"{title}\n{nb.produced_by(found)}", provenance(found),
                        FOLDER / f"{name}.png", TITLE_PT)
    checked = {"overlaps": layout.overlaps(fig), "footer": provenance(found)}
    (FOLDER / f"{name}.layout.json").write_text(json.dumps(checked, indent=1) + "\n")
    return path


def legend(fig: Figure, fontsize: float = 7) -> None:
    """One legend for the whole figure, outside its panels on the right: each label once,
    from every panel (a legend per panel repeats itself and sits over the data)."""
    unique: dict[str, Any] = {}
    for ax in fig.axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            unique.setdefault(label, handle)
    fig.legend(list(unique.values()), list(unique), fontsize=fontsize,
               loc="outside right center")


#: a processor's colour in the paper's figures (our processor names; ``tab10``)
PROCESSOR_COLOURS = {"cpu": "#7f7f7f", "gpu": "#1f77b4", "apu": "#2ca02c", "npu": "#d62728",
                     "dsp": "#9467bd"}


def _joined(values: Iterable[str]) -> str:
    return ", ".join(sorted(set(values)))


def provenance(found: Sequence[nb.Run]) -> str:
    """The footer: every run's kind, device, scenario and seeds, the main packages'
    versions (a package whose version differs between runs shows each) and the commits."""
    if not found:
        return "no runs"
    ids = [r.identity for r in found]
    kinds = _joined(f"{i.kind} = {i.kind_meaning}" for i in ids)
    packages = sorted({k for i in ids for k in i.versions if k in FOOTER_PACKAGES})
    versions = ", ".join(f"{p} {'/'.join(sorted({i.versions.get(p, '?') for i in ids}))}"
                         for p in packages)
    commits = _joined(i.commit[:10] for i in ids if i.commit)
    parts = [kinds, _joined(i.device for i in ids), _joined(i.scenario for i in ids),
             f"seed {_joined(i.seed for i in ids)}", versions,
             f"commit {commits}" if commits else ""]
    return " · ".join(p for p in parts if p)


# -- drawings of the notebooks, on hand-made data in the tests -----------------------------

#: Figure 9: each baseline's marker, in name order
SLO_MARKERS = ("o", "s", "^", "D", "v", "P")
#: Figure 9: the sideways shift from one baseline to the next, a share of the multipliers' span
SLO_SHIFT = 0.02


def slo_shifts(names: Sequence[str], multipliers: pd.Series) -> dict[str, float]:
    """Figure 9: each baseline's sideways shift (multiplier units), centred on zero."""
    span = float(multipliers.max() - multipliers.min()) or 1.0
    return {b: (k - (len(names) - 1) / 2) * SLO_SHIFT * span for k, b in enumerate(names)}


def slo_panels(fig: Figure, ours: pd.DataFrame,
               stated: Callable[[str], Mapping[str, float]] = paper.fig9_slo_pct) -> list[Axes]:
    """Figure 9: a panel per model of SLO satisfaction against the multiplier, a line per
    baseline (``ours``: ``multiplier``, ``baseline``, ``model``, ``seed``, ``slo_pct``): the
    mean over seeds with its 95% interval, and the paper's value at 1.0 (``stated``) as a
    cross. Baselines at the same value (two lines at 0%) would hide each other: each is
    shifted sideways by a little of the multipliers' span and has its own marker."""
    models = sorted(ours["model"].unique())
    axes = list(fig.subplots(1, len(models), squeeze=False, sharey=True)[0])
    names = sorted(str(b) for b in ours["baseline"].unique())
    shift = slo_shifts(names, ours["multiplier"])
    for ax, model in zip(axes, models, strict=True):
        for baseline, part in ours[ours["model"] == model].groupby("baseline"):
            name, tint = str(baseline), layout.colour(str(baseline))
            means = part.groupby("multiplier")["slo_pct"].agg(["mean", "sem"]).fillna(0)
            ax.errorbar(means.index + shift[name], means["mean"], yerr=1.96 * means["sem"],
                        marker=SLO_MARKERS[names.index(name) % len(SLO_MARKERS)], alpha=0.85,
                        color=tint, label=f"ours {name} (95% CI; shifted to be seen)")
            if (value := stated(name).get(model)) is not None:
                ax.plot([1.0], [value], "x", markersize=9, color=tint,
                        label=f"paper {name} at 1.0")
        ax.set_title(model, fontsize=9)
        ax.set_xlabel("SLO multiplier")
    axes[0].set_ylabel("SLO satisfaction (%)")
    return axes


#: Table V's chart: the bars of a model, left to right (whose value, baseline)
LATENCY_BARS = (("ours", "band"), ("ours", "adms"), ("paper", "band"), ("paper", "adms"))
LATENCY_BAR_WIDTH = 0.2


def latency_bars(ax: Axes, ours: pd.DataFrame, ref: pd.DataFrame) -> None:
    """Table V's chart: per model (the rows of ``ours``, a model x baseline table of mean
    latency, ms) a group of bars, ours and the paper's (``ref``, hatched), each group
    centred on its model's tick, whose label is centred under it (a rotated label anchored
    at its right end sat under the bars of the model before)."""
    half = (len(LATENCY_BARS) - 1) / 2
    for k, model in enumerate(ours.index):
        for j, (whose, baseline) in enumerate(LATENCY_BARS):
            value = (ours if whose == "ours" else ref)[baseline].get(model)
            if value is not None and value == value:  # the paper has no value for every model
                ax.bar(k + (j - half) * LATENCY_BAR_WIDTH, value, LATENCY_BAR_WIDTH,
                       color=layout.colour(baseline), hatch="//" if whose == "paper" else None,
                       alpha=0.45 if whose == "paper" else 1.0, label=f"{whose} {baseline}")
    ax.set_xticks(range(len(ours.index)), list(ours.index), ha="center")
    ax.set_ylabel("mean latency alone (ms)")
