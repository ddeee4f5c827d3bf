"""The verdicts the paper report opens with: Figure 8's runs, ADMS over TFLite and Band.

Each Figure 8 run (one device and scenario, every seed) is judged as a run's terminal output
judges it (:mod:`harness.reporting.verdict`), keeping the Band rows the paper's comparison
names: ``band`` (the paper's configuration) and the strongest Band of the run's ``band_best``
group, so a report of seven Band schedulers opens with a handful of boxes, not sixteen.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.reporting import report
from harness.reporting.metrics import compute
from harness.reporting.store import load_run
from harness.reporting.verdict import Verdict, family


def run_verdicts(folder: Path) -> tuple[list[Verdict], report.RunIdentity]:
    """The kept verdicts of one run folder, and who produced it."""
    run = load_run(folder)
    metrics = compute(run)
    table, identity = report.report_table(run, metrics)
    best = {str(b) for b in table.get("best_of", []) if isinstance(b, str)}
    kept = [v for v in report.run_verdicts(run, metrics, identity)
            if family(v.other) == "tflite" or v.other == "band" or v.other in best]
    return kept, identity


def paper_verdicts(runs: Sequence[tuple[str, Path]]) -> list[tuple[str, list[Verdict],
                                                                  report.RunIdentity]]:
    """(label, verdicts, identity) of every run (label, folder) with a manifest."""
    out = []
    for label, folder in runs:
        if (folder / "manifest.json").exists():
            found, identity = run_verdicts(folder)
            out.append((label, found, identity))
    return out


def fig8_runs(index: Mapping[str, Any], out: Path) -> list[tuple[str, Path]]:
    """Figure 8's (label, folder) pairs from ``index.json``'s content."""
    entries = index.get("fig8", [])
    return [(str(e["label"]), out / str(e["folder"])) for e in entries
            if isinstance(e, Mapping)]
