"""The run's configuration schemas (Hydra structured configs).

YAML files under ``conf/`` hold values; these dataclasses hold the shape, so a typo, an
unknown option or a wrong type is rejected when Hydra composes the config. Units are in field
names (``_ms``, ``_s``). Closed sets are Enums (matched by *name* in YAML).

The run knows its device and its baselines only as nodes whose ``_target_`` names the
component class; each component's own schema (``devices/*/config.py``, ``baselines/*``,
``adms/config.py``) types the node, so Hydra rejects a typo inside it at composition too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING

from harness.seams.fields import (
    ANY,
    FRACTION,
    MAX_COUNT,
    MAX_TIME_S,
    NONNEG,
    POS,
    SEED,
    Range,
    at_least,
    spec,
)
from harness.seams.units import NS_PER_S


class Arrival(Enum):
    #: closed loop over frames: ``frames_in_flight`` frames (one request per model each) are
    #: outstanding; a new frame is issued when every request of a frame has ended
    frames = "frames"
    #: closed loop per model: each model's stream issues its next request when its previous
    #: one ends (flatters small models: count complete frames, not per-model rates)
    stream = "stream"
    #: a new frame (one request per model) every 1/fps seconds
    periodic = "periodic"
    #: open loop, exponential inter-arrival times with mean 1/fps per model
    poisson = "poisson"

    @property
    def closed(self) -> bool:
        """A closed loop: requests issued as earlier ones end, so a device's own runner
        generates them (an open loop's arrivals are computed beforehand and shipped)."""
        return self in (Arrival.frames, Arrival.stream)


@dataclass
class DeviceConf:
    """What every device config has; a backend's schema extends it."""

    # the device class (a harness.seams.device.DeviceClass), e.g. devices.twin.TwinDevice
    _target_: str = MISSING
    # short name used on the command line and in results paths
    name: str = MISSING
    # human-readable description: phone and SoC
    description: str = ""


@dataclass
class BaselineConf:
    """What every baseline config has; a policy's schema extends it."""

    # the policy class (a harness.seams.policy.PolicyClass), e.g. baselines.band.BandPolicy
    _target_: str = MISSING

#: a frame period (1/fps) of at least 1 ns and at most MAX_TIME_S, both whole nanoseconds
FPS = Range(1 / MAX_TIME_S, NS_PER_S)
#: the largest SLO multiplier: a million times a model's latency alone (the SLO it gives is
#: checked again against MAX_TIME_S once the latency is known, harness/experiment/slo.py)
SLO_MULTIPLIER = Range(0, 1e6)


@dataclass
class ModelConf:
    # zoo name, e.g. mobilenet_v2
    name: str = MISSING
    # what it is, and how it differs from the paper's model where it does
    description: str = ""
    input_shape: list[int] = field(
        default_factory=list, metadata=spec("", at_least(1), "input shape without batch (H, W, C)"))
    # 8-bit integer model
    quantized: bool = False
    paper_ops: int | None = field(default=None, metadata=spec(
        "ops", NONNEG, "op count the paper reports (Table III)"))
    # a .tflite file to analyze instead of the zoo model (absolute or relative to the working
    # dir); its graph profile is computed on first use and cached by content hash
    path: str | None = None


@dataclass
class ScenarioConf:
    # short name: frs, ros, single...
    name: str = MISSING
    description: str = ""
    models: list[str] = field(default=MISSING, metadata=spec(
        "", ANY, "models issued per frame: zoo names, .tflite paths or name:path "
        "(harness/models/byo.py)", non_empty=True))
    arrival: Arrival = Arrival.frames
    fps: float = field(default=30.0, metadata=spec(
        "frames/s", FPS, "frame rate of periodic and poisson arrival"))
    duration_s: float = field(default=10.0, metadata=spec(
        "s", POS, "measured duration, after warm-up"))
    warmup_s: float = field(default=1.0, metadata=spec(
        "s", NONNEG, "warm-up before measurement (requests not counted)"))
    # SLO = slo_multiplier x the model's worst single-model latency; 0 disables SLOs
    slo_multiplier: float = field(default=0.0, metadata=spec(
        "x", SLO_MULTIPLIER, "SLO = this x the model's latency alone; 0: no SLO"))
    streams_per_model: int = field(default=1, metadata=spec(
        "", at_least(1), "closed-loop streams per model (stream)"))
    # frames outstanding at once (frames arrival); 2 = a double-buffered camera pipeline
    frames_in_flight: int = field(default=2, metadata=spec(
        "", at_least(1), "frames outstanding at once (frames)"))


@dataclass
class SeedsConf:
    # the first repetition's seed; repetition i runs with seed base + i, and every purpose's
    # generator (traffic, latency noise, inputs) is split from that
    base: int = field(default=0, metadata=spec(
        "", SEED, "the first repetition's seed (repetition i: base + i)"))
    # repetitions of every baseline (each figure is a mean with a 95% interval over them);
    # 0: the device's default (twin 5, host 3)
    count: int = field(default=0, metadata=spec(
        "", Range(0, MAX_COUNT), "repetitions per baseline; 0: the device's default"))


@dataclass
class RunConf:
    # the device (its schema comes with its YAML: conf/device/*.yaml)
    device: Any = MISSING
    scenario: ScenarioConf = MISSING
    # baseline name (as in results and in `run`) -> its config (conf/baseline/*.yaml)
    baselines: dict[str, Any] = field(default_factory=dict)
    run: list[str] = field(
        default_factory=lambda: ["tflite", "tflite_gpu", "band", "adms", "adms_ef"],
        metadata=spec("", ANY, "baselines to run, in order (names or groups)", non_empty=True))
    # a name for several baselines (expanded in `run`); a group named *_best is also reported
    # as its member with the highest mean FPS
    groups: dict[str, list[str]] = field(default_factory=dict)
    seed: SeedsConf = field(default_factory=SeedsConf)
    # metrics the run adds to the harness's own: name -> a node whose _target_ names a
    # harness.reporting.measures.Metric (conf/metric/*.yaml; +metric@metrics.<name>=<file>)
    metrics: dict[str, Any] = field(default_factory=dict)
    # where the model zoo's .tflite cache lives (relative to the working dir or absolute)
    zoo_cache: str = ".cache/zoo"
    # sensor sampling interval, ms: the device is read this often, every reading is recorded,
    # and schedulers see the latest (the Processor Monitor's cache, paper Section 3.3)
    sensor_interval_ms: float = field(default=100.0, metadata=spec(
        "ms", at_least(1), "sensor sampling interval"))
    # the least share of each seed's measured window its requests must cover (the last arrival
    # or end, less the time the wall clock jumped); a seed below it is flagged in the manifest,
    # the summary, the verdicts and every report
    min_coverage: float = field(default=0.9, metadata=spec(
        "fraction", FRACTION, "least share of the window a seed's requests cover"))
    # print the plan and stop, measuring nothing
    dry_run: bool = False
    # write plots (PNG) into the run folder
    plots: bool = True


def register() -> None:
    """Register the run's schemas with Hydra's ConfigStore (storing again overwrites)."""
    from harness.config import names, rundir

    cs = ConfigStore.instance()
    cs.store(name="run_schema", node=RunConf)
    rundir.register()  # the run folder's resolver (conf/config.yaml: hydra.run.dir)
    names.register()  # the names in its path are plain names
