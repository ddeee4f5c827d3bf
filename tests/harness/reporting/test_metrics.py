"""Known-answer tests of harness.reporting.metrics (and of the frames and power it is built
from) on small hand-written runs.

Runs are written through RunRecorder and read back with load_run, so the real files are used.
The helpers ``req``, ``sub``, ``sens`` and ``write_run`` are shared with the other analysis tests.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

from harness.reporting import frames, metrics, power
from harness.reporting.store import RunData, RunRecorder, load_run

MS = 1_000_000
S = 1_000_000_000


def req(baseline: str, rid: int, model: str, frame: int, arrival_ms: float, end_ms: float,
        status: str = "ok", slo_ms: float = 0, warmup: bool = False, stream: int = 0,
        processors: str = "gpu", seed: int = 7) -> dict[str, Any]:
    """One request row; ``end_ms < 0`` means it never finished."""
    end = int(end_ms * MS) if end_ms >= 0 else -1
    return {"baseline": baseline, "seed": seed, "request_id": rid, "model": model,
            "frame_id": frame,
            "stream": stream, "arrival_ns": int(arrival_ms * MS),
            "start_ns": int(arrival_ms * MS) if end >= 0 else -1, "end_ns": end,
            "slo_ns": int(slo_ms * MS), "status": status, "processors": processors,
            "n_subgraphs": 1, "warmup": warmup}


def sub(baseline: str, rid: int, model: str, processor: str, start_ms: float, end_ms: float,
        index: int = 0, seed: int = 7) -> dict[str, Any]:
    return {"baseline": baseline, "seed": seed, "request_id": rid, "job_id": rid, "model": model,
            "subgraph": index, "processor": processor, "first_unit": index,
            "last_unit": index, "n_ops": 3, "start_ns": int(start_ms * MS),
            "end_ns": int(end_ms * MS), "ok": True}


def sens(baseline: str, t_ms: float, processor: str, power_w: float | None = None,
         temperature_c: float = 40.0, throttled: bool = False,
         frequency_hz: float = 1e9, seed: int = 7) -> dict[str, Any]:
    return {"baseline": baseline, "seed": seed, "t_ns": int(t_ms * MS), "processor": processor,
            "temperature_c": temperature_c, "frequency_hz": frequency_hz,
            "max_frequency_hz": 2e9, "load": 0.5, "power_w": power_w, "throttled": throttled}


def write_run(folder: Path, requests: Iterable[Mapping[str, Any]],
              subgraphs: Iterable[Mapping[str, Any]] = (),
              sensors: Iterable[Mapping[str, Any]] = (),
              manifest: Mapping[str, Any] | None = None) -> RunData:
    recorder = RunRecorder(folder)
    for row in requests:
        recorder.requests.append(row)
    for row in subgraphs:
        recorder.subgraphs.append(row)
    for row in sensors:
        recorder.sensors.append(row)
    recorder.write_manifest(manifest or {"device": {"name": "k50pro", "kind": "twin"},
                                         "kind_meaning": "SIMULATION (digital twin)",
                                         "scenario": "frs", "seed": 7})
    recorder.close()
    return load_run(folder)


def periodic_run(folder: Path) -> RunData:
    """Two models, frames every 100 ms; frame 2 has a drop, frame 3 an unfinished request."""
    rows = []
    for k in range(4):
        rows.append(req("adms", 2 * k, "a", k, 100 * k, 100 * k + 10))
        rows.append(req("adms", 2 * k + 1, "b", k, 100 * k, 100 * k + 50))
    rows[5] = req("adms", 5, "b", 2, 200, -1, status="dropped")
    rows[6] = req("adms", 6, "a", 3, 300, 400)
    rows[7] = req("adms", 7, "b", 3, 300, -1, status="unfinished")
    return write_run(folder, rows)


def test_fps_counts_only_complete_frames(tmp_path: Path) -> None:
    run = periodic_run(tmp_path)
    row = metrics.scenario_metrics(run.requests, run.subgraphs, run.sensors).iloc[0]
    assert row["span_s"] == pytest.approx(0.4)
    assert row["frames"] == 2
    assert row["fps"] == pytest.approx(5.0)
    assert (row["dropped"], row["unfinished"], row["finished"]) == (1, 1, 6)


def test_closed_loop_frames_pair_the_kth_measured_request(tmp_path: Path) -> None:
    """A runs every 10 ms, B every 45 ms; their frame_ids are their own counters."""
    rows = [req("band", i, "a", i, 10 * i, 10 * i + 10, warmup=i < 2, stream=0)
            for i in range(10)]
    rows += [req("band", 100 + i, "b", i, 45 * i, 45 * i + 45, warmup=i < 1, stream=1)
             for i in range(3)]
    run = write_run(tmp_path, rows)
    table = frames.frames(run.requests, "band")
    assert int(table["complete"].sum()) == 2
    assert list(table.loc[table["complete"], "end_ns"]) == [90 * MS, 135 * MS]


def test_latency_percentiles_on_known_list(tmp_path: Path) -> None:
    rows = [req("tflite", i, "m", i, 1000 * i, 1000 * i + (i + 1)) for i in range(10)]
    run = write_run(tmp_path, rows)
    row = metrics.model_metrics(run.requests).iloc[0]
    assert row["latency_p90_ms"] == pytest.approx(9.1)
    assert row["latency_p50_ms"] == pytest.approx(5.5)
    assert row["latency_mean_ms"] == pytest.approx(5.5)
    assert row["throughput_per_s"] == pytest.approx(10 / 9.010)


def test_slo_counts_dropped_and_unfinished_as_misses(tmp_path: Path) -> None:
    rows = [
        req("adms", 0, "m", 0, 0, 5, slo_ms=10),
        req("adms", 1, "m", 1, 10, 20, slo_ms=10),  # exactly on the deadline: met
        req("adms", 2, "m", 2, 20, 35, slo_ms=10),  # late
        req("adms", 3, "m", 3, 30, -1, status="dropped", slo_ms=10),
        req("adms", 4, "m", 4, 40, -1, status="unfinished", slo_ms=10),
        req("adms", 5, "m", 5, 50, 99),  # no SLO: not counted
    ]
    run = write_run(tmp_path, rows)
    row = metrics.model_metrics(run.requests).iloc[0]
    assert row["slo_requests"] == 5
    assert row["slo_satisfaction"] == pytest.approx(0.4)


def test_utilization_is_busy_union_over_window(tmp_path: Path) -> None:
    rows = [req("adms", 0, "m", 0, 0, 100), req("adms", 1, "m", 1, 300, 400)]
    subs = [sub("adms", 0, "m", "gpu", 0, 100), sub("adms", 0, "m", "gpu", 50, 150),
            sub("adms", 1, "m", "gpu", 300, 450)]
    run = write_run(tmp_path, rows, subs, [sens("adms", 0, "cpu")])
    table = metrics.processor_metrics(run.requests, run.subgraphs, run.sensors)
    util = dict(zip(table["processor"], table["utilization"], strict=True))
    assert util["gpu"] == pytest.approx(250 / 400)
    assert util["cpu"] == 0.0
    assert dict(zip(table["processor"], table["subgraphs"], strict=True))["gpu"] == 3


def test_busy_ns_merges_overlaps_and_clips() -> None:
    assert metrics.busy_ns([0, 5, 20], [10, 12, 40], (2, 30)) == 10 + 10


def constant_power_sensors(watts: Mapping[str, float]) -> list[dict[str, Any]]:
    return [sens("adms", t, p, power_w=w) for t in range(0, 401, 100) for p, w in watts.items()]


def test_energy_per_frame_from_constant_power(tmp_path: Path) -> None:
    run = periodic_run(tmp_path / "a")
    run = write_run(tmp_path / "b", run.requests.to_dict("records"),
                    sensors=constant_power_sensors({"gpu": 2.0, "cpu": 1.0}))
    row = metrics.scenario_metrics(run.requests, run.subgraphs, run.sensors).iloc[0]
    assert row["mean_power_w"] == pytest.approx(3.0)
    assert row["energy_per_frame_j"] == pytest.approx(3.0 * 0.4 / 2)
    assert row["frames_per_joule"] == pytest.approx(2 / 1.2)


def test_device_power_row_is_used_alone(tmp_path: Path) -> None:
    run = periodic_run(tmp_path / "a")
    sensors = constant_power_sensors({"gpu": 2.0, power.DEVICE: 5.0})
    run = write_run(tmp_path / "b", run.requests.to_dict("records"), sensors=sensors)
    row = metrics.scenario_metrics(run.requests, run.subgraphs, run.sensors).iloc[0]
    assert row["peak_power_w"] == pytest.approx(5.0)
    assert row["energy_per_frame_j"] == pytest.approx(5.0 * 0.4 / 2)


def test_no_power_gives_nan(tmp_path: Path) -> None:
    run = periodic_run(tmp_path)
    row = metrics.scenario_metrics(run.requests, run.subgraphs, run.sensors).iloc[0]
    assert math.isnan(row["energy_per_frame_j"])
    assert math.isnan(row["time_to_throttle_s"])


def test_time_to_first_throttle(tmp_path: Path) -> None:
    rows = [req("tflite", 0, "m", 0, 500, 600)]
    sensors = [sens("tflite", 1000 * t, p, throttled=(p == "gpu" and t >= 3) or t >= 5)
               for t in range(8) for p in ("cpu", "gpu")]
    sensors[0]["throttled"] = None  # unknown is not throttled
    run = write_run(tmp_path, rows, sensors=sensors)
    assert power.time_to_throttle_s(run.requests, run.sensors, "tflite") == pytest.approx(3.0)


def test_warmup_rows_are_excluded(tmp_path: Path) -> None:
    rows = [req("adms", 0, "m", 0, 0, 5000, warmup=True)]
    rows += [req("adms", i, "m", i, 1000 * i, 1000 * i + 2) for i in range(1, 4)]
    subs = [sub("adms", 0, "m", "gpu", 0, 5000), sub("adms", 1, "m", "gpu", 1000, 1002)]
    run = write_run(tmp_path, rows, subs)
    row = metrics.model_metrics(run.requests).iloc[0]
    assert (row["requests"], row["finished"]) == (3, 3)
    assert row["latency_p99_ms"] == pytest.approx(2.0)
    scen = metrics.scenario_metrics(run.requests, run.subgraphs, run.sensors).iloc[0]
    assert scen["span_start_ns"] == 1000 * MS
    assert scen["subgraphs"] == 1


def test_explicit_span_marks_late_requests_unfinished(tmp_path: Path) -> None:
    run = periodic_run(tmp_path)
    table = metrics.model_metrics(run.requests, span=(0, 120 * MS))
    b = table[table["model"] == "b"].iloc[0]
    assert (b["requests"], b["finished"], b["unfinished"]) == (2, 1, 1)


def test_compute_bundles_three_tables(tmp_path: Path) -> None:
    result = metrics.compute(periodic_run(tmp_path))
    assert list(result.models["model"]) == ["a", "b"]
    assert list(result.scenario["baseline"]) == ["adms"]
    assert result.processors.empty


def small_run(folder: Path, speed: Mapping[str, float] | None = None,
              manifest: Mapping[str, Any] | None = None) -> RunData:
    """Three baselines, two models, a frame every 50 ms for 1 s (the first 100 ms warm-up);
    each request runs two subgraphs; sensors every 100 ms. ``speed`` scales a baseline's
    latencies down (2.0 = twice as fast)."""
    speed = {"tflite": 1.0, "band": 2.0, "adms": 3.0, **(speed or {})}
    rows, subs, sensors = [], [], []
    for baseline, factor in speed.items():
        rid = 0
        for frame in range(20):
            t0 = 50 * frame
            for model, cost in (("retinaface", 30.0), ("arcface_mobilenet", 12.0)):
                latency = cost / factor
                rows.append(req(baseline, rid, model, frame, t0, t0 + latency,
                                warmup=frame < 2, slo_ms=25, processors="cpu,gpu"))
                subs.append(sub(baseline, rid, model, "gpu", t0, t0 + latency / 2, 0))
                subs.append(sub(baseline, rid, model, "cpu", t0 + latency / 2, t0 + latency, 1))
                rid += 1
        for t in range(0, 1100, 100):
            for proc, watts in (("cpu", 1.0 + factor / 10), ("gpu", 2.0)):
                sensors.append(sens(baseline, t, proc, watts, 40 + t / 100 * factor,
                                    throttled=t >= 900 and factor < 2,
                                    frequency_hz=2e9 - t * 1e6))
    return write_run(folder, rows, subs, sensors, manifest)


def test_a_one_seed_one_baseline_selection_is_the_table_itself(tmp_path: Path) -> None:
    """A 30-minute run's report must not copy its millions of subgraph rows per selection;
    a selection that keeps some rows is still a copy of just those."""
    run = small_run(tmp_path)
    subgraphs = run.subgraphs
    assert metrics._of_seed(subgraphs, 7) is subgraphs  # small_run: every row is seed 7
    tflite = metrics.rows_where(subgraphs, subgraphs["baseline"] == "tflite")
    assert tflite is not subgraphs and set(tflite["baseline"]) == {"tflite"}
