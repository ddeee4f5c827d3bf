"""Compare run folders, and flag regressions for nightly runs.

    python -m harness.compare RUN_DIR [RUN_DIR ...] [--tolerance PCT] [--markdown]

Prints each run's comparison table (:mod:`harness.reporting.report`), titled with the kind of device
that produced it. With two or more runs, the first is the reference: a baseline whose FPS
fell, or whose p90 latency rose, by more than ``--tolerance`` percent in a later run is a
regression. Exit codes: 0 no regression, 1 regressions found, 2 bad input (a path that is
not a run folder), reported in one line without a traceback.

Each later run gets a Δ table: per baseline both ran, the mean FPS and p90 latency of the
reference and of the run, and the change in percent with its 95% interval
(:mod:`harness.reporting.delta`), marked when the interval holds 0.

Runs are comparable only when they ran the same device, scenario, models and duration, and
each baseline both ran with the same settings (``baselines.<name>``, e.g. Band's scheduler):
otherwise the comparison is refused (exit 2) unless ``--force``, which compares them anyway
and prints each difference as a ``WARNING`` line. Run folders are read in place
and never written into, a run still going included. A run that did not complete (its
manifest's ``status`` is ``running``: still going, or killed; ``interrupted`` or ``failed``) and
a baseline whose
requests cover less than :data:`MIN_COVERAGE` of the measured duration are flagged with a
``FLAG`` line: their numbers are not the numbers of a whole run.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from rich.console import Console

from harness.experiment.terminal import forgiving_streams
from harness.reporting import report
from harness.reporting.delta import change
from harness.reporting.metrics import compute
from harness.reporting.runfolder import RunFolder, State
from harness.reporting.tablecheck import check_tables
from harness.seams import fitting
from harness.seams.errors import Parser, UserError, run_cli

#: the share of the measured duration a baseline's requests must span not to be flagged
MIN_COVERAGE = 0.9
#: what two runs must share to be compared
IDENTITY = ("device", "scenario", "models", "duration_s")
#: metric -> +1 when higher is better, -1 when lower is better
WATCHED = {"fps": +1, "latency_p90_ms": -1}
DEFAULT_TOLERANCE_PCT = 5.0


@dataclass(frozen=True, slots=True)
class Regression:
    run: str
    baseline: str
    metric: str
    reference: float
    value: float

    @property
    def change_pct(self) -> float:
        return (self.value - self.reference) / self.reference * 100

    def line(self) -> str:
        return (f"REGRESSION {self.run} {self.baseline} {self.metric}: "
                f"{self.reference:.3g} -> {self.value:.3g} ({self.change_pct:+.1f}%)")


def read_run(path: str | Path) -> RunFolder:
    """Read a run folder (in place: nothing is written into it), or raise
    :class:`UserError` saying why it is not one."""
    folder = Path(path)
    if not folder.is_dir():
        raise UserError(f"{path} is not a folder")
    if not any((folder / f"requests.{ext}").exists() for ext in ("parquet", "arrows", "jsonl")):
        raise UserError(f"{path} is not a run folder: it has no requests table (requests.parquet, "
                        f"or the journal requests.arrows or requests.jsonl)")
    try:
        run = RunFolder(folder)
        run.data  # noqa: B018  (the tables, read now: a bad one is this one line)
    except (ValueError, OSError) as exc:
        raise UserError(f"{path}: cannot read the run: {exc}") from None
    check_tables(folder, run.data)  # a missing column, text for numbers: one line
    return run


def identity(run: RunFolder) -> dict[str, object]:
    """Device, scenario, models and measured duration, as the manifest records them."""
    return {"device": run.device, "scenario": run.scenario, "models": list(run.models),
            "duration_s": run.duration_s}


def mismatches(reference: RunFolder, run: RunFolder) -> list[str]:
    """What differs between two runs among :data:`IDENTITY`, in words."""
    a, b = identity(reference), identity(run)
    return [f"{k} {a[k]!r} vs {b[k]!r}" for k in IDENTITY if a[k] != b[k]]


def setting_differences(reference: RunFolder, run: RunFolder) -> list[str]:
    """``baselines.<name>.<key>: a vs b`` for every setting of a baseline both runs ran that
    differs between them."""
    ours, theirs = reference.config.get("baselines") or {}, run.config.get("baselines") or {}
    found = []
    for name in (b for b in reference.baselines if b in run.baselines):
        a, b = _flat(ours.get(name) or {}), _flat(theirs.get(name) or {})
        found += [f"baselines.{name}.{k}: {a.get(k)!r} vs {b.get(k)!r}"
                  for k in sorted(a.keys() | b.keys()) if a.get(k) != b.get(k)]
    return found


def _flat(node: object, prefix: str = "") -> dict[str, object]:
    if not isinstance(node, dict):
        return {prefix.rstrip("."): node}
    out: dict[str, object] = {}
    for key, value in node.items():
        out.update(_flat(value, f"{prefix}{key}."))
    return out


def per_seed(run: RunFolder) -> pd.DataFrame:
    """One row per baseline and seed: ``fps`` and ``latency_p90_ms``."""
    # a run without a finished request has no metric columns: no rows (it fails as hollow)
    return compute(run.data).scenario.reindex(columns=["baseline", "seed", *WATCHED])


#: the Δ table's columns
DELTA_HEADERS = ("baseline", "metric", "before", "after", "Δ (95% interval)")


def delta_rows(reference: RunFolder, run: RunFolder) -> list[list[str]]:
    """The Δ table of ``run`` against ``reference`` (module docstring), one row a baseline
    and metric (:data:`DELTA_HEADERS`)."""
    a, b = per_seed(reference), per_seed(run)
    rows = []
    for name in (n for n in reference.baselines if n in set(b["baseline"])):
        for metric in WATCHED:
            before = a.loc[a["baseline"] == name, metric].to_numpy(dtype=float)
            after = b.loc[b["baseline"] == name, metric].to_numpy(dtype=float)
            rows.append([name, metric, f"{before.mean():.2f}", f"{after.mean():.2f}",
                         change(before, after).text()])
    return rows


def print_delta(reference: RunFolder, run: RunFolder, console: Console) -> None:
    """The Δ table, fitted to the console."""
    title = f"Δ {run.folder} vs {reference.folder} (mean over seeds; 95% interval)"
    for part in fitting.fitted(DELTA_HEADERS, delta_rows(reference, run), console.width,
                               title, left=(0, 1, 4)):
        console.print(part)


def flags(run: RunFolder) -> list[str]:
    """Why a run's numbers are not those of a whole run: it did not complete, or a baseline
    covered less than :data:`MIN_COVERAGE` of the measured duration."""
    found = []
    pid = run.recorder_pid
    if pid is not None:
        found.append(f"FLAG {run.folder}: the run is still going (pid {pid}): its tables are "
                     "read as they stand")
    elif run.state is State.RUNNING:
        found.append(f"FLAG {run.folder}: the run never closed (killed, or its machine "
                     "stopped): its tables hold what was written")
    elif run.state not in (State.COMPLETED, State.UNKNOWN):
        error = run.error
        found.append(f"FLAG {run.folder}: the run did not complete (status {run.state}"
                     f"{': ' + error if error else ''})")
    gaps = run.manifest.get("wall_clock_gaps") or []
    if gaps:
        longest = max(float(g.get("gap_s", 0)) for g in gaps)
        found.append(f"FLAG {run.folder}: the wall clock stood still {len(gaps)} time(s) "
                     f"(longest {longest:.1f} s): timings there are not the system's own")
    for baseline, share in coverage(run).items():
        if share < MIN_COVERAGE:
            found.append(f"FLAG {run.folder}: {baseline} covered {100 * share:.0f}% of the "
                         f"measured duration")
    return found


def coverage(run: RunFolder) -> dict[str, float]:
    """Baseline -> the smallest share, over seeds, of the measured span its requests reach
    (the last arrival or end); empty when the manifest gives no duration."""
    duration, rows = run.duration_s, run.requests
    if duration is None or duration <= 0 or rows.empty:
        return {}
    last = rows[["arrival_ns", "end_ns"]].max(axis=1)
    share = (last - run.warmup_s * 1e9) / (duration * 1e9)
    per_seed = share.groupby([rows["baseline"], rows["seed"]]).max()
    return {str(b): float(v) for b, v in per_seed.groupby(level=0).min().items()}


def _worse(sign: int, reference: float, value: float, tolerance_pct: float) -> bool:
    if math.isnan(reference) or math.isnan(value) or reference == 0:
        return False
    return sign * (value - reference) / abs(reference) * 100 < -tolerance_pct


def regressions(reference: pd.DataFrame, candidate: pd.DataFrame, run: str,
                tolerance_pct: float) -> list[Regression]:
    """Watched metrics of ``candidate`` worse than ``reference`` beyond the tolerance."""
    ref = reference.set_index("baseline")
    found = []
    for row in candidate.to_dict("records"):
        if row["baseline"] not in ref.index:
            continue
        for metric, sign in WATCHED.items():
            before, after = float(ref.loc[row["baseline"], metric]), float(row[metric])
            if _worse(sign, before, after, tolerance_pct):
                found.append(Regression(run, str(row["baseline"]), metric, before, after))
    return found


def tolerance(text: str) -> float:
    """``--tolerance``: a finite percent >= 0 (a NaN would pass every comparison)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be a finite percent >= 0")
    return value


