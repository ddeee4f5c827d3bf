"""Measuring on the phone: every slice alone on its delegate, and a heat-up trace.

The slices are the op sets Band's analyzer cuts at minimum subgraph size 1 (unit and merged
subgraphs per processor, from the processors' op-support rules; the command passes
:func:`baselines.band.analyzer.analyze` in as an :data:`Analyzer`: a device names no policy);
each is cut from its model file exactly (:class:`devices.host.slicecache.SliceCache`; a slice
that is the whole model is the file itself), pushed by content hash, and run by the stock
``benchmark_model`` on its processor's delegate, one process at a time, so each figure is the
slice *alone*. The figure kept is the tool's mean (``Inference (avg)``, what its rate and so a
frame rate follow from). The heat-up trace runs one model back to back on one processor while
the sensor loop samples (:class:`devices.adb.measure.Measurement`).
"""

from __future__ import annotations

import hashlib
import posixpath
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from devices.adb.calibrate.config import HeatConf, ProfileConf
from devices.adb.clock import sync_clock
from devices.adb.measure import Measurement
from devices.adb.phone import Phone
from devices.adb.rows import ToolRun, status_of
from devices.adb.tflite_output import parse_benchmark_output
from devices.adb.tflite_tool import Timing, benchmark_flags, tool_command
from devices.adb.tools import raise_for, run_all
from devices.adb.vanilla import binary
from devices.host.slicecache import SliceCache
from devices.opsupport.support import unsupported_ops
from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph
from harness.seams.plan import ModelPlan, Processor, op_ranges

#: an analyzer: (graph, processors, unsupported ops per processor, minimum subgraph size,
#: merged subgraphs too) -> the plan of unit and merged subgraphs
Analyzer = Callable[[ModelGraph, Sequence[Processor], Mapping[str, frozenset[int]], int, bool],
                    ModelPlan]

@dataclass(frozen=True, slots=True)
class SliceSpec:
    """One op set of one model to measure on one processor."""

    model: str
    processor: str
    ops: frozenset[int]


@dataclass(frozen=True, slots=True)
class SliceTiming:
    """What ``benchmark_model`` measured for one slice alone."""

    slice: SliceSpec
    latency_us: float
    count: int
    std_us: float


def slices(graphs: Mapping[str, ModelGraph], phone: Phone, analyze: Analyzer
           ) -> list[SliceSpec]:
    """Every distinct (model, processor, op set) of the size-1 plans ``analyze`` (Band's
    analyzer) cuts of ``graphs``."""
    procs = phone.conf.processors
    found: dict[tuple[str, str, frozenset[int]], SliceSpec] = {}
    for name, graph in graphs.items():
        unsupported = {p.name: unsupported_ops(graph, p) for p in procs}
        plan = analyze(graph, [Processor(p.name, p.kind) for p in procs], unsupported, 1, True)
        for sg in plan.subgraphs:
            found.setdefault((name, sg.processor, sg.ops), SliceSpec(name, sg.processor, sg.ops))
    return list(found.values())


class ListSink:
    """Rows kept in memory (a RowSink)."""

    def __init__(self) -> None:
        self.rows: dict[str, list[dict[str, Any]]] = {}

    def append(self, table: str, row: Mapping[str, Any]) -> None:
        self.rows.setdefault(table, []).append(dict(row))


def tool_version(phone: Phone) -> str:
    """``benchmark_model`` prints no version: the binary's content hash names it."""
    local = Path(phone.conf.tools.benchmark_model)
    digest = hashlib.sha256(local.read_bytes()).hexdigest()[:16] if local.is_file() else "?"
    return f"benchmark_model sha256:{digest}"


class Profiler:
    """Runs ``benchmark_model`` on the phone, one slice at a time."""

    def __init__(self, phone: Phone, paths: Mapping[str, Path], graphs: Mapping[str, ModelGraph],
                 cache: Path) -> None:
        self.phone, self.paths, self.graphs = phone, paths, graphs
        self.cache = SliceCache(cache)
        self.exe, self.abi = binary(phone, "benchmark_model")

    def slice_file(self, s: SliceSpec) -> Path:
        if len(s.ops) == self.graphs[s.model].num_ops:
            return self.paths[s.model]
        return self.cache.get(self.paths[s.model], s.ops)

    def tool_run(self, s: SliceSpec, timing: Timing) -> ToolRun:
        proc = self.phone.processor(s.processor)
        remote = self.phone.deployer.deploy(self.slice_file(s))
        flags = benchmark_flags(remote, proc.adb, timing, self.phone.conf.tools)
        pid_file = posixpath.join(self.phone.conf.remote_dir, "calibrate_tool.pid")
        command = tool_command(self.exe, flags, self.phone.conf.remote_dir, pid_file)
        return ToolRun("benchmark_model", s.model, proc.name, proc.adb.delegate.value, command,
                       proc.adb.threads, pid_file=pid_file)

    def limit_s(self, timing: Timing) -> float:
        return timing.warmup_s + timing.duration_s + self.phone.conf.tools.grace_s

    def measure(self, s: SliceSpec, conf: ProfileConf) -> SliceTiming:
        timing = Timing(conf.warmup_s, conf.duration_s)
        run = self.tool_run(s, timing)
        clock = sync_clock(self.phone.transport)
        run_all(self.phone.transport, [run], self.limit_s(timing), clock, lambda _: None)
        report = parse_benchmark_output(run.output)
        raise_for(f"profiling {s.model} ops {op_ranges(s.ops)} on {s.processor}", [run],
                  [status_of(run, report.complete)], self.limit_s(timing))
        stats = report.regular
        value = report.avg_us or (stats.avg_us if stats is not None else None)
        if not value:
            raise UserError(f"benchmark_model printed no inference time for {s.model} on "
                            f"{s.processor}: {run.output.strip().splitlines()[-1:]}")
        return SliceTiming(s, float(value), stats.count if stats else 0,
                           float(stats.std_us or 0.0) if stats else 0.0)

    def heat_trace(self, conf: HeatConf, model: str) -> pd.DataFrame:
        """The phone's sensor rows while ``model`` runs back to back on ``conf.processor``."""
        timing = Timing(0.0, conf.duration_s)
        whole = SliceSpec(model, conf.processor, frozenset(range(self.graphs[model].num_ops)))
        run = self.tool_run(whole, timing)
        sink = ListSink()
        with Measurement(self.phone, "heat", 0, sink, self.limit_s(timing)) as measurement:
            run_all(self.phone.transport, [run], self.limit_s(timing), measurement.run_clock,
                    lambda _: None)
        report = parse_benchmark_output(run.output)
        raise_for("the heat-up trace", [run], [status_of(run, report.complete)],
                  self.limit_s(timing))
        rows = pd.DataFrame(sink.rows.get("sensors", []))
        if rows.empty:
            raise UserError("the heat-up trace has no sensor samples: the phone's sensor loop "
                            "wrote nothing")
        return rows


def profile_all(profiler: Profiler, todo: Sequence[SliceSpec], conf: ProfileConf
                ) -> list[SliceTiming]:
    if len(todo) > conf.max_slices:
        raise UserError(f"{len(todo)} slices to profile exceed profile.max_slices="
                        f"{conf.max_slices}: raise it, or calibrate on fewer models")
    return [profiler.measure(s, conf) for s in todo]
