"""From cells to verdicts: ratios with paired intervals, the tornado's bars, the crossovers.

Every ratio is the mean of the numerator row's FPS over the mean of the denominator's, over
the seeds both ran, with a paired 95% interval (:func:`harness.reporting.stats.ratio_ci`).
A constant's *points* are its swept values and its default (the default cells, at the
constant's configured value, or 1 for a factor). A *crossover* is where the line through a
constant's points crosses a verdict line: 1 (ADMS faster than the other row, or not) and,
where the paper states one, the paper's own ratio for that device and scenario; it is
interpolated linearly between the two points around it, in log value on a log scale; it is
*clear* when the intervals of those two points lie wholly on either side of the line.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from harness.config.schema import RunConf
from harness.reporting.paper import FIG8_RATIOS
from harness.reporting.stats import ratio_ci
from harness.sensitivity.cells import DEFAULT, default_value
from harness.sensitivity.config import ConstantConf, Scale

RATIO_COLUMNS = ["device", "scenario", "ratio", "constant", "value", "is_default", "mean",
                 "low", "high", "seeds", "per_seed"]


def paper_key(row: str) -> str:
    """The paper's name of a row's system (``tflite_gpu`` -> ``tflite``)."""
    for system in ("tflite", "band", "adms"):
        if row.startswith(system):
            return system
    return row


def thresholds(device: str, scenario: str, denominator: str) -> list[tuple[float, str]]:
    """The verdict lines of a ratio over ``denominator``: 1, and the paper's stated ratio."""
    lines = [(1.0, "1")]
    stated = FIG8_RATIOS.get((device, scenario), {}).get(paper_key(denominator))
    if stated is not None:
        lines.append((float(stated), "paper"))
    return lines


def _fps(lines: pd.DataFrame, row: str) -> dict[int, float]:
    part = lines[lines["row"] == row]
    return {int(s): float(f) for s, f in zip(part["seed"], part["fps"], strict=True)}


def ratios(lines: pd.DataFrame, pairs: Sequence[Sequence[str]],
           constants: Sequence[ConstantConf], runs: Mapping[tuple[str, str], RunConf]
           ) -> pd.DataFrame:
    """One line per device, scenario, ratio, constant and point (the default included)."""
    out = []
    for (device, scenario), cell in lines.groupby(["device", "scenario"], sort=False):
        run = runs[(str(device), str(scenario))]
        base = cell[cell["constant"] == DEFAULT]
        for num, den in pairs:
            for c in constants:
                own = cell[cell["constant"] == c.name]
                points = [(default_value(run, c), True, base)]
                points += [(float(v), False, g) for v, g in own.groupby("value")]
                for value, is_default, group in points:
                    ci = ratio_ci(_fps(group, num), _fps(group, den))
                    out.append([device, scenario, f"{num}/{den}", c.name, value, is_default,
                                ci.mean, ci.low, ci.high, len(ci.values),
                                " ".join(f"{v:.4f}" for v in ci.values)])
    return pd.DataFrame(out, columns=RATIO_COLUMNS)


def tornado(table: pd.DataFrame) -> pd.DataFrame:
    """Per device, scenario, ratio and constant: the ratio at the low and high end of the
    range (with intervals), at the default, and the swing (largest minus smallest point)."""
    rows = []
    keys = ["device", "scenario", "ratio", "constant"]
    for key, group in table.groupby(keys, sort=False):
        swept = group[~group["is_default"]].sort_values("value")
        default = group[group["is_default"]].iloc[0]
        ends = swept.iloc[[0, -1]] if len(swept) else group.iloc[[0, 0]]
        rows.append([*key, default["mean"], *ends["mean"], *ends["low"], *ends["high"],
                     float(group["mean"].max() - group["mean"].min())])
    return pd.DataFrame(rows, columns=[*keys, "default", "at_low", "at_high", "low_ci_low",
                                       "high_ci_low", "low_ci_high", "high_ci_high", "swing"])


def _between(x0: float, x1: float, y0: float, y1: float, line: float, log: bool) -> float:
    """Where the segment (x0, y0)-(x1, y1) meets ``y = line`` (log: in log x)."""
    t = (line - y0) / (y1 - y0)
    if log and x0 > 0 and x1 > 0:
        return float(math.exp(math.log(x0) + t * (math.log(x1) - math.log(x0))))
    return x0 + t * (x1 - x0)


def crossings(points: Sequence[tuple[float, float]], line: float, log: bool
              ) -> list[tuple[float, str, int]]:
    """Each value where the ratio through ``points`` (value, ratio; sorted by value) crosses
    ``line``, with the side of the line the ratio is on past it, at larger values ("above"
    or "below"), and the index of the point before it."""
    out: list[tuple[float, str, int]] = []
    for i, ((x0, y0), (x1, y1)) in enumerate(itertools.pairwise(points)):
        if any(math.isnan(v) for v in (y0, y1)) or (y0 - line) * (y1 - line) > 0 or y0 == y1:
            continue
        if y0 == line and out:
            continue  # (counted as the previous segment's end)
        out.append((_between(x0, x1, y0, y1, line, log), "above" if y1 > y0 else "below", i))
    return out


def crossovers(table: pd.DataFrame, constants: Sequence[ConstantConf]) -> pd.DataFrame:
    """Every crossing of a verdict line within a constant's range (see the module)."""
    by_name = {c.name: c for c in constants}
    rows = []
    keys = ["device", "scenario", "ratio", "constant"]
    for (device, scenario, ratio, name), group in table.groupby(keys, sort=False):
        c = by_name[str(name)]
        ordered = group.sort_values("value")
        points = list(zip(ordered["value"].astype(float), ordered["mean"].astype(float),
                          strict=True))
        default = group[group["is_default"]].iloc[0]
        for line, what in thresholds(str(device), str(scenario), str(ratio).split("/")[1]):
            for value, side, i in crossings(points, line, c.scale is Scale.log):
                clear = _clear(ordered.iloc[i], ordered.iloc[i + 1], line)
                rows.append([device, scenario, ratio, name, c.unit, line, what,
                             float(default["value"]), float(default["mean"]), value, side,
                             clear])
    return pd.DataFrame(rows, columns=[*keys, "unit", "line", "line_is", "default_value",
                                       "ratio_at_default", "crosses_at", "larger_values",
                                       "clear"])


def _clear(before: pd.Series, after: pd.Series, line: float) -> bool:
    """Whether the intervals of the points around a crossing lie wholly on either side of
    the line (else the crossing is within the seeds' spread: not a flip the sweep shows)."""
    def side(point: pd.Series) -> int:
        return 1 if point["low"] > line else -1 if point["high"] < line else 0

    return side(before) * side(after) == -1


def at_value(table: pd.DataFrame, constant: ConstantConf, value: float) -> pd.DataFrame:
    """Each (device, scenario, ratio)'s ratio at ``value`` of ``constant``, interpolated
    between its points (an anchor marked on the figure); NaN outside the range."""
    rows = []
    part = table[table["constant"] == constant.name]
    for key, group in part.groupby(["device", "scenario", "ratio"], sort=False):
        ordered = group.sort_values("value")
        xs, ys = ordered["value"].to_numpy(float), ordered["mean"].to_numpy(float)
        if constant.scale is Scale.log and (xs > 0).all() and value > 0:
            xs, at = np.log(xs), math.log(value)
        else:
            at = value
        inside = xs.min() <= at <= xs.max()
        rows.append([*key, float(np.interp(at, xs, ys)) if inside else math.nan])
    return pd.DataFrame(rows, columns=["device", "scenario", "ratio", "mean"])
