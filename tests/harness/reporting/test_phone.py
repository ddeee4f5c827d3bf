"""Scenario metrics from ``benchmark_model`` aggregates (:mod:`harness.reporting.phone`):
known answers on hand-made ``phone_runs`` and ``sensors`` rows."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from harness.reporting.phone import phone_scenario_metrics
from harness.seams.rows import PHONE_RUN_COLUMNS, SENSOR_COLUMNS

S = 1_000_000_000


def runs(*rows: dict) -> pd.DataFrame:
    base: dict[str, object] = {c: None for c in PHONE_RUN_COLUMNS}
    base.update(baseline="tflite", seed=0, tool="benchmark_model", status="ok", exit_code=0,
                run_frequency_hz=0.0, canceled=float("nan"), p50_us=float("nan"), threads=1,
                start_ns=-1, end_ns=-1)
    return pd.DataFrame([{**base, **r} for r in rows]).astype(PHONE_RUN_COLUMNS)


def sensors(*rows: tuple[int, str, float | None, float | None]) -> pd.DataFrame:
    frame = pd.DataFrame([{"baseline": "tflite", "seed": 0, "t_ns": t, "processor": p,
                           "temperature_c": temp, "power_w": w} for t, p, temp, w in rows],
                         columns=list(SENSOR_COLUMNS))
    return frame.astype(SENSOR_COLUMNS)


TWO_MODELS = runs(
    {"model": "a", "count": 1000.0, "avg_us": 5000.0, "start_ns": 0, "end_ns": 6 * S},
    {"model": "b", "count": 250.0, "avg_us": 20000.0, "start_ns": 0, "end_ns": 7 * S},
)
POWER = sensors((1 * S, "device", None, 3.0), (2 * S, "device", None, 3.0),
                (3 * S, "device", None, 5.0), (4 * S, "cpu", 50.0, None),
                (5 * S, "device", None, 5.0), (6 * S, "cpu", 55.0, None),
                (6 * S + 1, "cpu", 99.0, None))


def test_fps_is_the_slowest_models_rate() -> None:
    [row] = phone_scenario_metrics(TWO_MODELS, POWER).to_dict("records")
    # a: 200/s for 5 s, ends at 6 s (measured 1..6 s); b: 50/s for 5 s, ends at 7 s (2..7 s)
    assert (row["fps"], row["frames"], row["throughput_per_s"]) == (50.0, 250.0, 250.0)
    assert (row["span_start_ns"], row["span_end_ns"], row["span_s"]) == (2 * S, 6 * S, 4.0)
    assert row["requests"] == row["finished"] == 1250.0 and row["dropped"] == 0.0
    assert row["latency_mean_ms"] == pytest.approx((1000 * 5 + 250 * 20) / 1250)
    assert math.isnan(row["latency_p50_ms"]) and math.isnan(row["slo_satisfaction"])
    # device power inside 2..6 s: 3, 5, 5 W at 2, 3, 5 s; trapezoid: (4 + 10) J / 3 s
    assert row["mean_power_w"] == pytest.approx((3 + 5) / 2 * 1 / 3 + 5 * 2 / 3)
    assert row["energy_per_frame_j"] == pytest.approx(row["mean_power_w"] / 50.0)
    assert row["peak_temperature_c"] == 55.0  # 99 °C came after the span


def test_periodic_rates_and_one_model_median() -> None:
    one = runs({"model": "a", "count": 300.0, "avg_us": 2000.0, "p50_us": 1900.0,
                "run_frequency_hz": 30.0, "start_ns": 0, "end_ns": 11 * S})
    [row] = phone_scenario_metrics(one, sensors()).to_dict("records")
    assert row["fps"] == 30.0 and row["span_s"] == pytest.approx(10.0)
    assert row["latency_p50_ms"] == 1.9 and math.isnan(row["mean_power_w"])


def test_a_failed_process_leaves_no_fps() -> None:
    failed = TWO_MODELS.copy()
    failed.loc[1, "status"] = "timeout"
    [row] = phone_scenario_metrics(failed, POWER).to_dict("records")
    assert math.isnan(row["fps"]) and math.isnan(row["energy_per_frame_j"])
    assert row["failed"] == 1.0


def test_band_rows_and_other_tools_are_not_counted() -> None:
    band = runs({"tool": "band_benchmark", "baseline": "band", "count": 10.0, "avg_us": 1.0,
                 "start_ns": 0, "end_ns": S})
    assert phone_scenario_metrics(band, POWER).empty
