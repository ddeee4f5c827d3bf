"""The comparison report: one row per baseline, beside the paper's numbers.

A report says first *what produced the numbers*: the device kind (``twin`` = a simulation,
``host`` = this machine, ``adb`` = a real phone), the device, scenario, seed and versions,
all read from the run's ``manifest.json``. Then one row per baseline: FPS, the paper's FPS
(Figure 8) where the paper has one, the FPS ratio over TFLite (ours / paper), p50 and p90
latency, SLO satisfaction, dropped requests, energy per frame, peak temperature and time to
the first throttle. The same table renders three ways: a ``rich`` table for the terminal,
``summary.csv`` (all scenario metrics plus the paper columns, one row per baseline) and
Markdown for notes.

Manifest keys read (all optional): ``device`` (a mapping with ``name`` and ``kind``, or a
name, with ``device_kind`` beside it), ``scenario`` (a name or a mapping with ``name``),
``seed`` (an int or a mapping with ``base``), ``versions`` (package -> version) and
``git_commit``.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from rich.console import Console
from rich.table import Table

from harness.reporting import paper
from harness.reporting.metrics import Metrics, compute
from harness.reporting.store import RunData

KIND_MEANING = {
    "twin": "SIMULATION (digital twin)",
    "host": "THIS MACHINE (real measurements)",
    "adb": "PHONE over adb (real measurements)",
}
REFERENCE = "tflite"
#: console width when printing to a file or pipe
WIDE = 160

#: column -> (header, format); the table every rendering shows
COLUMNS: dict[str, tuple[str, str]] = {
    "baseline": ("baseline", "{}"),
    "fps": ("FPS", "{:.2f}"),
    "paper_fps": ("paper FPS", "{:.2f}"),
    "ratio_vs_tflite": ("×TFLite ours", "{:.2f}"),
    "paper_ratio_vs_tflite": ("×TFLite paper", "{:.2f}"),
    "latency_p50_ms": ("p50 ms", "{:.1f}"),
    "latency_p90_ms": ("p90 ms", "{:.1f}"),
    "slo_pct": ("SLO %", "{:.1f}"),
    "dropped": ("dropped", "{:.0f}"),
    "energy_per_frame_j": ("J/frame", "{:.3f}"),
    "peak_temperature_c": ("peak °C", "{:.1f}"),
    "time_to_throttle_s": ("throttle at s", "{:.1f}"),
}


@dataclass(frozen=True, slots=True)
class RunIdentity:
    """What produced a run, as its manifest says."""

    kind: str = "unknown"
    device: str = "unknown"
    scenario: str = "unknown"
    seed: str = "?"
    versions: Mapping[str, str] = field(default_factory=dict)
    commit: str = ""
    #: the scenario's models, when the manifest records them
    models: tuple[str, ...] | None = None

    @property
    def paper_scenario(self) -> str:
        """The scenario name to look the paper up by; "" when the models are not the paper's."""
        return paper.paper_scenario(self.scenario, self.models)

    @property
    def kind_meaning(self) -> str:
        return KIND_MEANING.get(self.kind, f"UNKNOWN device kind {self.kind!r}")

    def title(self) -> str:
        """One line naming the device kind, device, scenario, seed and versions."""
        parts = [f"{self.kind.upper()} = {self.kind_meaning}", f"device {self.device}",
                 f"scenario {self.scenario}", f"seed {self.seed}"]
        if self.versions:
            parts.append(", ".join(f"{k} {v}" for k, v in sorted(self.versions.items())))
        if self.commit:
            parts.append(f"commit {self.commit[:10]}")
        return " · ".join(parts)

    def short(self) -> str:
        """For plot footers: kind, device, scenario, seed."""
        return (f"{self.kind} = {self.kind_meaning} · {self.device} · {self.scenario}"
                f" · seed {self.seed}")


def _name(value: Any, key: str = "name") -> str | None:
    if isinstance(value, Mapping):
        value = value.get(key)
    return None if value is None else str(value)


def run_identity(manifest: Mapping[str, Any]) -> RunIdentity:
    """Read :class:`RunIdentity` from a manifest (keys in the module docstring)."""
    device = manifest.get("device")
    kind = device.get("kind") if isinstance(device, Mapping) else None
    kind = str(kind or manifest.get("device_kind") or "unknown")
    versions = manifest.get("versions") or {}
    return RunIdentity(
        kind=kind,
        device=_name(device) or "unknown",
        scenario=_name(manifest.get("scenario")) or "unknown",
        seed=_name(manifest.get("seed"), "base") or "?",
        versions={str(k): str(v) for k, v in dict(versions).items()},
        commit=str(manifest.get("git_commit") or manifest.get("commit") or ""),
        models=_models(manifest),
    )


