"""One cell of the farm as a Hydra job: ``python -m harness.farm.cell -m plan=… cell=0,1,…``.

The farm's command launches this app as a Hydra multirun over the cells of its
``plan.json``, so that Hydra's launcher runs the matrix (``hydra/launcher=joblib`` on one host,
``submitit_slurm`` across farm hosts, ``submitit_local`` in the tests). Each job: holds its
phone's lock (:mod:`harness.farm.lock`; a twin needs none), runs the cell in this process
(:func:`harness.experiment.session.run`) into its folder, and writes ``cell.json`` (``ok`` or
``failed`` with the one-line error; a lost phone, a failing tool, a bad override, anything)
before it lets the phone go. It never raises: one failed cell must not end the sweep. A cell
whose folder another process records into (its claim held), or whose phone another job held
past the lock's timeout, is ``busy``, not failed.
"""

from __future__ import annotations

import contextlib
import json
import time
import traceback
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import hydra
from hydra.core.config_store import ConfigStore
from hydra.core.global_hydra import GlobalHydra
from hydra.core.singleton import Singleton
from omegaconf import MISSING, DictConfig

from harness.farm.lock import Locked, holding
from harness.farm.plan import Cell, read_plan
from harness.seams.claim import holder
from harness.seams.fields import NONNEG, spec

CELL_FILE = "cell.json"


@dataclass
class CellConf:
    # the night's plan.json
    plan: str = MISSING
    # the index of the cell in it
    cell: int = field(default=0, metadata=spec("", NONNEG, "the index of the cell in the plan"))


ConfigStore.instance().store(name="cell_schema", node=CellConf)


def cell_dir(night: str | Path, cell: Cell) -> Path:
    return Path(night) / cell.id


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def run_cell(plan: dict[str, Any], cell: Cell) -> dict[str, Any]:
    """Run one cell; its outcome (also written to its folder's ``cell.json``)."""
    from harness.experiment import session

    folder = cell_dir(str(plan["night"]), cell)
    folder.mkdir(parents=True, exist_ok=True)
    outcome: dict[str, Any] = {"cell": cell.id, **asdict(cell), "started": _now()}
    if (pid := holder(folder)) is not None:
        return _busy(folder, cell, pid)
    with contextlib.ExitStack() as stack:
        start = time.monotonic()
        try:
            if cell.serial:
                outcome["lock_wait_s"] = stack.enter_context(
                    holding(str(plan["lock_dir"]), cell.serial, float(plan["lock_timeout_s"])))
            session.run(list(cell.overrides), folder)
            outcome["status"] = "ok"
        except Locked as exc:  # its phone stayed held by another job: busy, not failed
            return _busy(folder, cell, None, str(exc))
        except Exception as exc:  # a failed cell is recorded, never raised
            if (pid := holder(folder)) is not None:  # refused: another run records there
                return _busy(folder, cell, pid)
            outcome.update(status="failed", error=_one_line(exc),
                           traceback=traceback.format_exc(limit=8))
        outcome.update(ended=_now(), wall_s=round(time.monotonic() - start, 3))
        (folder / CELL_FILE).write_text(json.dumps(outcome, indent=1, default=str) + "\n")
    return outcome


def _busy(folder: Path, cell: Cell, pid: int | None, why: str = "") -> dict[str, Any]:
    """Another process records into the cell's folder: the cell is busy, not failed; its
    ``cell.json`` is written only where none says ``ok`` (the other run's ending wins)."""
    from harness.farm.night import busy_outcome, read_outcome

    outcome = {**asdict(cell), **busy_outcome(cell.id, pid, why), "ended": _now()}
    path = folder / CELL_FILE
    if not path.is_file() or read_outcome(path, cell.id).get("status") != "ok":
        path.write_text(json.dumps(outcome, indent=1, default=str) + "\n")
    return outcome


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if type(exc).__name__ in ("UserError", "PhoneLost", "RunFailure") else \
        f"{type(exc).__name__}: {text}"


@hydra.main(config_path="../../conf/farm", config_name="cell", version_base="1.3")
def _app(cfg: DictConfig) -> None:
    plan, todo = read_plan(cfg.plan)
    cell = todo[int(cfg.cell)]
    state = Singleton.get_state()  # the cell composes conf/ itself: Hydra's state aside
    GlobalHydra.instance().clear()
    try:
        run_cell(plan, cell)
    finally:
        Singleton.set_state(state)


if __name__ == "__main__":
    _app()
