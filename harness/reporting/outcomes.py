"""Measured span and request outcomes: which requests a baseline's statistics count, how each ended.

Every function here is a pure function of a run's ``requests`` table
(:func:`harness.reporting.store.load_run`), one baseline at a time: baselines run one after
another, each on its own time axis. The tables built on them are :mod:`harness.reporting.metrics`.

**Measured span.** Per baseline, ``[first arrival of a non-warm-up request, last end of a
non-warm-up request]`` unless a span ``(start_ns, end_ns)`` is given. *Measured requests*
are the non-warm-up requests that arrived inside it. Each gets one outcome: ``finished``
(status ``ok`` and ended inside the span), ``dropped``, ``failed``, or ``unfinished``
(status ``unfinished``, or ``ok`` but ended after the span).

**Latency** is ``end_ns - arrival_ns`` of finished requests, in ms; percentiles interpolate
linearly (numpy's default). **SLO satisfaction** is the share of measured requests that carry
an SLO (``slo_ns > 0``) and finished within it; dropped, failed and unfinished ones are misses.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from harness.seams.units import NS_PER_MS as NS_PER_MS
from harness.seams.units import NS_PER_S as NS_PER_S

PERCENTILES = (50, 90, 99)
OUTCOMES = ("finished", "dropped", "unfinished", "failed")

Span = tuple[int, int]


# -- spans ----------------------------------------------------------------------------------


def baselines(requests: pd.DataFrame) -> list[str]:
    """Baselines in the order they appear."""
    return [str(b) for b in pd.unique(requests["baseline"])]


def measured_span(requests: pd.DataFrame, baseline: str) -> Span:
    """The default span of one baseline (see the module docstring)."""
    rows = requests[(requests["baseline"] == baseline) & ~requests["warmup"].astype(bool)]
    if rows.empty:
        return (0, 0)
    start = int(rows["arrival_ns"].min())
    ends = rows.loc[rows["end_ns"] >= 0, "end_ns"]
    return (start, max(start, int(ends.max())) if len(ends) else start)


def span_of(requests: pd.DataFrame, baseline: str, span: Span | None) -> Span:
    """``span`` when one is given, else the baseline's :func:`measured_span`."""
    return span if span is not None else measured_span(requests, baseline)


def span_s(span: Span) -> float:
    """The span's length in seconds."""
    return (span[1] - span[0]) / NS_PER_S


def per_s(count: float, span: Span) -> float:
    """``count`` per second of the span; NaN for an empty span."""
    seconds = span_s(span)
    return count / seconds if seconds > 0 else float("nan")


def in_span(frame: pd.DataFrame, column: str, span: Span) -> pd.DataFrame:
    """The rows whose time ``column`` lies in the span (ends included)."""
    return frame[frame[column].between(span[0], span[1])]


# -- outcomes -------------------------------------------------------------------------------


def measured_requests(requests: pd.DataFrame, baseline: str, span: Span) -> pd.DataFrame:
    """Non-warm-up requests of ``baseline`` that arrived in ``span``, with ``outcome`` and
    ``latency_ms`` (NaN unless finished) columns."""
    rows = requests[(requests["baseline"] == baseline) & ~requests["warmup"].astype(bool)]
    rows = rows[rows["arrival_ns"].between(span[0], span[1])].copy()
    rows["outcome"] = _outcomes(rows, span)
    finished = rows["outcome"] == "finished"
    latency = (rows["end_ns"] - rows["arrival_ns"]) / NS_PER_MS
    rows["latency_ms"] = latency.where(finished).astype("float64")
    return rows


def _outcomes(rows: pd.DataFrame, span: Span) -> pd.Series:
    status = rows["status"].astype(str)
    finished = (status == "ok") & (rows["end_ns"] <= span[1])
    outcome = status.where(status.isin(["dropped", "failed"]), "unfinished")
    return outcome.where(~finished, "finished")


# -- latency and SLO ------------------------------------------------------------------------


def latency_stats(latency_ms: pd.Series) -> dict[str, float]:
    """Mean and percentiles (ms) of the non-NaN values; NaN when there are none."""
    values = latency_ms.dropna().to_numpy(dtype=float)
    if values.size == 0:
        nan = float("nan")
        return {"latency_mean_ms": nan, **{f"latency_p{p}_ms": nan for p in PERCENTILES}}
    stats = {"latency_mean_ms": float(values.mean())}
    for p in PERCENTILES:
        stats[f"latency_p{p}_ms"] = float(np.percentile(values, p))
    return stats


def slo_satisfaction(rows: pd.DataFrame) -> tuple[int, float]:
    """(requests with an SLO, share of them finished within it); share NaN when none."""
    with_slo = rows[rows["slo_ns"] > 0]
    if with_slo.empty:
        return 0, float("nan")
    met = (with_slo["outcome"] == "finished") & (
        with_slo["end_ns"] - with_slo["arrival_ns"] <= with_slo["slo_ns"]
    )
    return len(with_slo), float(met.mean())


def request_summary(rows: pd.DataFrame, span: Span) -> dict[str, float]:
    """Of measured requests: their number, each outcome's count, throughput (finished per
    second of the span), latency and SLO satisfaction."""
    counts = rows["outcome"].value_counts()
    summary: dict[str, float] = {"requests": len(rows)}
    summary.update({o: int(counts.get(o, 0)) for o in OUTCOMES})
    summary["throughput_per_s"] = per_s(summary["finished"], span)
    summary.update(latency_stats(rows["latency_ms"]))
    summary["slo_requests"], summary["slo_satisfaction"] = slo_satisfaction(rows)
    return summary
