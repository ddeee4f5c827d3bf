"""The schema of ``conf/paper.yaml``: which runs the paper's artifacts need, per mode.

A *mode* is a block of sizes (seeds, seconds, sweep points): ``full`` follows the paper's
setup (its durations, every sweep point, five seeds where a run is short enough), ``fast``
keeps every artifact but shrinks every size so the whole report builds in about a minute
(tests). ``mode=`` picks one of ``modes``; any size can be overridden on the command line
(``modes.full.seeds=3``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING

from harness.seams.fields import COUNT, NONNEG, POS, at_least, spec


@dataclass
class ModeConf:
    # seeds per run (a figure is a mean with its 95% interval over seeds)
    seeds: int = field(default=MISSING, metadata=spec("", COUNT, "seeds per run"))
    # seeds of the long runs (thermal stress, 30-minute failure test)
    long_seeds: int = field(default=MISSING, metadata=spec(
        "", COUNT, "seeds of the long runs"))
    # measured seconds and warm-up seconds of an ordinary run
    duration_s: float = field(default=MISSING, metadata=spec(
        "s", POS, "measured seconds of an ordinary run"))
    warmup_s: float = field(default=MISSING, metadata=spec(
        "s", NONNEG, "warm-up seconds of an ordinary run"))
    # Table II: concurrent copies of MobileNetV1 per processor, and the devices beside `device`
    table2_copies: list[int] = field(
        default_factory=list, metadata=spec(
            "", at_least(1), "Table II: concurrent copies per processor"))
    table2_also: list[str] = field(default_factory=list)
    # Tables III and V: the models run alone (Band and ADMS)
    single_models: list[str] = field(default_factory=list)
    # Figure 6: ADMS window sizes forced on DeepLabV3 (beside the tuner's own pick)
    fig6_windows: list[int] = field(
        default_factory=list, metadata=spec(
            "ops", at_least(1), "Figure 6: window sizes forced on DeepLabV3"))
    # Figure 8: scenarios, and the devices beside `device`
    fig8_scenarios: list[str] = field(default_factory=list)
    fig8_also: list[str] = field(default_factory=list)
    # Figure 9: SLO multipliers
    fig9_multipliers: list[float] = field(default_factory=list,
                                          metadata=spec("x", NONNEG, "Figure 9: SLO multipliers"))
    # Figure 10: measured seconds (two ArcFace-ResNet50 take ~0.3 s a pair on the P20 twin)
    fig10_duration_s: float = field(default=MISSING, metadata=spec(
        "s", POS, "Figure 10: measured seconds"))
    # Table VI / Figure 11: measured seconds of the power trace (the paper: 60)
    power_duration_s: float = field(default=MISSING, metadata=spec(
        "s", POS, "Table VI / Figure 11: measured seconds of the power trace"))
    # Figure 12 / Table VII: thermal stress seconds at 35 C (the paper's figure: 600; its
    # ADMS throttles at 13.9 min, so the table needs longer), the failure test's seconds
    thermal_duration_s: float = field(default=MISSING, metadata=spec(
        "s", POS, "Figure 12 / Table VII: thermal stress seconds"))
    failure_duration_s: float = field(default=MISSING, metadata=spec(
        "s", POS, "Table VII: the failure test's seconds"))
    # Table VII: how many distinct models run at once (the first N of concurrency_models)
    concurrency_counts: list[int] = field(
        default_factory=list, metadata=spec(
            "", at_least(1), "Table VII: distinct models run at once"))
    # the ablations: scenario and baselines (ADMS first)
    ablation_scenario: str = "frs"
    ablations: list[str] = field(default_factory=list)
    # the sweep of every estimated twin constant: overrides of conf/sensitivity.yaml (empty:
    # the whole sweep); the artifact also runs the default configuration it departs from
    sensitivity: list[str] = field(default_factory=list)


@dataclass
class PaperConf:
    # the device every artifact runs on: its config (conf/device/*.yaml: a twin, `host` or
    # `adb`), chosen as a config group (`device=p20`); runs name it by `device_name`
    device: Any = MISSING
    # fast | full (a key of `modes`)
    mode: str = "full"
    # where runs and the report go; empty: results/paper/<device>/<mode>
    out_dir: str = ""
    # reuse a run whose folder is complete (manifest completed, same overrides)
    reuse: bool = True
    # artifacts to build (names in harness.paper.plan.ARTIFACTS); empty: all
    only: list[str] = field(default_factory=list)
    # Figure 10's device (the paper: Huawei P20)
    fig10_device: str = "p20"
    # Table VII's high-concurrency test: distinct zoo models, taken in this order
    concurrency_models: list[str] = field(default_factory=list)
    # seconds a notebook may take before it is stopped
    notebook_timeout_s: int = field(default=1800, metadata=spec(
        "s", POS, "a notebook is stopped after this long"))
    modes: dict[str, ModeConf] = field(default_factory=dict)

    @property
    def device_name(self) -> str:
        """The device's config name (what ``device=`` selected)."""
        device = self.device
        return str(device.get("name") if isinstance(device, dict) else device.name)


def register() -> None:
    ConfigStore.instance().store(name="paper_schema", node=PaperConf)
