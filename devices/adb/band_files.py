"""Band's files, as ``band_benchmark`` reads and writes them at the pinned commit.

Pinned: mrsnu/band @ ``8600d4960ccb6f121221f6d252da8dbef2db160b`` (and its tracer,
mrsnu/chrome-tracer v0.0.2). Sources, read there:

* the JSON config: ``band/tool/benchmark.cc`` (``LoadBenchmarkConfigs``,
  ``LoadRuntimeConfigs``), ``band/docs/benchmark.md``, ``script/config_samples/*.json``; names
  of schedulers, devices and masks from ``band/common.cc`` (``ToString``);
* the job log: with ``log_path`` set and the binary built with ``--config=trace``
  (``-DBAND_TRACE``), the planner dumps a Chrome trace (``band/planner.cc``,
  ``band/job_tracer.cc``, chrome-tracer's ``tracer.cc``): one thread per worker named
  ``(<DEVICE>Worker ,<id>)``, one B/E pair per executed subgraph, the E event's ``args`` the
  job as ``Job::ToJson()`` writes it (``band/common.cc``): ``enqueue_time``, ``invoke_time``,
  ``end_time`` (µs of ``gettimeofday``, ``band/time.cc``), ``profiled_execution_time``,
  ``expected_execution_time``, ``expected_latency``, ``slo_us``, ``model_id``, optionally
  ``model_fname``, ``unit_indices``, ``job_id``. ``ToJson`` leaves ``unit_indices`` (a comma
  list) and ``model_fname`` unquoted, so a multi-unit subgraph makes the file invalid JSON:
  :func:`repair` quotes them before parsing. A job keeps its ``job_id`` and
  ``enqueue_time`` across its subgraphs (``Planner::…`` remaining-ops job). Jobs Band drops for
  their SLO never reach a worker, so they are not in the log;
* its summary on stdout (``Benchmark::LogResults``): ``<Result - NAME>`` headers with
  ``[# Processed requests]``, ``[Avg. Latency (ms)]``, ``[Avg. FPS]``,
  ``[Total # canceled requests]``, ``[SLO Satisfactory Rate (%)]`` lines.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

BAND_COMMIT = "8600d4960ccb6f121221f6d252da8dbef2db160b"
_UNITS = re.compile(r'"unit_indices":(-?[\d,]*)(?=,"job_id")')
_FNAME = re.compile(r'"model_fname":(?!")(.*?)(?=,"unit_indices")')
_WORKER = re.compile(r"\((\w+?)Worker ,(\d+)\)")
_HEADER = re.compile(r"^\s*<(.+)>\s*$")
_LINE = re.compile(r"^\s*\[(.+?)\]\s*:\s*(.*?)\s*$")


@dataclass(frozen=True, slots=True)
class BandWorker:
    device: str
    num_threads: int
    cpu_masks: str


def band_config(models: Sequence[dict[str, Any]], workers: Sequence[BandWorker],
                knobs: dict[str, Any]) -> dict[str, Any]:
    """The JSON ``band_benchmark`` reads: ``models`` (``graph``, ``period_ms``, ``slo_scale``…),
    ``workers``, and the runtime's ``knobs`` (``execution_mode``, ``schedulers``, …)."""
    return {"models": list(models),
            "workers": [{"device": w.device, "num_threads": w.num_threads,
                         "cpu_masks": w.cpu_masks} for w in workers], **knobs}


@dataclass(frozen=True, slots=True)
class BandJob:
    """One executed subgraph of one job (an E event of the trace)."""

    job_id: int
    model_id: int
    model_fname: str
    worker: int
    enqueue_us: int
    invoke_us: int
    end_us: int
    slo_us: int
    units: tuple[int, ...]


@dataclass
class BandTrace:
    #: worker id -> its device (CPU, GPU, DSP, NPU)
    workers: dict[int, str] = field(default_factory=dict)
    jobs: list[BandJob] = field(default_factory=list)


def repair(text: str) -> str:
    """Band's trace with the unquoted ``unit_indices`` and ``model_fname`` made JSON."""
    text = _UNITS.sub(lambda m: f'"unit_indices":[{m.group(1)}]', text)
    return _FNAME.sub(lambda m: f'"model_fname":{json.dumps(m.group(1))}', text)


def parse_trace(text: str) -> BandTrace:
    """Workers and executed subgraphs of a job log; ValueError if it is not one."""
    events = json.loads(repair(text))["traceEvents"]
    trace = BandTrace()
    streams: dict[int, int] = {}
    for ev in events:
        name = str(ev.get("args", {}).get("name", "")) if ev.get("ph") == "M" else ""
        if ev.get("name") == "thread_name" and (m := _WORKER.search(name)):
            streams[int(ev["tid"])] = int(m[2])
            trace.workers[int(m[2])] = m[1]
    for ev in events:
        if ev.get("ph") == "E" and isinstance(ev.get("args"), dict) and ev["tid"] in streams:
            trace.jobs.append(_job(ev["args"], streams[ev["tid"]]))
    return trace


def _job(args: dict[str, Any], worker: int) -> BandJob:
    units = args.get("unit_indices", [])
    units = [units] if isinstance(units, int) else units
    return BandJob(int(args["job_id"]), int(args.get("model_id", -1)),
                   str(args.get("model_fname", "")), worker, int(args["enqueue_time"]),
                   int(args["invoke_time"]), int(args["end_time"]), int(args.get("slo_us", -1)),
                   tuple(int(u) for u in units))


@dataclass(frozen=True, slots=True)
class BandSummary:
    """One ``<Result - NAME>`` block of the stdout summary."""

    name: str
    values: dict[str, float]


def parse_summary(stdout: str) -> list[BandSummary]:
    blocks: list[BandSummary] = []
    for line in stdout.splitlines():
        if (m := _HEADER.match(line)) and m[1].startswith("Result - "):
            blocks.append(BandSummary(m[1][len("Result - "):], {}))
        elif (m := _LINE.match(line)) and blocks:
            try:
                blocks[-1].values[m[1]] = float(m[2])
            except ValueError:
                continue
    return blocks
