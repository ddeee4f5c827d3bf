"""Scenario metrics from what a phone's ``benchmark_model`` processes reported.

``benchmark_model`` prints aggregates per process, not per-inference times, so a vanilla TFLite
run on a phone has ``phone_runs`` rows and no ``requests`` (:mod:`harness.reporting.store`).
:func:`phone_scenario_metrics` derives, per (baseline, seed), the columns of
:func:`harness.reporting.metrics.scenario_metrics` that these aggregates determine, and NaN
for the others. For each model's process:

* its **rate** is ``1e6 / avg_us`` inferences per second back to back, or
  ``min(run_frequency_hz, 1e6 / avg_us)`` with ``--run_frequency``;
* its **measured phase** is taken to end when the process ended (``end_ns``) and to have
  lasted ``count × avg_us`` (back to back) or ``count / rate``: the tool does not print when it
  began. The **span** is where every model's measured phase overlaps.

Then: **fps** is the slowest model's rate (a frame needs every model: the metrics' rule for
closed-loop streams, frame *k* = every model's *k*-th request); **frames** the fewest
inferences of any model; **requests**/**finished** the inferences of all models,
**dropped** what the tool says it dropped; **throughput_per_s** the sum of the rates;
**latency_mean_ms** the count-weighted mean of the models' averages; **latency_p50_ms**
the tool's median when one model ran (a pooled median of several cannot be had from their
medians); p90/p99, SLO, subgraphs and utilization are NaN (not reported). **Power** (the
``device`` rows, else the processors' sum, as in the metrics) is averaged over the span;
energy per frame = mean power / fps. **Peak temperature** is over the span; the time to the
first throttle as in the metrics. A baseline whose processes did not all end ``ok`` gets NaN
for everything a frame needs (fps, frames, energy per frame).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from harness.reporting.outcomes import PERCENTILES
from harness.reporting.power import power_series, time_mean, time_to_throttle_s

NAN = float("nan")
TOOL = "benchmark_model"


def rates_per_s(rows: pd.DataFrame) -> pd.Series:
    """Each process's inferences per second (NaN without an average)."""
    back_to_back = 1e6 / rows["avg_us"].astype(float)
    freq = rows["run_frequency_hz"].astype(float).fillna(0.0)
    return back_to_back.where(freq <= 0, np.minimum(freq, back_to_back))


def measured_span(rows: pd.DataFrame, rates: pd.Series) -> tuple[int, int]:
    """Where every process's measured phase overlaps (ns on the run's clock)."""
    lasted_ns = (rows["count"].astype(float) / rates * 1e9).fillna(0.0)
    starts = rows["end_ns"].astype(float) - lasted_ns
    start, end = float(starts.max()), float(rows["end_ns"].min())
    if math.isnan(start) or end <= start or (rows["end_ns"] < 0).any():
        return (-1, -1)
    return (int(start), int(end))


def _power(sensors: pd.DataFrame, span: tuple[int, int], fps: float) -> dict[str, float]:
    inside = sensors[sensors["t_ns"].between(*span)] if span[1] > span[0] else sensors.iloc[0:0]
    series = power_series(inside)
    mean = time_mean(series.index.to_series(), series) if len(series) else NAN
    per_frame = mean / fps if fps > 0 and not math.isnan(mean) else NAN
    return {"mean_power_w": mean, "peak_power_w": float(series.max()) if len(series) else NAN,
            "energy_per_frame_j": per_frame,
            "frames_per_joule": 1.0 / per_frame if per_frame > 0 else NAN}


def _latency(rows: pd.DataFrame) -> dict[str, float]:
    counts, avgs = rows["count"].astype(float), rows["avg_us"].astype(float)
    mean = float((counts * avgs).sum() / counts.sum()) / 1000 if counts.sum() > 0 else NAN
    stats = {"latency_mean_ms": mean, **{f"latency_p{p}_ms": NAN for p in PERCENTILES}}
    if len(rows) == 1:
        stats["latency_p50_ms"] = float(rows["p50_us"].iloc[0]) / 1000
    return stats


def one_run(rows: pd.DataFrame, sensors: pd.DataFrame, baseline: str) -> dict[str, float]:
    """The scenario columns of one (baseline, seed)'s benchmark_model rows."""
    ok = bool((rows["status"] == "ok").all()) and len(rows) > 0
    rates = rates_per_s(rows)
    span = measured_span(rows, rates) if ok else (-1, -1)
    fps = float(rates.min()) if ok else NAN
    span_s = (span[1] - span[0]) / 1e9 if span[1] > span[0] else NAN
    counts = rows["count"].astype(float)
    stats: dict[str, float] = {
        "span_start_ns": span[0], "span_end_ns": span[1], "span_s": span_s,
        "frames": float(counts.min()) if ok else NAN, "fps": fps,
        "requests": float(counts.sum()), "finished": float(counts.sum()),
        "dropped": float(rows["canceled"].fillna(0).sum()), "unfinished": 0.0,
        "failed": float((rows["status"] != "ok").sum()),
        "throughput_per_s": float(rates.sum()) if ok else NAN, **_latency(rows),
        "slo_requests": 0.0, "slo_satisfaction": NAN, "subgraphs": NAN, "utilization": NAN}
    stats.update(_power(sensors, span, fps))
    inside = sensors[sensors["t_ns"].between(*span)] if span[1] > span[0] else sensors.iloc[0:0]
    stats["peak_temperature_c"] = float(inside["temperature_c"].max())
    stats["time_to_throttle_s"] = time_to_throttle_s(
        pd.DataFrame({"baseline": [], "arrival_ns": []}), sensors, baseline)
    return stats


def phone_scenario_metrics(phone_runs: pd.DataFrame, sensors: pd.DataFrame) -> pd.DataFrame:
    """One row per (baseline, seed) with benchmark_model rows: the scenario metrics' columns
    (plus ``seed``), from the tools' aggregates (see the module docstring)."""
    rows = phone_runs[phone_runs["tool"] == TOOL]
    records = []
    for (baseline, seed), group in rows.groupby(["baseline", "seed"], sort=False):
        mine = sensors[(sensors["baseline"] == baseline) & (sensors["seed"] == seed)]
        records.append({"baseline": str(baseline), "seed": int(seed),
                        **one_run(group, mine, str(baseline))})
    return pd.DataFrame.from_records(records) if records else pd.DataFrame(
        columns=["baseline", "seed"])
