"""What the stock TFLite ``benchmark_model`` prints, read tolerantly across its versions.

Formats met (``tensorflow/lite/tools/benchmark/benchmark_model.cc``, ``tsl/util/
stats_calculator.h``; FINDINGS.md), each line possibly prefixed by ``INFO:``/``WARN:``/
``ERROR:`` or a glog header (``2018-… I …/benchmark_model.cc:469]``), numbers possibly in
scientific notation (``1.00135e+07``):

* ``Inference timings in us: Init: N, First inference: N, Warmup (avg): X, Inference (avg): X``
  and, in older builds, ``Average inference timings in us: Warmup: X, Init: N, no stats: X``;
* one statistics line per phase after its ``Running benchmark for at least …`` line (warm-up
  first, then the regular runs): ``count=N first=… curr=… min=… max=… avg=… std=…`` with
  ``p5= median= p95=`` in newer builds, ``count=N curr=X`` (with ``(all same)`` when N > 1)
  when every run took the same time, ``count=0`` when none ran;
* memory: ``Memory footprint delta from the start of the tool (MB): init=… overall=…`` (older:
  ``Peak memory footprint (MB): init=… overall=…``) and ``Overall peak memory footprint (MB)
  via periodic monitoring: X``;
* delegates: ``Replacing N out of M node(s) with delegate (NAME) node, yielding K partitions``,
  ``Explicitly applied X delegate, and the model graph will be completely executed by the
  delegate`` / ``partially executed by the delegate w/ K delegate kernels``, ``Though X
  delegate is explicitly applied, the model graph will not be executed by the delegate``;
* ``--enable_op_profiling``: the ``Run Order`` table after ``Operator-wise Profiling Info for
  Regular Benchmark Runs:`` (node type, first and average ms, %, cdf %, memory KB, times
  called, name).

Nothing is filled in that the output does not say: a missing figure is None. A report is
``complete`` only when the final timings line is there (a cut output is not).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_PREFIX = re.compile(r"^(?:\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+: )?(?:[IWEF]\S* \S+\.cc:\d+\]\s*)?"
                     r"(?:(?:INFO|WARN|WARNING|ERROR|VERBOSE): )?")
_TIMINGS = re.compile(rf"Inference timings in us: Init: ({NUM}), First inference: ({NUM}), "
                      rf"Warmup \(avg\): ({NUM}), Inference \(avg\): ({NUM})")
_OLD_TIMINGS = re.compile(rf"Average inference timings in us: Warmup: ({NUM}), Init: ({NUM}), "
                          rf"no stats: ({NUM})")
_STAT = re.compile(r"^count=(\d+)")
_PAIR = re.compile(rf"(\w+)=({NUM})")
_MEM_DELTA = re.compile(rf"(?:Memory footprint delta from the start of the tool|Peak memory "
                        rf"footprint) \(MB\): init=({NUM}) overall=({NUM})")
_PEAK = re.compile(rf"Overall peak memory footprint \(MB\) via periodic monitoring: ({NUM})")
_REPLACING = re.compile(r"Replacing (\d+) out of (\d+) node\(s\) with delegate \(([^)]*)\) "
                        r"node, yielding (\d+) partitions")
_APPLIED = re.compile(r"Explicitly applied (\S+) delegate, and the model graph will be "
                      r"(completely|partially) executed by the delegate(?: w/ (\d+) delegate)?")
_NOT_APPLIED = re.compile(r"Though (\S+) delegate is explicitly applied, the model graph will "
                          r"not be executed by the delegate")
_OP_ROW = re.compile(rf"^\s*(\S+)\s+({NUM})\s+({NUM})\s+({NUM})%\s+({NUM})%\s+({NUM})\s+(\d+)"
                     rf"\s+\[(.*)\](\S*)\s*$")


@dataclass(frozen=True, slots=True)
class PhaseStats:
    """One phase's statistics line (µs)."""

    count: int
    first_us: float | None = None
    curr_us: float | None = None
    min_us: float | None = None
    max_us: float | None = None
    avg_us: float | None = None
    std_us: float | None = None
    p5_us: float | None = None
    median_us: float | None = None
    p95_us: float | None = None


@dataclass(frozen=True, slots=True)
class OpRow:
    """One op of the ``Run Order`` table."""

    order: int
    node_type: str
    first_ms: float
    avg_ms: float
    share_pct: float
    cdf_pct: float
    mem_kb: float
    times_called: int
    name: str


