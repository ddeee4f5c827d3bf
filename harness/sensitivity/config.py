"""The schema of ``conf/sensitivity.yaml``: which constants are swept, over what, and how.

A :class:`ConstantConf` names one twin constant and its plausible range. ``at: device``
sets the device block's field (``twin.<name>``) to each value; ``at: processors`` multiplies
every processor's own value of the field (where it has one) by each value, a factor, so one
swept number stands for the per-processor estimates together. ``relative: true`` makes a
device constant's values factors of the device's own value too (a memory budget differs per
phone). A device field holding one value per policy (``scheduler_ns_per_work``) is swept as
one factor on all its values. The schema checks the names before anything runs
(:func:`check`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import Enum

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING

from devices.twin.config import TwinDeviceBlock, TwinProcessorBlock
from harness.seams.errors import UserError
from harness.seams.fields import COUNT, NONNEG, POS, spec


class Where(Enum):
    """Which block of a twin the constant lives in."""

    device = "device"
    processors = "processors"


class Scale(Enum):
    """How values between the ends are spaced (and crossings interpolated)."""

    linear = "linear"
    log = "log"


@dataclass
class ConstantConf:
    # the field of the twin block (devices/twin/config.py), e.g. transfer_fixed_us
    name: str = MISSING
    # device: the device block's field; processors: every processor's field, scaled
    at: Where = Where.device
    # the range's ends: values of the field, or factors of its value (processors, relative)
    low: float = field(default=MISSING, metadata=spec("", NONNEG, "the range's low end"))
    high: float = field(default=MISSING, metadata=spec("", NONNEG, "the range's high end"))
    # values are factors of the device's own value (always so with at: processors)
    relative: bool = False
    # spacing of the swept values and of the interpolation between them
    scale: Scale = Scale.log
    # swept values from low to high, both ends included (the default is swept too)
    points: int = field(default=2, metadata=spec("", COUNT, "values swept from low to high"))
    # the field's unit as the figure and the table print it ("x" for factors)
    unit: str = ""
    # why this range: the sources and reasoning its ends stand on
    why: str = ""


@dataclass
class SensitivityConf:
    # twins swept (conf/device/<name>.yaml)
    devices: list[str] = field(default_factory=lambda: ["k50pro", "p20"])
    # scenarios swept (conf/scenario/<name>.yaml)
    scenarios: list[str] = field(default_factory=lambda: ["frs", "ros"])
    # the rows run in every cell, by baseline name (empty: the run's default rows)
    rows: list[str] = field(default_factory=list)
    # ratios reported: [numerator, denominator] row names
    ratios: list[list[str]] = field(default_factory=list)
    # seeds per cell (seed.base 0, 1, ...): each ratio pairs its rows' seeds
    seeds: int = field(default=5, metadata=spec("", COUNT, "seeds per cell"))
    # measured seconds and warm-up seconds of each run
    duration_s: float = field(default=5.0, metadata=spec("s", POS, "measured seconds"))
    warmup_s: float = field(default=1.0, metadata=spec("s", NONNEG, "warm-up seconds"))
    # worker processes (0: one per core)
    jobs: int = field(default=0, metadata=spec("", NONNEG, "worker processes"))
    # constants swept (names in `constants`); empty: all
    only: list[str] = field(default_factory=list)
    # optional YAML or JSON of measured values: {constant: {value: ..., source: ...}}
    anchors: str = ""
    # where the cells, figure and table go; empty: results/sensitivity
    out_dir: str = ""
    # reuse the cells an earlier sweep into out_dir ran with the same setup
    reuse: bool = True
    # extra `python -m harness` overrides applied to every run (e.g. scenario.slo_multiplier)
    overrides: list[str] = field(default_factory=list)
    constants: list[ConstantConf] = field(default_factory=list)


def register() -> None:
    ConfigStore.instance().store(name="sensitivity_schema", node=SensitivityConf)


def selected(cfg: SensitivityConf) -> list[ConstantConf]:
    """The constants to sweep (``only``), each checked (:func:`check`)."""
    names = [c.name for c in cfg.constants]
    unknown = [n for n in cfg.only if n not in names]
    if unknown:
        raise UserError(f"only: {', '.join(unknown)} is not a swept constant; allowed: "
                        f"{', '.join(names)}")
    chosen = [c for c in cfg.constants if not cfg.only or c.name in cfg.only]
    for constant in chosen:
        check(constant)
    return chosen


#: device fields holding one value per baseline or policy (swept as one factor on all)
_BY_POLICY = frozenset(f.name for f in dataclasses.fields(TwinDeviceBlock)
                       if str(f.type) == "dict[str, float]")


def check(constant: ConstantConf) -> None:
    """The constant names a numeric field of its block, and its range is usable."""
    block = TwinDeviceBlock if constant.at is Where.device else TwinProcessorBlock
    fields = {f.name for f in dataclasses.fields(block)}
    if constant.name not in fields:
        raise UserError(f"sensitivity: {constant.name!r} is not a field of the twin's "
                        f"{constant.at.value} block; allowed: {', '.join(sorted(fields))}")
    if constant.name in _BY_POLICY and not constant.relative:
        raise UserError(f"sensitivity: {constant.name} holds one value per policy; sweep it "
                        f"as a factor (relative: true)")
    if not constant.low < constant.high:
        raise UserError(f"sensitivity: {constant.name}: low {constant.low} must be below "
                        f"high {constant.high}")
    if constant.scale is Scale.log and constant.low <= 0:
        raise UserError(f"sensitivity: {constant.name}: a log scale needs low > 0, "
                        f"got {constant.low}")
