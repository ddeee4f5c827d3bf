"""The sweep's cells: one device, scenario, constant value and seed each, and how a value is
set on a composed run.

The values of a constant run from its low to its high end (``points`` of them, spaced on its
scale); the device's own configuration is one more cell per device, scenario and seed (the
*default*, shared by every constant). :func:`apply` returns a copy of the composed run with
one constant changed, so the config is composed once per device and scenario.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass

import numpy as np

from harness.config.schema import RunConf
from harness.seams.errors import UserError
from harness.sensitivity.config import ConstantConf, Scale, SensitivityConf, Where

#: the constant name of the default cells (every constant at its configured value)
DEFAULT = "default"
#: a bandwidth share past this is cut to it (a processor cannot draw more than the peak)
MAX_SHARE = 1.0


@dataclass(frozen=True, slots=True)
class Cell:
    """One run of every row: ``constant`` set to ``value`` (DEFAULT: none changed)."""

    device: str
    scenario: str
    constant: str
    value: float
    seed: int


def values(constant: ConstantConf) -> list[float]:
    """The swept values, low to high, spaced on the constant's scale."""
    if constant.points < 2:
        return [constant.low]
    if constant.scale is Scale.log:
        grid = np.geomspace(constant.low, constant.high, constant.points)
    else:
        grid = np.linspace(constant.low, constant.high, constant.points)
    return [float(v) for v in grid]


def cells(cfg: SensitivityConf, constants: list[ConstantConf]) -> list[Cell]:
    """Every cell of the sweep: the defaults, then each constant's values, per device,
    scenario and seed."""
    out = []
    for device in cfg.devices:
        for scenario in cfg.scenarios:
            for seed in range(cfg.seeds):
                out.append(Cell(device, scenario, DEFAULT, math.nan, seed))
                out.extend(Cell(device, scenario, c.name, v, seed)
                           for c in constants for v in values(c))
    return out


def default_value(run: RunConf, constant: ConstantConf) -> float:
    """The constant's configured value on the run's twin, on the constant's own axis (1.0
    for a factor)."""
    if constant.at is Where.processors or constant.relative:
        return 1.0
    return _device_value(run, constant.name)


def _device_value(run: RunConf, name: str) -> float:
    block = getattr(run.device, "twin", None)
    value = None if block is None else getattr(block, name, None)
    if value is None:
        raise UserError(f"sensitivity: device {run.device.name!r} has no twin constant "
                        f"{name!r} set (a device that is not a twin, or a mechanism off)")
    return float(value)


def apply(run: RunConf, constant: ConstantConf, value: float) -> RunConf:
    """A copy of ``run`` with ``constant`` at ``value`` (a factor where it is one)."""
    out = copy.deepcopy(run)
    if constant.at is Where.device:
        prices = getattr(getattr(out.device, "twin", None), constant.name, None)
        if isinstance(prices, dict):  # one price per policy: every price by the factor
            if not prices:
                raise UserError(f"sensitivity: device {run.device.name!r} has no "
                                f"{constant.name!r} entries to scale")
            setattr(out.device.twin, constant.name,
                    {k: float(v) * value for k, v in prices.items()})
            return out
        base = _device_value(out, constant.name)
        setattr(out.device.twin, constant.name, base * value if constant.relative else value)
        return out
    changed = 0
    for proc in out.device.processors:
        block = getattr(proc, "twin", None)
        old = None if block is None else getattr(block, constant.name, None)
        if old is None:
            continue
        new = float(old) * value
        setattr(block, constant.name,
                min(new, MAX_SHARE) if constant.name == "bandwidth_share" else new)
        changed += 1
    if not changed:
        raise UserError(f"sensitivity: no processor of {run.device.name!r} has "
                        f"{constant.name!r} set")
    return out
