"""A run as a Chrome trace (``trace.json``) that Perfetto and ``chrome://tracing`` open.

The JSON object format ``{"traceEvents": [...], "displayTimeUnit": "ms"}`` with:

* one *process* per baseline and one *thread* per processor: ``pid`` and ``tid`` are small
  integers, named by ``process_name`` / ``thread_name`` metadata events (``ph: "M"``);
* one complete event (``ph: "X"``) per subgraph row, ``ts``/``dur`` in microseconds, named
  ``model#subgraph``, with ``args`` model, request, subgraph, job, units and ok;
* flow events (``ph: "s"``, ``"t"``, ``"f"``; ``cat`` and ``name`` "request", one ``id``
  per request of a baseline and seed) linking each request's subgraphs in the order they
  ran, so Perfetto draws an arrow from a request's subgraph on one processor to its next one
  on another. Each flow event sits at the middle of its subgraph's slice and binds to it
  (``bp: "e"``, the enclosing slice), so slices that touch never take each other's arrows; a
  request with one subgraph has no flow;
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
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from harness.reporting.metrics import run_starts
from harness.reporting.store import RunData
from harness.seams.units import NS_PER_US

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
    """One subgraph row's complete event (the form :func:`_complete_texts` writes)."""
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


def _codes(values: pd.Series, mapping: dict[str, int]) -> np.ndarray:
    """``mapping[str(v)]`` for each value, looked up once per distinct value."""
    codes, uniques = pd.factorize(values)
    return np.array([mapping[str(u)] for u in uniques], dtype=np.int64)[codes]


def _complete_columns(kept: pd.DataFrame, starts: dict[str, int], pids: dict[str, int],
                      tids: dict[str, int]) -> dict[str, np.ndarray]:
    """The complete events' fields as columns, in the trace's order: by (pid, tid, ts),
    rows that tie in the order of ``kept`` (which is by baseline, then start, then row).
    ``ts`` and ``dur`` are nanoseconds (:func:`_us_texts` writes them as microseconds);
    ``name`` and ``model`` are codes into ``names`` and ``models``, their JSON texts."""
    start = kept["start_ns"].to_numpy(dtype=np.int64)
    end = kept["end_ns"].to_numpy(dtype=np.int64)
    pid = _codes(kept["baseline"], pids)
    tid = _codes(kept["processor"], tids)
    ts = start - _codes(kept["baseline"], starts)
    order = np.lexsort((ts, tid, pid))  # stable
    model, models = pd.factorize(kept["model"])
    sub = kept["subgraph"].to_numpy(dtype=np.int64)
    span = int(sub.max()) + 1 if len(sub) else 1
    name, pairs = pd.factorize(model * span + sub)  # (model, subgraph) pairs
    columns = {"pid": pid, "tid": tid, "ts": ts, "dur": end - start, "model": model,
               "name": name}
    for column in ("subgraph", "request_id", "job_id", "first_unit", "last_unit", "ok"):
        columns[column] = kept[column].to_numpy()
    columns = {column: values[order] for column, values in columns.items()}
    columns["models"] = np.array([json.dumps(str(m)) for m in models], dtype=object)
    columns["names"] = np.array([json.dumps(f"{models[p // span]}#{p % span}")
                                 for p in pairs.tolist()], dtype=object)
    return columns


def _complete_texts(columns: dict[str, np.ndarray], rows: slice) -> list[str]:
    """The complete events of ``rows`` as JSON texts (what ``json.dumps`` makes of
    :func:`_complete`'s events), joined field by field by arrow, not row by row."""
    def take(table: str, codes: str) -> pa.Array:
        return pa.array(columns[table]).take(pa.array(columns[codes][rows]))

    def text(column: str) -> pa.Array:
        return pc.cast(pa.array(columns[column][rows]), pa.string())

    ok = pc.if_else(pa.array(columns["ok"][rows]), "true", "false")
    parts = ['{"ph": "X", "name": ', take("names", "name"), ', "cat": "subgraph", "pid": ',
             text("pid"), ', "tid": ', text("tid"), ', "ts": ', _us_texts(columns["ts"][rows]),
             ', "dur": ', _us_texts(columns["dur"][rows]), ', "args": {"model": ',
             take("models", "model"), ', "request": ', text("request_id"), ', "subgraph": ',
             text("subgraph"), ', "job": ', text("job_id"), ', "units": [',
             text("first_unit"), ", ", text("last_unit"), '], "ok": ', ok, "}}"]
    return pc.binary_join_element_wise(*parts, "").to_pylist()


#: a flow event's phase by its place in its request: first, a step, last
FLOW_PHASES = ("s", "t", "f")


