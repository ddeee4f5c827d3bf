"""A night's outcome: every cell's status, the comparison with the previous night, the report.

The comparison is :mod:`harness.reporting.compare`'s, cell by cell (the same cell id in both
nights): each run folder read by :func:`~harness.reporting.compare.read_run`, tabled by
:func:`~harness.reporting.report.report_table`, and passed to
:func:`~harness.reporting.compare.regressions` at the smallest threshold; each regression
found is then kept only if its metric worsened by more than that metric's own threshold
(``thresholds``: noisy metrics, such as a tail latency, get wider ones). ``report.md`` lists
the failures, the regressions, a table of every cell's metrics beside the previous night's,
and a plot of FPS per cell, both nights.

A cell's folder that another process still records into (its claim held,
:mod:`harness.seams.claim`) is ``busy``: reported as such, never as a failed measurement. A
cell whose run folder cannot be read, in either night (a damaged ``requests.parquet``, a
truncated journal, a manifest that is not JSON), is one failed comparison, named with its
night and the reason; the other cells are compared and the report is written regardless.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from harness.farm.cell import CELL_FILE, cell_dir
from harness.farm.plan import PLAN, Cell
from harness.reporting import report
from harness.reporting.compare import WATCHED, Regression, read_run, regressions
from harness.seams.claim import holder
from harness.seams.errors import UserError

#: a cell's status when another process records into its folder (not a measurement)
BUSY = "busy"


@dataclass(frozen=True, slots=True)
class Night:
    folder: Path
    outcomes: list[dict[str, Any]]

    @property
    def failed(self) -> list[dict[str, Any]]:
        return [o for o in self.outcomes if o.get("status") not in ("ok", BUSY)]

    @property
    def busy(self) -> list[dict[str, Any]]:
        return [o for o in self.outcomes if o.get("status") == BUSY]


@dataclass(frozen=True, slots=True)
class Unreadable:
    """A cell whose run folder could not be read in one night: a failed comparison."""

    cell: str
    night: str
    error: str

    def line(self) -> str:
        return f"COMPARISON FAILED {self.cell}: night {self.night}: {self.error}"


def outcome(night: Path, cell: Cell) -> dict[str, Any]:
    folder = cell_dir(night, cell)
    pid = holder(folder)
    if pid is not None:
        return busy_outcome(cell.id, pid)
    path = folder / CELL_FILE
    if not path.is_file():
        return {"cell": cell.id, "status": "failed",
                "error": "the job wrote no cell.json (killed, or its launcher failed)"}
    return read_outcome(path, cell.id)


def busy_outcome(cell_id: str, pid: int | None, why: str = "") -> dict[str, Any]:
    """A cell another process kept from running: ``why``, or its folder's recorder ``pid``."""
    why = why or f"another process (pid {pid}) records into the cell's folder"
    return {"cell": cell_id, "status": BUSY, "error": f"{why}; not measured by this night"}


def read_outcome(path: Path, cell_id: str) -> dict[str, Any]:
    """A ``cell.json``; a damaged one (truncated, not an object) is a failed cell saying so."""
    try:
        found = json.loads(path.read_text())
    except (ValueError, UnicodeDecodeError) as exc:
        found = f"not JSON ({exc})"
    if not isinstance(found, dict):
        return {"cell": cell_id, "status": "failed",
                "error": f"{path} is damaged: {str(found)[:80]}"}
    return found


def collect(night: Path, todo: Sequence[Cell]) -> Night:
    return Night(night, [outcome(night, c) for c in todo])


def previous_night(root: Path, night: str, explicit: str = "") -> Path | None:
    """``explicit``, else the latest night before ``night`` in the tree that has a plan."""
    if explicit:
        folder = root / explicit
        if not (folder / PLAN).is_file():
            raise UserError(f"previous={explicit!r}: {folder} is not a farm night (no {PLAN})")
        return folder
    earlier = sorted(p.name for p in root.iterdir()
                     if p.is_dir() and (p / PLAN).is_file() and p.name < night)
    return root / earlier[-1] if earlier else None


def cell_table(folder: Path) -> pd.DataFrame:
    return report.report_table(read_run(folder).data)[0]


def kept(found: Regression, thresholds: Mapping[str, float]) -> bool:
    return abs(found.change_pct) > thresholds.get(found.metric, 0.0)


