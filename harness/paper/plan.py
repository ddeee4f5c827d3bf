"""Which runs each of the paper's artifacts needs: a list of :class:`RunSpec` per artifact.

A spec is a set of ``python -m harness`` overrides; its folder is named by a short hash of
the config they compose (:func:`composed_digest`), so two artifacts that need the same run
(Tables III and V read the same single-model runs) share one folder and it runs once, even
when their override lists differ in order or spell out a default. What each artifact runs:

=========== ===================================================================================
table2      MobileNetV1 alone, 1/2/4 closed-loop copies, vanilla TFLite pinned to each
            accelerator (one baseline per accelerator), on ``device`` and ``table2_also``
table3/5    each of ``single_models`` alone under Band and ADMS (counts from the manifest)
fig6        DeepLabV3 alone under ADMS with each forced window size, and ADMS tuned
fig8        TFLite, Band (``band_best``: the paper's configuration and Band at its strongest),
            ADMS on each scenario, on ``device`` and ``fig8_also``
fig9        the SLO mix (``+experiment=slo_sweep``) at each multiplier, TFLite and ADMS
fig10       two ArcFace-ResNet50 streams on ``fig10_device``, TFLite and ADMS
table6      FRS for ``power_duration_s`` (power, FPS, frames per joule; Figure 11)
fig12       FRS at 35 C (``+experiment=thermal_stress``), the failure test, and the
            concurrency sweep (``+experiment=concurrency``): Figure 12 and Table VII
ablations   ADMS and its ablations on ``ablation_scenario``
sensitivity FRS in the default configuration; its notebook sweeps every estimated twin
            constant (``python -m harness.sensitivity`` with ``sensitivity``)
=========== ===================================================================================
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass

from omegaconf import OmegaConf

from harness.paper.config import ModeConf, PaperConf
from harness.reporting.runfolder import config_digest
from harness.seams.errors import UserError


@dataclass(frozen=True, slots=True)
class RunSpec:
    """One ``python -m harness`` run an artifact reads."""

    artifact: str
    #: what the notebook calls it, e.g. ``k50pro/copies=2``
    label: str
    overrides: tuple[str, ...]

    @property
    def digest(self) -> str:
        """Names the run: one composed config, one run (:func:`composed_digest`)."""
        return composed_digest(self.overrides)

    @property
    def folder_name(self) -> str:
        return f"{re.sub(r'[^A-Za-z0-9=._-]+', '_', self.label)}-{self.digest}"


@functools.cache
def composed_digest(overrides: tuple[str, ...]) -> str:
    """The digest of the config ``overrides`` compose to, resolved, as the run's manifest
    records it (:func:`~harness.reporting.runfolder.config_digest`: Hydra's run-dir node is
    not part of it). Overrides that do not compose are named by their own hash (``o`` first):
    their run fails with the composition's error."""
    from harness.config.compose import compose
    from harness.experiment.components import register

    register()
    try:
        raw = compose("config", overrides)
    except UserError:
        return "o" + hashlib.sha1("\n".join(overrides).encode()).hexdigest()[:9]
    container = OmegaConf.to_container(raw, resolve=True)
    assert isinstance(container, dict)
    return config_digest({str(k): v for k, v in container.items()})


def _common(cfg: PaperConf, mode: ModeConf, device: str, seeds: int | None = None,
            duration_s: float | None = None) -> list[str]:
    return [f"device={device}", f"seed.count={seeds or mode.seeds}",
            f"scenario.duration_s={mode.duration_s if duration_s is None else duration_s}",
            f"scenario.warmup_s={mode.warmup_s}", "plots=false"]


def _list(values: list[str] | tuple[str, ...]) -> str:
    return "[" + ",".join(values) + "]"


def _unique(first: str, rest: list[str]) -> list[str]:
    return list(dict.fromkeys([first, *rest]))


def accelerators(device: str) -> list[str]:
    """The device's non-CPU processors, from its config."""
    from harness.experiment.session import compose_run

    cfg = compose_run([f"device={device}"])[0]
    return [p.name for p in cfg.device.processors if str(p.kind.name) != "CPU"]


def pinned_tflite(processor: str) -> list[str]:
    """Overrides adding a baseline ``tflite_on_<processor>``: TFLite with every model there."""
    name = f"tflite_on_{processor}"
    return [f"+baseline@baselines.{name}=tflite", f"baselines.{name}.placement=fixed",
            f"baselines.{name}.default_processor={processor}"]


