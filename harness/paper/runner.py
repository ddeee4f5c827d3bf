"""Run what the artifacts need, once each, and say where every run folder is.

Every :class:`~harness.paper.plan.RunSpec` runs in this process through the same
composition as ``python -m harness`` (:func:`harness.experiment.session.run`), into
``<out>/runs/<label>-<hash>/``, the hash that of the composed config. A folder is *complete*
when its manifest (read by :class:`~harness.reporting.runfolder.RunFolder`) says
``completed`` and records a config of the same digest: with ``reuse`` it is skipped.
``paper_spec.json`` beside it says which label and overrides asked for it. Each run's own
printout (stdout and stderr: its tables, a seed's failure) goes to ``session.log`` in its
folder; a terminal shows one progress bar over all runs, and a log file or pipe (no
terminal, so no bar) one line as the runs start and one as each ends. ``index.json``
maps every artifact to its runs (label -> folder, relative to
``<out>``): the notebooks read only that and the folders.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from harness.paper.plan import RunSpec
from harness.reporting.runfolder import RunFolder, State
from harness.seams.errors import UserError

SPEC_FILE = "paper_spec.json"
INDEX_FILE = "index.json"


@dataclass(frozen=True, slots=True)
class Outcome:
    spec: RunSpec
    folder: Path
    #: ran, reused (complete already) or failed (why in ``error``)
    status: str
    seconds: float
    error: str = ""


def is_complete(folder: Path, spec: RunSpec) -> bool:
    """The folder holds a completed run of the config ``spec`` composes."""
    try:
        run = RunFolder(folder)
    except UserError:  # no folder, or an unreadable manifest
        return False
    return run.state == State.COMPLETED and run.config_digest == spec.digest


def run_one(spec: RunSpec, folder: Path, reuse: bool) -> Outcome:
    """Run ``spec`` into ``folder`` (or reuse it); a failed run is an outcome, not a raise."""
    from harness.experiment import session

    start = time.monotonic()
    if reuse and is_complete(folder, spec):
        return Outcome(spec, folder, "reused", 0.0)
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    try:
        with open(folder / "session.log", "w") as log, contextlib.redirect_stdout(log), \
                contextlib.redirect_stderr(log):
            session.run(list(spec.overrides), folder, report=False)
    except Exception as exc:  # one run's failure must not lose the others
        return Outcome(spec, folder, "failed", time.monotonic() - start,
                       f"{type(exc).__name__}: {exc}".splitlines()[0])
    (folder / SPEC_FILE).write_text(json.dumps({"label": spec.label, "digest": spec.digest,
                                                "overrides": list(spec.overrides)}, indent=1))
    return Outcome(spec, folder, "ran", time.monotonic() - start)


def unique(specs: Iterable[RunSpec]) -> list[RunSpec]:
    """One spec per distinct composed config (artifacts that share a run share the first
    one's folder)."""
    seen: dict[str, RunSpec] = {}
    for spec in specs:
        seen.setdefault(spec.digest, spec)
    return list(seen.values())


def run_all(specs: list[RunSpec], out: Path, reuse: bool = True,
            console: Console | None = None) -> dict[str, Outcome]:
    """Every distinct run of ``specs`` under ``out/runs``, with a progress bar (on stderr);
    digest -> outcome."""
    console = console or Console(stderr=True)
    todo = unique(specs)
    outcomes: dict[str, Outcome] = {}
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())
    plain = not console.is_terminal  # (no bar is drawn: a line per run instead)
    if plain:
        console.print(f"{len(todo)} runs into {out / 'runs'} (each run's printout: "
                      f"session.log in its folder)")
    with Progress(*columns, console=console, redirect_stdout=False) as progress:
        task = progress.add_task("runs", total=len(todo))
        for n, spec in enumerate(todo, 1):
            progress.update(task, description=f"run {spec.label:<32}")
            outcome = run_one(spec, out / "runs" / spec.folder_name, reuse)
            outcomes[spec.digest] = outcome
            if outcome.status == "failed":
                console.print(f"[red]{spec.label} failed[/red]: {outcome.error}")
            elif plain:
                console.print(f"run {n}/{len(todo)} {spec.label}: {outcome.status} "
                              f"({outcome.seconds:.0f} s)", highlight=False)
            progress.advance(task)
    return outcomes


def write_index(specs: list[RunSpec], outcomes: dict[str, Outcome], out: Path) -> Path:
    """``index.json``: artifact -> [{label, folder, status, overrides}]."""
    index: dict[str, list[dict[str, object]]] = {}
    for spec in specs:
        outcome = outcomes[spec.digest]
        index.setdefault(spec.artifact, []).append({
            "label": spec.label, "folder": f"runs/{outcome.folder.name}",
            "status": outcome.status, "error": outcome.error,
            "overrides": list(spec.overrides)})
    path = out / INDEX_FILE
    path.write_text(json.dumps(index, indent=1))
    return path

