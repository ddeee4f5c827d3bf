"""The stock TFLite ``benchmark_model``'s command line for one model on one processor.

Flags (``tensorflow/lite/tools/benchmark/benchmark_model.cc`` and the delegate providers):
``--graph``, ``--num_threads``; the run's length: ``--warmup_runs=1 --warmup_min_secs=W``
(the scenario's warm-up), ``--num_runs=1 --min_secs=D --max_secs=D`` (its duration; the tool
stops starting runs after ``max_secs``); ``--run_frequency=F`` for periodic traffic (the tool
catches up when a run overruns its slot); delegates: ``--use_gpu=true``, ``--use_nnapi=true``
(``--nnapi_accelerator_name=…``), ``--use_hexagon=true``, ``--use_xnnpack=true``;
``--report_peak_memory_footprint=true``, ``--enable_op_profiling=true``; then the
processor's ``extra_flags``.

The tool has no multi-model mode: vanilla TFLite with several models is one process per model,
started together (:mod:`devices.adb.vanilla`). It has no Poisson arrivals either.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from devices.adb.config import AdbProcessorBlock, AdbToolsConf, Delegate
from harness.seams.errors import UserError

#: phone-side markers around a tool run: its start and end on the phone's clock (ns)
START, END = "@@t0", "@@t1"

DELEGATE_FLAGS: dict[Delegate, tuple[str, ...]] = {
    Delegate.cpu: (),
    Delegate.xnnpack: ("--use_xnnpack=true",),
    Delegate.gpu: ("--use_gpu=true",),
    Delegate.nnapi: ("--use_nnapi=true",),
    Delegate.hexagon: ("--use_hexagon=true",),
}


@dataclass(frozen=True, slots=True)
class Timing:
    """How long a tool runs and at what rate."""

    warmup_s: float
    duration_s: float
    #: requests per second for periodic traffic; 0: closed loop (back to back)
    run_frequency_hz: float = 0.0


def timing_for(scenario: object) -> Timing:
    """The scenario's phases as ``benchmark_model`` can run them."""
    arrival = getattr(getattr(scenario, "arrival", None), "value", "frames")
    if arrival == "poisson":
        raise UserError("benchmark_model has no Poisson arrivals: use scenario.arrival="
                        "periodic (its --run_frequency) or frames/stream (back to back)")
    frequency = float(getattr(scenario, "fps", 0.0)) if arrival == "periodic" else 0.0
    return Timing(float(getattr(scenario, "warmup_s", 0.0)),
                  float(getattr(scenario, "duration_s", 0.0)), frequency)


def benchmark_flags(graph: str, block: AdbProcessorBlock, timing: Timing, tools: AdbToolsConf
                    ) -> list[str]:
    """Every flag of one run, in order."""
    flags = [f"--graph={graph}", f"--num_threads={block.threads}", "--warmup_runs=1",
             f"--warmup_min_secs={timing.warmup_s:g}", "--num_runs=1",
             f"--min_secs={timing.duration_s:g}", f"--max_secs={timing.duration_s:g}"]
    if timing.run_frequency_hz > 0:
        flags.append(f"--run_frequency={timing.run_frequency_hz:g}")
    flags += DELEGATE_FLAGS[block.delegate]
    if block.delegate is Delegate.nnapi and block.nnapi_accelerator:
        flags.append(f"--nnapi_accelerator_name={block.nnapi_accelerator}")
    if tools.report_peak_memory:
        flags.append("--report_peak_memory_footprint=true")
    if tools.enable_op_profiling:
        flags.append("--enable_op_profiling=true")
    return flags + list(block.extra_flags)


def tool_command(binary: str, args: list[str], workdir: str, pid_file: str) -> str:
    """The shell text that runs a tool, printing its start and end time on the phone and
    exiting with its exit code. The tool runs in the background and its process id goes to
    ``pid_file`` before the shell waits for it, so the host can kill it by that id
    (:func:`devices.adb.tools.run_all`, when the host is interrupted). The phone's
    ``timeout`` (toybox's) signals only the shell it started, so the shell passes a TERM,
    INT or HUP on to the tool before it exits (a ``wait`` returns as soon as a trapped
    signal comes, POSIX; as TERM, so the tool may clean up): a timed-out tool does not outlive
    its time. POSIX sh: Android's mksh runs it."""
    run = " ".join(shlex.quote(a) for a in [binary, *args])
    return (f"cd {shlex.quote(workdir)} && echo {START} $(date +%s%N); {run} & pid=$!; "
            f"trap 'kill $pid 2>/dev/null; exit 143' TERM INT HUP; "
            f"echo $pid > {shlex.quote(pid_file)}; wait $pid; rc=$?; "
            f"echo {END} $(date +%s%N); exit $rc")


def marker_ns(output: str, marker: str) -> int | None:
    """The phone time a marker line carries (ns since the epoch), or None."""
    for line in output.splitlines():
        if line.startswith(marker + " "):
            value = line.split()[1]
            return int(value) if value.isdigit() and len(value) > 12 else None
    return None
