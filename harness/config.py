"""Configuration schemas (Hydra structured configs) and their registration.

YAML files under ``conf/`` hold values; these dataclasses hold the shape, so a typo, an
unknown option or a wrong type is rejected when Hydra composes the config. Only
``harness/__main__.py`` (and the other command entry points) see a ``DictConfig``: they turn
it into these typed objects once with :func:`to_object`.

Units are in field names (``_ms``, ``_s``, ``_c``, ``_hz``). Closed sets are Enums (matched by
*name* in YAML, e.g. ``kind: GPU``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING, DictConfig, OmegaConf

from harness.plan import ProcessorKind


class DeviceBackend(Enum):
    twin = "twin"
    host = "host"
    adb = "adb"


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


class SupportRules(Enum):
    """Op-support rule sets (see :mod:`harness.opsupport`)."""

    #: runs every op (a CPU)
    all = "all"
    #: TFLite GPU delegate compatibility
    gpu = "gpu"
    #: TFLite NNAPI delegate at ``api_level``
    nnapi = "nnapi"
    #: TFLite Hexagon delegate (8-bit quantized only)
    hexagon = "hexagon"
    #: XNNPACK delegate (CPU)
    xnnpack = "xnnpack"
    #: exactly the ops listed in ``accept_ops``
    listed = "listed"


class BandScheduler(Enum):
    """Band's schedulers (``band/scheduler/`` in mrsnu/band)."""

    fixed_worker = "fixed_worker"
    round_robin = "round_robin"
    shortest_expected_latency = "shortest_expected_latency"
    least_slack_time_first = "least_slack_time_first"
    heterogeneous_earliest_finish_time = "heterogeneous_earliest_finish_time"
    heterogeneous_earliest_finish_time_reserved = "heterogeneous_earliest_finish_time_reserved"


# -- device ---------------------------------------------------------------------------------


@dataclass
class ProcessorConf:
    # processor name used in plans and results, e.g. cpu, gpu, apu, npu, dsp
    name: str = MISSING
    # CPU, GPU, DSP or NPU
    kind: ProcessorKind = MISSING
    # op-support rule set this processor follows
    support: SupportRules = SupportRules.all
    # Android API level for the nnapi rules (27..31; 33 and 34 stand for NNAPI feature levels 6, 7)
    api_level: int = 31
    # op kinds (TFLite builtin names) this processor's driver rejects although the rules allow
    reject_ops: list[str] = field(default_factory=list)
    # op kinds it accepts beyond the rules (or the whole set, with support=listed)
    accept_ops: list[str] = field(default_factory=list)
    # backend-specific constants, validated by that backend (devices/twin, devices/host)
    twin: Any = None
    host: Any = None


@dataclass
class DeviceConf:
    # short name used on the command line and in results paths
    name: str = MISSING
    # which backend runs it: twin (simulated phone), host (this machine), adb (a real phone)
    backend: DeviceBackend = MISSING
    # human-readable description: phone and SoC
    description: str = ""
    processors: list[ProcessorConf] = field(default_factory=list)
    # backend-specific device-wide constants (thermal, power, adb serial...)
    twin: Any = None
    host: Any = None
    adb: Any = None


# -- models and scenarios -------------------------------------------------------------------


@dataclass
class ModelConf:
    # zoo name, e.g. mobilenet_v2
    name: str = MISSING
    # what it is, and how it differs from the paper's model where it does
    description: str = ""
    # input shape without batch (H, W, C)
    input_shape: list[int] = field(default_factory=list)
    # 8-bit integer model
    quantized: bool = False
    # op count the paper reports (Table III), if any
    paper_ops: int | None = None
    # a .tflite to use instead of the zoo build (absolute or relative to the working dir)
    tflite: str | None = None


@dataclass
class ScenarioConf:
    # short name: frs, ros, single...
    name: str = MISSING
    description: str = ""
    # zoo model names issued per frame
    models: list[str] = MISSING
    arrival: Arrival = Arrival.frames
    # frame rate for periodic / poisson arrival (frames per second)
    fps: float = 30.0
    # measured duration, seconds (after warm-up)
    duration_s: float = 10.0
    # warm-up before measurement, seconds (requests issued but not counted)
    warmup_s: float = 1.0
    # SLO = slo_multiplier x the model's worst single-model latency; 0 disables SLOs
    slo_multiplier: float = 0.0
    # closed-loop streams per model (stream arrival)
    streams_per_model: int = 1
    # frames outstanding at once (frames arrival); 2 = a double-buffered camera pipeline
    frames_in_flight: int = 2


