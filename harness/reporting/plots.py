"""Plots of a run, written as PNG files into its folder.

* ``fps.png``: FPS per baseline, with the paper's Figure 8 bars beside ours where known, the
  run's LP bound (dashed) and each baseline's own-plan bound (red ticks);
* ``latency_cdf.png``: latency CDF of finished requests, one panel per model;
* ``thermal.png``: temperature and frequency over time per processor, one column per baseline
  (the paper's Figure 12);
* ``power.png``: device power over time per baseline (Figure 11);
* ``timeline.png``: which subgraph ran on which processor, the first milliseconds of the
  measured span, one panel per baseline (Figure 10).

Every figure's title names the load (frames in flight) and the device kind (a twin is a
simulation), and a footer names the device, scenario, load, seeds, main versions and commit;
baselines show by their report names (``tflite (oracle)``, ``band[scheduler=heft]``,
:meth:`~harness.reporting.report.RunIdentity.shown`), each in its one colour
(:func:`~harness.reporting.layout.colour`). Legends sit outside the plotting area, one per
figure, and no text or legend overlaps another (:func:`~harness.reporting.layout.overlaps`,
checked by the tests); matplotlib's constrained layout places them. Time axes
are seconds from each baseline's first row, since
baselines run one after another on their own clocks. Figures are drawn with matplotlib's
object API onto Agg canvases, so no global backend or pyplot state is touched.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from harness.reporting import metrics, outcomes, paper, power
from harness.reporting.layout import colour, palette
from harness.reporting.metrics import one_seed
from harness.reporting.report import RunIdentity, run_identity
from harness.reporting.stats import mean_ci
from harness.reporting.store import RunData

DPI = 110
TIMELINE_MS = 100.0


#: the footer's font size (points) and the width of one of its characters, in points
FOOTER_PT, FOOTER_CHAR_PT = 7, 4.3


def figure(width: float, height: float, dpi: int = DPI) -> Figure:
    """A figure on its own Agg canvas (matplotlib's object API, no pyplot state), laid out
    by matplotlib's constrained layout."""
    fig = Figure(figsize=(width, height), dpi=dpi, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _save(fig: Figure, identity: RunIdentity, title: str, path: Path) -> Path:
    """Title (the load, the device kind) on top, the run's provenance as a footer; then
    write the PNG."""
    load = f" · {identity.load}" if identity.load else ""
    head = f"{title}{load}\n{identity.kind.upper()} = {identity.kind_meaning}"
    return footed(fig, head, identity.short(), path)


def footed(fig: Figure, title: str, provenance: str, path: Path, size: float = 10) -> Path:
    """:func:`label` the figure, then write the PNG (every figure of the harness ends here)."""
    label(fig, title, provenance, size)
    fig.savefig(path)
    return path


def label(fig: Figure, title: str, provenance: str, size: float = 10) -> None:
    """``title`` on top (``size`` points), ``provenance`` as a footer wrapped to the
    figure's width."""
    fig.suptitle(title, fontsize=size)
    chars = int(fig.get_figwidth() * 72 / FOOTER_CHAR_PT) - 2
    footer = textwrap.fill(provenance, max(40, chars))
    # the figure's x label slot, so the constrained layout keeps everything clear of it
    fig.supxlabel(footer, x=0.01, ha="left", fontsize=FOOTER_PT, color="0.35")


def _seconds_since_start(frame: pd.DataFrame, column: str, starts: dict[str, int]) -> pd.Series:
    origin = frame["baseline"].astype(str).map(starts).astype("int64")
    return (frame[column] - origin) / outcomes.NS_PER_S


def fps_plot(per_seed: pd.DataFrame, identity: RunIdentity, path: Path,
             failed: Mapping[str, str] | None = None) -> Path:
    """FPS per baseline: this run's mean with its 95% interval over seeds (a bar in the
    baseline's colour, error bar, a dot per seed) and the paper's bar beside it (hatched),
    where it has a value. ``failed`` (baseline -> why, for baselines with a failed seed)
    marks each in red: a baseline that completed no seed keeps an empty slot, one that
    completed some has the note above its bar (its bar: the seeds that completed)."""
    failed = dict(failed or {})
    present = [str(b) for b in pd.unique(per_seed["baseline"])]
    order = present + [b for b in failed if b not in present]
    ref = paper.fig8_rows(identity.device, identity.paper_scenario)
    fig = figure(max(8.5, 1.1 * len(order) + 2.5), 5.4)
    ax = fig.subplots()
    for x, baseline in enumerate(order):
        _fps_bars(ax, x, baseline, per_seed, ref.get(baseline))
    _bounds(ax, per_seed, order)
    ax.set_xticks(range(len(order)), [identity.shown(b) for b in order], rotation=30,
                  ha="right", rotation_mode="anchor")
    ax.set_xlim(-0.6, len(order) - 0.4)
    for baseline, why in failed.items():
        _failed_note(ax, order.index(baseline), why, baseline in present)
    ax.set_ylabel("frames per second (every model finished)")
    fig.legend(handles=_fps_legend(identity, bool(ref), per_seed), fontsize=7,
               loc="outside right center")
    return _save(fig, identity, "FPS (mean, 95% CI over seeds; dots: seeds)", path)


#: our bar's and the paper's bar's offsets from a baseline's slot, and their width
OURS_DX, PAPER_DX, BAR_W = -0.2, 0.2, 0.38


def _fps_bars(ax: Any, x: int, baseline: str, per_seed: pd.DataFrame,
              theirs: float | None) -> None:
    values = per_seed.loc[per_seed["baseline"].astype(str) == baseline, "fps"].dropna()
    tint = colour(baseline)
    if len(values):
        ci = mean_ci(list(values))
        err = None if np.isnan(ci.low) else [[ci.mean - ci.low], [ci.high - ci.mean]]
        ax.bar(x + OURS_DX, ci.mean, BAR_W, color=tint, yerr=err, capsize=3)
        jitter = np.linspace(-0.08, 0.08, len(values)) if len(values) > 1 else [0.0]
        ax.scatter(x + OURS_DX + np.asarray(jitter), values, s=9, color="black", zorder=4)
    if theirs is not None:
        ax.bar(x + PAPER_DX, theirs, BAR_W, color=tint, alpha=0.35, hatch="//",
               edgecolor=tint)


def _fps_legend(identity: RunIdentity, has_paper: bool, per_seed: pd.DataFrame) -> list[Any]:
    handles: list[Any] = [Patch(color="0.5", label=f"this run ({identity.kind}), 95% CI"),
                          Line2D([], [], marker="o", ls="", color="black", ms=3,
                                 label="a seed")]
    if has_paper:
        handles.append(Patch(facecolor="0.8", hatch="//", edgecolor="0.5",
                             label="paper (Fig. 8)"))
    if "bound_fps" in per_seed.columns and per_seed["bound_fps"].notna().any():
        bound = float(per_seed["bound_fps"].mean())
        handles.append(Line2D([], [], ls="--", color="0.3",
                              label=f"LP bound, every plan of the run ({bound:.1f})"))
    if "own_bound_fps" in per_seed.columns and per_seed["own_bound_fps"].notna().any():
        handles.append(Line2D([], [], marker="_", ls="", ms=14, mew=2, color="0.1",
                              label="LP bound of its own plans"))
    return handles


def _failed_note(ax: Any, x: int, why: str, has_bar: bool) -> None:
    """Red text in slot ``x`` (x in data, y in axes fraction): up the empty slot, or
    across the top above a bar."""
    where = ax.get_xaxis_transform()
    if has_bar:
        ax.text(x, 0.98, textwrap.fill(f"failed: {why}", 18), ha="center", va="top",
                fontsize=6, color="tab:red", transform=where)
    else:
        ax.text(x - 0.2, 0.03, textwrap.fill(f"failed: {why}", 28), rotation=90,
                ha="center", va="bottom", fontsize=7, color="tab:red", transform=where)


def _bounds(ax: Any, per_seed: pd.DataFrame, order: list[str]) -> None:
    """The run's LP bound as a dashed line, each baseline's own-plan bound as a tick over
    its own bar (not the paper's)."""
    if "bound_fps" in per_seed.columns and per_seed["bound_fps"].notna().any():
        bound = float(per_seed["bound_fps"].mean())
        ax.axhline(bound, linestyle="--", color="0.3")
        ax.set_ylim(0, bound * 1.08)
    if "own_bound_fps" in per_seed.columns and per_seed["own_bound_fps"].notna().any():
        own = per_seed.groupby(per_seed["baseline"].astype(str), sort=False)[
            "own_bound_fps"].mean()
        xs = [k for k, b in enumerate(order) if b in own.index and own[b] == own[b]]
        ax.scatter([k + OURS_DX for k in xs], [own[order[k]] for k in xs], marker="_",
                   s=300, linewidths=2, color="0.1", zorder=5)


def latency_cdf_plot(requests: pd.DataFrame, identity: RunIdentity, path: Path) -> Path:
    """Latency CDF of finished requests per model, one line per baseline."""
    rows = pd.concat([outcomes.measured_requests(requests, b,
                                                 outcomes.measured_span(requests, b))
                      for b in outcomes.baselines(requests)])
    rows = rows.dropna(subset=["latency_ms"]).astype({"baseline": str, "model": str})
    colours = palette(pd.unique(rows["baseline"]), identity.shown)
    rows["baseline"] = rows["baseline"].map(identity.shown)
    models = list(pd.unique(rows["model"]))
    fig = figure(4 * max(1, len(models)), 4.2)
    axes = np.atleast_1d(fig.subplots(1, max(1, len(models)), squeeze=False)[0])
    for ax, model in zip(axes, models, strict=False):
        sns.ecdfplot(data=rows[rows["model"] == model], x="latency_ms", hue="baseline", ax=ax,
                     palette=colours, legend=False)
        ax.set_title(model, fontsize=9)
        ax.set_xlabel("latency (ms)")
    _baseline_legend(fig, colours)
    return _save(fig, identity, "Latency CDF", path)


def _baseline_legend(fig: Figure, colours: Mapping[str, str]) -> None:
    """One legend for the figure, right of its plots: a line per baseline in its colour."""
    fig.legend(handles=[Line2D([], [], color=c, label=name) for name, c in colours.items()],
               fontsize=7, loc="outside right center")


def _sensor_frame(run: RunData) -> pd.DataFrame:
    sensors = run.sensors[run.sensors["processor"] != power.DEVICE].copy()
    starts = metrics.run_starts(run.requests, run.subgraphs, run.sensors)
    sensors["t_s"] = _seconds_since_start(sensors, "t_ns", starts)
    sensors["frequency_ghz"] = sensors["frequency_hz"] / 1e9
    return sensors.astype({"baseline": str, "processor": str})


#: the thermal plot's rows: column, axis label
THERMAL_ROWS = (("temperature_c", "°C"), ("frequency_ghz", "GHz"))
#: dash patterns, one per processor, so lines stay apart where colours do not
DASHES = ["", (5, 2), (1, 1.5), (6, 2, 1, 2), (3, 3), (8, 2, 2, 2, 2, 2)]


def has_thermal(sensors: pd.DataFrame) -> bool:
    """Whether a processor reported a temperature or a frequency (else no thermal plot:
    the host VMs here have neither sensor)."""
    mine = sensors[sensors["processor"] != power.DEVICE]
    return any(y in mine and mine[y].notna().any() for y in ("temperature_c", "frequency_hz"))


def thermal_plot(run: RunData, identity: RunIdentity, path: Path) -> Path:
    """Temperature (top) and frequency (bottom) per processor over time, per baseline; a
    quantity no processor reported gets no row. Each processor has its own colour and
    dash pattern and lines are drawn half-transparent, so none hides another."""
    sensors = _sensor_frame(run)
    names = outcomes.baselines(run.requests) or list(pd.unique(sensors["baseline"]))
    procs = [str(p) for p in pd.unique(sensors["processor"])]
    tints = dict(zip(procs, [to_hex(c) for c in sns.color_palette("tab10", len(procs))],
                     strict=True))
    dashes = {p: DASHES[k % len(DASHES)] for k, p in enumerate(procs)}
    rows = [(y, label) for y, label in THERMAL_ROWS if sensors[y].notna().any()]
    fig = figure(max(7.0, 3.2 * len(names)), 1.2 + 2.6 * len(rows))
    axes = fig.subplots(len(rows), len(names), squeeze=False, sharex="col", sharey="row")
    for col, baseline in enumerate(names):
        mine = sensors[sensors["baseline"] == baseline]
        for row, (y, label) in enumerate(rows):
            ax = axes[row][col]
            if mine[y].notna().any():
                sns.lineplot(data=mine, x="t_s", y=y, hue="processor", style="processor",
                             ax=ax, palette=tints, dashes=dashes, legend=False, alpha=0.8)
            ax.set_ylabel(label)
            ax.set_xlabel("time (s)")
        axes[0][col].set_title(identity.shown(baseline), fontsize=9)
    fig.legend(handles=[Line2D([], [], color=c, dashes=dashes[p] or (None, None), label=p)
                        for p, c in tints.items()], fontsize=7, loc="outside right center")
    return _save(fig, identity, "Temperature and frequency", path)


def power_plot(run: RunData, identity: RunIdentity, path: Path) -> Path:
    """Device power over time, one line per baseline."""
    starts = metrics.run_starts(run.requests, run.subgraphs, run.sensors)
    parts = []
    for baseline, sensors in run.sensors.groupby("baseline"):
        series = power.power_series(sensors)
        parts.append(pd.DataFrame({"baseline": identity.shown(str(baseline)),
                                   "power_w": series.to_numpy(),
                                   "t_s": (series.index - starts[str(baseline)]) / 1e9}))
    colours = palette([str(b) for b in run.sensors["baseline"].unique()], identity.shown)
    fig = figure(7, 4.4)
    ax = fig.subplots()
    sns.lineplot(data=pd.concat(parts, ignore_index=True), x="t_s", y="power_w",
                 hue="baseline", ax=ax, palette=colours, legend=False)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("power (W)")
    _baseline_legend(fig, colours)
    return _save(fig, identity, "Power over time", path)


def _timeline_rows(run: RunData, baseline: str, first_ms: float) -> pd.DataFrame:
    start = outcomes.measured_span(run.requests, baseline)[0]
    end = start + int(first_ms * outcomes.NS_PER_MS)
    sub = run.subgraphs[(run.subgraphs["baseline"] == baseline)
                        & (run.subgraphs["end_ns"] > start) & (run.subgraphs["start_ns"] < end)]
    sub = sub.assign(x_ms=(sub["start_ns"].clip(lower=start) - start) / outcomes.NS_PER_MS)
    return sub.assign(w_ms=(sub["end_ns"].clip(upper=end) - start) / outcomes.NS_PER_MS
                      - sub["x_ms"])


def timeline_plot(run: RunData, identity: RunIdentity, path: Path,
                  first_ms: float = TIMELINE_MS) -> Path:
    """Subgraphs per processor, coloured by model, over the first ``first_ms`` of the
    measured span."""
    names = outcomes.baselines(run.requests)
    processors = sorted(str(p) for p in pd.unique(run.subgraphs["processor"]))
    models = [str(m) for m in pd.unique(run.subgraphs["model"])]
    colours = dict(zip(models, sns.color_palette("tab10", len(models)), strict=True))
    fig = figure(9, 0.6 + 0.5 * len(processors) * len(names) + 0.4 * len(names))
    axes = fig.subplots(len(names), 1, squeeze=False, sharex=True)[:, 0]
    for ax, baseline in zip(axes, names, strict=True):
        rows = _timeline_rows(run, baseline, first_ms)
        for y, proc in enumerate(processors):
            mine = rows[rows["processor"] == proc]
            ax.broken_barh(list(zip(mine["x_ms"], mine["w_ms"], strict=True)), (y - 0.4, 0.8),
                           facecolors=[colours[str(m)] for m in mine["model"]])
        ax.set_yticks(range(len(processors)), processors)
        ax.set_title(identity.shown(baseline), fontsize=9)
    axes[-1].set_xlabel(f"ms from the start of the measured span (first {first_ms:g} ms)")
    fig.legend(handles=[Patch(color=c, label=m) for m, c in colours.items()],
               loc="outside right center", fontsize=7, title="model", title_fontsize=7)
    return _save(fig, identity, "Processor timeline", path)


def plot_all(run: RunData, out_dir: Path | None = None) -> list[Path]:
    """Every plot the run's data allows; returns the PNG paths written. Time series (heat,
    power, timeline) show the first seed; FPS and latency pool every seed."""
    out = Path(out_dir or run.folder)
    out.mkdir(parents=True, exist_ok=True)
    identity = run_identity(run.manifest, run.folder)
    first = one_seed(run)
    single = replace(identity, seed=str(metrics.seeds_of(run)[0]) if len(run.requests) else
                     identity.seed)
    written = []
    if not run.requests.empty:
        written.append(fps_plot(metrics.compute(run).scenario, identity, out / "fps.png"))
        written.append(latency_cdf_plot(run.requests, identity, out / "latency_cdf.png"))
    if not first.sensors.empty and has_thermal(first.sensors):
        written.append(thermal_plot(first, single, out / "thermal.png"))
    if first.sensors["power_w"].notna().any():
        written.append(power_plot(first, single, out / "power.png"))
    if not first.subgraphs.empty and not first.requests.empty:
        written.append(timeline_plot(first, single, out / "timeline.png"))
    return written
