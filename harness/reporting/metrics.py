"""Metrics: statistics derived from a run's rows (requests, subgraphs, sensors).

Every function here is a pure function of the tables :func:`harness.reporting.store.load_run`
returns and yields a tidy DataFrame. Baselines run one after another, each on its own time axis, so
everything is computed per baseline.

**Measured span.** Per baseline, ``[first arrival of a non-warm-up request, last end of a
non-warm-up request]`` unless a span ``(start_ns, end_ns)`` is given. *Measured requests*
are the non-warm-up requests that arrived inside it. Each gets one outcome: ``finished``
(status ``ok`` and ended inside the span), ``dropped``, ``failed``, or ``unfinished``
(status ``unfinished``, or ``ok`` but ended after the span).

**Latency** is ``end_ns - arrival_ns`` of finished requests, in ms; percentiles interpolate
linearly (numpy's default). **SLO satisfaction** is the share of measured requests that carry
an SLO (``slo_ns > 0``) and finished within it; dropped, failed and unfinished ones are misses.

**Frames and FPS.** A frame is one request of every model of the scenario; FPS counts, per
second of span, the frames whose every request finished. Which requests form a frame:

* when requests with the same ``frame_id`` arrived together (periodic or open-loop traffic
  that issues a frame at once), the frame is the ``frame_id``;
* otherwise (closed-loop streams, where ``frame_id`` is each stream's own counter and the
  streams drift apart), frame *k* is the *k*-th measured request, in arrival order, of each
  model's stream, so a frame is complete when each model's *k*-th request finished.

With several streams per model, the *j*-th stream (by id) of each model forms lane *j*;
frames are counted per lane.

**Processors.** Utilization is the union of a processor's subgraph intervals clipped to the
span (any request's, warm-up ones included: busy is busy), over the span length.
Subgraph counts are the subgraph rows of measured requests that started inside the span.

**Power and heat.** Power is a time-weighted (trapezoid) mean of the sensor samples inside the
span. Rows of the pseudo-processor :data:`DEVICE` (a whole-phone meter such as a Monsoon)
are used alone when present; otherwise the processors' ``power_w`` are summed per sample time.
Energy per frame = mean power x span / complete frames; frames per joule is its inverse
(the paper's Table VI: FPS / W). NaN when no power was measured. Time to first throttle is
measured from the baseline's first row (warm-up included) to its first sensor row with
``throttled`` true, over the whole run; NaN if it never throttled.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from harness.reporting.store import RunData

#: sensor rows of this processor name measure the whole device
DEVICE = "device"
NS_PER_S = 1e9
NS_PER_MS = 1e6
PERCENTILES = (50, 90, 99)
OUTCOMES = ("finished", "dropped", "unfinished", "failed")

Span = tuple[int, int]


@dataclass(frozen=True)
class Metrics:
    """All metrics of one run: one row per (baseline, seed), per (baseline, seed, model), per
    (baseline, seed, processor). Intervals over seeds are :mod:`harness.reporting.stats`."""

    scenario: pd.DataFrame
    models: pd.DataFrame
    processors: pd.DataFrame


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
    plan sizes, :func:`with_manifest_facts`)."""
    scenario = _with_phone_runs(
        _per_seed(run, lambda r, sub, sens: scenario_metrics(r, sub, sens, span)), run)
    return Metrics(
        with_manifest_facts(scenario, run.manifest),
        _per_seed(run, lambda r, sub, sens: model_metrics(r, span)),
        _per_seed(run, lambda r, sub, sens: processor_metrics(r, sub, sens, span)),
    )


