"""The calibrated twin at work, and its held-out check against the phone.

Band and ADMS run on the twin (``check.baselines``). The held-out check is vanilla TFLite
with every model of the scenario at once: on the phone, one ``benchmark_model`` process per
model (``device=adb`` running ``tflite_stock``, each model on the processor its config names),
and on the twin with the same placement (``placement=fixed``) and the same traffic (closed-loop
streams, each model back to back, which is what concurrent ``benchmark_model`` processes are).
Neither run fed the twin: it was calibrated from single-slice runs only. FPS is, on both,
the slowest model's rate (a frame needs every model). The report, ``calibration.md``, puts
them side by side.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from harness.experiment import session

#: the held-out run on the twin: vanilla TFLite at the stock tool's placement, closed-loop streams
HOLDOUT = ["run=[tflite]", "scenario.arrival=stream", "baselines.tflite.placement=fixed"]
#: the held-out run on the phone: the stock ``benchmark_model`` processes (``tflite_stock``,
#: placement ``fixed`` by its config), whose concurrency the twin mirrors
PHONE_HOLDOUT = ["run=[tflite_stock]", "scenario.arrival=stream"]


@dataclass(frozen=True, slots=True)
class Holdout:
    phone_fps: float
    twin_fps: float

    @property
    def error_pct(self) -> float:
        if not self.phone_fps or math.isnan(self.phone_fps):
            return math.nan
        return (self.twin_fps - self.phone_fps) / self.phone_fps * 100


def twin_args(root: Path, name: str) -> list[str]:
    """Overrides that select the written twin YAML (``<root>/device/<name>.yaml``)."""
    return [f"hydra.searchpath=[file://{root.resolve()}]", f"device={name}"]


def timing_args(duration_s: float, warmup_s: float) -> list[str]:
    return [f"scenario.duration_s={duration_s:g}", f"scenario.warmup_s={warmup_s:g}",
            "plots=false"]


def run_into(overrides: Sequence[str], folder: Path) -> Path:
    return session.run(list(overrides), folder)


def fps_of(folder: Path, baseline: str) -> float:
    """A baseline's mean FPS from a run's ``summary.csv``."""
    summary = pd.read_csv(folder / "summary.csv").set_index("baseline")
    return float(summary.loc[baseline, "fps"]) if baseline in summary.index else math.nan


def summary_rows(folder: Path, baselines: Sequence[str]) -> pd.DataFrame:
    summary = pd.read_csv(folder / "summary.csv")
    keep = [c for c in ("baseline", "fps", "latency_mean_ms", "latency_p90_ms", "n_seeds")
            if c in summary.columns]
    return summary[summary["baseline"].isin(baselines)][keep]


def report(path: Path, title: str, constants: Sequence[str], runs: pd.DataFrame | None,
           holdout: Holdout | None) -> Path:
    """``calibration.md``: what was measured, the twin's runs, the held-out check."""
    lines = [f"# {title}", "", "## Constants measured on the phone", "",
             *[f"- {c}" for c in constants], ""]
    if runs is not None:
        lines += ["## Band and ADMS on the calibrated twin (a simulation)", "",
                  *markdown_table(runs), ""]
    if holdout is not None:
        lines += ["## Held-out check: vanilla TFLite, every model at once", "",
                  "| source | FPS |", "|---|---|",
                  f"| phone-measured (benchmark_model processes) | {holdout.phone_fps:.3g} |",
                  f"| twin-predicted | {holdout.twin_fps:.3g} |",
                  f"| twin error | {holdout.error_pct:+.1f}% |", ""]
    path.write_text("\n".join(lines))
    return path


def markdown_table(frame: pd.DataFrame) -> list[str]:
    """A Markdown table, numbers to three significant digits."""
    def cell(v: object) -> str:
        return f"{v:.3g}" if isinstance(v, float) else str(v)

    head = [" | ".join(map(str, frame.columns)), " | ".join("---" for _ in frame.columns)]
    body = [" | ".join(cell(v) for v in row) for row in frame.itertuples(index=False)]
    return [f"| {line} |" for line in head + body]
