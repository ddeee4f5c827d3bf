"""``harness report RUN [RUN ...] [--out DIR] [--no-plots]``: a run's report, re-rendered.

Reads each run folder (read-only: :class:`~harness.reporting.runfolder.RunFolder`; a run
still going or killed is read from its journals as they stand) and writes its
``summary.csv``, ``summary_seeds.csv``, ``timeline.trace.json`` and plots into
``RUN/report/`` (or ``--out DIR``; with several runs, ``DIR/<run folder name>/``), then
prints its tables, every ``FLAG`` line ``harness compare`` gives the run (it did not
complete, was killed, a baseline covered too little of its window, the wall clock stood
still, a baseline finished nothing: :func:`~harness.reporting.compare.flags`), and where it
wrote. The run's own files are never touched: a report rendered by a newer harness sits
beside the one the run wrote.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console

from harness.reporting.compare import empty, flags, read_run
from harness.reporting.render import render
from harness.reporting.runfolder import RunFolder
from harness.seams.errors import PATH_ERRNOS, UserError, run_cli
from harness.seams.fitting import terminal_console

SUBFOLDER = "report"


def out_dir(run: Path, out: Path | None, many: bool) -> Path:
    """Where the report of ``run`` goes (module docstring)."""
    if out is None:
        return run / SUBFOLDER
    return out / run.name if many else out


def all_flags(run: RunFolder) -> list[str]:
    """What ``harness compare`` flags in ``run``: its numbers are not those of a whole run."""
    return flags(run) + [f"FLAG {run.folder}: {b} finished no request" for b in empty(run)]


def rerender(runs: Sequence[str], out: Path | None, plots: bool, console: Console) -> list[Path]:
    """Every run's report; the folders written."""
    folders = [read_run(r) for r in runs]  # every folder checked before any is written
    written = []
    for run in folders:
        target = out_dir(run.folder, out, len(folders) > 1)
        try:
            render(run.data, target, console, plots)
        except OSError as exc:  # a read-only results tree: say where else it can go
            if out is not None or exc.errno not in PATH_ERRNOS:
                raise
            raise UserError(f"cannot write the report into {target}: "
                            f"{(exc.strerror or '').lower()}; --out DIR writes it elsewhere "
                            "(the run folder itself is only read)") from None
        for line in all_flags(run):
            console.print(line, highlight=False, markup=False, soft_wrap=True)
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