def compare_nights(night: Night, previous: Path | None, todo: Sequence[Cell],
                   thresholds: Mapping[str, float]
                   ) -> tuple[list[Regression], pd.DataFrame, list[Unreadable]]:
    """Regressions of the cells that finished in both nights, every metric of both
    (without a previous night: this night's metrics, and no regressions), and the cells
    whose folder could not be read in either night (failed comparisons)."""
    smallest = min(thresholds.get(m, 0.0) for m in WATCHED)
    found, rows, broken = [], [], list[Unreadable]()
    ok = {o["cell"] for o in night.outcomes if o.get("status") == "ok"}
    for cell in todo:
        now_t = _table(night.folder, cell, broken) if cell.id in ok else None
        before_t = None
        if previous is not None and outcome(previous, cell).get("status") == "ok":
            before_t = _table(previous, cell, broken)
        rows += _metric_rows(cell, now_t, before_t)
        if now_t is not None and before_t is not None:
            found += [r for r in regressions(before_t, now_t, cell.id, smallest)
                      if kept(r, thresholds)]
    return found, pd.DataFrame(rows), broken


def _table(night: Path, cell: Cell, broken: list[Unreadable]) -> pd.DataFrame | None:
    """The cell's metrics in ``night``; None, and a failed comparison noted in ``broken``,
    when its folder cannot be read (whatever the damage: the report must be written)."""
    try:
        return cell_table(cell_dir(night, cell))
    except Exception as exc:  # any damage is this cell's, not the night's
        text = " ".join(str(exc).split())[:200]
        error = text if isinstance(exc, UserError) else f"{type(exc).__name__}: {text}"
        broken.append(Unreadable(cell.id, night.name, error))
        return None


def _metric_rows(cell: Cell, now: pd.DataFrame | None, before: pd.DataFrame | None
                 ) -> list[dict[str, Any]]:
    def value(table: pd.DataFrame | None, metric: str) -> float:
        if table is None:
            return math.nan
        row = table[table["baseline"] == cell.baseline]
        return float(row[metric].iloc[0]) if len(row) and metric in row else math.nan

    return [{"cell": cell.id, "metric": m, "value": value(now, m),
             "previous": value(before, m)} for m in WATCHED]


def plot_fps(metrics: pd.DataFrame, path: Path) -> Path | None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fps = metrics[metrics["metric"] == "fps"].set_index("cell")[["previous", "value"]]
    if fps.empty:
        return None
    ax = fps.rename(columns={"previous": "previous night", "value": "this night"}).plot.barh(
        figsize=(8, 0.5 * len(fps) + 1.5))
    ax.set_xlabel("FPS (mean over the cell's seed)")
    ax.set_title("FPS per cell: this night and the previous one")
    plt.tight_layout()
    ax.figure.savefig(path, dpi=100)
    plt.close(ax.figure)
    return path


def write_report(night: Night, previous: Path | None, found: Sequence[Regression],
                 metrics: pd.DataFrame, thresholds: Mapping[str, float], plots: bool,
                 broken: Sequence[Unreadable] = ()) -> Path:
    lines = [f"# Farm night {night.folder.name}", "",
             f"{len(night.outcomes)} cells, {len(night.failed)} failed, {len(night.busy)} "
             f"busy, {len(broken)} comparisons failed; compared with "
             f"{previous.name if previous else 'no earlier night'} (thresholds: "
             + ", ".join(f"{k} {v:g}%" for k, v in thresholds.items()) + ")", ""]
    lines += ["## Failed cells", ""] + ([f"- `{o['cell']}`: {o.get('error', '')}"
                                        for o in night.failed] or ["none"]) + [""]
    if night.busy:
        lines += ["## Busy cells (another process records into them)", ""]
        lines += [f"- `{o['cell']}`: {o.get('error', '')}" for o in night.busy] + [""]
    if broken:
        lines += ["## Comparisons that failed (a run folder could not be read)", ""]
        lines += [f"- `{b.cell}` ({b.night}): {b.error}" for b in broken] + [""]
    lines += ["## Regressions", ""] + ([f"- {r.line()}" for r in found] or ["none"]) + [""]
    if not metrics.empty:
        lines += ["## Every cell", "", "| cell | metric | this night | previous | change |",
                  "|---|---|---|---|---|"]
        lines += [f"| `{r.cell}` | {r.metric} | {r.value:.4g} | {r.previous:.4g} | "
                  f"{_change(r.value, r.previous)} |" for r in metrics.itertuples()]
        lines.append("")
    if plots and not metrics.empty and (png := plot_fps(metrics, night.folder / "fps.png")):
        lines += [f"![FPS per cell]({png.name})", ""]
    path = night.folder / "report.md"
    path.write_text("\n".join(lines))
    return path


def _change(value: float, previous: float) -> str:
    if math.isnan(value) or math.isnan(previous) or previous == 0:
        return "–"
    return f"{(value - previous) / previous * 100:+.1f}%"
