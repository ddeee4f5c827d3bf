"""The Chrome trace is valid JSON with one complete event per subgraph row."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

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
