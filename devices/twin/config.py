"""The twin's config schemas: what a ``conf/device/<phone>.yaml`` of ``TwinDevice`` holds.

Each processor carries a ``twin:`` block of constants (:class:`TwinProcessorBlock`) and the
device one more (:class:`TwinDeviceBlock`); every field is documented in
:mod:`devices.twin.spec`, which validates the values (positive throughputs, fractions in
(0, 1], dtypes it knows) and turns them into frozen specs. Hydra rejects unknown keys and
wrong types when it composes a device YAML, because the YAML's defaults list names
``/schema/device/twin``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING

from devices.processors import ProcessorConf
from harness.config.schema import DeviceConf


@dataclass
class CalibrationConf:
    # zoo model name the efficiencies were scaled to, e.g. mobilenet_v1
    model: str = MISSING
    # its measured whole-model latency alone, ms
    target_ms: float = MISSING
    # the measurement used the 8-bit quantized model
    int8: bool = False
    # where the target comes from, e.g. "paper Table II, 1 model [S]"
    source: str = ""


@dataclass
class TwinProcessorBlock:
    # peak throughput per dtype at the top frequency (GFLOP/s for floats, GOP/s for int8)
    peak_gflops: dict[str, float] = MISSING
    # achievable fraction of peak per op class: conv, depthwise, fully_connected, other
    efficiency: dict[str, float] = MISSING
    # fraction of the device memory bandwidth this processor can draw alone
    bandwidth_share: float = MISSING
    # fixed cost of one subgraph invocation, us
    invoke_overhead_us: float = MISSING
    # fixed cost of dispatching one op, us
    dispatch_overhead_us: float = MISSING
    # DVFS levels, MHz
    freqs_mhz: list[float] = MISSING
    # idle (leakage) power, W
    static_w: float = MISSING
    # dynamic power when busy at the top frequency, W
    dynamic_w: float = MISSING
    # supply voltage at the lowest and the top DVFS level, V
    v_min_v: float = MISSING
    v_max_v: float = MISSING
    # thermal node: heat capacity J/K and resistance to the SoC node K/W
    capacitance_j_per_k: float = MISSING
    resistance_k_per_w: float = MISSING
    # the governor steps down one level per period above this temperature, C
    throttle_c: float = 68.0
    # ... and up one level per period below throttle_c - hysteresis_c, C
    hysteresis_c: float = 3.0
    # dtype an op of a given dtype computes in (GPU delegate: float32 -> float16)
    run_as: dict[str, str] = field(default_factory=dict)
    # the single-model measurement the efficiencies were scaled to
    calibration: CalibrationConf | None = None
    # constant name -> source and confidence tag, e.g. "devices.md §2 [D]"
    provenance: dict[str, str] = field(default_factory=dict)


@dataclass
class TwinProcessorConf(ProcessorConf):
    twin: TwinProcessorBlock | None = None


@dataclass
class TwinDeviceBlock:
    # ambient air, C
    ambient_c: float = MISSING
    # shared SoC/skin node: heat capacity J/K and resistance to ambient K/W
    soc_capacitance_j_per_k: float = MISSING
    soc_resistance_k_per_w: float = MISSING
    # DRAM peak bandwidth, GB/s
    memory_bandwidth_gbps: float = MISSING
    # moving a tensor between processors: fixed cost (us) plus bytes / bandwidth (GB/s)
    transfer_fixed_us: float = MISSING
    transfer_bandwidth_gbps: float = MISSING
    # thermal governor period, ms
    governor_period_ms: float = MISSING
    # sigma of the multiplicative lognormal latency noise (median factor 1); 0 = deterministic
    noise_sigma: float = 0.0
    # constant name -> source and confidence tag
    provenance: dict[str, str] = field(default_factory=dict)


@dataclass
class TwinDeviceConf(DeviceConf):
    _target_: str = "devices.twin.TwinDevice"
    processors: list[TwinProcessorConf] = field(default_factory=list)
    twin: TwinDeviceBlock | None = None


def register() -> None:
    ConfigStore.instance().store(group="schema/device", name="twin", node=TwinDeviceConf)
