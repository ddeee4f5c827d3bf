"""Running the cells: each device and scenario composed once, cells spread over worker
processes, each cell's FPS per row kept in ``cells.csv``.

The parent composes every (device, scenario) run and loads its models before the workers
start; the workers are forked from it, so none composes or imports again, and each runs many
cells (the ADMS tuner's cache is per worker, under ``<out>/cache``, and so are the frame-rate
bounds, by the digest of their work, which every seed of a value shares). A cell runs every row
with its seed into a scratch folder, reads back the request rows only, and keeps each row's
FPS (complete frames per second of the measured span, as every report counts them,
:func:`fps_of`). ``cells.csv`` holds one line per cell and row, with the setup it ran under,
so a rerun with the same setup runs only the cells it lacks.
"""

from __future__ import annotations

import hashlib
import json
import math
import multiprocessing
import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pandas as pd
from rich.progress import Progress

from harness.config.schema import RunConf
from harness.experiment.baseline import run_baseline
from harness.experiment.bounds import BoundCache
from harness.experiment.models import Models
from harness.experiment.session import compose_run, scenario_models
from harness.reporting.frames import frames_of
from harness.reporting.outcomes import measured_requests, per_s, span_of
from harness.reporting.store import RunRecorder, read_manifest, read_table
from harness.seams.errors import RunFailure
from harness.sensitivity.cells import DEFAULT, Cell, apply
from harness.sensitivity.config import ConstantConf, SensitivityConf

CELLS_FILE = "cells.csv"
COLUMNS = ["setup", "device", "scenario", "constant", "value", "seed", "row", "fps", "error"]


@dataclass
class _World:
    """What every worker reads (set in the parent before the workers fork)."""

    runs: dict[tuple[str, str], RunConf]
    models: dict[tuple[str, str], Models]
    constants: dict[str, ConstantConf]
    rows: list[str]
    cache: Path
    setup: str
    #: frame-rate bounds by their work's digest (the seeds of a value share theirs)
    bounds: BoundCache = field(default_factory=BoundCache)


_WORLD: _World | None = None


def setup_digest(cfg: SensitivityConf, rows: Sequence[str]) -> str:
    """Names what a cell's numbers depend on besides its own key (rows, run length,
    overrides)."""
    body = {"rows": list(rows), "duration_s": cfg.duration_s, "warmup_s": cfg.warmup_s,
            "overrides": list(cfg.overrides)}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:12]


def compose_all(cfg: SensitivityConf) -> tuple[dict[tuple[str, str], RunConf],
                                               dict[tuple[str, str], Models]]:
    """Each (device, scenario) run composed, and its models loaded."""
    runs, models = {}, {}
    for device in cfg.devices:
        for scenario in cfg.scenarios:
            run, _ = compose_run([f"device={device}", f"scenario={scenario}",
                                  f"scenario.duration_s={cfg.duration_s}",
                                  f"scenario.warmup_s={cfg.warmup_s}", *cfg.overrides])
            runs[(device, scenario)] = run
            models[(device, scenario)] = scenario_models(run)
    return runs, models


def fps_of(requests: pd.DataFrame, row: str) -> float:
    """Complete frames per second of ``row``'s measured span (the reports' FPS)."""
    span = span_of(requests, row, None)
    n_models = requests.loc[requests["baseline"] == row, "model"].nunique()
    table = frames_of(measured_requests(requests, row, span), n_models)
    return per_s(int(table["complete"].sum()) if len(table) else 0, span)