def table2(cfg: PaperConf, mode: ModeConf) -> list[RunSpec]:
    specs = []
    for device in _unique(cfg.device_name, mode.table2_also):
        procs = accelerators(device)
        extra = [o for p in procs for o in pinned_tflite(p)]
        for n in mode.table2_copies:
            specs.append(RunSpec("table2", f"{device}/copies={n}", (
                *_common(cfg, mode, device), "scenario=single", "scenario.models=[mobilenet_v1]",
                f"scenario.streams_per_model={n}", *extra,
                f"run={_list([f'tflite_on_{p}' for p in procs])}")))
    return specs


def single(cfg: PaperConf, mode: ModeConf) -> list[RunSpec]:
    return [RunSpec("single", f"{cfg.device_name}/{m}", (
        *_common(cfg, mode, cfg.device_name), "scenario=single", f"scenario.models=[{m}]",
        "run=[band,adms]")) for m in mode.single_models]


def forced_window(window: int) -> list[str]:
    """Overrides adding a baseline ``adms_ws<window>``: ADMS with that window everywhere."""
    name = f"adms_ws{window}"
    return [f"+baseline@baselines.{name}=adms", f"baselines.{name}.window_size={window}"]


def fig6(cfg: PaperConf, mode: ModeConf) -> list[RunSpec]:
    extra = [o for w in mode.fig6_windows for o in forced_window(w)]
    names = [f"adms_ws{w}" for w in mode.fig6_windows]
    return [RunSpec("fig6", f"{cfg.device_name}/deeplabv3", (
        *_common(cfg, mode, cfg.device_name), "scenario=single", "scenario.models=[deeplabv3]",
        *extra, f"run={_list(['adms', *names])}"))]


#: the three systems the paper compares, Band in the paper's configuration, and ADMS as the
#: project built it (`adms_ef`) beside the paper's rule (`adms`)
PAPER_SYSTEMS = ("tflite", "band", "adms", "adms_ef")
#: Figure 8 also runs TFLite as apps ship it (``tflite_gpu``) and Band at its strongest:
#: ``band_best`` is ``band`` and its five other schedulers and ``band7`` (conf/config.yaml),
#: the best of those that complete every seed
FIG8_SYSTEMS = ("tflite", "tflite_gpu", "band_best", "adms", "adms_ef")


def scenario_run(cfg: PaperConf, mode: ModeConf, artifact: str, device: str, scenario: str,
                 duration_s: float | None = None, seeds: int | None = None,
                 systems: tuple[str, ...] = PAPER_SYSTEMS) -> RunSpec:
    return RunSpec(artifact, f"{device}/{scenario}", (
        *_common(cfg, mode, device, seeds, duration_s), f"scenario={scenario}",
        f"run={_list(systems)}"))


def fig8(cfg: PaperConf, mode: ModeConf) -> list[RunSpec]:
    return [scenario_run(cfg, mode, "fig8", d, sc, systems=FIG8_SYSTEMS)
            for d in _unique(cfg.device_name, mode.fig8_also) for sc in mode.fig8_scenarios]


def fig9(cfg: PaperConf, mode: ModeConf) -> list[RunSpec]:
    return [RunSpec("fig9", f"{cfg.device_name}/slo={m:g}", (
        "+experiment=slo_sweep", *_common(cfg, mode, cfg.device_name),
        # one frame at a time, as the slo_sweep experiment says (stated here too, so a run
        # folder of the earlier two-frames-in-flight setting is not reused)
        "scenario.frames_in_flight=1",
        f"scenario.slo_multiplier={m}", "run=[tflite,adms]")) for m in mode.fig9_multipliers]


def fig10(cfg: PaperConf, mode: ModeConf) -> list[RunSpec]:
    device = cfg.fig10_device
    return [RunSpec("fig10", f"{device}/2x_arcface_resnet50", (
        *_common(cfg, mode, device, duration_s=mode.fig10_duration_s), "scenario=single",
        "scenario.models=[arcface_resnet50]",
        "scenario.streams_per_model=2", "run=[tflite,adms]"))]


def table6(cfg: PaperConf, mode: ModeConf) -> list[RunSpec]:
    return [scenario_run(cfg, mode, "table6", cfg.device_name, "frs", mode.power_duration_s)]


