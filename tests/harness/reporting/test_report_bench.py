"""Speed of a long run's report: the trace and the metrics over millions of subgraph rows.

Kept out of the default test run (``benchmark`` marker); run with::

    .venv/bin/python -m pytest -m benchmark tests/harness/reporting/test_report_bench.py \
        --benchmark-enable -s

A 30-minute ADMS FRS run on the k50pro twin records about two million subgraph rows. Here a
synthetic run of that size (one baseline, one seed, four processors, back-to-back subgraphs)
is reported: ``timeline.trace.json`` (each baseline's first
:data:`~harness.reporting.trace.MAX_SUBGRAPH_EVENTS` subgraphs) and the metrics. Nothing
asserts on time; each benchmark checks that the work was done.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from harness.reporting import trace
from harness.reporting.metrics import compute
from harness.reporting.store import REQUEST_COLUMNS, SENSOR_COLUMNS, SUBGRAPH_COLUMNS, RunData
from tests.harness.runtime.test_runtime_bench import report

ROWS = 2_000_000
PROCESSORS = ("cpu", "gpu", "npu", "apu")
#: subgraph rows per request
PER_REQUEST = 4


def long_run(folder: Path, rows: int = ROWS) -> RunData:
    """``rows`` subgraphs of 100 µs each, four per request, round-robin over the processors."""
    k = np.arange(rows, dtype=np.int64)
    start = (k // len(PROCESSORS)) * 100_000
    request = k // PER_REQUEST
    subgraphs = pd.DataFrame({
        "baseline": "adms", "seed": 0, "request_id": request, "job_id": request,
        "model": "m", "subgraph": k % PER_REQUEST,
        "processor": np.array(PROCESSORS)[k % len(PROCESSORS)],
        "first_unit": k % PER_REQUEST, "last_unit": k % PER_REQUEST, "n_ops": 3,
        "start_ns": start, "end_ns": start + 100_000, "ok": True,
    }).astype(SUBGRAPH_COLUMNS)
    ends = subgraphs.groupby("request_id")["end_ns"].max().to_numpy()
    ids = np.arange(len(ends), dtype=np.int64)
    requests = pd.DataFrame({
        "baseline": "adms", "seed": 0, "request_id": ids, "model": "m", "frame_id": ids,
        "stream": 0, "arrival_ns": ids * 100_000, "start_ns": ids * 100_000, "end_ns": ends,
        "slo_ns": 0, "status": "ok", "processors": ",".join(PROCESSORS),
        "n_subgraphs": PER_REQUEST, "warmup": False,
    }).astype(REQUEST_COLUMNS)
    t = np.arange(0, int(start[-1]) + 1, 100_000_000, dtype=np.int64)
    sensors = pd.DataFrame({
        "baseline": "adms", "seed": 0, "t_ns": np.repeat(t, len(PROCESSORS)),
        "processor": np.tile(PROCESSORS, len(t)), "temperature_c": 40.0,
        "frequency_hz": 2e9, "max_frequency_hz": 2e9, "load": 1.0, "power_w": 1.0,
        "throttled": False,
    }).astype(SENSOR_COLUMNS)
    manifest = {"device": "synthetic", "scenario": "long", "seed": 0,
                "duration_s": int(start[-1]) / 1e9, "warmup_s": 0}
    return RunData(folder, requests, subgraphs, sensors, manifest)


def timed(f: Callable[..., Any], *args: Any) -> tuple[Any, float]:
    """(``f(*args)``, its wall seconds)."""
    start = time.perf_counter()
    out = f(*args)
    return out, time.perf_counter() - start


@pytest.mark.benchmark(group="report")
def test_trace_of_two_million_subgraphs(benchmark: BenchmarkFixture, tmp_path: Path) -> None:
    run = long_run(tmp_path)
    path, wall_s = benchmark.pedantic(timed, args=(trace.write_trace, run,
                                                   tmp_path / "trace.json"), rounds=1)
    body = json.loads(path.read_text())
    complete = [e for e in body["traceEvents"] if e["ph"] == "X"]
    assert len(complete) == trace.MAX_SUBGRAPH_EVENTS
    report(benchmark, rows=float(ROWS), wall_s=wall_s)


@pytest.mark.benchmark(group="report")
def test_metrics_of_two_million_subgraphs(benchmark: BenchmarkFixture, tmp_path: Path) -> None:
    run = long_run(tmp_path)
    metrics, wall_s = benchmark.pedantic(timed, args=(compute, run), rounds=1)
    assert int(metrics.scenario["subgraphs"].iloc[0]) > 0
    report(benchmark, rows=float(ROWS), wall_s=wall_s)