def _flow_columns(kept: pd.DataFrame, starts: dict[str, int], pids: dict[str, int],
                  tids: dict[str, int]) -> dict[str, np.ndarray]:
    """The flow events' fields as columns, by (baseline, seed, request, start): ``id`` (one
    per request with two or more subgraphs, from 1), ``phase`` (an index into
    :data:`FLOW_PHASES`), ``pid``, ``tid`` and ``ts`` (ns: the middle of the slice)."""
    pid = _codes(kept["baseline"], pids)
    seed = kept["seed"].to_numpy(dtype=np.int64) if "seed" in kept.columns else 0 * pid
    request = kept["request_id"].to_numpy(dtype=np.int64)
    start = kept["start_ns"].to_numpy(dtype=np.int64)
    middle = start + (kept["end_ns"].to_numpy(dtype=np.int64) - start) // 2
    order = np.lexsort((start, request, seed, pid))
    key = np.column_stack([pid, seed, request])[order]
    first = np.r_[True, (key[1:] != key[:-1]).any(axis=1)] if len(key) else np.zeros(0, bool)
    last = np.r_[first[1:], True] if len(key) else first
    linked = ~(first & last)
    ids = np.cumsum(first)
    _, ids = np.unique(ids[linked], return_inverse=True)  # 1, 2, ... over linked requests
    rows = order[linked]
    ts = middle - _codes(kept["baseline"], starts)
    return {"id": ids + 1, "phase": np.where(first, 0, np.where(last, 2, 1))[linked],
            "pid": pid[rows], "tid": _codes(kept["processor"], tids)[rows], "ts": ts[rows]}


def _flow_texts(flows: dict[str, np.ndarray], rows: slice) -> list[str]:
    """The flow events of ``rows`` as JSON texts, joined field by field by arrow."""
    def text(column: str) -> pa.Array:
        return pc.cast(pa.array(flows[column][rows]), pa.string())

    phase = pa.array([json.dumps(p) for p in FLOW_PHASES]).take(
        pa.array(flows["phase"][rows]))
    parts = ['{"ph": ', phase, ', "id": ', text("id"), ', "name": "request", "cat": '
             '"request", "pid": ', text("pid"), ', "tid": ', text("tid"), ', "ts": ',
             _us_texts(flows["ts"][rows]), ', "bp": "e"}']
    return pc.binary_join_element_wise(*parts, "").to_pylist()


#: ``n % 1000`` -> the fractional part of ``n / 1000`` as Python's repr writes it
_THOUSANDTHS = [".0", *(f".{r:03d}".rstrip("0") for r in range(1, 1000))]
#: below this many nanoseconds, :func:`_us_texts` writes what repr writes (52 days)
US_TEXT_LIMIT_NS = 2**42 * NS_PER_US