def fig12(cfg: PaperConf, mode: ModeConf) -> list[RunSpec]:
    thermal = RunSpec("fig12", f"{cfg.device_name}/thermal_35C", (
        "+experiment=thermal_stress",
        *_common(cfg, mode, cfg.device_name, mode.long_seeds, mode.thermal_duration_s),
        "run=[tflite,band,adms]"))
    failure = scenario_run(cfg, mode, "fig12", cfg.device_name, "frs", mode.failure_duration_s,
                           mode.long_seeds)
    failure = RunSpec("fig12", f"{cfg.device_name}/failure", failure.overrides)
    return [thermal, failure, *concurrency(cfg, mode)]


def concurrency(cfg: PaperConf, mode: ModeConf) -> list[RunSpec]:
    specs = []
    for n in mode.concurrency_counts:
        if n > len(cfg.concurrency_models):
            raise UserError(f"concurrency_counts: {n} models asked for, concurrency_models "
                            f"lists {len(cfg.concurrency_models)}")
        models = cfg.concurrency_models[:n]
        specs.append(RunSpec("fig12", f"{cfg.device_name}/concurrent={n}", (
            "+experiment=concurrency", *_common(cfg, mode, cfg.device_name),
            f"scenario.models={_list(models)}", "run=[tflite,band,adms]")))
    return specs


def ablations(cfg: PaperConf, mode: ModeConf) -> list[RunSpec]:
    """ADMS's ablations on ``ablation_scenario``, and the paper's own ablation (ADMS without
    subgraph partitioning, on ROS) beside ADMS and Band at its strongest."""
    return [RunSpec("ablations", f"{cfg.device_name}/{mode.ablation_scenario}", (
        *_common(cfg, mode, cfg.device_name), f"scenario={mode.ablation_scenario}",
        f"run={_list(['band', *mode.ablations])}")),
        RunSpec("ablations", f"{cfg.device_name}/ros_no_partition", (
            *_common(cfg, mode, cfg.device_name), "scenario=ros",
            "run=[band_best,adms,adms_no_partition]"))]


#: artifact -> its notebook (notebooks/<name>.py) and the runs it reads
def sensitivity(cfg: PaperConf, mode: ModeConf) -> list[RunSpec]:
    """The default configuration the sweep departs from (its notebook runs the sweep,
    ``python -m harness.sensitivity`` with ``mode.sensitivity``, into ``<out>/sensitivity``)."""
    return [scenario_run(cfg, mode, "sensitivity", cfg.device_name, "frs",
                         systems=("tflite", "tflite_gpu", "band", "adms", "adms_ef"))]


ARTIFACTS: dict[str, tuple[str, Callable[[PaperConf, ModeConf], list[RunSpec]]]] = {
    "table2": ("table2_concurrency", table2),
    "table3": ("table3_subgraphs", single),
    "table5": ("table5_single_model", single),
    "fig6": ("fig6_window_size", fig6),
    "fig8": ("fig8_fps", fig8),
    "fig9": ("fig9_slo", fig9),
    "fig10": ("fig10_timeline", fig10),
    "table6": ("table6_fig11_power", table6),
    "fig12": ("fig12_table7_stress", fig12),
    "ablations": ("ablations", ablations),
    "sensitivity": ("sensitivity", sensitivity),
}


def mode_of(cfg: PaperConf) -> ModeConf:
    if cfg.mode not in cfg.modes:
        raise UserError(f"mode={cfg.mode!r} is not a mode; allowed: {', '.join(cfg.modes)}")
    return cfg.modes[cfg.mode]


def selected(cfg: PaperConf) -> list[str]:
    """The artifacts to build, in report order."""
    unknown = [a for a in cfg.only if a not in ARTIFACTS]
    if unknown:
        raise UserError(f"only: {', '.join(unknown)} is not an artifact; allowed: "
                        f"{', '.join(ARTIFACTS)}")
    return [a for a in ARTIFACTS if not cfg.only or a in cfg.only]


def specs_of(cfg: PaperConf, artifact: str) -> list[RunSpec]:
    """The runs one artifact reads (under its own artifact name)."""
    specs = ARTIFACTS[artifact][1](cfg, mode_of(cfg))
    return [RunSpec(artifact, s.label, s.overrides) for s in specs]
