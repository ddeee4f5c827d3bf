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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
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
    """One subgraph row's complete event (the form :func:`_complete_json` writes)."""
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


#: :func:`_complete`'s event as JSON text, as ``json.dumps`` writes it
_COMPLETE = ('{"ph": "X", "name": %s, "cat": "subgraph", "pid": %d, "tid": %d, "ts": %r, '
             '"dur": %r, "args": {"model": %s, "request": %d, "subgraph": %d, "job": %d, '
             '"units": [%d, %d], "ok": %s}}')


def _complete_columns(kept: pd.DataFrame, starts: dict[str, int], pids: dict[str, int],
                      tids: dict[str, int]) -> dict[str, list[Any]]:
    """The complete events' fields as columns, in the trace's order: by (pid, tid, ts),
    after the subgraphs kept were ordered by (baseline, processor, start)."""
    subs = kept.sort_values(["baseline", "processor", "start_ns"], kind="stable")
    baselines = subs["baseline"].astype(str)
    origin = baselines.map(starts).to_numpy(dtype=np.int64)
    start = subs["start_ns"].to_numpy(dtype=np.int64)
    end = subs["end_ns"].to_numpy(dtype=np.int64)
    pid = baselines.map(pids).to_numpy(dtype=np.int64)
    tid = subs["processor"].astype(str).map(tids).to_numpy(dtype=np.int64)
    ts = (start - origin) / NS_PER_US
    order = np.lexsort((ts, tid, pid))  # stable, as the list sort it replaces
    columns = {"pid": pid, "tid": tid, "ts": ts, "dur": (end - start) / NS_PER_US}
    for name in ("model", "subgraph", "request_id", "job_id", "first_unit", "last_unit",
                 "ok"):
        columns[name] = subs[name].to_numpy()
    return {name: column[order].tolist() for name, column in columns.items()}


def _complete_json(columns: dict[str, list[Any]]) -> Iterator[str]:
    """Each complete event as JSON text (one string per event, no dict per row)."""
    quoted: dict[str, str] = {}
    for pid, tid, ts, dur, model, sub, request, job, first, last, ok in zip(
            columns["pid"], columns["tid"], columns["ts"], columns["dur"], columns["model"],
            columns["subgraph"], columns["request_id"], columns["job_id"],
            columns["first_unit"], columns["last_unit"], columns["ok"], strict=True):
        name = quoted.get(model)
        if name is None:
            name = quoted[model] = json.dumps(str(model))
        yield _COMPLETE % (json.dumps(f"{model}#{sub}"), pid, tid, ts, dur, name, request,
                           sub, job, first, last, "true" if ok else "false")


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


def _all_counters(run: RunData, starts: dict[str, int], pids: dict[str, int]
                  ) -> Iterator[dict[str, Any]]:
    sensors = run.sensors
    columns = ["baseline", "t_ns", "processor", *COUNTERS]
    for values in zip(*(sensors[c].tolist() for c in columns), strict=True):
        row = dict(zip(columns, values, strict=True))
        baseline = str(row["baseline"])
        yield from _counters(row, pids[baseline], starts[baseline])


def _ids_of(run: RunData) -> tuple[dict[str, int], dict[str, int]]:
    pids = _ids(pd.concat([run.requests["baseline"], run.subgraphs["baseline"],
                           run.sensors["baseline"]]))
    tids = _ids(pd.concat([run.subgraphs["processor"], run.sensors["processor"]]))
    return pids, tids


def trace_events(run: RunData) -> list[dict[str, Any]]:
    """Every event of the run's trace: metadata, complete events, counters."""
    return [json.loads(text) for text in _event_texts(run, _earliest(run.subgraphs))]


def _event_texts(run: RunData, kept: pd.DataFrame) -> Iterator[str]:
    """The trace's events as JSON texts, made one at a time: ids and each baseline's first
    time from every row of the run, complete events from the subgraph rows ``kept``."""
    pids, tids = _ids_of(run)
    starts = run_starts(run.requests, run.subgraphs, run.sensors)
    for event in _metadata(pids, tids):
        yield json.dumps(event)
    yield from _complete_json(_complete_columns(kept, starts, pids, tids))
    for event in _all_counters(run, starts, pids):
        yield json.dumps(event)


def _earliest(subgraphs: pd.DataFrame) -> pd.DataFrame:
    """Each baseline's first :data:`MAX_SUBGRAPH_EVENTS` subgraphs by start, ordered by
    (baseline, start) as a stable sort orders them; the sort runs on the two key columns,
    so only the rows kept are copied."""
    if len(subgraphs) <= MAX_SUBGRAPH_EVENTS:
        return subgraphs
    codes, _ = pd.factorize(subgraphs["baseline"], sort=True)
    order = np.lexsort((subgraphs["start_ns"].to_numpy(), codes))  # stable
    sorted_codes = codes[order]
    first = np.searchsorted(sorted_codes, sorted_codes)  # where each row's baseline begins
    rank = np.arange(len(order)) - first
    return subgraphs.iloc[order[rank < MAX_SUBGRAPH_EVENTS]]


def write_trace(run: RunData, path: Path | None = None) -> Path:
    """Write ``trace.json`` into the run folder (or ``path``) and return its path. The
    events are written as they are made (the text is what ``json.dumps`` of the whole body
    would give), so memory holds the kept rows' columns, never every event at once."""
    path = path or run.folder / "trace.json"
    other = {k: str(v) for k, v in run.manifest.items()
             if k in ("device", "scenario", "seed", "git_commit")}
    kept = _earliest(run.subgraphs)
    left_out = len(run.subgraphs) - len(kept)
    if left_out:
        other["subgraphs_left_out"] = f"{left_out} (each baseline keeps its first "\
                                      f"{MAX_SUBGRAPH_EVENTS})"
    with path.open("w") as fh:
        fh.write('{"traceEvents": [')
        for k, text in enumerate(_event_texts(run, kept)):
            if k:
                fh.write(", ")
            fh.write(text)
        fh.write('], "displayTimeUnit": "ms", "otherData": ' + json.dumps(other) + "}")
    return path
