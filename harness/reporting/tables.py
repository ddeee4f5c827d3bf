"""The per-model latency table, fitted to the terminal (:mod:`harness.seams.fitting`).

**Latency per model.** The run's request latencies pool models of very different sizes (a
4 ms detector and a 70 ms recogniser), so a pooled p90 says little about either. The
per-model table gives, per baseline and model, what ``benchmark_model`` users read: the
count of finished requests, mean, standard deviation and p50/p90/p99 latency in ms, over the
finished requests of every seed that completed (seeds pooled).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping

import numpy as np
import pandas as pd
from rich.table import Table as RichTable

from harness.reporting import outcomes
from harness.seams.fitting import fitted

#: the per-model table's columns: name -> (header, format)
PER_MODEL: dict[str, tuple[str, str]] = {
    "count": ("count", "{:.0f}"), "mean": ("mean", "{:.1f}"), "std": ("std", "{:.1f}"),
    "p50": ("p50", "{:.1f}"), "p90": ("p90", "{:.1f}"), "p99": ("p99", "{:.1f}")}


# -- latency per model ----------------------------------------------------------------------


def per_model(requests: pd.DataFrame,
              failed_seeds: Mapping[str, Collection[int]] | None = None) -> pd.DataFrame:
    """One row per (baseline, model), in run order: :data:`PER_MODEL`'s figures over the
    finished requests of the seeds that completed."""
    failed = dict(failed_seeds or {})
    records = []
    models = [str(m) for m in pd.unique(requests["model"])]
    for baseline in outcomes.baselines(requests):
        mine = requests[(requests["baseline"] == baseline)
                        & ~requests["seed"].isin(list(failed.get(baseline, ())))]
        rows = pd.concat([_measured(mine[mine["seed"] == s], baseline)
                          for s in pd.unique(mine["seed"])]) if len(mine) else mine
        for model in [m for m in models if m in set(mine["model"].astype(str))]:
            latency = rows.loc[rows["model"] == model, "latency_ms"].dropna().to_numpy(float)
            records.append({"baseline": baseline, "model": str(model), **_figures(latency)})
    return pd.DataFrame(records, columns=["baseline", "model", *PER_MODEL])


def _measured(requests: pd.DataFrame, baseline: str) -> pd.DataFrame:
    return outcomes.measured_requests(requests, baseline,
                                      outcomes.measured_span(requests, baseline))


def _figures(latency: np.ndarray) -> dict[str, float]:
    if not len(latency):
        return {"count": 0, **{k: float("nan") for k in PER_MODEL if k != "count"}}
    p50, p90, p99 = np.percentile(latency, [50, 90, 99])
    std = float(np.std(latency, ddof=1)) if len(latency) > 1 else float("nan")
    return {"count": len(latency), "mean": float(latency.mean()), "std": std,
            "p50": float(p50), "p90": float(p90), "p99": float(p99)}


def per_model_rows(table: pd.DataFrame, shown: Callable[[str], str] = str
                   ) -> list[list[str]]:
    """The per-model table's cells: a baseline's name on a row of its own, its models
    indented under it (so the first column is as wide as the longest name, not both)."""
    rows: list[list[str]] = []
    blank = [""] * len(PER_MODEL)
    for baseline, mine in table.groupby("baseline", sort=False):
        rows.append([shown(str(baseline)), *blank])
        rows += [[f"  {r['model']}", *(_fmt(r[k], spec) for k, (_, spec) in PER_MODEL.items())]
                 for r in mine.to_dict("records")]
    return rows


def per_model_headers() -> list[str]:
    return ["baseline / model", *(h for h, _ in PER_MODEL.values())]


def _fmt(value: object, spec: str) -> str:
    if not isinstance(value, int | float) or value != value:
        return "–"
    return spec.format(value)


#: the per-model table's title
PER_MODEL_TITLE = ("latency per model, ms (finished requests of every seed, pooled; "
                   "the table above pools models)")


def per_model_tables(requests: pd.DataFrame, failed_seeds: Mapping[str, Collection[int]],
                     shown: Callable[[str], str], width: int) -> list[RichTable]:
    """The latency-per-model table (:func:`per_model`) fitted to ``width``."""
    found = per_model(requests, failed_seeds)
    return fitted(per_model_headers(), per_model_rows(found, shown), width, PER_MODEL_TITLE)
