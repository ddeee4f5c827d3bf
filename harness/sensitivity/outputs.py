"""What a sweep writes: the ratio and crossover tables (CSV and Markdown), the tornado PNG,
and the anchors it marks.

An anchors file (YAML or JSON) maps a swept constant to a measured value and where it comes
from, on the constant's own axis (a factor for a per-processor or relative constant)::

    scheduler_ns_per_op: {value: 120, source: "runner decision timings, this machine"}
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd
from omegaconf import OmegaConf

from harness.seams.errors import UserError
from harness.sensitivity import analysis, figure
from harness.sensitivity.config import ConstantConf

FIGURE = "tornado.png"
CROSSOVERS_MD = "crossovers.md"


def load_anchors(path: str, constants: Sequence[ConstantConf]) -> dict[str, tuple[float, str]]:
    """``{constant: (value, source)}`` from the anchors file (empty path: none)."""
    if not path:
        return {}
    file = Path(path)
    if not file.is_file():
        raise UserError(f"sensitivity: anchors file {path!r} does not exist")
    raw = OmegaConf.to_container(OmegaConf.load(file))
    names = {c.name for c in constants}
    if not isinstance(raw, dict):
        raise UserError(f"sensitivity: anchors {path!r} must map constants to "
                        "{value, source}")
    out = {}
    for name, entry in raw.items():
        if name not in names:
            raise UserError(f"sensitivity: anchor {name!r} is not a swept constant; "
                            f"allowed: {', '.join(sorted(names))}")
        if not isinstance(entry, dict) or not isinstance(entry.get("value"), int | float):
            raise UserError(f"sensitivity: anchor {name!r} needs a numeric value: "
                            "{value: ..., source: ...}")
        out[str(name)] = (float(entry["value"]), str(entry.get("source", "")))
    return out


def marks(table: pd.DataFrame, constants: Sequence[ConstantConf],
          anchors: Mapping[str, tuple[float, str]]) -> pd.DataFrame:
    """Each anchor's ratio in every panel, interpolated at its value."""
    parts = [analysis.at_value(table, c, anchors[c.name][0]).assign(constant=c.name)
             for c in constants if c.name in anchors]
    columns = ["device", "scenario", "ratio", "mean", "constant"]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=columns)


def _value(x: float, unit: str) -> str:
    if math.isnan(x):
        return "–"
    text = f"{x:.3g}" if abs(x) < 1000 else f"{x:,.0f}"
    return f"×{text}" if unit == "x" else f"{text} {unit}".rstrip()


def crossover_markdown(crossings: pd.DataFrame) -> str:
    """The crossover table, one line per crossing, in words."""
    head = ("| device | scenario | ratio | constant | default (ratio there) | line | "
            "crosses at | past it | clear |\n|---|---|---|---|---|---|---|---|---|\n")
    if crossings.empty:
        return head + "| – | – | – | no constant crosses a verdict line within its range |" \
                      " – | – | – | – | – |\n"
    lines = []
    for r in crossings.itertuples():
        line = f"{r.line:.2f}" + (" (paper)" if r.line_is == "paper" else "")
        lines.append(f"| {r.device} | {r.scenario} | {r.ratio} | `{r.constant}` | "
                     f"{_value(r.default_value, r.unit)} ({r.ratio_at_default:.3f}) | {line} | "
                     f"{_value(r.crosses_at, r.unit)} | ratio {r.larger_values} the line at "
                     f"larger values | {'yes' if r.clear else 'no: within the seeds spread'} |")
    return head + "\n".join(lines) + "\n"


def write(out: Path, table: pd.DataFrame, constants: Sequence[ConstantConf],
          anchors: Mapping[str, tuple[float, str]], provenance: str) -> dict[str, Path]:
    """Every output of the sweep into ``out``; their paths by name."""
    bars = analysis.tornado(table)
    crossings = analysis.crossovers(table, constants)
    paths = {"ratios": out / "ratios.csv", "tornado": out / "tornado.csv",
             "crossovers": out / "crossovers.csv", "crossovers_md": out / CROSSOVERS_MD,
             "figure": out / FIGURE}
    table.to_csv(paths["ratios"], index=False)
    bars.to_csv(paths["tornado"], index=False)
    crossings.to_csv(paths["crossovers"], index=False)
    paths["crossovers_md"].write_text(crossover_markdown(crossings))
    ratios = list(dict.fromkeys(table["ratio"]))
    cells = list(dict.fromkeys(zip(table["device"], table["scenario"], strict=True)))
    anchored = "; ".join(f"{k} = {v:g} ({s})" for k, (v, s) in anchors.items())
    figure.draw(bars, marks(table, constants, anchors), paths["figure"],
                "Where the verdict turns: each constant's range, one at a time",
                provenance + (f" · measured: {anchored}" if anchored else ""), ratios, cells)
    return paths
