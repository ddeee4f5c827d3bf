"""A run's report, rendered from its data: ``summary.csv`` (and ``summary_seeds.csv``),
``summary.md`` (the headline, the verdicts and the tables), the Perfetto trace, the plots,
then the printed comparison.

One function for the session that just ran (into its run folder) and for ``harness report``
re-rendering a folder later (into ``<run>/report/`` or any folder): the same files from the
same readers. Everything is written before anything is printed, so a terminal that cannot
show the table never costs a file.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from harness.reporting.store import RunData


def render(data: RunData, out: Path, console: Console, plots: bool = True) -> list[Path]:
    """Write the report files of ``data`` into ``out`` and print its comparison; return the
    files written."""
    from harness.reporting import report, summaryfiles, trace
    from harness.reporting.metrics import compute, one_seed

    out.mkdir(parents=True, exist_ok=True)
    metrics = compute(data)
    written = [summaryfiles.summary_csv(data, out / "summary.csv", metrics),
               out / "summary_seeds.csv",
               summaryfiles.summary_md(data, out / "summary.md", metrics),
               trace.write_trace(one_seed(data), out / "timeline.trace.json")]
    if plots:
        from harness.reporting import plots as drawn  # matplotlib and seaborn: only to draw

        written += drawn.plot_all(data, out)
    report.print_comparison(data, console=console, metrics=metrics)
    return written
