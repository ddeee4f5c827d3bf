"""Metrics as declarations: each one is a :class:`Metric`, read by every place that handles it.

A metric says its name (the column in every table), its unit and meaning, how one seed's value
is computed, how seeds are summarised (:class:`Summary`: mean ± 95% interval, a paired ratio,
a figure from the paper) and whether and where it is printed (:class:`Shown`). The per-seed
tables (:func:`harness.reporting.metrics.compute`, ``summary_seeds.csv``), ``summary.csv``
(:func:`harness.reporting.summary.aggregate`) and the printed tables
(:mod:`harness.reporting.report`) all read the declarations, so a metric cannot be computed
and then silently left out of one of them.

:data:`BUILT_IN` lists the harness's own metrics in ``summary.csv`` column order. Their values
come from the computations of :mod:`harness.reporting.metrics` (``compute`` is None: several
come from one pass over the rows). A run adds metrics of its own through its config: each
node of ``metrics`` names a :class:`Metric` object with ``_target_`` (``conf/metric/*.yaml``;
``+metric@metrics.<name>=<file>``); the manifest records the config, so a report of the run
folder computes them again (:func:`declared_in`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from importlib import import_module
from typing import Any

import pandas as pd

from harness.seams.errors import UserError

#: a span of run time, ns: [start, end)
Span = tuple[int, int]


class Table(Enum):
    """The printed tables, in print order (the value is the table's name)."""

    THROUGHPUT = "throughput"
    SERVICE = "latency, SLO, power, heat"


class Summary(Enum):
    """How a metric's per-seed values become one ``summary.csv`` row per baseline."""

    #: mean over seeds with its 95% interval (``<name>``, ``<name>_low``, ``<name>_high``)
    MEAN = "mean"
    #: FPS over the FPS of the baseline ``Metric.reference``, paired by seed, with a
    #: paired-bootstrap interval
    RATIO = "ratio"
    #: the paper's figure for the baseline, added by the report (no per-seed value)
    PAPER = "paper"
    #: per seed only (``summary_seeds.csv``), not summarised
    NONE = "none"


@dataclass(frozen=True, slots=True)
class Shown:
    """Where a metric is printed: its table, header, format and place."""

    table: Table
    header: str
    #: a ``str.format`` spec of one value, e.g. ``{:.2f}``
    fmt: str
    #: left to right within its table (the ``baseline`` column is always first)
    rank: int
    #: shows ``mean ± half-width`` when it has an interval
    interval: bool = True


@dataclass(frozen=True, slots=True)
class SeedRows:
    """One baseline's rows of one seed, as a declared metric's ``compute`` reads them."""

    baseline: str
    #: its measured requests: arrived in the span, warm-up excluded (``outcome``,
    #: ``latency_ms``... as :func:`harness.reporting.outcomes.measured_requests` gives them)
    requests: pd.DataFrame
    #: every subgraph row of the baseline (``processor``, ``start_ns``, ``end_ns``...)
    subgraphs: pd.DataFrame
    #: every sensor row of the baseline
    sensors: pd.DataFrame
    #: the measured span, ns
    span: Span
    #: complete frames in the span
    frames: int


@dataclass(frozen=True, slots=True)
class Metric:
    """One metric, declared once."""

    name: str
    unit: str
    meaning: str
    #: one seed's value from its rows; None for the built-in metrics, which
    #: :mod:`harness.reporting.metrics` computes together
    compute: Callable[[SeedRows], float] | None = None
    summary: Summary = Summary.MEAN
    #: the baseline in the denominator of a :attr:`Summary.RATIO`
    reference: str = ""
    shown: Shown | None = None


def _built_in(name: str, unit: str, meaning: str, shown: Shown | None = None,
              summary: Summary = Summary.MEAN, reference: str = "") -> Metric:
    return Metric(name, unit, meaning, None, summary, reference, shown)


T, S = Table.THROUGHPUT, Table.SERVICE
#: the harness's own metrics, in ``summary.csv`` column order
BUILT_IN: tuple[Metric, ...] = (
    _built_in("fps", "frames/s", "complete frames per second of the span",
              Shown(T, "FPS ± 95% CI", "{:.2f}", 10)),
    _built_in("bound_fps", "frames/s", "the LP bound over every plan of the run"),
    _built_in("bound_pct", "%", "FPS as a share of bound_fps",
              Shown(T, "% of bound", "{:.0f}", 20)),
    _built_in("own_bound_fps", "frames/s", "the LP bound over the baseline's own plans",
              Shown(T, "own-plan bound", "{:.1f}", 30)),
    _built_in("as_run_bound_fps", "frames/s", "own_bound_fps at the run's measured latencies"),
    _built_in("as_run_pct", "%", "FPS as a share of as_run_bound_fps",
              Shown(T, "% of as-run", "{:.0f}", 40)),
    _built_in("latency_mean_ms", "ms", "mean latency of finished requests"),
    _built_in("latency_p50_ms", "ms", "median latency", Shown(S, "p50 ms", "{:.1f}", 10)),
    _built_in("latency_p90_ms", "ms", "90th percentile latency", Shown(S, "p90 ms", "{:.1f}", 20)),
    _built_in("latency_p99_ms", "ms", "99th percentile latency"),
    _built_in("slo_pct", "%", "requests within their SLO", Shown(S, "SLO %", "{:.1f}", 30)),
    _built_in("dropped", "requests", "requests dropped by the scheduler",
              Shown(S, "dropped", "{:.0f}", 40)),
    _built_in("failed", "requests", "requests whose inference failed",
              Shown(S, "failed", "{:.0f}", 50)),
    _built_in("unfinished", "requests", "requests still running at the end"),
    _built_in("subgraphs", "subgraphs", "subgraphs executed for measured requests",
              Shown(T, "subgraphs executed", "{:.0f}", 95)),
    _built_in("plan_subgraphs", "subgraphs", "subgraphs the baseline's plans hold",
              Shown(T, "subgraphs planned", "{:.0f}", 90, interval=False)),
    _built_in("utilization", "share", "mean busy share of the processors"),
    _built_in("mean_power_w", "W", "mean device power", Shown(S, "power W", "{:.2f}", 60)),
    _built_in("peak_power_w", "W", "peak device power"),
    _built_in("energy_per_frame_j", "J", "energy per complete frame",
              Shown(S, "J/frame", "{:.3f}", 70)),
    _built_in("frames_per_joule", "frames/J", "complete frames per joule"),
    _built_in("peak_temperature_c", "°C", "hottest sensor reading in the span",
              Shown(S, "peak °C", "{:.1f}", 80)),
    _built_in("time_to_throttle_s", "s", "time to the first throttled reading",
              Shown(S, "throttle s", "{:.1f}", 90)),
    _built_in("span_s", "s", "length of the measured span"),
    _built_in("frames", "frames", "complete frames in the span"),
    _built_in("fps_vs_tflite", "×", "FPS over the oracle TFLite's (tflite), paired by seed",
              Shown(T, "×tflite (oracle)", "{:.2f}", 60), Summary.RATIO, "tflite"),
    _built_in("fps_vs_tflite_gpu", "×", "FPS over TFLite's as apps ship it (tflite_gpu), "
              "paired by seed", Shown(T, "×tflite_gpu", "{:.2f}", 65), Summary.RATIO,
              "tflite_gpu"),
    _built_in("fps_vs_band", "×", "FPS over Band's, paired by seed",
              Shown(T, "×Band", "{:.2f}", 80), Summary.RATIO, "band"),
    _built_in("paper_fps", "frames/s", "the paper's FPS (Figure 8)",
              Shown(T, "paper FPS", "{:.2f}", 50), Summary.PAPER),
    _built_in("paper_ratio_vs_tflite", "×", "the paper's FPS over its TFLite FPS",
              Shown(T, "paper ×TFLite", "{:.2f}", 70), Summary.PAPER),
)
del T, S


def summarised(declared: tuple[Metric, ...], how: Summary) -> tuple[Metric, ...]:
    """The metrics summarised ``how``, in declaration order."""
    return tuple(m for m in declared if m.summary is how)


def columns(declared: tuple[Metric, ...], table: Table) -> dict[str, tuple[str, str]]:
    """One printed table's columns: name -> (header, format), ``baseline`` first."""
    shown = sorted((m for m in declared if m.shown and m.shown.table is table),
                   key=lambda m: m.shown.rank if m.shown else 0)
    return {"baseline": ("baseline", "{}"),
            **{m.name: (m.shown.header, m.shown.fmt) for m in shown if m.shown}}


def without_interval(declared: tuple[Metric, ...]) -> frozenset[str]:
    """Printed metrics shown without their interval (constant over seeds)."""
    return frozenset(m.name for m in declared if m.shown and not m.shown.interval)


def declared_in(manifest: Mapping[str, Any]) -> tuple[Metric, ...]:
    """The built-in metrics and those the run's config adds (manifest ``config.metrics``)."""
    config = manifest.get("config")
    nodes = config.get("metrics") if isinstance(config, Mapping) else None
    return BUILT_IN + added(nodes if isinstance(nodes, Mapping) else {})


def added(nodes: Mapping[str, Any]) -> tuple[Metric, ...]:
    """The metrics config ``metrics`` names (name -> a node whose ``_target_`` is a
    :class:`Metric`); a wrong one is a UserError."""
    out = tuple(_metric(name, node) for name, node in nodes.items())
    taken = {m.name for m in BUILT_IN}
    for metric in out:
        if metric.name in taken:
            raise UserError(f"metric {metric.name!r} is already a metric of the harness")
    return out


def _metric(name: str, node: Any) -> Metric:
    target = node.get("_target_") if isinstance(node, Mapping) else getattr(node, "_target_", "")
    module, _, attr = str(target or "").rpartition(".")
    try:
        metric = getattr(import_module(module), attr)
    except (ImportError, AttributeError, ValueError) as exc:
        raise UserError(f"metric {name!r}: cannot import _target_ {target!r} ({exc})") from None
    if not isinstance(metric, Metric) or metric.compute is None:
        raise UserError(f"metric {name!r}: {target} is not a Metric with a compute")
    if metric.name != name:
        raise UserError(f"metric {name!r}: {target} is named {metric.name!r}; use that name")
    return metric
