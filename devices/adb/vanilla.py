"""Vanilla TFLite on a phone: the stock ``benchmark_model``, one process per model.

Each model runs whole on the processor the ``tflite`` baseline's config names for it under
``placement: fixed`` (:meth:`baselines.tflite.config.TfliteConf.fixed_processor`, the rule the
``tflite`` baseline itself follows: ``processor_map``, else for an 8-bit model the first of
``quantized_processors`` the phone has, else ``default_processor``), through that processor's
delegate (:mod:`devices.adb.tflite_tool`); the delegate itself falls back to the CPU for ops it
rejects, as in any app. With several models, their processes start together and run
concurrently, which is what an app running them without a scheduler gets. Each process warms up
for the scenario's warm-up and measures for its duration; periodic traffic becomes
``--run_frequency``. A process's model load and delegate preparation happen before its warm-up,
so processes with slow initialization (GPU kernels compile) start measuring later: their start
and end on the run's clock are in their ``phone_runs`` rows.

The tool reports aggregates (count, mean, deviation, percentiles), not per-inference times,
so it writes ``phone_runs`` (and ``phone_ops``) rows, and no ``requests``.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

from devices.adb.config import AdbProcessorConf
from devices.adb.deploy import check_binary
from devices.adb.measure import Measurement
from devices.adb.phone import Phone
from devices.adb.rows import ToolRun, benchmark_row, op_rows, status_of
from devices.adb.tflite_output import parse_benchmark_output
from devices.adb.tflite_tool import Timing, benchmark_flags, timing_for, tool_command
from devices.adb.tools import raise_for, run_all
from harness.models.tflite_io import read_tflite
from harness.seams.device import BaselineRun, RowSink
from harness.seams.errors import UserError


def binary(phone: Phone, what: str) -> tuple[str, str]:
    """(phone path, ABI) of a user-supplied tool, checked and pushed."""
    local = getattr(phone.conf.tools, what)
    if not local:
        raise UserError(f"no {what} binary configured: set device.tools.{what}=<local path "
                        f"of the binary built for the phone ({phone.facts.abi})>")
    abi = check_binary(Path(local), what, phone.facts.abilist)
    return phone.deployer.deploy(Path(local), executable=True), abi


def placements(phone: Phone, conf: Any, quantized: Mapping[str, bool]
               ) -> dict[str, AdbProcessorConf]:
    """The processor ``conf`` (a ``TfliteConf``: its own rule, ``fixed_processor``) names
    for each model (``quantized``: which are 8-bit)."""
    names = [p.name for p in phone.conf.processors]
    return {model: phone.processor(str(conf.fixed_processor(model, q, names)))
            for model, q in quantized.items()}


def tool_runs(phone: Phone, placed: Mapping[str, AdbProcessorConf], models: Mapping[str, str],
              exe: str, timing: Timing, folder: str) -> list[ToolRun]:
    """One ``benchmark_model`` process per model (``models``: phone paths), each on its
    processor in ``placed``, writing its process id into the phone's run ``folder``."""
    runs = []
    for model, remote in models.items():
        proc = placed[model]
        flags = benchmark_flags(remote, proc.adb, timing, phone.conf.tools)
        pid_file = posixpath.join(folder, f"benchmark_model_{model}.pid")
        command = tool_command(exe, flags, phone.conf.remote_dir, pid_file)
        runs.append(ToolRun("benchmark_model", model, proc.name, proc.adb.delegate.value,
                            command, proc.adb.threads, timing.run_frequency_hz,
                            pid_file=pid_file))
    return runs


def run_vanilla(phone: Phone, run: BaselineRun, sink: RowSink, paths: Mapping[str, Path]
                ) -> dict[str, Any]:
    """Run, write its rows, raise for a failed process; returns facts for the manifest."""
    timing = timing_for(run.scenario)
    exe, abi = binary(phone, "benchmark_model")
    models = {m: phone.deployer.deploy(paths[m]) for m in run.scenario.models}
    placed = placements(phone, run.conf, {m: read_tflite(paths[m], m).is_quantized
                                          for m in models})
    limit = timing.warmup_s + timing.duration_s + phone.conf.tools.grace_s
    with Measurement(phone, run.name, run.seed, sink, limit) as measurement:
        runs = tool_runs(phone, placed, models, exe, timing, measurement.folder)
        run_all(phone.transport, runs, limit, measurement.run_clock, run.progress)
    statuses = write_rows(run, runs, sink)
    facts = {"runner": "benchmark_model", "binary_abi": abi, "timing": asdict(timing),
             "processors": {r.model: r.processor for r in runs}, **phone.deployer.facts(),
             "measurement": measurement.facts(), "statuses": dict(zip(models, statuses,
                                                                      strict=True))}
    raise_for(run.name, runs, statuses, limit)
    return facts


def write_rows(run: BaselineRun, runs: list[ToolRun], sink: RowSink) -> list[str]:
    statuses = []
    for tool in runs:
        report = parse_benchmark_output(tool.output)
        row = benchmark_row(run.name, run.seed, tool, report)
        sink.append("phone_runs", row)
        for op in op_rows(run.name, run.seed, tool, report):
            sink.append("phone_ops", op)
        statuses.append(status_of(tool, report.complete))
    return statuses
