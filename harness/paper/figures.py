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
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from harness.paper import nb
from harness.reporting import layout, plots
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
