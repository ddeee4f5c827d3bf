"""The twin's prediction against the host's measurement, row by row.

Each row (baseline) ran on the host and on its twin with the same seeds, so the same traffic;
the twin's error on a metric is ``twin / host − 1`` of the means over seeds, with the paired
interval of a ratio of means (:func:`harness.reporting.stats.ratio_ci`: Fieller's below ten
seeds, else a percentile bootstrap). A row is *within* the bound when its whole interval lies
inside ±``bound_pct``; the ordering agrees when ranking the rows by mean FPS gives the same
order on both (Kendall's τ says how close it is when it does not).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from harness.reporting.stats import Interval, mean_ci, ratio_ci

#: the metrics compared: (column of summary_seeds.csv, label)
METRICS = (("fps", "FPS"), ("latency_mean_ms", "mean latency"))


@dataclass(frozen=True, slots=True)
class RowError:
    """One baseline's host and twin values of one metric, and the twin's error."""

    baseline: str
    metric: str
    host: Interval
    twin: Interval
    #: twin / host, paired by seed
    ratio: Interval

    def error_pct(self) -> float:
        return 100 * (self.ratio.mean - 1)

    def within(self, bound_pct: float) -> bool:
        """The ratio's interval (or, without one, its mean) lies inside ±bound."""
        lo, hi = self.ratio.low, self.ratio.high
        if math.isnan(lo) or math.isnan(hi):
            lo = hi = self.ratio.mean
        return 1 - bound_pct / 100 <= lo and hi <= 1 + bound_pct / 100


def per_seed(folder: Path, metric: str) -> dict[str, dict[int, float]]:
    """baseline -> seed -> value, from a run folder's ``summary_seeds.csv``."""
    frame = pd.read_csv(folder / "summary_seeds.csv")
    return {str(b): {int(s): float(v) for s, v in zip(g["seed"], g[metric], strict=True)}
            for b, g in frame.groupby("baseline", sort=False)}


def compare(host: Path, twin: Path, baselines: Sequence[str]) -> list[RowError]:
    """Every baseline's error on every metric of :data:`METRICS`."""
    rows = []
    for metric, _ in METRICS:
        h, t = per_seed(host, metric), per_seed(twin, metric)
        for b in baselines:
            hv, tv = h.get(b, {}), t.get(b, {})
            rows.append(RowError(b, metric, mean_ci(list(hv.values())),
                                 mean_ci(list(tv.values())), ratio_ci(tv, hv)))
    return rows


def ranking(rows: Sequence[RowError], side: str) -> list[str]:
    """Baselines by mean FPS, fastest first (``side``: host or twin)."""
    fps = [r for r in rows if r.metric == "fps"]
    return [r.baseline for r in sorted(fps, key=lambda r: -getattr(r, side).mean)]


def kendall_tau(a: Sequence[str], b: Sequence[str]) -> float:
    """Kendall's τ of two orders of the same items (1: equal, −1: reversed)."""
    pos = {x: i for i, x in enumerate(b)}
    pairs = [(i, j) for i in range(len(a)) for j in range(i + 1, len(a))]
    if not pairs:
        return 1.0
    agree = sum(1 if pos[a[i]] < pos[a[j]] else -1 for i, j in pairs)
    return agree / len(pairs)


def table(rows: Sequence[RowError], bound_pct: float) -> list[str]:
    """Markdown: one line per baseline, host and twin FPS and mean latency, the errors."""
    lines = ["| row | host FPS | twin FPS | FPS error % (95% CI) | host latency ms | "
             "twin latency ms | latency error % (95% CI) | within ±"
             f"{bound_pct:g}% |", "|---|---|---|---|---|---|---|---|"]
    by = {(r.baseline, r.metric): r for r in rows}
    for b in dict.fromkeys(r.baseline for r in rows):
        f, lat = by[(b, "fps")], by[(b, "latency_mean_ms")]
        ok = "yes" if f.within(bound_pct) else "no"
        lines.append(f"| {b} | {f.host.text()} | {f.twin.text()} | {_err(f)} | "
                     f"{lat.host.text('{:.1f}')} | {lat.twin.text('{:.1f}')} | {_err(lat)} | "
                     f"{ok} |")
    return lines


def _err(r: RowError) -> str:
    if math.isnan(r.ratio.mean):
        return "–"
    lo, hi = r.ratio.low, r.ratio.high
    if math.isnan(lo) or math.isnan(hi):
        return f"{r.error_pct():+.1f}"
    return f"{r.error_pct():+.1f} ({100 * (lo - 1):+.1f}, {100 * (hi - 1):+.1f})"


def ordering(rows: Sequence[RowError]) -> list[str]:
    host, twin = ranking(rows, "host"), ranking(rows, "twin")
    same = "agrees" if host == twin else "differs"
    return [f"Ordering by FPS {same} (Kendall's tau {kendall_tau(host, twin):+.2f}): "
            f"host {' > '.join(host)}; twin {' > '.join(twin)}."]
