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

from harness.reporting.metrics import Metrics
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
    written += _readings(data, metrics, out, console)
    return written


def _readings(data: RunData, metrics: Metrics, out: Path, console: Console) -> list[Path]:
    """With the readings of the paper's rule in the run (``+experiment=readings``): their
    ratios and ranges into ``readings.csv`` and ``readings_range.csv``, one line each."""
    from harness.reporting import readings
    from harness.reporting.summary import failed_seeds_of, failures_of, without_failed

    groups = data.manifest.get("groups") or {}
    members = [str(b) for b in groups.get(readings.GROUP, [])]
    if not members or metrics.scenario.empty:
        return []
    scenario = without_failed(metrics.scenario, failed_seeds_of(data.manifest))
    lines = readings.write(scenario, members, list(failures_of(data.manifest)), out,
                           str(data.manifest.get("device", "")),
                           str(data.manifest.get("scenario", "")))
    for line in lines:
        console.print(line)
    return [out / "readings.csv", out / "readings_range.csv"]
