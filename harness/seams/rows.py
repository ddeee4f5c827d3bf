"""The tables of a run folder: each row schema declared once, with the function that fills it.

Every table is declared here as ``column -> pandas dtype``, in the table's column order
(:data:`REQUEST_COLUMNS`, :data:`SUBGRAPH_COLUMNS`, :data:`SENSOR_COLUMNS`,
:data:`PHONE_RUN_COLUMNS`, :data:`PHONE_OP_COLUMNS`); nothing else names a table's columns.
The run's own rows are filled from the seams' records by one function each, which gives the
row's values in that order (:func:`request_values`, :func:`subgraph_values`,
:func:`sensor_values`); the rest is derived:

* a row as a mapping, what a device that writes its own rows hands its
  :class:`~harness.seams.device.RowSink` (:func:`request_row`, :func:`subgraph_row`,
  :func:`sensor_row`);
* the recorder's columns (:mod:`harness.reporting.columns`), which hold one list per column
  of a declaration and append a row's values to them;
* the parquet and Arrow schemas (:mod:`harness.reporting.parquet`).

Request ``status``: ``ok`` (finished), ``dropped`` (the policy dropped it), ``unfinished``
(the run ended first), ``failed`` (the device could not run it).
"""

from __future__ import annotations

from typing import Any, Protocol

from harness.seams.records import Completion, Request, SensorSample

#: bump on any change of the columns below, and teach the store
#: (:func:`harness.reporting.store._migrate`) the old layout
#: (2: a ``seed`` column in every table; a run folder holds every seed of its run;
#: 3: the phone tables, absent (empty) in older folders)
SCHEMA_VERSION = 3

#: column -> pandas dtype
REQUEST_COLUMNS: dict[str, str] = {
    "baseline": "string",
    "seed": "int64",  # the seed of the repetition (seed.base + i)
    "request_id": "int64",
    "model": "string",
    "frame_id": "int64",
    "stream": "int64",
    "arrival_ns": "int64",
    "start_ns": "int64",  # first subgraph start, -1 if none ran
    "end_ns": "int64",  # last subgraph end, -1 if not finished
    "slo_ns": "int64",  # 0 = no SLO
    "status": "string",
    "processors": "string",  # processors used, comma-separated, in order of first use
    "n_subgraphs": "int64",
    "warmup": "bool",  # issued during warm-up: excluded from metrics
}

SUBGRAPH_COLUMNS: dict[str, str] = {
    "baseline": "string",
    "seed": "int64",  # the seed of the repetition (seed.base + i)
    "request_id": "int64",
    "job_id": "int64",
    "model": "string",
    "subgraph": "int64",  # index in the model's plan
    "processor": "string",
    "first_unit": "int64",
    "last_unit": "int64",
    "n_ops": "int64",
    "start_ns": "int64",
    "end_ns": "int64",
    "ok": "bool",
}

SENSOR_COLUMNS: dict[str, str] = {
    "baseline": "string",
    "seed": "int64",  # the seed of the repetition (seed.base + i)
    "t_ns": "int64",
    "processor": "string",
    "temperature_c": "float64",
    "frequency_hz": "float64",
    "max_frequency_hz": "float64",
    "load": "float64",
    "power_w": "float64",
    "throttled": "boolean",
}

