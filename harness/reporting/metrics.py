"""Metrics: statistics derived from a run's rows (requests, subgraphs, sensors).

Every function here is a pure function of the tables :func:`harness.reporting.store.load_run`
returns and yields a tidy DataFrame. Baselines run one after another, each on its own time axis, so
everything is computed per baseline. The tables are built from the definitions of

* :mod:`harness.reporting.outcomes`: the measured span, measured requests and their outcomes,
  latency and SLO satisfaction;
* :mod:`harness.reporting.frames`: which requests form a frame, and which frames are complete
  (FPS counts complete frames per second of span);
* :mod:`harness.reporting.power`: power, energy per frame and time to throttle;

and, here, **processors**: utilization is the union of a processor's subgraph intervals
clipped to the span (any request's, warm-up ones included: busy is busy), over the span
length. Subgraph counts are the subgraph rows of measured requests that started inside the
span.

Names that notebooks and users import from here and that the modules above define stay
importable from here: :func:`frames`, :data:`PERCENTILES` and :func:`power_series` (each
re-exported as ``import x as x``), :func:`time_mean` and :func:`time_to_throttle_s`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from harness.reporting.frames import frames as frames
from harness.reporting.frames import frames_of
from harness.reporting.measures import BUILT_IN, Metric, SeedRows, declared_in
from harness.reporting.outcomes import (
    NS_PER_S,
    Span,
    baselines,
    in_span,
    measured_requests,
    per_s,
    request_summary,
    span_of,
    span_s,
)
from harness.reporting.outcomes import PERCENTILES as PERCENTILES
from harness.reporting.phone import phone_scenario_metrics
from harness.reporting.power import DEVICE, power_stats, time_mean, time_to_throttle_s
from harness.reporting.power import power_series as power_series
from harness.reporting.runrecord import BoundFacts, RunRecord
from harness.reporting.store import RunData


@dataclass(frozen=True)
class Metrics:
    """All metrics of one run: one row per (baseline, seed), per (baseline, seed, model), per
    (baseline, seed, processor). Intervals over seeds are :mod:`harness.reporting.stats`."""

    scenario: pd.DataFrame
    models: pd.DataFrame
    processors: pd.DataFrame
    #: the metrics declared for the run (:mod:`harness.reporting.measures`): the built-in
    #: ones and those its config adds; summaries and printed tables read them
    declared: tuple[Metric, ...] = BUILT_IN


def seeds_of(run: RunData) -> list[int]:
    """The run's seeds, in order."""
    return sorted(int(s) for s in pd.unique(run.requests["seed"]))


def rows_where(frame: pd.DataFrame, mask: pd.Series) -> pd.DataFrame:
    """The rows where ``mask`` holds; the frame itself, not a copy, when it holds on every
    row (a one-seed run's tables: a 30-minute run holds millions of subgraph rows)."""
    return frame if bool(mask.all()) else frame[mask]


def one_seed(run: RunData, seed: int | None = None) -> RunData:
    """The run's rows of one seed (the first when none is named), for time series."""
    seeds = seeds_of(run)
    if not seeds:
        return run
    pick = seeds[0] if seed is None else seed
    requests, subgraphs, sensors = (rows_where(frame, frame["seed"] == pick)
                                    for frame in (run.requests, run.subgraphs, run.sensors))
    return RunData(run.folder, requests, subgraphs, sensors, run.manifest)


def _of_seed(frame: pd.DataFrame, seed: int) -> pd.DataFrame:
    return rows_where(frame, frame["seed"] == seed) if "seed" in frame.columns else frame


def _per_seed(run: RunData, table: Callable[[pd.DataFrame, pd.DataFrame, pd.DataFrame],
                                            pd.DataFrame]) -> pd.DataFrame:
    """``table(requests, subgraphs, sensors)`` of each seed alone, with a ``seed`` column."""
    parts = []
    for seed in seeds_of(run):
        part = table(_of_seed(run.requests, seed), _of_seed(run.subgraphs, seed),
                     _of_seed(run.sensors, seed))
        part.insert(1, "seed", seed)
        parts.append(part)
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(
        columns=["baseline", "seed"])


