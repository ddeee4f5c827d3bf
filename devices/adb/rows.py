"""Rows a phone's baseline writes: what its tools reported (``phone_runs``, ``phone_ops``).

A :class:`ToolRun` is one tool process as the harness saw it: its command, its shell result
(exit code and output) or why there is none, and its start and end on the run's clock.
:func:`status_of` names how it ended; :func:`benchmark_row` copies what ``benchmark_model``
reported into a ``phone_runs`` row (:data:`harness.seams.rows.PHONE_RUN_COLUMNS`) and
nothing else; :func:`band_summary_row` does the same for a Band summary block.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from devices.adb.band_files import BandSummary
from devices.adb.tflite_output import BenchmarkReport, PhaseStats
from devices.adb.transport import ShellResult

#: the output kept per tool run, bytes from the end
OUTPUT_KEPT = 64 * 1024
NAN = float("nan")


@dataclass
class ToolRun:
    """One tool process on the phone."""

    tool: str
    model: str
    processor: str
    delegate: str
    command: str
    threads: int = -1
    run_frequency_hz: float = 0.0
    result: ShellResult | None = None
    #: why there is no result (the phone was lost, the call failed)
    problem: str = ""
    lost: bool = False
    start_ns: int = -1
    end_ns: int = -1
    #: where on the phone its shell writes the tool's process id ("": nowhere)
    pid_file: str = ""
    #: its shell returned (not its thread's ``is_alive``: a KeyboardInterrupt in ``join``
    #: marks a running thread stopped, CPython 3.11's ``Thread._wait_for_tstate_lock``)
    ended: bool = False

    @property
    def output(self) -> str:
        return (self.result.stdout + self.result.stderr) if self.result else ""


def status_of(run: ToolRun, complete: bool) -> str:
    if run.lost:
        return "lost"
    if run.result is None:
        return "failed"
    if run.result.timed_out:
        return "timeout"
    if run.result.exit_code != 0:
        return "failed"
    return "ok" if complete else "truncated"


def _f(value: float | None) -> float:
    return NAN if value is None else float(value)


def _base(baseline: str, seed: int, run: ToolRun, status: str, error: str) -> dict[str, Any]:
    return {"baseline": baseline, "seed": seed, "tool": run.tool, "model": run.model,
            "processor": run.processor, "delegate": run.delegate, "status": status,
            "exit_code": run.result.exit_code if run.result else -1,
            "start_ns": run.start_ns, "end_ns": run.end_ns,
            "run_frequency_hz": run.run_frequency_hz, "threads": run.threads,
            "command": run.command, "error": error, "output": run.output[-OUTPUT_KEPT:]}


def _phase(stats: PhaseStats | None) -> dict[str, float]:
    s = stats or PhaseStats(count=0)
    known = stats is not None
    return {"count": float(s.count) if known else NAN, "avg_us": _f(s.avg_us),
            "std_us": _f(s.std_us), "min_us": _f(s.min_us), "max_us": _f(s.max_us),
            "p5_us": _f(s.p5_us), "p50_us": _f(s.median_us), "p95_us": _f(s.p95_us)}


def benchmark_row(baseline: str, seed: int, run: ToolRun, report: BenchmarkReport
                  ) -> dict[str, Any]:
    status = status_of(run, report.complete)
    error = run.problem or (report.errors[-1] if report.errors else "")
    if status == "truncated" and not error:
        error = "the output ends before benchmark_model's final timings line"
    row = _base(baseline, seed, run, status, error)
    row.update(_phase(report.regular))
    row.update({
        "init_us": _f(report.init_us), "first_us": _f(report.first_us),
        "warmup_count": float(report.warmup.count) if report.warmup else NAN,
        "warmup_avg_us": _f(report.warmup_avg_us if report.warmup_avg_us is not None else
                            (report.warmup.avg_us if report.warmup else None)),
        "canceled": NAN, "slo_satisfaction": NAN,
        "init_memory_mb": _f(report.init_memory_mb),
        "overall_memory_mb": _f(report.overall_memory_mb),
        "peak_memory_mb": _f(report.peak_memory_mb), "delegate_name": report.delegate,
        "delegated_nodes": _f(report.delegated_nodes), "total_nodes": _f(report.total_nodes),
        "delegate_partitions": _f(report.partitions), "delegate_coverage": report.coverage,
    })
    if report.avg_us is not None and report.regular is None:
        row["avg_us"] = report.avg_us
    return row


def band_summary_row(baseline: str, seed: int, run: ToolRun, block: BandSummary,
                     status: str) -> dict[str, Any]:
    """One ``<Result - NAME>`` block; ``model`` is the run's (empty for Band's global one)."""
    v = block.values
    latency_ms = v.get("Avg. Latency (ms)")
    slo = v.get("SLO Satisfactory Rate (%)")
    row = _base(baseline, seed, run, status, run.problem)
    row.update({k: NAN for k in ("init_us", "first_us", "warmup_count", "warmup_avg_us",
                                 "std_us", "min_us", "max_us", "p5_us", "p50_us", "p95_us",
                                 "init_memory_mb", "overall_memory_mb", "peak_memory_mb",
                                 "delegated_nodes", "total_nodes", "delegate_partitions")})
    row.update({"count": _f(v.get("# Processed requests")),
                "avg_us": NAN if latency_ms is None else latency_ms * 1000.0,
                "canceled": _f(v.get("Total # canceled requests")),
                "slo_satisfaction": NAN if slo is None else slo / 100.0,
                "delegate_name": "", "delegate_coverage": ""})
    return row


def op_rows(baseline: str, seed: int, run: ToolRun, report: BenchmarkReport
            ) -> list[dict[str, Any]]:
    return [{"baseline": baseline, "seed": seed, "model": run.model,
             "processor": run.processor, "order": op.order, "node_type": op.node_type,
             "name": op.name, "first_ms": op.first_ms, "avg_ms": op.avg_ms,
             "share_pct": op.share_pct, "cdf_pct": op.cdf_pct, "mem_kb": op.mem_kb,
             "times_called": op.times_called} for op in report.ops]
