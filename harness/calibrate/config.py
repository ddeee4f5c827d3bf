"""The schema of ``conf/calibrate.yaml`` (``python -m harness.calibrate``); what the phone
measures is :mod:`devices.adb.calibrate.config`'s."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING

from devices.adb.calibrate.config import HeatConf, ProfileConf
from harness.config.schema import ScenarioConf
from harness.seams.fields import COUNT, NONNEG, POS, spec


@dataclass
class CheckConf:
    # what runs on the calibrated twin (names of conf/baseline/*)
    baselines: list[str] = field(default_factory=lambda: ["band", "adms"])
    # the held-out check: vanilla TFLite, every model at once, on the phone and on the twin
    holdout: bool = True
    # the phone's run: measured and warm-up seconds
    duration_s: float = field(default=10.0, metadata=spec("s", POS, "the phone's measured seconds"))
    warmup_s: float = field(default=1.0, metadata=spec("s", NONNEG, "the phone's warm-up seconds"))
    # the twin's runs, simulated seconds (a twin of tiny models runs thousands of frames per
    # simulated second; a shorter span keeps it quick)
    twin_duration_s: float = field(default=10.0, metadata=spec(
        "s", POS, "the twin's measured simulated seconds"))
    twin_warmup_s: float = field(default=1.0, metadata=spec(
        "s", NONNEG, "the twin's warm-up simulated seconds"))
    # seeds of the twin's runs (the phone's vanilla run is one)
    seeds: int = field(default=3, metadata=spec("", COUNT, "seeds of the twin's runs"))


@dataclass
class CalibrateConf:
    # the phone (conf/device/adb.yaml or a probed phone's YAML)
    device: Any = MISSING
    # whose models are profiled and checked
    scenario: ScenarioConf = MISSING
    # the twin (conf/device/<prior>.yaml) whose constants stand where nothing was measured
    prior: str = "k50pro"
    # the output folder; empty: results/calibrate/<serial>_<date>
    out: str = ""
    # where the scenario's .tflite files are (as device=adb runs use)
    zoo_cache: str = ".cache/zoo"
    profile: ProfileConf = field(default_factory=ProfileConf)
    heat: HeatConf = field(default_factory=HeatConf)
    check: CheckConf = field(default_factory=CheckConf)


def register() -> None:
    ConfigStore.instance().store(name="calibrate_schema", node=CalibrateConf)