@dataclass
class BenchmarkReport:
    """Everything one ``benchmark_model`` output says; None where it says nothing."""

    init_us: float | None = None
    first_us: float | None = None
    warmup_avg_us: float | None = None
    avg_us: float | None = None
    warmup: PhaseStats | None = None
    regular: PhaseStats | None = None
    init_memory_mb: float | None = None
    overall_memory_mb: float | None = None
    peak_memory_mb: float | None = None
    delegate: str = ""
    delegated_nodes: int | None = None
    total_nodes: int | None = None
    partitions: int | None = None
    #: full | partial | none | "" (no delegate line)
    coverage: str = ""
    ops: list[OpRow] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    complete: bool = False


def strip_prefix(line: str) -> str:
    return _PREFIX.sub("", line.strip(), count=1)


def parse_stats(line: str) -> PhaseStats | None:
    """A ``count=…`` line, or None."""
    m = _STAT.match(line)
    if not m:
        return None
    values = {k: float(v) for k, v in _PAIR.findall(line)}
    count = int(m.group(1))
    if count and "avg" not in values and "curr" in values:  # every run took the same time
        same = values["curr"]
        values.update(first=same, min=same, max=same, avg=same, std=0.0)
    keys = {"first": "first_us", "curr": "curr_us", "min": "min_us", "max": "max_us",
            "avg": "avg_us", "std": "std_us", "p5": "p5_us", "median": "median_us",
            "p95": "p95_us"}
    return PhaseStats(count, **{keys[k]: v for k, v in values.items() if k in keys})


def parse_benchmark_output(text: str) -> BenchmarkReport:
    report = BenchmarkReport()
    phases: list[PhaseStats] = []
    lines = [strip_prefix(raw) for raw in text.splitlines()]
    for line in lines:
        if stats := parse_stats(line):
            phases.append(stats)
        else:
            _read_line(report, line)
    if len(phases) >= 2:
        report.warmup, report.regular = phases[0], phases[-1]
    elif phases and report.complete:
        report.regular = phases[0]
    elif phases:  # cut after the warm-up: the regular phase never reported
        report.warmup = phases[0]
    report.ops = parse_op_profile(lines)
    return report


def _read_line(report: BenchmarkReport, line: str) -> None:
    if m := _TIMINGS.search(line):
        report.init_us, report.first_us, report.warmup_avg_us, report.avg_us = map(
            float, m.groups())
        report.complete = True
    elif m := _OLD_TIMINGS.search(line):
        report.warmup_avg_us, report.init_us, report.avg_us = map(float, m.groups())
        report.complete = True
    elif m := _MEM_DELTA.search(line):
        report.init_memory_mb, report.overall_memory_mb = float(m[1]), float(m[2])
    elif m := _PEAK.search(line):
        report.peak_memory_mb = float(m[1])
    else:
        _read_delegate(report, line)


def _read_delegate(report: BenchmarkReport, line: str) -> None:
    if m := _REPLACING.search(line):
        report.delegated_nodes = (report.delegated_nodes or 0) + int(m[1])
        report.total_nodes, report.delegate = int(m[2]), m[3]
        report.partitions = (report.partitions or 0) + int(m[4])
    elif m := _APPLIED.search(line):
        report.delegate = report.delegate or m[1]
        report.coverage = "full" if m[2] == "completely" else "partial"
        if m[3]:
            report.partitions = int(m[3])
    elif m := _NOT_APPLIED.search(line):
        report.delegate, report.coverage = report.delegate or m[1], "none"
    elif line.startswith(("ERROR", "Benchmarking failed", "Failed")) or "failed" in line.lower():
        report.errors.append(line)


def parse_op_profile(lines: list[str]) -> list[OpRow]:
    """The ``Run Order`` table of the regular runs' op profile (empty when absent)."""
    rows: list[OpRow] = []
    state = "before"
    for line in lines:
        if state == "before" and "Operator-wise Profiling Info for Regular Benchmark Runs" in line:
            state = "section"
        elif state == "section" and "Run Order" in line:
            state = "table"
        elif state == "table":
            if line.startswith("=") and rows:
                break
            if m := _OP_ROW.match(line):
                rows.append(OpRow(len(rows), m[1], float(m[2]), float(m[3]), float(m[4]),
                                  float(m[5]), float(m[6]), int(m[7]), m[8] + m[9]))
    return rows
