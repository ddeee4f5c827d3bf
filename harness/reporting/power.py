"""Power and heat: a baseline's sensor rows as mean power, energy per frame and time to throttle.

Pure functions of a run's sensor rows (and, for the time to throttle, its request rows); the
tables built on them are :mod:`harness.reporting.metrics`.

Power is a time-weighted (trapezoid) mean (:func:`time_mean`) of the sensor samples inside
the span (:mod:`harness.reporting.outcomes`). Rows of the pseudo-processor :data:`DEVICE` (a
whole-phone meter such as a Monsoon) are used alone when present; otherwise the processors'
``power_w`` are summed per sample time. Energy per frame = mean power x span / complete frames
(:mod:`harness.reporting.frames`); frames per joule is its inverse (the paper's Table VI:
FPS / W). NaN when no power was measured. Time to first throttle is measured from the
baseline's first row (warm-up included) to its first sensor row with ``throttled`` true, over
the whole run; NaN if it never throttled.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from harness.reporting.outcomes import NS_PER_S, Span, in_span, span_s

#: sensor rows of this processor name measure the whole device
DEVICE = "device"


def time_mean(t_ns: pd.Series, values: pd.Series) -> float:
    """Time-weighted (trapezoid) mean of a sampled series; its value if sampled once."""
    ok = values.notna().to_numpy()
    t = t_ns.to_numpy(dtype=float)[ok]
    v = values.to_numpy(dtype=float)[ok]
    if v.size == 0:
        return float("nan")
    if v.size == 1 or t[-1] == t[0]:
        return float(v.mean())
    order = np.argsort(t, kind="stable")
    t, v = t[order], v[order]
    return float(np.trapezoid(v, t) / (t[-1] - t[0]))


def power_series(sensors: pd.DataFrame) -> pd.Series:
    """Device power (W) per sample time: the :data:`DEVICE` rows, else the processors' sum."""
    rows = sensors.dropna(subset=["power_w"])
    device = rows[rows["processor"] == DEVICE]
    rows = device if len(device) else rows
    return rows.groupby("t_ns")["power_w"].sum().sort_index()


def power_stats(sensors: pd.DataFrame, span: Span, n_frames: int) -> dict[str, float]:
    """Mean and peak power (W), energy per frame (J) and frames per joule."""
    series = power_series(in_span(sensors, "t_ns", span))
    mean = time_mean(series.index.to_series(), series)
    energy = mean * span_s(span)
    per_frame = energy / n_frames if n_frames > 0 else float("nan")
    return {
        "mean_power_w": mean,
        "peak_power_w": float(series.max()) if len(series) else float("nan"),
        "energy_per_frame_j": per_frame,
        "frames_per_joule": 1.0 / per_frame if per_frame > 0 else float("nan"),
    }


def time_to_throttle_s(requests: pd.DataFrame, sensors: pd.DataFrame, baseline: str) -> float:
    """Seconds from the baseline's first request or sensor row to its first throttled sensor
    row; NaN if never."""
    sens = sensors[sensors["baseline"] == baseline]
    hot = sens.loc[sens["throttled"].fillna(False).astype(bool), "t_ns"]
    if hot.empty:
        return float("nan")
    arrivals = requests.loc[requests["baseline"] == baseline, "arrival_ns"]
    start = int(pd.concat([arrivals, sens["t_ns"]]).min())
    return (int(hot.min()) - start) / NS_PER_S
