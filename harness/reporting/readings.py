"""The verdict over every reading of the paper's rule.

The paper's Section 3.4 leaves choices open (how a score pairs jobs with processors, what
``T_latency`` and ``T_SLO`` are, ...); each defensible combination is a named ADMS row
(the config group ``adms_readings``: conf/config.yaml, docs/adms-as-built.md). A run of
them all (``+experiment=readings``) answers "what does the paper's rule achieve?" as a
range: for each reading its FPS ratio to the strongest Band row and to each TFLite row, a
ratio of means over the seeds both completed with its paired 95% interval
(:func:`~harness.reporting.stats.ratio_ci`); then, per comparison, the range of the readings'
ratios, and the lowest and highest interval bound among them. Failed seeds are left out
(their figures cover only the time before they failed).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

import pandas as pd

from harness.reporting.stats import ratio_ci
from harness.reporting.verdict import family, fps_by_seed, strongest

#: the config group whose rows are the readings
GROUP = "adms_readings"
#: the comparisons reported, as (label, how the other row is found)
AGAINST = ("band", "tflite_gpu", "tflite")


def others(scenario: pd.DataFrame, failed: Collection[str]) -> dict[str, str]:
    """Label -> the row each reading is compared with: the strongest Band row (as
    ``band_best`` picks it) and each TFLite row the run has."""
    names = [str(b) for b in pd.unique(scenario["baseline"])] if len(scenario) else []
    out: dict[str, str] = {}
    band = strongest(scenario, [n for n in names if family(n) == "band"], failed)
    if band:
        out["band"] = band
    for name in ("tflite_gpu", "tflite"):
        if name in names:
            out[name] = name
    return out


def table(scenario: pd.DataFrame, readings: Sequence[str], failed: Collection[str] = ()
          ) -> pd.DataFrame:
    """One row per (reading, comparison): the ratio of means with its interval, the seeds
    it pairs, and the per-seed ratios (``scenario``: per-seed rows of completed seeds)."""
    rows = []
    against = others(scenario, failed)
    for reading in readings:
        mine = fps_by_seed(scenario, reading)
        for label, other in against.items():
            ratio = ratio_ci(mine, fps_by_seed(scenario, other))
            rows.append({"reading": reading, "against": label, "other": other,
                         "ratio": ratio.mean, "ratio_low": ratio.low, "ratio_high": ratio.high,
                         "n_seeds": ratio.n,
                         "per_seed": " ".join(f"{v:.4f}" for v in ratio.values)})
    return pd.DataFrame(rows, columns=["reading", "against", "other", "ratio", "ratio_low",
                                       "ratio_high", "n_seeds", "per_seed"])


def ranges(readings_table: pd.DataFrame) -> pd.DataFrame:
    """Per comparison: how many readings, the range of their ratios (which reading is at
    each end) and the lowest and highest interval bound among them."""
    rows = []
    for label, part in readings_table.groupby("against", sort=False):
        part = part[part["ratio"].notna()]
        if part.empty:
            continue
        low, high = part.loc[part["ratio"].idxmin()], part.loc[part["ratio"].idxmax()]
        rows.append({"against": label, "other": str(part["other"].iloc[0]),
                     "readings": len(part), "min": float(low["ratio"]),
                     "min_reading": str(low["reading"]), "max": float(high["ratio"]),
                     "max_reading": str(high["reading"]),
                     "lowest_bound": float(part["ratio_low"].min()),
                     "highest_bound": float(part["ratio_high"].max())})
    return pd.DataFrame(rows)


def sentence(row: Mapping[str, object], device: str, scenario: str) -> str:
    """"Under N readings of the paper's rule, ADMS/Band (band_sel) on k50pro FRS lies in
    [a, b] ..."."""
    def num(key: str) -> str:
        value = float(str(row[key]))
        return "n/a" if math.isnan(value) else f"{value:.2f}"
    label = "Band" if row["against"] == "band" else str(row["against"])
    other = "" if row["other"] == row["against"] else f" ({row['other']})"
    return (f"Under {row['readings']} readings of the paper's rule, ADMS/{label}{other} "
            f"on {device} {scenario.upper()} lies in [{num('min')}, "
            f"{num('max')}] ({row['min_reading']} .. {row['max_reading']}; 95% intervals "
            f"from {num('lowest_bound')} to {num('highest_bound')}).")


def write(scenario: pd.DataFrame, readings: Sequence[str], failed: Collection[str],
          out: Path, device: str, scenario_name: str) -> list[str]:
    """Write ``readings.csv`` (every reading's ratios) and ``readings_range.csv`` into
    ``out``; return the sentences, one per comparison."""
    full = table(scenario, readings, failed)
    full.to_csv(out / "readings.csv", index=False)
    spans = ranges(full)
    spans.to_csv(out / "readings_range.csv", index=False)
    return [sentence(row, device, scenario_name) for row in spans.to_dict("records")]


#: the config fields that name a reading of the paper's rule, with how a reader sees them
READING_FIELDS = (("pairing", "pairing"), ("idle_order", "idle order"),
                  ("t_latency", "T_latency"), ("slo_reading", "T_SLO"),
                  ("score_order", "sign"), ("earliest_finish", "waits for a busy processor"))


def reading_of(conf: Mapping[str, object]) -> str:
    """An ADMS row's reading of the paper's rule, from its config as a manifest records it
    (enums as ``Enum.member`` strings): ``pairing job_first · idle order device · ...``."""
    parts = []
    for key, label in READING_FIELDS:
        if key not in conf:
            continue
        value = str(conf[key]).rsplit(".", 1)[-1]
        parts.append(f"{label} {value.lower() if value in ('True', 'False') else value}")
    return " · ".join(parts)


def adms_line(manifest: Mapping[str, object]) -> str:
    """"adms reads the paper's rule as: ..." for a run with an ``adms`` row ("" without)."""
    config = manifest.get("config")
    baselines = config.get("baselines") if isinstance(config, Mapping) else None
    ran = manifest.get("baselines")
    if not isinstance(baselines, Mapping) or not isinstance(ran, list) or "adms" not in ran:
        return ""
    conf = baselines.get("adms")
    if not isinstance(conf, Mapping):
        return ""
    return f"adms reads the paper's rule as: {reading_of(conf)} (docs/adms-as-built.md)"