def _with_phone_runs(scenario: pd.DataFrame, run: RunData) -> pd.DataFrame:
    """Baselines a phone's tools ran without request rows (``benchmark_model``) get their
    scenario rows from the tools' aggregates (:mod:`harness.reporting.phone`)."""
    phone_runs = getattr(run, "phone_runs", None)
    if phone_runs is None or phone_runs.empty:
        return scenario
    from harness.reporting.phone import phone_scenario_metrics  # it builds on this module

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
    NaN where the manifest lacks them."""
    if scenario.empty:
        return scenario
    runs = manifest.get("runs") or {}
    bound = manifest.get("bound") or {}
    out = scenario.copy()

    def fact(baseline: str, seed: int) -> Mapping[str, Any]:
        got = (runs.get(baseline) or {}).get(str(seed))
        return got if isinstance(got, Mapping) else {}

    def fps_of(value: Any) -> float:
        return float(value["frames_per_s"]) if isinstance(value, Mapping) else float("nan")

    pairs = list(zip(out["baseline"], out["seed"], strict=True))
    out["bound_fps"] = [fps_of(bound.get(str(s))) for _, s in pairs]
    out["bound_pct"] = 100 * out["fps"] / out["bound_fps"]
    out["own_bound_fps"] = [fps_of(fact(b, s).get("bound")) for b, s in pairs]
    out["as_run_bound_fps"] = [fps_of(fact(b, s).get("as_run_bound")) for b, s in pairs]
    out["as_run_pct"] = 100 * out["fps"] / out["as_run_bound_fps"]
    out["plan_subgraphs"] = [_plan_subgraphs(fact(b, s)) for b, s in pairs]
    return out


def _plan_subgraphs(facts: Mapping[str, Any]) -> float:
    plans = facts.get("plans")
    if not isinstance(plans, Mapping) or not plans:
        return float("nan")
    return float(sum(int(c["unit_subgraphs"]) + int(c["merged"]) for c in plans.values()))


# -- spans and outcomes -------------------------------------------------------------------


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


def _span(requests: pd.DataFrame, baseline: str, span: Span | None) -> Span:
    return span if span is not None else measured_span(requests, baseline)


def _seconds(span: Span) -> float:
    return (span[1] - span[0]) / NS_PER_S


def _per_s(count: float, span: Span) -> float:
    seconds = _seconds(span)
    return count / seconds if seconds > 0 else float("nan")


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


# -- per model ------------------------------------------------------------------------------


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


def _request_summary(rows: pd.DataFrame, span: Span) -> dict[str, float]:
    counts = rows["outcome"].value_counts()
    summary: dict[str, float] = {"requests": len(rows)}
    summary.update({o: int(counts.get(o, 0)) for o in OUTCOMES})
    summary["throughput_per_s"] = _per_s(summary["finished"], span)
    summary.update(latency_stats(rows["latency_ms"]))
    summary["slo_requests"], summary["slo_satisfaction"] = slo_satisfaction(rows)
    return summary


def model_metrics(requests: pd.DataFrame, span: Span | None = None) -> pd.DataFrame:
    """One row per (baseline, model): request outcomes, throughput, latency, SLO."""
    records = []
    for baseline in baselines(requests):
        w = _span(requests, baseline, span)
        rows = measured_requests(requests, baseline, w)
        for model in pd.unique(requests.loc[requests["baseline"] == baseline, "model"]):
            picked = rows[rows["model"] == model]
            records.append({"baseline": baseline, "model": str(model),
                            **_request_summary(picked, w)})
    return _frame(records, ["baseline", "model"])


def _frame(records: list[dict], keys: list[str]) -> pd.DataFrame:
    frame = pd.DataFrame.from_records(records)
    if frame.empty:
        return pd.DataFrame(columns=keys)
    return frame


# -- frames ---------------------------------------------------------------------------------


def _lanes(rows: pd.DataFrame) -> pd.Series:
    return rows.groupby("model")["stream"].rank(method="dense").astype("int64") - 1


def _frame_ids_shared(rows: pd.DataFrame, lane: pd.Series) -> bool:
    if (rows["frame_id"] < 0).any():
        return False
    spread = rows.groupby([lane, rows["frame_id"]])["arrival_ns"].nunique()
    return bool((spread <= 1).all())


def frame_keys(rows: pd.DataFrame) -> pd.DataFrame:
    """``lane`` and ``frame`` of each measured request (rule in the module docstring)."""
    lane = _lanes(rows)
    if _frame_ids_shared(rows, lane):
        frame = rows["frame_id"].astype("int64")
    else:
        ordered = rows.sort_values(["arrival_ns", "request_id"])
        frame = ordered.groupby(["model", "stream"]).cumcount().reindex(rows.index)
    return pd.DataFrame({"lane": lane, "frame": frame.astype("int64")}, index=rows.index)


def frames(requests: pd.DataFrame, baseline: str, span: Span | None = None) -> pd.DataFrame:
    """One row per frame of ``baseline``: lane, frame, complete, end_ns (last end, or -1)."""
    w = _span(requests, baseline, span)
    n_models = requests.loc[requests["baseline"] == baseline, "model"].nunique()
    return _frames_of(measured_requests(requests, baseline, w), n_models)


def _frames_of(rows: pd.DataFrame, n_models: int) -> pd.DataFrame:
    """:func:`frames` of a baseline's measured requests, whose scenario has ``n_models``."""
    if rows.empty:
        return pd.DataFrame(columns=["lane", "frame", "complete", "end_ns"])
    rows = rows.join(frame_keys(rows))
    rows["done"] = rows["outcome"] == "finished"
    grouped = rows.groupby(["lane", "frame"])
    table = grouped.agg(models=("model", "nunique"), done=("done", "all"), end_ns=("end_ns", "max"))
    table["complete"] = table["done"] & (table["models"] == n_models)
    table["end_ns"] = table["end_ns"].where(table["complete"], -1)
    return table.reset_index()[["lane", "frame", "complete", "end_ns"]]


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