def compute(run: RunData, span: Span | None = None) -> Metrics:
    """Every metric of a run folder's tables, seed by seed (with the manifest's bounds and
    plan sizes, :func:`with_manifest_facts`), the run's declared metrics included
    (:func:`~harness.reporting.measures.declared_in` its manifest)."""
    declared = declared_in(run.manifest)
    extra = tuple(m for m in declared if m.compute is not None)
    scenario = _with_phone_runs(
        _per_seed(run, lambda r, sub, sens: scenario_metrics(r, sub, sens, span, extra)), run)
    return Metrics(
        with_manifest_facts(scenario, run.manifest),
        _per_seed(run, lambda r, sub, sens: model_metrics(r, span)),
        _per_seed(run, lambda r, sub, sens: processor_metrics(r, sub, sens, span)),
        declared,
    )


def _with_phone_runs(scenario: pd.DataFrame, run: RunData) -> pd.DataFrame:
    """Baselines a phone's tools ran without request rows (``benchmark_model``) get their
    scenario rows from the tools' aggregates (:mod:`harness.reporting.phone`)."""
    phone_runs = getattr(run, "phone_runs", None)
    if phone_runs is None or phone_runs.empty:
        return scenario
    have = set(scenario["baseline"]) if not scenario.empty else set()
    extra = phone_scenario_metrics(phone_runs, run.sensors)
    extra = extra[~extra["baseline"].isin(have)]
    if extra.empty:
        return scenario
    return extra if scenario.empty else pd.concat([scenario, extra], ignore_index=True)


def with_manifest_facts(scenario: pd.DataFrame, manifest: Mapping[str, Any]) -> pd.DataFrame:
    """Per (baseline, seed): ``bound_fps``, the run's frame-rate bound over every plan that
    loaded (manifest ``bound``); ``bound_pct``, FPS as a percentage of it; ``own_bound_fps``,
    the bound over the baseline's own plans; ``as_run_bound_fps``, that bound with each
    subgraph priced at its mean latency in the run (:mod:`harness.experiment.bounds`), and
    ``as_run_pct``, FPS as a percentage of it (how much of what the run's own latencies allowed
    the schedule got); ``plan_subgraphs``, the subgraphs its plans hold (manifest ``runs``).
    NaN where the manifest lacks them. Read through the manifest's
    :class:`~harness.reporting.runrecord.RunRecord`."""
    if scenario.empty:
        return scenario
    record = RunRecord(manifest)
    out = scenario.copy()
    pairs = list(zip(out["baseline"], out["seed"], strict=True))
    runs = [record.run(str(b), int(s)) for b, s in pairs]
    out["bound_fps"] = [_fps(record.bound(int(s))) for _, s in pairs]
    out["bound_pct"] = 100 * out["fps"] / out["bound_fps"]
    out["own_bound_fps"] = [_fps(r.bound if r else None) for r in runs]
    out["as_run_bound_fps"] = [_fps(r.as_run_bound if r else None) for r in runs]
    out["as_run_pct"] = 100 * out["fps"] / out["as_run_bound_fps"]
    out["plan_subgraphs"] = [float(r.subgraphs) if r and r.plans else float("nan")
                             for r in runs]
    return out


def _fps(bound: BoundFacts | None) -> float:
    return bound.frames_per_s if bound is not None else float("nan")


# -- per model ------------------------------------------------------------------------------


def model_metrics(requests: pd.DataFrame, span: Span | None = None) -> pd.DataFrame:
    """One row per (baseline, model): request outcomes, throughput, latency, SLO."""
    records = []
    for baseline in baselines(requests):
        w = span_of(requests, baseline, span)
        rows = measured_requests(requests, baseline, w)
        for model in pd.unique(requests.loc[requests["baseline"] == baseline, "model"]):
            picked = rows[rows["model"] == model]
            records.append({"baseline": baseline, "model": str(model),
                            **request_summary(picked, w)})
    return _frame(records, ["baseline", "model"])


