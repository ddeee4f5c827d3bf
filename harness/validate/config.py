"""The schema of ``conf/validate.yaml`` (``python -m harness.validate``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING

from harness.config.schema import ScenarioConf
from harness.seams.fields import COUNT, NONNEG, POS, spec


@dataclass
class ValidateConf:
    # the machine (conf/device/host.yaml or host_equal.yaml)
    device: Any = MISSING
    # the scenario run on the host and on its twin, and whose models are calibrated
    scenario: ScenarioConf = MISSING
    # the rows compared (names of conf/baseline/*); empty: the run's default rows
    run: list[str] = field(default_factory=list)
    # seeds of each side (the host's and the twin's runs)
    seeds: int = field(default=3, metadata=spec("", COUNT, "seeds of each side"))
    # measured and warm-up seconds of every run (the twin's in simulated time)
    duration_s: float = field(default=10.0, metadata=spec("s", POS, "measured seconds"))
    warmup_s: float = field(default=1.0, metadata=spec("s", NONNEG, "warm-up seconds"))
    # each model alone for the per-subgraph overhead, measured seconds
    single_s: float = field(default=2.0, metadata=spec(
        "s", POS, "measured seconds of each single-model run"))
    # the goal: the twin's error on every row within plus or minus this, %
    bound_pct: float = field(default=10.0, metadata=spec("%", POS, "the error bound"))
    # output folder; empty: results/validate/<device>_<scenario>
    out: str = ""
    # where the scenario's .tflite files and the host's profile cache are
    zoo_cache: str = ".cache/zoo"
    # the twin's overrides (e.g. device.twin.mechanisms.boundary_copy=false), for ablations
    twin_overrides: list[str] = field(default_factory=list)


def register() -> None:
    ConfigStore.instance().store(name="validate_schema", node=ValidateConf)