def time_mean(t_ns: pd.Series, values: pd.Series) -> float:
    """Time-weighted (trapezoid) mean of a sampled series; its value if sampled once."""
    ok = values.notna().to_numpy()
    t = t_ns.to_numpy(dtype=float)[ok]
    v = values.to_numpy(dtype=float)[ok]
    if v.size == 0:
        return float("nan")
    if v.size == 1 or t[-1] == t[0]:
        return float(v.mean())
    order = np.argsort(t, kind="stable")
    t, v = t[order], v[order]
    return float(np.trapezoid(v, t) / (t[-1] - t[0]))


def _in_span(frame: pd.DataFrame, column: str, span: Span) -> pd.DataFrame:
    return frame[frame[column].between(span[0], span[1])]


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
        "utilization": _per_s(busy / NS_PER_S, span),
        "mean_power_w": time_mean(readings["t_ns"], readings["power_w"]),
        "mean_frequency_hz": time_mean(readings["t_ns"], readings["frequency_hz"]),
        "peak_temperature_c": float(readings["temperature_c"].max()),
    }


def processor_metrics(requests: pd.DataFrame, subgraphs: pd.DataFrame, sensors: pd.DataFrame,
                      span: Span | None = None) -> pd.DataFrame:
    """One row per (baseline, processor): subgraphs run, busy time, utilization, sensors."""
    records = []
    for baseline in baselines(requests):
        w = _span(requests, baseline, span)
        sub = _busy_columns(subgraphs, baseline)
        sens = _in_span(sensors[sensors["baseline"] == baseline], "t_ns", w)
        ids = measured_requests(requests, baseline, w)["request_id"]
        counted = _measured_processors(ids, subgraphs, baseline, w)
        names = _processor_names(sub, sensors[sensors["baseline"] == baseline])
        busy = _busy(sub, names, w)
        for name in names:
            stats = _one_processor(name, busy[name], counted, sens, w)
            records.append({"baseline": baseline, "processor": name, **stats})
    return _frame(records, ["baseline", "processor"])


# -- power, heat, scenario ------------------------------------------------------------------


def power_series(sensors: pd.DataFrame) -> pd.Series:
    """Device power (W) per sample time: the :data:`DEVICE` rows, else the processors' sum."""
    rows = sensors.dropna(subset=["power_w"])
    device = rows[rows["processor"] == DEVICE]
    rows = device if len(device) else rows
    return rows.groupby("t_ns")["power_w"].sum().sort_index()