#: one row per tool process on a phone; times in µs as the tool reports them, NaN (or -1,
#: "") where it reports nothing
PHONE_RUN_COLUMNS: dict[str, str] = {
    "baseline": "string",
    "seed": "int64",
    "tool": "string",  # benchmark_model | band_benchmark
    "model": "string",  # "" for a summary over every model (Band's stream mode)
    "processor": "string",  # the device config's processor ("" for Band: it places itself)
    "delegate": "string",  # cpu | xnnpack | gpu | nnapi | hexagon, or band
    # ok | failed (non-zero exit) | timeout (killed on the phone) | truncated (output cut
    # before its final timings) | lost (the phone went away)
    "status": "string",
    "exit_code": "int64",  # -1: unknown (lost)
    "start_ns": "int64",  # the process's start and end on the run's clock, -1 unknown
    "end_ns": "int64",
    "run_frequency_hz": "float64",  # --run_frequency (0: back to back)
    "threads": "int64",
    "init_us": "float64",  # model load and delegate preparation
    "first_us": "float64",  # the first (warm-up) inference
    "warmup_count": "float64",
    "warmup_avg_us": "float64",
    "count": "float64",  # inferences in the regular (measured) phase
    "avg_us": "float64",
    "std_us": "float64",
    "min_us": "float64",
    "max_us": "float64",
    "p5_us": "float64",
    "p50_us": "float64",
    "p95_us": "float64",
    "canceled": "float64",  # requests the tool dropped (Band: SLO violations)
    "slo_satisfaction": "float64",  # share in [0, 1] the tool reports (Band), NaN otherwise
    "init_memory_mb": "float64",
    "overall_memory_mb": "float64",
    "peak_memory_mb": "float64",
    "delegate_name": "string",  # as the tool names it, e.g. TfLiteGpuDelegateV2
    "delegated_nodes": "float64",  # "Replacing N out of M node(s)": N, M, partitions
    "total_nodes": "float64",
    "delegate_partitions": "float64",
    "delegate_coverage": "string",  # full | partial | none | "" (no delegate line)
    "command": "string",
    "error": "string",  # the tool's last error line, or the harness's reason
    "output": "string",  # the tool's output (its tail beyond 64 KB is dropped)
}

#: one row per op of ``benchmark_model --enable_op_profiling``'s Run Order table
PHONE_OP_COLUMNS: dict[str, str] = {
    "baseline": "string",
    "seed": "int64",
    "model": "string",
    "processor": "string",
    "order": "int64",
    "node_type": "string",
    "name": "string",
    "first_ms": "float64",
    "avg_ms": "float64",
    "share_pct": "float64",
    "cdf_pct": "float64",
    "mem_kb": "float64",
    "times_called": "int64",
}


class JobFacts(Protocol):
    """What a request row needs of the job that served it (the runtime's JobRecord)."""

    @property
    def start_ns(self) -> int: ...
    @property
    def end_ns(self) -> int: ...
    @property
    def processors(self) -> str: ...
    @property
    def n_subgraphs(self) -> int: ...


def request_values(baseline: str, seed: int, r: Request, status: str, job: JobFacts,
                   warmup: bool) -> tuple[Any, ...]:
    """The row of request ``r``, which ended with ``status``: its values in
    :data:`REQUEST_COLUMNS` order."""
    return (baseline, seed, r.request_id, r.model, r.frame_id, r.stream, r.arrival_ns,
            job.start_ns, job.end_ns, r.slo_ns, status, job.processors, job.n_subgraphs, warmup)


def subgraph_values(baseline: str, seed: int, c: Completion) -> tuple[Any, ...]:
    """The row of completion ``c``: its values in :data:`SUBGRAPH_COLUMNS` order."""
    sg = c.subgraph
    return (baseline, seed, c.request.request_id, c.job_id, sg.model, sg.index, sg.processor,
            sg.first_unit, sg.last_unit, len(sg.ops), c.start_ns, c.end_ns, c.ok)


def sensor_values(baseline: str, seed: int, s: SensorSample) -> tuple[Any, ...]:
    """The row of sample ``s`` (``None``: the sensor is not available): its values in
    :data:`SENSOR_COLUMNS` order."""
    return (baseline, seed, s.t_ns, s.processor, s.temperature_c, s.frequency_hz,
            s.max_frequency_hz, s.load, s.power_w, s.throttled)


def request_row(baseline: str, seed: int, r: Request, status: str, job: JobFacts,
                warmup: bool) -> dict[str, Any]:
    """:func:`request_values` as a mapping column -> value."""
    values = request_values(baseline, seed, r, status, job, warmup)
    return dict(zip(REQUEST_COLUMNS, values, strict=True))


def subgraph_row(baseline: str, seed: int, c: Completion) -> dict[str, Any]:
    """:func:`subgraph_values` as a mapping column -> value."""
    return dict(zip(SUBGRAPH_COLUMNS, subgraph_values(baseline, seed, c), strict=True))


def sensor_row(baseline: str, seed: int, s: SensorSample) -> dict[str, Any]:
    """:func:`sensor_values` as a mapping column -> value."""
    return dict(zip(SENSOR_COLUMNS, sensor_values(baseline, seed, s), strict=True))
