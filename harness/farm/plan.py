"""The cells of a night: device × scenario × baseline × seed, and ``plan.json``.

A cell is one ``python -m harness`` run of one baseline, one seed, one scenario, on one
device of the inventory; its overrides are the device's (``device=…``, a phone's
``device.serial=…`` and its own overrides), the cell's, then the matrix's. Cells are ordered
seed by seed, then scenario, baseline and device, so that the jobs a launcher runs at once
use different phones. Its folder is ``<night>/<device>/<scenario>/<baseline>/seed<k>``.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from harness.farm.config import FarmConf
from harness.seams.errors import UserError

PLAN = "plan.json"


@dataclass(frozen=True, slots=True)
class Cell:
    device: str
    kind: str
    #: the phone's serial (its lock); empty for a twin
    serial: str
    scenario: str
    baseline: str
    seed: int
    overrides: tuple[str, ...]

    @property
    def id(self) -> str:
        return f"{self.device}/{self.scenario}/{self.baseline}/seed{self.seed}"


@dataclass(frozen=True, slots=True)
class _Device:
    name: str
    kind: str
    serial: str
    baselines: tuple[str, ...]
    overrides: tuple[str, ...]


def _devices(conf: FarmConf) -> list[_Device]:
    inv, default = conf.inventory, tuple(conf.matrix.baselines)
    out = [_Device(p.name, "phone", p.serial, tuple(p.baselines) or default,
                   (f"device={p.device}", f"device.serial={p.serial}", *p.overrides))
           for p in inv.phones]
    out += [_Device(t.name, "twin", "", tuple(t.baselines) or default,
                    (f"device={t.device}", *t.overrides)) for t in inv.twins]
    names = [d.name for d in out]
    bad = [n for n in names if not re.fullmatch(r"[A-Za-z0-9_.-]+", n)]
    if bad:
        raise UserError(f"inventory: device name {bad[0]!r} is a folder name: letters, digits, "
                        "'_', '.' and '-' only")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UserError(f"inventory: device name {twice[0]!r} is used twice; names are folders")
    if not out:
        raise UserError("inventory: no phones and no twins: the farm has nothing to run")
    return out


def cells(conf: FarmConf) -> list[Cell]:
    """Every cell of the matrix, in launch order."""
    m, found = conf.matrix, []
    for seed in m.seeds:
        for scenario in m.scenarios:
            for device in _devices(conf):
                for baseline in device.baselines:
                    args = (*device.overrides, f"scenario={scenario}", f"run=[{baseline}]",
                            f"seed.base={seed}", "seed.count=1", *m.overrides)
                    found.append(Cell(device.name, device.kind, device.serial, scenario,
                                      baseline, seed, args))
    return found


def write_plan(night: Path, todo: list[Cell], lock_dir: str, lock_timeout_s: float) -> Path:
    night.mkdir(parents=True, exist_ok=True)
    path = night / PLAN
    body = {"night": str(night), "lock_dir": lock_dir, "lock_timeout_s": lock_timeout_s,
            "cells": [asdict(c) for c in todo]}
    path.write_text(json.dumps(body, indent=1) + "\n")
    return path


def read_plan(path: str | Path) -> tuple[dict[str, object], list[Cell]]:
    body = json.loads(Path(path).read_text())
    todo = [Cell(**{**c, "overrides": tuple(c["overrides"])}) for c in body["cells"]]
    return body, todo
