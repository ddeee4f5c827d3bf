"""Speed of a long run's records and report: recording rows, closing the tables, reading
them back, the trace and the metrics over millions of subgraph rows.

Kept out of the default test run (``benchmark`` marker); run with::

    .venv/bin/python -m pytest -m benchmark tests/harness/reporting/test_report_bench.py \
        --benchmark-enable -s

A 30-minute ADMS FRS run on the k50pro twin records about two and a half million subgraph
rows. Here a synthetic run of two million (one baseline, one seed, four processors,
back-to-back subgraphs) is closed (journals to parquet), read back and reported:
``timeline.trace.json`` (each baseline's first
:data:`~harness.reporting.trace.MAX_SUBGRAPH_EVENTS` subgraphs) and the metrics. Recording is
measured per row, through the runtime's callbacks
(:class:`~harness.experiment.recording.RunRows`), the batches' writes included. Nothing
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
import pyarrow.parquet as pq
import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from harness.experiment.recording import RunRows
from harness.reporting import trace
from harness.reporting.columns import SHAPE_COLUMNS
from harness.reporting.metrics import compute
from harness.reporting.store import (
    RunData,
    RunRecorder,
    load_run,
)
from harness.seams.records import Completion, Request, SensorSample
from harness.seams.rows import REQUEST_COLUMNS, SENSOR_COLUMNS, SUBGRAPH_COLUMNS
from tests.fixtures.policies import plan
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


# -- recording and closing ----------------------------------------------------------------------

#: rows recorded per round
RECORDED = 1_000_000


class _Job:
    """A request row's job facts (the runtime's JobRecord)."""

    def __init__(self) -> None:
        self.start_ns, self.end_ns, self.processors, self.n_subgraphs = 5, 9, "cpu,gpu", 3


def record_rows(folder: Path) -> dict[str, float]:
    """µs per row of ``RECORDED`` subgraph rows (60 subgraphs of three models, one in fifty
    failed) and a tenth as many request and sensor rows, recorded into a fresh folder through
    the runtime's callbacks; every batch written on the way is included."""
    plans = [plan(f"model{m}", [(p, u, u, 1) for u, p in enumerate(PROCESSORS * 5)])[0]
             for m in range(3)]
    subgraphs = [sg for mp in plans for sg in mp.subgraphs]
    requests = [Request(i, subgraphs[i % 60].model, i, 1000 * i) for i in range(4096)]
    done = [Completion(i, requests[i % 4096], subgraphs[i % 60], 1000 * i, 1000 * i + 700,
                       i % 50 != 0) for i in range(65_536)]
    samples = [SensorSample(p, 0, 40.0, 2e9, 3e9, 0.5, 1.2, False) for p in PROCESSORS]
    recorder = RunRecorder(folder)
    rows = RunRows("adms", 0, lambda r: r.arrival_ns < 10, recorder.subgraphs.held,
                   recorder.requests.held, recorder.sensors.held)
    job, few = _Job(), RECORDED // 10
    _, subgraph_s = timed(_each, rows.record_subgraph, done, RECORDED)
    _, request_s = timed(_each_request, rows.record_request, requests, job, few)
    _, sensor_s = timed(_each, rows.record_sample, samples, few)
    recorder.close()
    return {"subgraph_us_per_row": subgraph_s / RECORDED * 1e6,
            "request_us_per_row": request_s / few * 1e6,
            "sensor_us_per_row": sensor_s / few * 1e6}


def _each(record: Callable[[Any], None], items: list[Any], count: int) -> None:
    for k in range(count):
        record(items[k % len(items)])


def _each_request(record: Callable[[Request, str, Any], None], requests: list[Request],
                  job: _Job, count: int) -> None:
    for k in range(count):
        record(requests[k & 4095], "ok", job)


@pytest.mark.benchmark(group="recording")
def test_recording_cost_per_row(benchmark: BenchmarkFixture, tmp_path: Path) -> None:
    rounds = iter(range(3))
    figures = benchmark.pedantic(lambda: record_rows(tmp_path / f"run{next(rounds)}"),
                                 rounds=3)
    run = load_run(tmp_path / "run2")
    assert len(run.subgraphs) == RECORDED and len(run.requests) == len(run.sensors)
    report(benchmark, **figures)


def journaled(folder: Path, rows: int = ROWS) -> RunRecorder:
    """A recorder whose journals hold the synthetic long run, a batch a second's worth
    (20,000 rows) at a time, as a run leaves them before it closes (the columns are filled
    a batch at a time, not row by row: this is the setup, not what is measured)."""
    run = long_run(folder, rows)
    recorder = RunRecorder(folder)
    for table, frame in (("requests", run.requests), ("sensors", run.sensors)):
        journal = getattr(recorder, table)
        for part in _parts(frame):
            for name, values in journal.held.lists().items():
                values.extend(part[name].tolist())
            _written(journal, len(part))
    held = recorder.subgraphs.held
    for part in _parts(run.subgraphs):
        shapes = zip(*(part[c].tolist() for c in SHAPE_COLUMNS), strict=True)
        held.shape.extend(held.code(shape) for shape in shapes)
        for name in ("request_id", "job_id", "start_ns", "end_ns", "ok"):
            getattr(held, name).extend(part[name].tolist())
        _written(recorder.subgraphs, len(part))
    return recorder


def _parts(frame: pd.DataFrame, rows: int = 20_000) -> list[pd.DataFrame]:
    return [frame.iloc[at:at + rows] for at in range(0, len(frame), rows)]


def _written(journal: Any, rows: int) -> None:
    """The ``rows`` just put in ``journal``'s columns written as one batch."""
    journal.held.count += rows
    journal.flush()
    assert journal.held.rows() == 0


@pytest.mark.benchmark(group="report")
def test_closing_two_million_subgraph_rows(benchmark: BenchmarkFixture, tmp_path: Path) -> None:
    recorder = journaled(tmp_path)
    _, wall_s = benchmark.pedantic(timed, args=(recorder.close,), rounds=1)
    assert not (tmp_path / "subgraphs.arrows").exists()
    assert pq.ParquetFile(tmp_path / "subgraphs.parquet").metadata.num_rows == ROWS
    report(benchmark, rows=float(ROWS), wall_s=wall_s)


@pytest.mark.benchmark(group="report")
def test_reading_two_million_subgraph_rows(benchmark: BenchmarkFixture, tmp_path: Path) -> None:
    journaled(tmp_path).close()
    run, wall_s = benchmark.pedantic(timed, args=(load_run, tmp_path), rounds=1)
    pd.testing.assert_frame_equal(run.subgraphs, long_run(tmp_path).subgraphs)
    report(benchmark, rows=float(ROWS), wall_s=wall_s)