def _frame(records: list[dict], keys: list[str]) -> pd.DataFrame:
    frame = pd.DataFrame.from_records(records)
    if frame.empty:
        return pd.DataFrame(columns=keys)
    return frame


# -- processors -----------------------------------------------------------------------------


def busy_ns(starts: ArrayLike, ends: ArrayLike, span: Span) -> int:
    """Length of the union of the intervals ``[starts, ends]`` clipped to ``span``."""
    s = np.clip(np.asarray(starts, dtype=np.int64), span[0], span[1])
    e = np.clip(np.asarray(ends, dtype=np.int64), span[0], span[1])
    if s.size == 0:
        return 0
    if (s[1:] < s[:-1]).any():  # a processor's rows come in start order: no sort then
        order = np.argsort(s, kind="stable")
        s, e = s[order], e[order]
    reach = np.maximum.accumulate(e)
    new = np.r_[True, s[1:] > reach[:-1]]
    heads = np.flatnonzero(new)
    return int((np.maximum.reduceat(e, heads) - s[heads]).sum())


def _processor_names(subgraphs: pd.DataFrame, sensors: pd.DataFrame) -> list[str]:
    names = list(pd.unique(subgraphs["processor"])) + list(pd.unique(sensors["processor"]))
    return [str(n) for n in dict.fromkeys(names) if n != DEVICE]


def _measured_processors(ids: pd.Series, subgraphs: pd.DataFrame, baseline: str,
                         span: Span) -> pd.Series:
    """The processor of each measured subgraph row (of a measured request, whose ids are
    ``ids``, started in the span): a column, not a copy of the rows."""
    mask = ((subgraphs["baseline"] == baseline).to_numpy(dtype=bool)
            & np.isin(subgraphs["request_id"].to_numpy(), ids.to_numpy())
            & subgraphs["start_ns"].between(span[0], span[1]).to_numpy())
    return subgraphs.loc[mask, "processor"]


#: the subgraph columns busy time is read from
BUSY_COLUMNS = ["processor", "start_ns", "end_ns"]


def _busy_columns(subgraphs: pd.DataFrame, baseline: str) -> pd.DataFrame:
    """The :data:`BUSY_COLUMNS` of ``baseline``'s subgraph rows: a copy of three columns,
    not of every column (a 30-minute run of three baselines holds 5 M subgraph rows)."""
    mask = subgraphs["baseline"] == baseline
    return subgraphs[BUSY_COLUMNS] if bool(mask.all()) else subgraphs.loc[mask, BUSY_COLUMNS]


def _busy(subgraphs: pd.DataFrame, names: list[str], span: Span) -> dict[str, int]:
    """Busy ns in the span of each processor of ``names``, from its subgraph rows (the
    processor column is read once, not once per processor)."""
    codes, uniques = pd.factorize(subgraphs["processor"])
    code = {str(u): k for k, u in enumerate(uniques)}
    start, end = subgraphs["start_ns"].to_numpy(), subgraphs["end_ns"].to_numpy()
    busy = {}
    for name in names:
        mine = codes == code.get(name, -1)
        busy[name] = busy_ns(start[mine], end[mine], span)
    return busy


def _one_processor(name: str, busy: int, counted: pd.Series, sens: pd.DataFrame,
                   span: Span) -> dict[Hashable, float]:
    readings = sens[sens["processor"] == name]
    return {
        "subgraphs": int((counted == name).sum()),
        "busy_s": busy / NS_PER_S,
        "utilization": per_s(busy / NS_PER_S, span),
        "mean_power_w": time_mean(readings["t_ns"], readings["power_w"]),
        "mean_frequency_hz": time_mean(readings["t_ns"], readings["frequency_hz"]),
        "peak_temperature_c": float(readings["temperature_c"].max()),
    }


