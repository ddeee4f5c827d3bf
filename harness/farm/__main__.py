"""``python -m harness.farm``: run a night of the device farm, compare it, report it.

    python -m harness.farm                                   # conf/farm/farm.yaml, today
    python -m harness.farm inventory=lab launcher=submitit_slurm
    python -m harness.farm night=2026-12-01 'matrix.seeds=[0,1,2]'

Composes ``conf/farm/farm.yaml`` (inventory, matrix, thresholds, launcher), writes the night's
``plan.json`` under ``<results>/<night>/``, and launches the cells that have not finished
yet as a Hydra multirun of :mod:`harness.farm.cell` with the configured launcher (a night run
again appends what is missing), then collects every cell, compares with the previous night
and writes ``report.md``. Every failed cell and every regression is printed, one line each.

A night is run by one farm at a time (its ``night.lock``, :func:`~harness.farm.lock.night_held`):
a second farm on the same night is refused with one line. A cell whose folder another
process records into, or whose phone another job held past the lock's timeout, is reported
``BUSY``, not failed; a cell whose run folder cannot be read
(either night) is one ``COMPARISON FAILED`` line; the report is written regardless.

Exit codes: 0 all cells finished and nothing regressed; 1 a regression (the line names the
cell, the baseline and the metric); 2 bad input (or the night is being run by another farm);
3 cells failed or busy, or a comparison failed, nothing regressed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path

from hydra import compose as hydra_compose
from hydra import initialize_config_dir

from harness.config.compose import CONF_DIR, to_object, user_errors
from harness.config.names import plain_name
from harness.farm.cell import CELL_FILE, cell_dir
from harness.farm.config import FarmConf, register
from harness.farm.lock import night_held
from harness.farm.night import collect, compare_nights, previous_night, read_outcome, write_report
from harness.farm.plan import Cell, cells, write_plan
from harness.reporting.compare import WATCHED
from harness.seams.errors import UserError, command

FARM_CONF = CONF_DIR / "farm"
EXIT_REGRESSION, EXIT_FAILED = 1, 3
#: Hydra's launchers the cells can run under (``hydra/launcher=…``)
LAUNCHERS = ("joblib", "submitit_local", "submitit_slurm", "basic")


def compose_farm(overrides: Sequence[str]) -> FarmConf:
    register()
    with user_errors(), initialize_config_dir(str(FARM_CONF), version_base="1.3"):
        raw = hydra_compose(config_name="farm", overrides=list(overrides))
    conf: FarmConf = to_object(raw, FarmConf)
    if conf.launcher not in LAUNCHERS:
        raise UserError(f"launcher={conf.launcher!r} is not a Hydra launcher the farm knows; "
                        f"allowed: {', '.join(LAUNCHERS)}")
    plain_name("night", conf.night) if conf.night else None
    plain_name("previous", conf.previous) if conf.previous else None
    unknown = sorted(set(conf.thresholds) - set(WATCHED))
    if unknown:
        raise UserError(f"thresholds.{unknown[0]}: not a compared metric; allowed: "
                        f"{', '.join(WATCHED)}")
    return conf


def finished(night: Path, cell: Cell) -> bool:
    path = cell_dir(night, cell) / CELL_FILE
    return path.is_file() and read_outcome(path, cell.id).get("status") == "ok"


def launch(conf: FarmConf, plan: Path, indices: Sequence[int]) -> str:
    """The cells as one Hydra multirun; '' or why the launcher itself failed."""
    if not indices:
        return ""
    args = [sys.executable, "-m", "harness.farm.cell", "--multirun", f"plan={plan}",
            f"cell={','.join(map(str, indices))}", f"hydra/launcher={conf.launcher}",
            *conf.launchers.get(conf.launcher, []), f"hydra.sweep.dir={plan.parent}/.sweep"]
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    if done.returncode == 0:
        return ""
    tail = [ln for ln in done.stderr.splitlines() if ln.strip()][-1:] or ["no output"]
    return f"the {conf.launcher} launcher exited with {done.returncode}: {tail[0]}"


def run(overrides: Sequence[str]) -> int:
    conf = compose_farm(overrides)
    root = Path(conf.results).resolve()  # the jobs may start elsewhere (a SLURM node)
    name = conf.night or datetime.now(UTC).strftime("%Y-%m-%d")
    with night_held(root / name):
        return run_night(conf, root, name)


def run_night(conf: FarmConf, root: Path, name: str) -> int:
    """The night ``name``, its lock held: launch, collect, compare, report."""
    night_dir, todo = root / name, cells(conf)
    plan = write_plan(night_dir, todo, str(Path(conf.lock_dir).resolve()),
                      conf.lock_timeout_s)
    pending = [i for i, c in enumerate(todo) if not finished(night_dir, c)]
    print(f"farm night {name}: {len(todo)} cells, {len(pending)} to run with "
          f"{conf.launcher}", flush=True)
    problem = launch(conf, plan, pending)
    night = collect(night_dir, todo)
    previous = previous_night(root, name, conf.previous)
    found, metrics, broken = compare_nights(night, previous, todo, conf.thresholds)
    path = write_report(night, previous, found, metrics, conf.thresholds, conf.plots, broken)
    summary = {"night": name, "previous": previous.name if previous else None,
               "failed": night.failed, "busy": night.busy,
               "comparisons_failed": [asdict(b) for b in broken],
               "regressions": [asdict(r) for r in found], "launcher_problem": problem}
    (night_dir / "summary.json").write_text(json.dumps(summary, indent=1, default=str) + "\n")
    for o in night.failed:
        print(f"FAILED {o['cell']}: {o.get('error', '')}", file=sys.stderr)
    for o in night.busy:
        print(f"BUSY {o['cell']}: {o.get('error', '')}", file=sys.stderr)
    for line in [b.line() for b in broken] + [r.line() for r in found]:
        print(line, file=sys.stderr)
    if problem:
        print(f"launcher: {problem}", file=sys.stderr)
    print(f"report: {path}")
    unfinished = night.failed or night.busy or broken or problem
    return EXIT_REGRESSION if found else EXIT_FAILED if unfinished else 0


def main(argv: Sequence[str] | None = None) -> int:
    return int(command(__doc__, run, argv) or 0)


if __name__ == "__main__":
    sys.exit(main())
