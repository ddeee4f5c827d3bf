"""Band on a phone: its own ``band_benchmark``, configured by the harness, its job log parsed.

The harness writes Band's JSON config for the scenario (:func:`band_knobs`, :func:`band_models`,
:func:`band_workers`; the format of :mod:`devices.adb.band_files`, pinned commit there): the
``band`` baseline's scheduler, ``minimum_subgraph_size``, ``schedule_window_size`` and
``ema_alpha`` (Band's ``profile_smoothing_factor``); one worker per processor of the device
config; ``stream`` mode for frames/stream traffic (Band issues one frame of every model at
once and waits for it), ``periodic`` with ``period_ms`` for periodic traffic; the SLO as
Band's ``slo_scale`` (its worst profiled latency × the scenario's ``slo_multiplier``, the
harness's own SLO rule). Band always drops a job whose SLO has passed; ``drop_on_slo`` and
``reservation_window_ms`` have no field in this Band's config and are recorded as not passed.

Band's job log has one record per executed subgraph, with real enqueue, invoke and end times:
they become ``requests`` rows (one per job; warm-up = arrived within the scenario's warm-up of
the first job) and ``subgraphs`` rows. Its stdout summary becomes ``phone_runs`` rows (with
the requests it dropped, which never reach the log).
"""

from __future__ import annotations

import json
import posixpath
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from devices.adb.band_files import (
    BAND_COMMIT,
    BandSummary,
    BandTrace,
    BandWorker,
    band_config,
    parse_summary,
)
from devices.adb.band_files import parse_trace as parse_band_trace
from devices.adb.clock import RunClock
from devices.adb.measure import Measurement
from devices.adb.phone import Phone
from devices.adb.rows import ToolRun, band_summary_row, status_of
from devices.adb.tflite_tool import tool_command
from devices.adb.tools import raise_for, run_all
from devices.adb.vanilla import binary
from harness.seams.device import BaselineRun, RowSink
from harness.seams.errors import UserError
from harness.seams.records import Request
from harness.seams.rows import request_row
from harness.seams.units import NS_PER_S

DEVICES = ("CPU", "GPU", "DSP", "NPU")
MASKS = ("ALL", "LITTLE", "BIG", "PRIMARY")
NOT_PASSED = ("drop_on_slo", "reservation_window_ms")


def band_workers(phone: Phone) -> list[BandWorker]:
    workers = []
    for proc in phone.conf.processors:
        device = proc.adb.band_device or proc.kind.name
        if device not in DEVICES or proc.adb.band_cpu_mask not in MASKS:
            raise UserError(f"processor {proc.name!r}: Band worker {device!r} / mask "
                            f"{proc.adb.band_cpu_mask!r}; allowed {DEVICES} / {MASKS}")
        workers.append(BandWorker(device, proc.adb.threads, proc.adb.band_cpu_mask))
    return workers


def band_models(graphs: Sequence[str], scenario: Any) -> list[dict[str, Any]]:
    models: list[dict[str, Any]] = []
    for graph in graphs:
        model: dict[str, Any] = {"graph": graph, "batch_size": 1}
        if scenario.arrival.value == "periodic":
            model["period_ms"] = max(1, round(1000.0 / scenario.fps))
        if scenario.slo_multiplier > 0:
            model["slo_scale"] = float(scenario.slo_multiplier)
        models.append(model)
    return models


def band_knobs(conf: Any, scenario: Any, log_path: str, phone: Phone) -> dict[str, Any]:
    if scenario.arrival.value == "poisson":
        raise UserError("band_benchmark has no Poisson arrivals: use scenario.arrival="
                        "periodic or frames/stream")
    knobs = {"execution_mode": "periodic" if scenario.arrival.value == "periodic" else "stream",
             "log_path": log_path, "schedulers": [conf.scheduler.value],
             "minimum_subgraph_size": int(conf.minimum_subgraph_size),
             "subgraph_preparation_type": "merge_unit_subgraph", "cpu_masks": "ALL",
             "running_time_ms": round((scenario.warmup_s + scenario.duration_s) * 1000),
             "profile_smoothing_factor": float(conf.ema_alpha),
             "profile_warmup_runs": phone.conf.tools.band_profile_warmup_runs,
             "profile_num_runs": phone.conf.tools.band_profile_runs}
    if conf.schedule_window_size > 0:
        knobs["schedule_window_size"] = int(conf.schedule_window_size)
    return knobs


@dataclass(frozen=True, slots=True)
class _JobFacts:
    start_ns: int
    end_ns: int
    processors: str
    n_subgraphs: int