def empty(run: RunFolder) -> list[str]:
    """Baselines of ``run`` with no finished request (none at all, or none that ended): a
    candidate like that fails the comparison, whatever its metrics say."""
    rows = run.requests
    if rows.empty:
        return ["every baseline"]
    ended = rows["status"].astype(str) == "ok" if "status" in rows else rows["end_ns"].notna()
    done = rows[ended].groupby("baseline").size()
    return [str(b) for b in rows["baseline"].unique() if done.get(b, 0) == 0]


def _parser() -> argparse.ArgumentParser:
    parser = Parser(prog="python -m harness.compare", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", metavar="RUN_DIR", help="run folders; first = reference")
    parser.add_argument("--tolerance", type=tolerance, default=DEFAULT_TOLERANCE_PCT,
                        help="percent a metric may worsen before it is a regression (default 5)")
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables")
    parser.add_argument("--force", action="store_true",
                        help="compare runs that differ in device, scenario, models, duration "
                        "or baseline settings (each difference is printed)")
    return parser


def _show(run: RunFolder, table: pd.DataFrame, markdown: bool, console: Console) -> None:
    identity = report.run_identity(run.manifest)
    if markdown:
        print(f"`{run.folder}`\n\n{report.markdown(table, identity)}")
    else:
        console.print(f"[bold]{run.folder}[/bold]")
        for part in report.rich_tables(table, identity, width=console.width):
            console.print(part)


def check_comparable(runs: Sequence[RunFolder], force: bool) -> None:
    """Refuse runs that differ from the first in device, scenario, models or duration, or in
    the settings of a baseline both ran; with ``force``, warn of each difference."""
    for run in runs[1:]:
        differ = mismatches(runs[0], run) + setting_differences(runs[0], run)
        if differ and not force:
            raise UserError(f"{run.folder} is not comparable with {runs[0].folder}: "
                            f"{'; '.join(differ)} (--force compares them anyway)")
        for line in differ:
            print(f"WARNING {run.folder} differs from {runs[0].folder}: {line}")


def compare(paths: Sequence[str], tolerance_pct: float, markdown: bool = False,
            force: bool = False) -> int:
    """Print the tables and regressions; return the exit code."""
    runs = [read_run(p) for p in paths]
    check_comparable(runs, force)
    tables = [report.report_table(run.data)[0] for run in runs]
    console = fitting.terminal_console()
    for run, table in zip(runs, tables, strict=True):
        _show(run, table, markdown, console)
    found = [r for run, table in zip(runs[1:], tables[1:], strict=True)
             for r in regressions(tables[0], table, str(run.folder), tolerance_pct)]
    for run in runs[1:]:
        print_delta(runs[0], run, console)
    for line in (f for run in runs for f in flags(run)):
        print(line)
    for regression in found:
        print(regression.line())
    hollow = [f"FAILED {run.folder}: {b} finished no request"
              for run in runs[1:] for b in empty(run)]
    for line in hollow:
        print(line)
    if hollow:
        return 1
    if len(runs) > 1 and not found:
        print(f"no regressions beyond {tolerance_pct:g}% against {runs[0].folder}")
    return 1 if found else 0


def main(argv: Sequence[str] | None = None) -> int:
    forgiving_streams()
    args = _parser().parse_args(argv)
    return run_cli(lambda: compare(args.runs, args.tolerance, args.markdown, args.force))


if __name__ == "__main__":
    sys.exit(main())