def processor_metrics(requests: pd.DataFrame, subgraphs: pd.DataFrame, sensors: pd.DataFrame,
                      span: Span | None = None) -> pd.DataFrame:
    """One row per (baseline, processor): subgraphs run, busy time, utilization, sensors."""
    records = []
    for baseline in baselines(requests):
        w = span_of(requests, baseline, span)
        sub = _busy_columns(subgraphs, baseline)
        sens = in_span(sensors[sensors["baseline"] == baseline], "t_ns", w)
        ids = measured_requests(requests, baseline, w)["request_id"]
        counted = _measured_processors(ids, subgraphs, baseline, w)
        names = _processor_names(sub, sensors[sensors["baseline"] == baseline])
        busy = _busy(sub, names, w)
        for name in names:
            stats = _one_processor(name, busy[name], counted, sens, w)
            records.append({"baseline": baseline, "processor": name, **stats})
    return _frame(records, ["baseline", "processor"])


# -- scenario -------------------------------------------------------------------------------


def run_starts(requests: pd.DataFrame, subgraphs: pd.DataFrame,
               sensors: pd.DataFrame) -> dict[str, int]:
    """Each baseline's first time stamp (ns) in any table, warm-up included."""
    starts: dict[str, int] = {}
    for frame, column in ((requests, "arrival_ns"), (subgraphs, "start_ns"), (sensors, "t_ns")):
        for baseline, t in frame.groupby("baseline")[column].min().items():
            starts[str(baseline)] = min(int(t), starts.get(str(baseline), int(t)))
    return starts


def _mean_utilization(subgraphs: pd.DataFrame, sensors: pd.DataFrame, span: Span) -> float:
    """Mean utilization over every processor seen in subgraphs or sensors (idle ones count)."""
    busy = _busy(subgraphs, _processor_names(subgraphs, sensors), span)
    shares = [per_s(ns / NS_PER_S, span) for ns in busy.values()]
    return float(np.mean(shares)) if shares else float("nan")


def _one_scenario(requests: pd.DataFrame, subgraphs: pd.DataFrame, sensors: pd.DataFrame,
                  baseline: str, w: Span, extra: tuple[Metric, ...] = ()) -> dict[str, float]:
    rows = measured_requests(requests, baseline, w)
    table = frames_of(rows, requests.loc[requests["baseline"] == baseline, "model"].nunique())
    n_frames = int(table["complete"].sum()) if len(table) else 0
    sens = sensors[sensors["baseline"] == baseline]
    stats: dict[str, float] = {"span_start_ns": w[0], "span_end_ns": w[1],
                               "span_s": span_s(w), "frames": n_frames,
                               "fps": per_s(n_frames, w)}
    stats.update(request_summary(rows, w))
    stats["subgraphs"] = len(_measured_processors(rows["request_id"], subgraphs, baseline, w))
    stats["utilization"] = _mean_utilization(_busy_columns(subgraphs, baseline), sens, w)
    stats.update(power_stats(sens, w, n_frames))
    stats["peak_temperature_c"] = float(in_span(sens, "t_ns", w)["temperature_c"].max())
    stats["time_to_throttle_s"] = time_to_throttle_s(requests, sensors, baseline)
    if extra:
        seed_rows = SeedRows(baseline, rows, subgraphs[subgraphs["baseline"] == baseline], sens,
                             w, n_frames)
        stats.update({m.name: float(m.compute(seed_rows)) for m in extra if m.compute})
    return stats


def scenario_metrics(requests: pd.DataFrame, subgraphs: pd.DataFrame, sensors: pd.DataFrame,
                     span: Span | None = None, extra: tuple[Metric, ...] = ()) -> pd.DataFrame:
    """One row per baseline: FPS, requests, pooled latency, SLO, subgraphs, power, heat, and
    each metric of ``extra`` (declared with its ``compute``)."""
    records = []
    for baseline in baselines(requests):
        w = span_of(requests, baseline, span)
        records.append({"baseline": baseline,
                        **_one_scenario(requests, subgraphs, sensors, baseline, w, extra)})
    return _frame(records, ["baseline"])
