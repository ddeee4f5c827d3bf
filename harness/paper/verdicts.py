"""The verdicts the paper report opens with: Figure 8's runs, ADMS over TFLite and Band.

Each Figure 8 run (one device and scenario, every seed) is judged as a run's terminal output
judges it (:mod:`harness.reporting.verdict`): against each TFLite row, and against the
strongest of its Band rows (``band_best``: the paper's configuration and Band's other
schedulers), so a report of seven Band schedulers opens with a handful of boxes, not
sixteen; the Figure 8 section's table holds each Band row.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.reporting import report, verdict
from harness.reporting.metrics import compute
from harness.reporting.readings import adms_line
from harness.reporting.store import load_run, read_manifest
from harness.reporting.verdict import Verdict


def run_verdicts(folder: Path) -> tuple[list[Verdict], report.RunIdentity]:
    """The verdicts one run folder opens with, and who produced it."""
    run = load_run(folder)
    identity = report.run_identity(run.manifest, run.folder)
    _, boxes = verdict.of_run(run, compute(run), identity.device, identity.paper_scenario)
    return boxes, identity


def adms_reading(runs: Sequence[tuple[str, Path]]) -> str:
    """Which reading of the paper's rule the ``adms`` row of the first run that has one is
    ("adms reads the paper's rule as: ..."; "" without)."""
    for _, folder in runs:
        if (folder / "manifest.json").exists():
            line = adms_line(read_manifest(folder))
            if line:
                return line
    return ""


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