def run_cell(cell: Cell) -> list[dict[str, object]]:
    """Every row of one cell (in a worker): one line per row."""
    world = _WORLD
    assert world is not None, "the sweep's world is set before the workers start"
    run = world.runs[(cell.device, cell.scenario)]
    if cell.constant != DEFAULT:
        run = apply(run, world.constants[cell.constant], cell.value)
    models = world.models[(cell.device, cell.scenario)]
    cache = world.cache / f"w{os.getpid()}"
    folder = Path(tempfile.mkdtemp(prefix="cell-", dir=world.cache))
    errors: dict[str, str] = {}
    try:
        recorder = RunRecorder(folder)
        try:
            for row in world.rows:
                try:
                    run_baseline(run, row, models, recorder, lambda _ns: None, cache,
                                 seed=cell.seed, bounds=world.bounds)
                except RunFailure as e:  # (a cell whose twin killed the app: no FPS)
                    errors[row] = str(e).splitlines()[0]
        finally:
            recorder.close()
        requests = read_table(folder, "requests", read_manifest(folder))
        return [{"setup": world.setup, **asdict(cell), "row": row,
                 "fps": math.nan if row in errors else fps_of(requests, row),
                 "error": errors.get(row, "")} for row in world.rows]
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def previous(out: Path, setup: str) -> pd.DataFrame:
    """The lines of ``cells.csv`` that ran under ``setup``, one per cell and row (none
    without the file)."""
    path = out / CELLS_FILE
    if not path.exists():
        return pd.DataFrame(columns=COLUMNS)
    done = pd.read_csv(path, keep_default_na=False, na_values={"value": [""], "fps": [""]},
                       dtype={"setup": str, "error": str})
    done = done[done["setup"] == setup]
    # (a cell an interrupted sweep ran twice counts once, its last line)
    return done.drop_duplicates(["device", "scenario", "constant", "value", "seed", "row"],
                                keep="last")


def missing(todo: list[Cell], done: pd.DataFrame, rows: Sequence[str]) -> list[Cell]:
    """The cells ``done`` lacks a line of (for some row)."""
    have = {(r.device, r.scenario, r.constant, cell_key(r.value), int(r.seed), r.row)
            for r in done.itertuples()}
    return [c for c in todo if any(
        (c.device, c.scenario, c.constant, cell_key(c.value), c.seed, row) not in have
        for row in rows)]


def cell_key(value: float) -> str:
    """A value as cells.csv matches it (NaN: the default cells)."""
    return "nan" if math.isnan(value) else f"{value:.9g}"


def run_cells(todo: list[Cell], world: _World, jobs: int, out: Path) -> Iterator[dict]:
    """Every cell of ``todo`` on ``jobs`` forked workers, lines appended to ``cells.csv`` as
    cells end (so an interrupted sweep keeps what it ran)."""
    global _WORLD
    _WORLD = world
    path = out / CELLS_FILE
    new_file = not path.exists()
    context = multiprocessing.get_context("fork")
    with context.Pool(jobs) as pool, Progress(transient=True) as progress, \
            path.open("a") as sink:
        task = progress.add_task("sensitivity cells", total=len(todo))
        for lines in pool.imap_unordered(run_cell, todo):
            frame = pd.DataFrame(lines, columns=COLUMNS)
            frame.to_csv(sink, header=new_file, index=False)
            sink.flush()
            new_file = False
            progress.advance(task)
            yield from lines


def world_of(cfg: SensitivityConf, constants: list[ConstantConf], out: Path) -> _World:
    """Compose and load everything the workers read."""
    runs, models = compose_all(cfg)
    rows = list(cfg.rows) or list(next(iter(runs.values())).run)
    cache = out / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    return _World(runs, models, {c.name: c for c in constants}, rows, cache,
                  setup_digest(cfg, rows))


@dataclass(frozen=True)
class Ran:
    """A sweep's lines (every cell of its setup in ``cells.csv``) and how many cells it ran."""

    lines: pd.DataFrame
    run: int


def sweep(cfg: SensitivityConf, constants: list[ConstantConf], todo: list[Cell],
          out: Path) -> tuple[Ran, _World]:
    """Run the cells ``cells.csv`` lacks (all of them with ``reuse: false``); every line of
    this setup's cells."""
    out.mkdir(parents=True, exist_ok=True)
    world = world_of(cfg, constants, out)
    if not cfg.reuse:
        (out / CELLS_FILE).unlink(missing_ok=True)
    left = missing(todo, previous(out, world.setup), world.rows)
    jobs = cfg.jobs or os.cpu_count() or 1
    for _ in run_cells(left, world, min(jobs, max(1, len(left))), out):
        pass
    shutil.rmtree(world.cache, ignore_errors=True)
    return Ran(previous(out, world.setup), len(left)), world