def power_stats(sensors: pd.DataFrame, span: Span, n_frames: int) -> dict[str, float]:
    """Mean and peak power (W), energy per frame (J) and frames per joule."""
    series = power_series(_in_span(sensors, "t_ns", span))
    mean = time_mean(series.index.to_series(), series)
    energy = mean * _seconds(span)
    per_frame = energy / n_frames if n_frames > 0 else float("nan")
    return {
        "mean_power_w": mean,
        "peak_power_w": float(series.max()) if len(series) else float("nan"),
        "energy_per_frame_j": per_frame,
        "frames_per_joule": 1.0 / per_frame if per_frame > 0 else float("nan"),
    }


def run_starts(requests: pd.DataFrame, subgraphs: pd.DataFrame,
               sensors: pd.DataFrame) -> dict[str, int]:
    """Each baseline's first time stamp (ns) in any table, warm-up included."""
    starts: dict[str, int] = {}
    for frame, column in ((requests, "arrival_ns"), (subgraphs, "start_ns"), (sensors, "t_ns")):
        for baseline, t in frame.groupby("baseline")[column].min().items():
            starts[str(baseline)] = min(int(t), starts.get(str(baseline), int(t)))
    return starts


def time_to_throttle_s(requests: pd.DataFrame, sensors: pd.DataFrame, baseline: str) -> float:
    """Seconds from the baseline's first request or sensor row to its first throttled sensor
    row; NaN if never."""
    sens = sensors[sensors["baseline"] == baseline]
    hot = sens.loc[sens["throttled"].fillna(False).astype(bool), "t_ns"]
    if hot.empty:
        return float("nan")
    arrivals = requests.loc[requests["baseline"] == baseline, "arrival_ns"]
    start = int(pd.concat([arrivals, sens["t_ns"]]).min())
    return (int(hot.min()) - start) / NS_PER_S


def _mean_utilization(subgraphs: pd.DataFrame, sensors: pd.DataFrame, span: Span) -> float:
    """Mean utilization over every processor seen in subgraphs or sensors (idle ones count)."""
    busy = _busy(subgraphs, _processor_names(subgraphs, sensors), span)
    shares = [_per_s(ns / NS_PER_S, span) for ns in busy.values()]
    return float(np.mean(shares)) if shares else float("nan")


def _one_scenario(requests: pd.DataFrame, subgraphs: pd.DataFrame, sensors: pd.DataFrame,
                  baseline: str, w: Span) -> dict[str, float]:
    rows = measured_requests(requests, baseline, w)
    table = _frames_of(rows, requests.loc[requests["baseline"] == baseline, "model"].nunique())
    n_frames = int(table["complete"].sum()) if len(table) else 0
    sens = sensors[sensors["baseline"] == baseline]
    stats: dict[str, float] = {"span_start_ns": w[0], "span_end_ns": w[1],
                               "span_s": _seconds(w), "frames": n_frames,
                               "fps": _per_s(n_frames, w)}
    stats.update(_request_summary(rows, w))
    stats["subgraphs"] = len(_measured_processors(rows["request_id"], subgraphs, baseline, w))
    stats["utilization"] = _mean_utilization(_busy_columns(subgraphs, baseline), sens, w)
    stats.update(power_stats(sens, w, n_frames))
    stats["peak_temperature_c"] = float(_in_span(sens, "t_ns", w)["temperature_c"].max())
    stats["time_to_throttle_s"] = time_to_throttle_s(requests, sensors, baseline)
    return stats


def scenario_metrics(requests: pd.DataFrame, subgraphs: pd.DataFrame, sensors: pd.DataFrame,
                     span: Span | None = None) -> pd.DataFrame:
    """One row per baseline: FPS, requests, pooled latency, SLO, subgraphs, power, heat."""
    records = []
    for baseline in baselines(requests):
        w = _span(requests, baseline, span)
        records.append({"baseline": baseline,
                        **_one_scenario(requests, subgraphs, sensors, baseline, w)})
    return _frame(records, ["baseline"])