def _models(manifest: Mapping[str, Any]) -> tuple[str, ...] | None:
    config = manifest.get("config")
    scenario = config.get("scenario") if isinstance(config, Mapping) else None
    models = scenario.get("models") if isinstance(scenario, Mapping) else None
    return tuple(str(m) for m in models) if isinstance(models, list | tuple) else None


# -- the table ------------------------------------------------------------------------------


def _ratio(values: Mapping[str, float], baseline: str) -> float:
    ref = values.get(REFERENCE, float("nan"))
    mine = values.get(baseline, float("nan"))
    return mine / ref if ref and not math.isnan(ref) else float("nan")


def _paper_ratio(identity: RunIdentity, baseline: str) -> float:
    """The paper's FPS over its TFLite FPS; ADMS's stated ratio where the paper gives one."""
    if baseline == "adms":
        stated = paper.fig8_ratio(identity.device, identity.paper_scenario, REFERENCE)
        if stated is not None:
            return stated
    return _ratio(paper.fig8_fps(identity.device, identity.paper_scenario), baseline)


def comparison(metrics: Metrics, identity: RunIdentity) -> pd.DataFrame:
    """Scenario metrics of every baseline plus the paper's FPS and the ratios over TFLite."""
    table = metrics.scenario.copy()
    if table.empty:
        return pd.DataFrame(columns=list(COLUMNS))
    fps = dict(zip(table["baseline"], table["fps"], strict=True))
    ref = paper.fig8_fps(identity.device, identity.paper_scenario)
    table["paper_fps"] = [ref.get(b, float("nan")) for b in table["baseline"]]
    table["ratio_vs_tflite"] = [_ratio(fps, b) for b in table["baseline"]]
    table["paper_ratio_vs_tflite"] = [_paper_ratio(identity, b) for b in table["baseline"]]
    table["slo_pct"] = table["slo_satisfaction"] * 100
    return table


def report_table(run: RunData) -> tuple[pd.DataFrame, RunIdentity]:
    """The comparison of a loaded run, and who produced it."""
    identity = run_identity(run.manifest)
    return comparison(compute(run), identity), identity


def fmt(value: Any, spec: str) -> str:
    """Format a cell; missing values show as an en dash."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return spec.format(value)


def _cells(row: Mapping[str, Any]) -> list[str]:
    return [fmt(row.get(col), spec) for col, (_, spec) in COLUMNS.items()]


def paper_caption(identity: RunIdentity) -> str:
    """Where the paper columns come from, and which of them are derived."""
    values = paper.fig8_values(identity.device, identity.paper_scenario)
    if not values:
        return f"paper: no Figure 8 value for {identity.device} / {identity.scenario}"
    notes = [f"{b} {v.note}" for b, v in values.items() if v.derived]
    where = values[next(iter(values))].source.where
    return f"paper: ADMS {where}" + (f"; derived: {'; '.join(notes)}" if notes else "")


def rich_table(table: pd.DataFrame, identity: RunIdentity) -> Table:
    """The comparison as a ``rich`` table titled with the run's identity."""
    out = Table(title=identity.title(), title_justify="left", caption=paper_caption(identity))
    for col, (header, _) in COLUMNS.items():
        out.add_column(header, justify="left" if col == "baseline" else "right")
    for row in table.to_dict("records"):
        out.add_row(*_cells(row))
    return out


def print_comparison(run: RunData, console: Console | None = None) -> pd.DataFrame:
    """Print the comparison of a run; return its table."""
    table, identity = report_table(run)
    (console or _console()).print(rich_table(table, identity))
    return table


def _console() -> Console:
    """The terminal's width on a terminal, else wide enough for the whole table."""
    return Console() if sys.stdout.isatty() else Console(width=WIDE)


def markdown(table: pd.DataFrame, identity: RunIdentity) -> str:
    """The comparison as a Markdown table under a bold title line."""
    headers = [header for header, _ in COLUMNS.values()]
    lines = [f"**{identity.title()}**", "", "| " + " | ".join(headers) + " |",
             "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(_cells(row)) + " |" for row in table.to_dict("records")]
    return "\n".join([*lines, "", f"_{paper_caption(identity)}_"]) + "\n"


def summary_csv(run: RunData, path: Path | None = None) -> Path:
    """Write ``summary.csv`` (one row per baseline, identity columns first) and return it."""
    table, identity = report_table(run)
    table.insert(0, "seed", identity.seed)
    table.insert(0, "scenario", identity.scenario)
    table.insert(0, "device", identity.device)
    table.insert(0, "device_kind", identity.kind)
    path = path or run.folder / "summary.csv"
    table.to_csv(path, index=False)
    return path
