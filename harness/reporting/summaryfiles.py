"""A run's summary files: ``summary.csv``, ``summary_seeds.csv`` and ``summary.md``.

``summary.csv`` holds every aggregated column of the comparison (:mod:`.report`) with its
interval bounds, one row per baseline, the run's identity first and the contention measured
on its machine last (``other_cores``, ``cores``: :mod:`harness.experiment.contention`);
``summary_seeds.csv`` keeps the per-seed values. ``summary.md`` is what
the terminal showed, in Markdown: the headline (:mod:`.headline`), the verdict boxes, then
the tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from harness.reporting import coverage, headline, report, verdict
from harness.reporting.metrics import Metrics, compute
from harness.reporting.store import RunData
from harness.reporting.summary import blank_failed, failed_seeds_of, with_slo_pct


def _identified(table: pd.DataFrame, identity: report.RunIdentity,
                busy: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """``table`` with the run's identity first, and the contention measured during it
    (``other_cores``, ``cores``: NaN where the manifest has none) last."""
    table = table.copy()
    for name, value in (("scenario", identity.scenario), ("device", identity.device),
                        ("device_kind", identity.kind)):
        table.insert(0, name, value)
    for key in ("other_cores", "cores"):
        found = (busy or {}).get(key)
        table[key] = found if isinstance(found, int | float) else float("nan")
    return table


def summary_csv(run: RunData, path: Path | None = None,
                metrics: Metrics | None = None) -> Path:
    """Write ``summary.csv`` (one row per baseline over seeds, identity columns first) and
    ``summary_seeds.csv`` beside it (one row per baseline and seed); return the first."""
    metrics = metrics if metrics is not None else compute(run)
    table, identity = report.report_table(run, metrics)
    path = path or run.folder / "summary.csv"
    busy = run.manifest.get("contention")
    busy = busy if isinstance(busy, Mapping) else {}
    _identified(coverage.with_flags(table, run.manifest), identity, busy).to_csv(path, index=False)
    per_seed = with_slo_pct(metrics.scenario)
    failed = failed_seeds_of(run.manifest)
    per_seed = blank_failed(per_seed, failed)
    _identified(per_seed, identity, busy).to_csv(path.with_name("summary_seeds.csv"), index=False)
    return path


def summary_md(run: RunData, path: Path | None = None, metrics: Metrics | None = None
               ) -> Path:
    """Write ``summary.md``: the headline, the verdict boxes and the tables."""
    metrics = metrics if metrics is not None else compute(run)
    table, identity = report.report_table(run, metrics)
    _, boxes = verdict.of_run(run, metrics, identity.device, identity.paper_scenario)
    path = path or run.folder / "summary.md"
    busy = headline.busy(run.manifest.get("contention"), identity.kind)
    path.write_text(report.markdown(table, identity, metrics.declared, boxes, busy))
    return path
