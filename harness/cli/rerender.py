"""``harness report RUN [RUN ...] [--out DIR] [--no-plots]``: a run's report, re-rendered.

Reads each run folder (read-only: :class:`~harness.reporting.runfolder.RunFolder`; a run
still going or killed is read from its journals as they stand) and writes its
``summary.csv``, ``summary_seeds.csv``, ``timeline.trace.json`` and plots into
``RUN/report/`` (or ``--out DIR``; with several runs, ``DIR/<run folder name>/``), then
prints its tables and where it wrote. The run's own files are never touched: a report
rendered by a newer harness sits beside the one the run wrote.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console

from harness.reporting.compare import read_run
from harness.reporting.render import render
from harness.seams.errors import run_cli
from harness.seams.fitting import terminal_console

SUBFOLDER = "report"


def out_dir(run: Path, out: Path | None, many: bool) -> Path:
    """Where the report of ``run`` goes (module docstring)."""
    if out is None:
        return run / SUBFOLDER
    return out / run.name if many else out


def rerender(runs: Sequence[str], out: Path | None, plots: bool, console: Console) -> list[Path]:
    """Every run's report; the folders written."""
    folders = [read_run(r) for r in runs]  # every folder checked before any is written
    written = []
    for run in folders:
        target = out_dir(run.folder, out, len(folders) > 1)
        render(run.data, target, console, plots)
        console.print(f"report of {run.folder}: {target}", highlight=False)
        written.append(target)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="harness report", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", metavar="RUN", help="run folders")
    parser.add_argument("--out", type=Path, help="write here instead of RUN/report/")
    parser.add_argument("--no-plots", action="store_true", help="tables and trace only")
    args = parser.parse_args(argv)
    console = terminal_console()
    run_cli(lambda: rerender(args.runs, args.out, not args.no_plots, console))
    return 0
