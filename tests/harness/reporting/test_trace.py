"""The Chrome trace is valid JSON with one complete event per subgraph row."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from harness.reporting import trace
from tests.harness.reporting.test_metrics import small_run


def test_trace_events(tmp_path: Path) -> None:
    run = small_run(tmp_path)
    body = json.loads(trace.write_trace(run).read_text())
    events = body["traceEvents"]
    complete = [e for e in events if e["ph"] == "X"]
    assert len(complete) == len(run.subgraphs)
    last: dict[tuple[int, int], float] = defaultdict(lambda: float("-inf"))
    for event in complete:
        assert event["ts"] >= last[(event["pid"], event["tid"])]
        assert event["dur"] > 0
        assert {"model", "request", "subgraph"} <= set(event["args"])
        last[(event["pid"], event["tid"])] = event["ts"]
    names = {e["args"]["name"] for e in events if e["ph"] == "M"}
    assert {"tflite", "band", "adms", "cpu", "gpu"} <= names


def test_counters_from_sensors(tmp_path: Path) -> None:
    run = small_run(tmp_path)
    counters = [e for e in trace.trace_events(run) if e["ph"] == "C"]
    assert len(counters) == 3 * len(run.sensors)  # temperature, frequency, power: all present
    first = next(e for e in counters if e["name"].startswith("frequency"))
    assert first["ts"] == 0 and first["args"] == {"cpu": 2000.0}



def test_a_long_run_keeps_each_baselines_first_subgraphs(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    monkeypatch.setattr(trace, "MAX_SUBGRAPH_EVENTS", 2)
    rows = [{"baseline": b, "seed": 0, "request_id": i, "job_id": i, "model": "m",
             "subgraph": 0, "processor": "cpu", "first_unit": 0, "last_unit": 0, "n_ops": 1,
             "start_ns": 1000 * (5 - i), "end_ns": 1000 * (5 - i) + 500, "ok": True}
            for b in ("x", "y") for i in range(5)]
    kept = trace._earliest(pd.DataFrame(rows))
    assert sorted(zip(kept["baseline"], kept["start_ns"], strict=True)) == [
        ("x", 1000), ("x", 2000), ("y", 1000), ("y", 2000)]


def test_streamed_events_are_the_row_by_row_events(tmp_path: Path) -> None:
    """The columnar writer gives, event for event and in order, what ``_complete`` makes of
    each row (rows by baseline, processor, start; then stably by pid, tid, ts), and the file
    is ``json.dumps`` of the whole body."""
    run = small_run(tmp_path)
    pids, tids = trace._ids_of(run)
    starts = trace.run_starts(run.requests, run.subgraphs, run.sensors)
    rows = run.subgraphs.sort_values(["baseline", "processor", "start_ns"], kind="stable")
    expected = [trace._complete(r, pids[str(r["baseline"])], tids[str(r["processor"])],
                                starts[str(r["baseline"])]) for r in rows.to_dict("records")]
    expected.sort(key=lambda e: (e["pid"], e["tid"], e["ts"]))
    events = trace.trace_events(run)
    assert [e for e in events if e["ph"] == "X"] == expected
    text = trace.write_trace(run).read_text()
    body = json.loads(text)
    assert text == json.dumps({"traceEvents": events, "displayTimeUnit": "ms",
                               "otherData": body["otherData"]})


def test_microsecond_texts_are_what_repr_writes() -> None:
    """Nanoseconds written as microseconds by arrow, digit by digit, are Python's repr of the
    float ``n / 1000`` (what json.dumps writes); past the limit repr writes them itself."""
    rng = np.random.default_rng(3)
    edges = [0, 1, -1, 10, 100, 999, 1000, 1001, 1010, 1100, 123_456_000, 10**12 + 7,
             trace.US_TEXT_LIMIT_NS - 1, -(trace.US_TEXT_LIMIT_NS - 1)]
    ns = np.array(edges + rng.integers(-trace.US_TEXT_LIMIT_NS, trace.US_TEXT_LIMIT_NS,
                                       20_000).tolist()
                  + rng.integers(0, 10**7, 20_000).tolist(), dtype=np.int64)
    assert trace._us_texts(ns).to_pylist() == [repr(n / 1000) for n in ns.tolist()]
    beyond = np.array([trace.US_TEXT_LIMIT_NS, 2**62 + 1], dtype=np.int64)
    assert trace._us_texts(beyond).to_pylist() == [repr(n / 1000) for n in beyond.tolist()]


def test_counter_texts_are_the_row_by_row_events(tmp_path: Path) -> None:
    """Counters made from columns are, text for text and in order, json.dumps of what
    ``_counters`` makes of each row; missing, NaN and infinite readings make no event."""
    run = small_run(tmp_path)
    sensors = run.sensors.copy()
    sensors.loc[3, "temperature_c"] = float("nan")
    sensors.loc[4, "power_w"] = float("inf")
    sensors.loc[5, "frequency_hz"] = -float("inf")
    sensors.loc[6, ["temperature_c", "frequency_hz", "power_w"]] = float("nan")
    sensors.loc[7, "power_w"] = 1 / 3
    pids, _ = trace._ids_of(run)
    starts = trace.run_starts(run.requests, run.subgraphs, sensors)
    expected = [json.dumps(e) for r in sensors.to_dict("records")
                for e in trace._counters(r, pids[str(r["baseline"])], starts[str(r["baseline"])])]
    assert trace._counter_texts(sensors, starts, pids) == expected
    assert len(expected) == 3 * len(sensors) - 6


def test_the_earliest_subgraphs_are_a_stable_sorts_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chosen without sorting every row, yet the rows (and their order) a stable sort by
    (baseline, start) puts first: many rows tie on the last start kept."""
    monkeypatch.setattr(trace, "MAX_SUBGRAPH_EVENTS", 50)
    rng = np.random.default_rng(5)
    n = 1_000
    frame = pd.DataFrame({"baseline": rng.choice(["band", "adms", "tflite"], n),
                          "start_ns": rng.integers(0, 40, n)})
    codes, _ = pd.factorize(frame["baseline"], sort=True)
    order = np.lexsort((frame["start_ns"].to_numpy(), codes))
    rank = np.arange(n) - np.searchsorted(codes[order], codes[order])
    expected = frame.iloc[order[rank < 50]]
    pd.testing.assert_frame_equal(trace._earliest(frame), expected)


def test_the_file_is_the_same_whatever_the_chunk(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    run = small_run(tmp_path)
    whole = trace.write_trace(run, tmp_path / "whole.json").read_text()
    monkeypatch.setattr(trace, "CHUNK", 7)
    assert trace.write_trace(run, tmp_path / "chunked.json").read_text() == whole