def trace_rows(run: BaselineRun, trace: BandTrace, processors: Sequence[str],
               clock: RunClock) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(requests rows, subgraphs rows) of a parsed job log."""
    models = list(run.scenario.models)
    by_job: dict[int, list[Any]] = {}
    for rec in sorted(trace.jobs, key=lambda r: (r.job_id, r.invoke_us)):
        by_job.setdefault(rec.job_id, []).append(rec)
    units = _units_per_model(trace)
    frames = _frames(by_job, run.scenario.arrival.value == "periodic")
    first = min((recs[0].enqueue_us for recs in by_job.values()), default=0) * 1000
    warm_end = first + int(run.scenario.warmup_s * NS_PER_S)
    requests, subgraphs = [], []
    for job_id, recs in by_job.items():
        model = models[recs[0].model_id] if 0 <= recs[0].model_id < len(models) else \
            f"model{recs[0].model_id}"
        names = [_processor(processors, trace, r.worker) for r in recs]
        arrival = clock.from_phone(recs[0].enqueue_us * 1000)
        facts = _JobFacts(clock.from_phone(recs[0].invoke_us * 1000),
                          clock.from_phone(max(r.end_us for r in recs) * 1000),
                          ",".join(dict.fromkeys(names)), len(recs))
        covered = {u for r in recs for u in r.units} >= units.get(recs[0].model_id, set())
        slo_ns = recs[0].slo_us * 1000 if recs[0].slo_us > 0 else 0
        request = Request(job_id, model, frames[job_id], arrival, slo_ns, 0)
        requests.append(request_row(run.name, run.seed, request, "ok" if covered else "dropped",
                                    facts, recs[0].enqueue_us * 1000 < warm_end))
        subgraphs += [_subgraph_row(run, model, job_id, i, names[i], r, clock)
                      for i, r in enumerate(recs)]
    return requests, subgraphs


def _units_per_model(trace: BandTrace) -> dict[int, set[int]]:
    units: dict[int, set[int]] = {}
    for rec in trace.jobs:
        units.setdefault(rec.model_id, set()).update(rec.units)
    return units


def _frames(by_job: Mapping[int, list[Any]], periodic: bool) -> dict[int, int]:
    """Stream mode: jobs enqueued together form a frame; periodic: each model's k-th job."""
    if not periodic:
        times = sorted({recs[0].enqueue_us for recs in by_job.values()})
        rank = {t: i for i, t in enumerate(times)}
        return {job: rank[recs[0].enqueue_us] for job, recs in by_job.items()}
    counts: dict[int, int] = {}
    frames = {}
    for job, recs in sorted(by_job.items()):
        frames[job] = counts.get(recs[0].model_id, 0)
        counts[recs[0].model_id] = frames[job] + 1
    return frames


def _processor(processors: Sequence[str], trace: BandTrace, worker: int) -> str:
    if 0 <= worker < len(processors):
        return processors[worker]
    return f"{trace.workers.get(worker, 'worker').lower()}{worker}"


def _subgraph_row(run: BaselineRun, model: str, job_id: int, index: int, processor: str,
                  rec: Any, clock: RunClock) -> dict[str, Any]:
    units = rec.units or (-1,)
    return {"baseline": run.name, "seed": run.seed, "request_id": job_id, "job_id": job_id,
            "model": model, "subgraph": index, "processor": processor,
            "first_unit": min(units), "last_unit": max(units), "n_ops": -1,
            "start_ns": clock.from_phone(rec.invoke_us * 1000),
            "end_ns": clock.from_phone(rec.end_us * 1000), "ok": True}


def run_band(phone: Phone, run: BaselineRun, sink: RowSink, paths: Mapping[str, Path]
             ) -> dict[str, Any]:
    exe, abi = binary(phone, "band_benchmark")
    graphs = [phone.deployer.deploy(paths[m]) for m in run.scenario.models]
    limit = run.scenario.warmup_s + run.scenario.duration_s + phone.conf.tools.grace_s
    with Measurement(phone, run.name, run.seed, sink, limit) as measurement, \
            tempfile.TemporaryDirectory() as tmp:
        log_path = posixpath.join(measurement.folder, "band_log.json")
        config = band_config(band_models(graphs, run.scenario), band_workers(phone),
                             band_knobs(run.conf, run.scenario, log_path, phone))
        local = Path(tmp) / "band_config.json"
        local.write_text(json.dumps(config, indent=2))
        remote = phone.deployer.deploy(local)
        pid_file = posixpath.join(measurement.folder, "band_benchmark.pid")
        tool = ToolRun("band_benchmark", "", "", "band",
                       tool_command(exe, [remote], phone.conf.remote_dir, pid_file),
                       pid_file=pid_file)
        run_all(phone.transport, [tool], limit, measurement.run_clock, run.progress)
        trace = _pull_trace(phone, tool, log_path)
    by_graph = dict(zip(graphs, run.scenario.models, strict=True))
    status = write_band_rows(phone, run, sink, tool, trace, measurement.run_clock, by_graph)
    facts = {"runner": "band_benchmark", "band_commit": BAND_COMMIT, "binary_abi": abi,
             "config": config, "not_passed": {k: getattr(run.conf, k, None) for k in NOT_PASSED},
             **phone.deployer.facts(), "measurement": measurement.facts(), "status": status,
             "jobs_logged": len(trace.jobs) if trace else 0}
    raise_for(run.name, [tool], [status], limit)
    return facts


def _pull_trace(phone: Phone, tool: ToolRun, log_path: str) -> BandTrace | None:
    if tool.result is None or tool.result.exit_code != 0:
        return None
    try:
        return parse_band_trace(phone.transport.pull_text(log_path))
    except (UserError, ValueError, KeyError) as exc:
        tool.problem = (f"Band's job log {log_path} is missing or unreadable ({exc}): build "
                        f"band_benchmark with --config=trace (-DBAND_TRACE)")
        return None


def write_band_rows(phone: Phone, run: BaselineRun, sink: RowSink, tool: ToolRun,
                    trace: BandTrace | None, clock: RunClock, by_graph: Mapping[str, str]
                    ) -> str:
    """Requests and subgraphs from the job log, one phone_runs row per summary block."""
    status = status_of(tool, trace is not None)
    if status == "truncated" and not tool.problem:
        tool.problem = "band_benchmark ended without its job log"
    if trace is not None:
        requests, subgraphs = trace_rows(run, trace, [p.name for p in phone.conf.processors],
                                         clock)
        for row in requests:
            sink.append("requests", row)
        for row in subgraphs:
            sink.append("subgraphs", row)
    blocks = parse_summary(tool.output) if tool.result else []
    for block in blocks or [BandSummary("", {})]:
        tool.model = by_graph.get(block.name, "")  # Band names a block by its graph path
        sink.append("phone_runs", band_summary_row(run.name, run.seed, tool, block, status))
    return status