# -- baselines ------------------------------------------------------------------------------


@dataclass
class TfliteConf:
    name: str = "tflite"
    # processor for each model; models not listed use default_processor
    processor_map: dict[str, str] = field(default_factory=dict)
    default_processor: str = "gpu"


@dataclass
class BandConf:
    name: str = "band"
    scheduler: BandScheduler = BandScheduler.least_slack_time_first
    # Band's minimum_subgraph_size: a run of fewer ops on a non-CPU processor falls back
    minimum_subgraph_size: int = 7
    # moving-average weight of a new latency sample in Band's estimator
    ema_alpha: float = 0.1
    # drop jobs whose expected finish is past their deadline (Band's SLO handling)
    drop_on_slo: bool = True
    # slack (ms) Band's reserved HEFT keeps per worker
    reservation_window_ms: float = 5.0
    # jobs examined from the queue head per decision (Band's schedule_window_size); 0 = all
    schedule_window_size: int = 0


@dataclass
class AdmsConf:
    name: str = "adms"
    # window size for every model, or 0 to let the tuner choose per model and device
    window_size: int = 0
    # window sizes the tuner tries
    window_candidates: list[int] = field(default_factory=lambda: [1, 2, 3, 4, 5, 6, 8, 10, 12, 16])
    # the tuner takes the largest window whose estimated single-run latency is within this
    # fraction of the fastest: every extra subgraph costs scheduling and memory that a
    # single-run estimate does not see (paper Section 2.2: up to 28% of latency)
    window_tie_tolerance: float = 0.05
    # tune a window per processor (paper Section 3.2: "for each model-processor combination"),
    # each on that processor with the CPU as fallback; false: one window per model
    window_per_processor: bool = True
    # re-derive a model's cached remaining-latency table when a subgraph's estimate moves by
    # more than this fraction (the estimates are moving averages)
    estimate_refresh: float = 0.05
    # weight of waiting fairness, eq. (2)
    alpha: float = 1.0
    # weight of deadline urgency, eq. (1) (per ms)
    gamma: float = 1.0
    # weight of resource efficiency, eq. (3)
    delta: float = 1.0
    # jobs examined from the queue head per decision
    loop_call_size: int = 4
    # Processor Monitor cache refresh interval, ms
    monitor_interval_ms: float = 100.0
    # keep new work off a processor this close to its throttling temperature, degrees C
    thermal_margin_c: float = 3.0
    # a request without an SLO gets the deadline arrival + implicit_slo_factor x T_avg
    implicit_slo_factor: float = 1.0


@dataclass
class BaselinesConf:
    tflite: TfliteConf = field(default_factory=TfliteConf)
    band: BandConf = field(default_factory=BandConf)
    adms: AdmsConf = field(default_factory=AdmsConf)


# -- the run --------------------------------------------------------------------------------


@dataclass
class SeedsConf:
    # one integer from which every purpose's seed is split (traffic, latency noise, ...)
    base: int = 0


@dataclass
class RunConf:
    device: DeviceConf = MISSING
    scenario: ScenarioConf = MISSING
    baselines: BaselinesConf = field(default_factory=BaselinesConf)
    # which baselines to run, in order
    run: list[str] = field(default_factory=lambda: ["tflite", "band", "adms"])
    seed: SeedsConf = field(default_factory=SeedsConf)
    # where the model zoo's .tflite cache lives (relative to the working dir or absolute)
    zoo_cache: str = ".cache/zoo"
    # sensor sampling interval, ms
    sensor_interval_ms: float = 100.0
    # print the plan and stop, measuring nothing
    dry_run: bool = False
    # write plots (PNG) into the run folder
    plots: bool = True


def register() -> None:
    """Register the schemas with Hydra's ConfigStore (storing again overwrites: idempotent)."""
    cs = ConfigStore.instance()
    cs.store(name="run_schema", node=RunConf)
    cs.store(group="device", name="device_schema", node=DeviceConf)
    cs.store(group="scenario", name="scenario_schema", node=ScenarioConf)
    cs.store(group="model", name="model_schema", node=ModelConf)


def to_object(cfg: DictConfig, schema: type) -> Any:
    """Validate ``cfg`` against ``schema`` and return the typed object."""
    merged = OmegaConf.merge(OmegaConf.structured(schema), cfg)
    return OmegaConf.to_object(merged)
