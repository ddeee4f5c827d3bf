"""A frames-in-flight sweep read back: each system's FPS and p90 latency against the number
of frames outstanding, one table and one figure per scenario.

A sweep (``python -m harness -m +experiment=frames_sweep``) leaves one run folder per job,
each with its ``summary.csv`` (one row per baseline over seeds, :mod:`.summary`) and its
``manifest.json``, whose composed config holds the job's ``scenario.frames_in_flight``.
:func:`collect` stacks the summaries with the frames in flight of each; :func:`order` states
the systems' ordering at one point, fastest first, ``>`` where the next one's 95% interval
lies wholly below and ``≈`` where the two overlap, so a reader sees where the ordering
changes along the sweep. Baselines show by their report names (``tflite (oracle)``).

    python -m harness.reporting.sweep results/multirun/<time>

prints the tables and writes ``frames_sweep.csv``, ``frames_sweep.md`` and
``frames_sweep_<scenario>.png`` into the sweep's folder.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from harness.reporting.report import fmt, shown_name
from harness.seams.errors import UserError

#: the columns kept of each run's ``summary.csv``
KEPT = ("baseline", "fps", "fps_low", "fps_high", "latency_p90_ms", "latency_p90_ms_low",
        "latency_p90_ms_high", "n_seeds")
#: the sweep table's columns, in order
COLUMNS = ("device", "scenario", "frames_in_flight", *KEPT)


def run_folders(root: Path) -> list[Path]:
    """Every run folder under ``root`` (itself included) with a ``summary.csv``."""
    return sorted({p.parent for p in root.rglob("summary.csv")
                   if (p.parent / "manifest.json").is_file()})


def _frames_in_flight(manifest: Mapping[str, Any], folder: Path) -> int:
    scenario = (manifest.get("config") or {}).get("scenario") or {}
    if "frames_in_flight" not in scenario:
        raise UserError(f"{folder}: its manifest's config has no scenario.frames_in_flight")
    return int(scenario["frames_in_flight"])


def one_run(folder: Path) -> pd.DataFrame:
    """The rows of one run folder: its summary's kept columns, with device, scenario and
    frames in flight (groups' ``*_best`` rows left out: they repeat a member)."""
    manifest = json.loads((folder / "manifest.json").read_text())
    summary = pd.read_csv(folder / "summary.csv")
    if "best_of" in summary.columns:
        summary = summary[summary["best_of"].isna()]
    rows = summary[[c for c in KEPT if c in summary.columns]].copy()
    rows.insert(0, "frames_in_flight", _frames_in_flight(manifest, folder))
    rows.insert(0, "scenario", str(summary["scenario"].iloc[0]) if len(summary) else "")
    rows.insert(0, "device", str(summary["device"].iloc[0]) if len(summary) else "")
    return rows


def collect(folders: Sequence[Path]) -> pd.DataFrame:
    """Every run's rows, sorted by device, scenario, frames in flight (baselines in run
    order)."""
    if not folders:
        raise UserError("no run folder with summary.csv and manifest.json found")
    table = pd.concat([one_run(f) for f in folders], ignore_index=True)
    table = table.reindex(columns=list(COLUMNS))
    return table.sort_values(["device", "scenario", "frames_in_flight"], kind="stable",
                             ignore_index=True)


def order(point: pd.DataFrame) -> str:
    """The baselines of one sweep point by FPS, fastest first: ``a > b`` where b's interval
    lies wholly below a's, ``a ≈ b`` where they overlap (or an interval is unknown)."""
    ranked = point.sort_values("fps", ascending=False, kind="stable").to_dict("records")
    if not ranked:
        return ""
    text = shown_name(str(ranked[0]["baseline"]))
    for ahead, row in itertools.pairwise(ranked):
        apart = _number(row.get("fps_high")) < _number(ahead.get("fps_low"))
        text += f" {'>' if apart else '≈'} {shown_name(str(row['baseline']))}"
    return text


def _number(value: Any) -> float:
    """The value as a float; NaN when missing (a comparison with NaN is false)."""
    return float(value) if isinstance(value, int | float) else math.nan


def _cell(row: Mapping[str, Any]) -> str:
    fps = fmt(row.get("fps"), "{:.2f}")
    low, high = row.get("fps_low"), row.get("fps_high")
    if fps != "–" and isinstance(low, float) and isinstance(high, float) and low == low:
        fps += f" ± {(high - low) / 2:.2f}"
    return f"{fps} / {fmt(row.get('latency_p90_ms'), '{:.1f}')}"


def wide(table: pd.DataFrame) -> dict[tuple[str, str], pd.DataFrame]:
    """(device, scenario) -> one row per frames in flight: ``FPS ± CI / p90 ms`` of each
    baseline, then ``order``."""
    out = {}
    for (device, scenario), part in table.groupby(["device", "scenario"], sort=False):
        names = [str(b) for b in pd.unique(part["baseline"])]
        rows = []
        for fif, point in part.groupby("frames_in_flight", sort=True):
            cells = {str(r["baseline"]): _cell(r) for r in point.to_dict("records")}
            rows.append({"frames in flight": int(fif),
                         **{shown_name(b): cells.get(b, "–") for b in names},
                         "order (FPS)": order(point)})
        out[(str(device), str(scenario))] = pd.DataFrame(rows)
    return out


def title(device: str, scenario: str, table: pd.DataFrame) -> str:
    """A sweep table's title: device, scenario and the frames in flight it covers."""
    values = ", ".join(str(v) for v in table["frames in flight"])
    return (f"device {device} · scenario {scenario} · frames in flight {values} · "
            f"each cell: FPS ± 95% CI / p90 latency ms")


def markdown(table: pd.DataFrame) -> str:
    """Every scenario's table as Markdown, each under its title."""
    lines: list[str] = []
    for (device, scenario), part in wide(table).items():
        headers = list(part.columns)
        lines += [f"**{title(device, scenario, part)}**", "",
                  "| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
        lines += ["| " + " | ".join(str(v) for v in row) + " |"
                  for row in part.itertuples(index=False)]
        lines.append("")
    return "\n".join(lines)


def plot(table: pd.DataFrame, device: str, scenario: str, path: Path) -> Path:
    """FPS (left) and p90 latency (right) against frames in flight, a line per baseline."""
    from harness.reporting.layout import colour
    from harness.reporting.plots import figure

    part = table[(table["device"] == device) & (table["scenario"] == scenario)]
    fig = figure(10, 4)
    left, right = fig.subplots(1, 2)
    for baseline, rows in part.groupby("baseline", sort=False):
        name = shown_name(str(baseline))
        x = rows["frames_in_flight"].to_numpy()
        tint = colour(str(baseline))
        left.errorbar(x, rows["fps"], yerr=_half(rows, "fps"), marker="o", capsize=3,
                      label=name, color=tint)
        right.plot(x, rows["latency_p90_ms"], marker="o", label=name, color=tint)
    for ax, label in ((left, "frames per second"), (right, "p90 latency (ms)")):
        ax.set_xscale("log", base=2)
        ax.set_xticks(sorted(set(part["frames_in_flight"])),
                      [str(v) for v in sorted(set(part["frames_in_flight"]))])
        ax.set_xlabel("frames in flight")
        ax.set_ylabel(label)
    fig.legend(handles=left.get_legend_handles_labels()[0], fontsize=7,
               loc="outside right center")
    fig.suptitle(f"device {device} · scenario {scenario} · FPS (95% CI) and p90 latency "
                 f"against frames in flight", fontsize=10)
    fig.savefig(path)
    return path


def _half(rows: pd.DataFrame, column: str) -> Any:
    if f"{column}_low" not in rows.columns:
        return None
    return ((rows[f"{column}_high"] - rows[f"{column}_low"]) / 2).fillna(0).to_numpy()


def report(root: Path) -> list[Path]:
    """Read every run under ``root``; write the CSV, the Markdown and one figure per
    scenario into ``root``; return the paths written."""
    table = collect(run_folders(root))
    written = [root / "frames_sweep.csv", root / "frames_sweep.md"]
    table.to_csv(written[0], index=False)
    written[1].write_text(markdown(table))
    for device, scenario in wide(table):
        written.append(plot(table, device, scenario, root / f"frames_sweep_{scenario}.png"))
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.reporting.sweep",
                                     description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("root", type=Path, help="the sweep's folder (results/multirun/<time>)")
    args = parser.parse_args(argv)
    try:
        written = report(args.root)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print((args.root / "frames_sweep.md").read_text())
    print("written: " + ", ".join(str(p) for p in written))
    return 0


if __name__ == "__main__":
    sys.exit(main())
