"""A sweep over seeds, pooled: one row per baseline with its mean and 95% interval over every
seed of every job that ran the same config.

``harness -m seed.base=0,1,2`` runs three jobs that differ only in their seeds; each writes
its own folder and ``summary_seeds.csv`` (one row per baseline and seed). :func:`aggregate`
reads every run folder under the sweep's folder, groups the jobs whose composed configs are
equal but for ``seed.base`` (:func:`~harness.reporting.runrecord.config_digest`), pools their
per-seed rows (a seed two jobs share counts once) and writes ``aggregate.csv`` into the
sweep's folder: per group and baseline, the seeds, the jobs, and FPS and p90 latency as mean,
low and high (Student t over seeds, :func:`~harness.reporting.stats.mean_ci`). Groups of one
job are left out: their own ``summary.csv`` says it all. A multirun writes it at its end
(:class:`harness.cli.sweepend.SeedAggregate`); ``python -m harness.reporting.seedsweep DIR``
writes it for any folder.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from harness.reporting.runrecord import RunRecord, config_digest
from harness.reporting.stats import mean_ci
from harness.reporting.store import read_manifest

OUT = "aggregate.csv"
METRICS = ("fps", "latency_p90_ms")


def without_seed(record: RunRecord) -> str:
    """The digest of a run's config with ``seed.base`` left out."""
    config = dict(record.config)
    config["seed"] = {**dict(config.get("seed") or {}), "base": None}
    return config_digest(config)


def jobs(root: Path) -> pd.DataFrame:
    """Every per-seed row of every run under ``root``, with its job's folder and group."""
    frames = []
    for manifest in sorted(root.rglob("manifest.json")):
        seeds = manifest.parent / "summary_seeds.csv"
        if seeds.exists():
            record = RunRecord(read_manifest(manifest.parent))
            rows = pd.read_csv(seeds)
            frames.append(rows.assign(job=str(manifest.parent.relative_to(root)),
                                      group=without_seed(record)))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def pooled(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per group and baseline over the groups of several jobs (module docstring)."""
    out = []
    for (group, baseline), part in rows.groupby(["group", "baseline"], sort=False):
        if part["job"].nunique() < 2:
            continue
        part = part.drop_duplicates("seed")
        row = {"group": group, "device": part["device"].iloc[0],
               "scenario": part["scenario"].iloc[0], "baseline": baseline,
               "jobs": part["job"].nunique(), "n_seeds": len(part),
               "seeds": ",".join(str(s) for s in sorted(part["seed"]))}
        for metric in METRICS:
            ci = mean_ci(part[metric].tolist())
            row |= {metric: ci.mean, f"{metric}_low": ci.low, f"{metric}_high": ci.high}
        out.append(row)
    return pd.DataFrame(out)


def aggregate(root: Path) -> Path | None:
    """Write ``aggregate.csv`` into ``root`` and print it; None when no group has two jobs."""
    rows = jobs(root)
    table = pooled(rows) if not rows.empty else pd.DataFrame()
    if table.empty:
        return None
    path = root / OUT
    table.to_csv(path, index=False)
    for row in table.to_dict("records"):
        half = (row["fps_high"] - row["fps_low"]) / 2
        print(f"{row['device']} {row['scenario']} {row['baseline']}: {row['fps']:.2f} ± "
              f"{half:.2f} FPS over {row['n_seeds']} seeds of {row['jobs']} jobs")
    print(f"aggregate: {path}")
    return path


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    for folder in args:
        if aggregate(Path(folder)) is None:
            print(f"{folder}: no jobs that differ only in their seeds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
