"""A run as a Chrome trace (``trace.json``) that Perfetto and ``chrome://tracing`` open.

The JSON object format ``{"traceEvents": [...], "displayTimeUnit": "ms"}`` with:

* one *process* per baseline and one *thread* per processor: ``pid`` and ``tid`` are small
  integers, named by ``process_name`` / ``thread_name`` metadata events (``ph: "M"``);
* one complete event (``ph: "X"``) per subgraph row, ``ts``/``dur`` in microseconds, named
  ``model#subgraph``, with ``args`` model, request, subgraph, job, units and ok;
* counter events (``ph: "C"``) from the sensors: temperature, frequency and power, one
  counter track per quantity per baseline with one series per processor.

Times are microseconds from each baseline's first row, so baselines, which run one after
another on their own clocks, line up. Complete events are sorted by (pid, tid, ts).

A long run executes millions of subgraphs: each baseline's trace keeps its first
:data:`MAX_SUBGRAPH_EVENTS` subgraphs (by start), and ``otherData`` says how many were left
out, so the file stays small enough for Perfetto; the parquet tables keep every row.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd

from harness.reporting.metrics import run_starts
from harness.reporting.store import RunData

NS_PER_US = 1_000
#: subgraph events per baseline at most (the earliest)
MAX_SUBGRAPH_EVENTS = 200_000
#: sensor column -> counter name
COUNTERS = {"temperature_c": "temperature (°C)", "frequency_hz": "frequency (MHz)",
            "power_w": "power (W)"}
_SCALE = {"frequency_hz": 1e-6}


def _ids(values: pd.Series) -> dict[str, int]:
    return {str(v): i + 1 for i, v in enumerate(pd.unique(values))}


def _metadata(pids: dict[str, int], tids: dict[str, int]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    for baseline, pid in pids.items():
        events.append({"ph": "M", "name": "process_name", "pid": pid, "tid": 0,
                       "args": {"name": baseline}})
        events += [{"ph": "M", "name": "thread_name", "pid": pid, "tid": tid,
                    "args": {"name": proc}} for proc, tid in tids.items()]
    return events


def _complete(row: dict[str, Any], pid: int, tid: int, origin: int) -> dict[str, Any]:
    return {
        "ph": "X", "name": f"{row['model']}#{row['subgraph']}", "cat": "subgraph",
        "pid": pid, "tid": tid,
        "ts": (row["start_ns"] - origin) / NS_PER_US,
        "dur": (row["end_ns"] - row["start_ns"]) / NS_PER_US,
        "args": {"model": str(row["model"]), "request": int(row["request_id"]),
                 "subgraph": int(row["subgraph"]), "job": int(row["job_id"]),
                 "units": [int(row["first_unit"]), int(row["last_unit"])],
                 "ok": bool(row["ok"])},
    }


def _counters(row: dict[str, Any], pid: int, origin: int) -> list[dict[str, Any]]:
    events = []
    for column, name in COUNTERS.items():
        value = row[column]
        if value is None or pd.isna(value) or math.isinf(float(value)):
            continue
        events.append({"ph": "C", "name": name, "pid": pid,
                       "ts": (row["t_ns"] - origin) / NS_PER_US,
                       "args": {str(row["processor"]): float(value) * _SCALE.get(column, 1.0)}})
    return events


def trace_events(run: RunData) -> list[dict[str, Any]]:
    """Every event of the run's trace: metadata, complete events, counters."""
    pids = _ids(pd.concat([run.requests["baseline"], run.subgraphs["baseline"],
                           run.sensors["baseline"]]))
    tids = _ids(pd.concat([run.subgraphs["processor"], run.sensors["processor"]]))
    starts = run_starts(run.requests, run.subgraphs, run.sensors)
    subs = _earliest(run.subgraphs).sort_values(["baseline", "processor", "start_ns"],
                                                kind="stable")
    complete = [_complete(r, pids[str(r["baseline"])], tids[str(r["processor"])],
                          starts[str(r["baseline"])]) for r in subs.to_dict("records")]
    complete.sort(key=lambda e: (e["pid"], e["tid"], e["ts"]))
    counters = [e for r in run.sensors.to_dict("records")
                for e in _counters(r, pids[str(r["baseline"])], starts[str(r["baseline"])])]
    return _metadata(pids, tids) + complete + counters


def _earliest(subgraphs: pd.DataFrame) -> pd.DataFrame:
    """Each baseline's first :data:`MAX_SUBGRAPH_EVENTS` subgraphs by start."""
    if len(subgraphs) <= MAX_SUBGRAPH_EVENTS:
        return subgraphs
    ordered = subgraphs.sort_values(["baseline", "start_ns"], kind="stable")
    return ordered[ordered.groupby("baseline").cumcount() < MAX_SUBGRAPH_EVENTS]


def write_trace(run: RunData, path: Path | None = None) -> Path:
    """Write ``trace.json`` into the run folder (or ``path``) and return its path."""
    path = path or run.folder / "trace.json"
    other = {k: str(v) for k, v in run.manifest.items()
             if k in ("device", "scenario", "seed", "git_commit")}
    left_out = len(run.subgraphs) - len(_earliest(run.subgraphs))
    if left_out:
        other["subgraphs_left_out"] = f"{left_out} (each baseline keeps its first "\
                                      f"{MAX_SUBGRAPH_EVENTS})"
    body = {"traceEvents": trace_events(run), "displayTimeUnit": "ms", "otherData": other}
    path.write_text(json.dumps(body))
    return path