def _us_texts(ns: np.ndarray) -> pa.Array:
    """``repr(n / 1000)`` for each integer ``n`` (nanoseconds as microseconds, the float
    ``json.dumps`` writes): the decimal digits of ``n / 1000``, trailing zeros dropped, made
    by arrow. Below :data:`US_TEXT_LIMIT_NS` that is Python's repr: the nearest double to
    ``n / 1000`` has doubles less than 0.001 apart around it, so no shorter decimal reads back
    as it and ``n / 1000`` in full is the closest that does, and repr writes no exponent
    between 1e-4 and 1e16 (0 is "0.0"). Beyond it, repr itself writes them."""
    magnitude = np.abs(ns)
    if magnitude.size and int(magnitude.max()) >= US_TEXT_LIMIT_NS:
        return pa.array([repr(n / NS_PER_US) for n in ns.tolist()], type=pa.string())
    whole = pc.cast(pa.array(magnitude // NS_PER_US), pa.string())
    fraction = pa.array(_THOUSANDTHS).take(pa.array(magnitude % NS_PER_US))
    text = pc.binary_join_element_wise(whole, fraction, "")
    return pc.if_else(pa.array(ns < 0), pc.binary_join_element_wise("-", text, ""), text)


def _counters(row: dict[str, Any], pid: int, origin: int) -> list[dict[str, Any]]:
    """One sensor row's counter events (the form :func:`_counter_texts` writes)."""
    events = []
    for column, name in COUNTERS.items():
        value = row[column]
        if value is None or pd.isna(value) or math.isinf(float(value)):
            continue
        events.append({"ph": "C", "name": name, "pid": pid,
                       "ts": (row["t_ns"] - origin) / NS_PER_US,
                       "args": {str(row["processor"]): float(value) * _SCALE.get(column, 1.0)}})
    return events


def _counter_texts(sensors: pd.DataFrame, starts: dict[str, int], pids: dict[str, int]
                   ) -> list[str]:
    """The counter events of every sensor row, row by row and in :data:`COUNTERS` order
    within a row (a missing or infinite reading makes none), as JSON texts (what
    ``json.dumps`` makes of :func:`_counters`' events), joined field by field by arrow."""
    if sensors.empty:
        return []
    pid = _codes(sensors["baseline"], pids)
    ts = sensors["t_ns"].to_numpy(dtype=np.int64) - _codes(sensors["baseline"], starts)
    key, processors = pd.factorize(sensors["processor"])
    values = np.column_stack([sensors[c].to_numpy(dtype=float, na_value=np.nan)
                              * _SCALE.get(c, 1.0) for c in COUNTERS])
    rows, which = np.nonzero(np.isfinite(values))  # row by row, counters in order
    names = pa.array([json.dumps(name) for name in COUNTERS.values()])
    keys = pa.array([json.dumps(str(p)) for p in processors])
    parts = ['{"ph": "C", "name": ', names.take(pa.array(which)), ', "pid": ',
             pc.cast(pa.array(pid[rows]), pa.string()), ', "ts": ', _us_texts(ts[rows]),
             ', "args": {', keys.take(pa.array(key[rows])), ": ",
             pa.array(list(map(repr, values[rows, which].tolist())), type=pa.string()), "}}"]
    return pc.binary_join_element_wise(*parts, "").to_pylist()


def _ids_of(run: RunData) -> tuple[dict[str, int], dict[str, int]]:
    """Process ids by baseline and thread ids by processor, in order of first appearance
    (requests, then subgraphs, then sensors)."""
    def first_seen(*columns: pd.Series) -> pd.Series:
        return pd.concat([pd.Series(pd.unique(c), dtype=object) for c in columns])

    pids = _ids(first_seen(run.requests["baseline"], run.subgraphs["baseline"],
                           run.sensors["baseline"]))
    tids = _ids(first_seen(run.subgraphs["processor"], run.sensors["processor"]))
    return pids, tids


def trace_events(run: RunData) -> list[dict[str, Any]]:
    """Every event of the run's trace: metadata, complete events, counters."""
    return [json.loads(text) for chunk in _event_chunks(run, _earliest(run.subgraphs))
            for text in chunk]


#: events made (and written) at a time
CHUNK = 65_536


def _event_chunks(run: RunData, kept: pd.DataFrame) -> Iterator[list[str]]:
    """The trace's events as JSON texts, :data:`CHUNK` at a time: ids and each baseline's
    first time from every row of the run, complete events from the subgraph rows ``kept``,
    counters from every sensor row."""
    pids, tids = _ids_of(run)
    starts = run_starts(run.requests, run.subgraphs, run.sensors)
    yield [json.dumps(event) for event in _metadata(pids, tids)]
    columns = _complete_columns(kept, starts, pids, tids)
    for at in range(0, len(kept), CHUNK):
        yield _complete_texts(columns, slice(at, at + CHUNK))
    flows = _flow_columns(kept, starts, pids, tids)
    for at in range(0, len(flows["id"]), CHUNK):
        yield _flow_texts(flows, slice(at, at + CHUNK))
    for at in range(0, len(run.sensors), CHUNK):
        yield _counter_texts(run.sensors.iloc[at:at + CHUNK], starts, pids)


def _earliest(subgraphs: pd.DataFrame) -> pd.DataFrame:
    """Each baseline's first :data:`MAX_SUBGRAPH_EVENTS` subgraphs by start, ordered by
    (baseline, start) as a stable sort orders them (rows that tie in row order); selected
    without sorting every row, so only the rows kept are copied."""
    if len(subgraphs) <= MAX_SUBGRAPH_EVENTS:
        return subgraphs
    codes, _ = pd.factorize(subgraphs["baseline"], sort=True)
    start = subgraphs["start_ns"].to_numpy()
    picked = [_first_by_start(np.flatnonzero(codes == c), start) for c in range(codes.max() + 1)]
    return subgraphs.iloc[np.concatenate(picked)]


def _first_by_start(rows: np.ndarray, start: np.ndarray) -> np.ndarray:
    """The first :data:`MAX_SUBGRAPH_EVENTS` of ``rows`` (ascending positions) by start, as a
    stable sort orders them: the smallest starts, rows that tie on the last one kept taken in
    row order."""
    values = start[rows]
    if len(rows) > MAX_SUBGRAPH_EVENTS:
        bound = np.partition(values, MAX_SUBGRAPH_EVENTS - 1)[MAX_SUBGRAPH_EVENTS - 1]
        below = values < bound
        ties = np.flatnonzero(values == bound)[:MAX_SUBGRAPH_EVENTS - int(below.sum())]
        below[ties] = True
        rows, values = rows[below], values[below]
    return rows[np.argsort(values, kind="stable")]


def write_trace(run: RunData, path: Path | None = None) -> Path:
    """Write ``trace.json`` into the run folder (or ``path``) and return its path. The
    events are written as they are made, a chunk at a time (the text is what ``json.dumps``
    of the whole body would give), so memory holds the kept rows' columns and one chunk,
    never every event at once."""
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
        _write_joined(fh, _event_chunks(run, kept))
        fh.write('], "displayTimeUnit": "ms", "otherData": ' + json.dumps(other) + "}")
    return path


def _write_joined(fh: IO[str], chunks: Iterable[list[str]]) -> None:
    """The texts of every chunk separated by ", ", written a chunk at a time."""
    separator = ""
    for chunk in chunks:
        if chunk:
            fh.write(separator + ", ".join(chunk))
            separator = ", "
