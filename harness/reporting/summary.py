"""One row per baseline, over every seed: the figures a report shows.

Each metric declared :attr:`~harness.reporting.measures.Summary.MEAN` (the run's
``Metrics.declared``, :mod:`harness.reporting.measures`) becomes three columns,
``<metric>`` (the mean over seeds), ``<metric>_low`` and ``<metric>_high`` (its 95%
interval, :func:`harness.reporting.stats.mean_ci`), plus ``n_seeds``. FPS ratios (declared
:attr:`~harness.reporting.measures.Summary.RATIO`: against both TFLite rows and against
Band, ``fps_vs_tflite`` (the oracle placement), ``fps_vs_tflite_gpu`` (as apps ship it),
``fps_vs_band``) pair the seeds and carry a
paired-bootstrap interval (:func:`~harness.reporting.stats.ratio_ci`). A group named
``*_best`` (``groups`` in the config, e.g. ``band_best``) adds a row for its member with the
highest mean FPS, whose name ``best_of`` gives; the members' own rows stay. A baseline the
device could not run (``failed`` in the manifest: out of memory) keeps a row saying why.

A seed that failed (the run stopped at the failure) is no measurement: its partial figures
are left out of every mean and interval (``n_failed`` counts them), and a member with a failed
seed never wins a ``*_best`` group, since it could not run the scenario through.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

import pandas as pd

from harness.reporting.measures import Metric, Summary, summarised
from harness.reporting.metrics import Metrics
from harness.reporting.runrecord import failures_in
from harness.reporting.stats import Interval, mean_ci, ratio_ci


def _per_seed(scenario: pd.DataFrame, baseline: str, column: str) -> dict[int, float]:
    rows = scenario[scenario["baseline"] == baseline]
    return {int(s): float(v) for s, v in zip(rows["seed"], rows[column], strict=True)}


def _put(row: dict[str, object], name: str, interval: Interval) -> None:
    row[name], row[f"{name}_low"], row[f"{name}_high"] = (interval.mean, interval.low,
                                                          interval.high)


def _row(scenario: pd.DataFrame, baseline: str, declared: tuple[Metric, ...]
         ) -> dict[str, object]:
    row: dict[str, object] = {"baseline": baseline}
    fps = _per_seed(scenario, baseline, "fps")
    row["n_seeds"], row["seeds"] = len(fps), ",".join(str(s) for s in sorted(fps))
    for metric in summarised(declared, Summary.MEAN):
        if metric.name in scenario.columns:
            values = list(_per_seed(scenario, baseline, metric.name).values())
            _put(row, metric.name, mean_ci(values))
    for metric in summarised(declared, Summary.RATIO):
        _put(row, metric.name, ratio_ci(fps, _per_seed(scenario, metric.reference, "fps")))
    return row


def with_slo_pct(scenario: pd.DataFrame) -> pd.DataFrame:
    out = scenario.copy()
    if "slo_satisfaction" in out.columns:
        out["slo_pct"] = out["slo_satisfaction"] * 100
    return out


def without_failed(scenario: pd.DataFrame,
                   failed_seeds: Mapping[str, Collection[int]]) -> pd.DataFrame:
    """The scenario rows of seeds that completed: a failed seed's figures cover only the
    time before it failed."""
    if scenario.empty or not failed_seeds:
        return scenario
    failed = [int(s) in failed_seeds.get(str(b), ()) for b, s in
              zip(scenario["baseline"], scenario["seed"], strict=True)]
    return scenario[~pd.Series(failed, index=scenario.index)]


def blank_failed(per_seed: pd.DataFrame, failed: Mapping[str, Collection[int]]
                    ) -> pd.DataFrame:
    """Per-seed rows with ``run_failed`` marked; a failed seed's figures cover only the time
    before it failed, so its measured numbers are blanked (NaN: no reader takes a mean or a
    ratio of them) and its partial FPS kept apart as ``fps_partial``."""
    out = per_seed.copy()
    mask = pd.Series([int(s) in failed.get(str(b), ()) for b, s in
                      zip(out["baseline"], out["seed"], strict=True)], index=out.index,
                     dtype=bool)
    out["run_failed"] = mask
    if "fps" in out.columns:
        out["fps_partial"] = out["fps"].where(mask)
    measured = [c for c in out.columns if c not in ("seed", "fps_partial")
                and pd.api.types.is_numeric_dtype(out[c]) and c != "run_failed"]
    if mask.any():
        out[measured] = out[measured].astype(float).where(~mask)
    return out


def aggregate(metrics: Metrics, groups: Mapping[str, Sequence[str]] | None = None,
              failures: Mapping[str, str] | None = None,
              failed_seeds: Mapping[str, Collection[int]] | None = None) -> pd.DataFrame:
    """One row per baseline (in run order), then one per ``*_best`` group present (over
    members that completed every seed), then one per baseline that completed no seed
    (``failures``: baseline -> why; ``failed_reason`` says it, ``n_seeds`` is 0). A baseline
    that failed on some seeds only keeps ``failed_reason`` beside its other seeds' figures;
    ``failed_seeds`` (baseline -> seeds) says which seeds to leave out."""
    failed_seeds = dict(failed_seeds or {})
    scenario = without_failed(with_slo_pct(metrics.scenario), failed_seeds)
    failures = dict(failures or {})
    names = [str(b) for b in pd.unique(scenario["baseline"])] if not scenario.empty else []
    rows = [_row(scenario, b, metrics.declared) for b in names]
    for row in rows:
        row["n_failed"] = len(failed_seeds.get(str(row["baseline"]), ()))
        if row["baseline"] in failures:
            row["failed_reason"] = failures[str(row["baseline"])]
    for group, members in (groups or {}).items():
        present = [r for r in rows if r["baseline"] in members and r["baseline"] not in failures]
        if group.endswith("_best") and present:
            best = max(present, key=lambda r: _finite(r.get("fps")))
            rows.append({**best, "baseline": group, "best_of": best["baseline"]})
    rows += [{"baseline": b, "n_seeds": 0, "n_failed": len(failed_seeds.get(b, ())),
              "failed_reason": why} for b, why in failures.items() if b not in names]
    if not rows:
        return pd.DataFrame(columns=["baseline", "n_seeds"])
    return pd.DataFrame(rows)


def failed_runs(manifest: Mapping[str, object]) -> dict[str, dict[int, str]]:
    """Baseline -> {seed: why} for every failed seed (manifest ``runs``, read by
    :func:`~harness.reporting.runrecord.failures_in`)."""
    out: dict[str, dict[int, str]] = {}
    for failure in failures_in(manifest):
        out.setdefault(failure.baseline, {})[failure.seed] = failure.error
    return out


def failures_of(manifest: Mapping[str, object]) -> dict[str, str]:
    """Baseline -> why it failed, for baselines with a failed seed (manifest ``runs``)."""
    return {b: f"seed {','.join(str(s) for s in by_seed)}: {next(iter(by_seed.values()))}"
            for b, by_seed in failed_runs(manifest).items()}


def failed_seeds_of(manifest: Mapping[str, object]) -> dict[str, set[int]]:
    """Baseline -> the seeds on which it failed."""
    return {b: set(by_seed) for b, by_seed in failed_runs(manifest).items()}


def _finite(value: object) -> float:
    number = float(value) if isinstance(value, int | float) else float("nan")
    return number if number == number else float("-inf")
