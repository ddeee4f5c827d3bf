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
class ConcurrencyConf:
    # how many copies of one model ran at once, ascending from 1
    copies: list[int] = MISSING
    # the latency of each copy, ms (the first: one copy alone)
    latency_ms: list[float] = MISSING
    # where the measurement comes from, e.g. "paper Table II [S]"
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
    # the shortest an invoke of this delegate can take (driver round trip, command-queue
    # flush), us; a subgraph takes at least this long (0: no floor)
    invoke_floor_us: float = 0.0
    # copying a subgraph's inputs to the processor and its outputs back (delegate I/O
    # between CPU memory and the accelerator's buffers), GB/s; 0: shares CPU memory, no copy
    io_copy_gbps: float = 0.0
    # the delegate keeps its own copy of the weights of every subgraph it runs
    weight_copy: bool = False
    # at this temperature the processor shuts down (takes no work) until it cools by
    # hysteresis_c, C; 0: never
    critical_c: float = 0.0
    # the single-model measurement the efficiencies were scaled to
    calibration: CalibrationConf | None = None
    # measured latencies that replace the roofline: "<model>:<op ranges>" (e.g.
    # "retinaface:0-11,14") -> the subgraph alone at the top frequency as a single-model
    # benchmark measures it (one interpreter, its delegate's I/O included), us; written by
    # python -m harness.calibrate from benchmark_model runs of each slice on a phone
    measured_us: dict[str, float] = field(default_factory=dict)
    # invocations at once on this processor (interpreters of their own, as vanilla apps run
    # them): each copy's latency with 1, 2, ... copies of one model; none: time-sliced
    concurrency: ConcurrencyConf | None = None
    # constant name -> source and confidence tag, e.g. "devices.md §2 [D]"
    provenance: dict[str, str] = field(default_factory=dict)


@dataclass
class TwinProcessorConf(ProcessorConf):
    twin: TwinProcessorBlock | None = None


@dataclass
class MechanismsConf:
    """Switches for the twin's mechanisms, each on by default (an ablation turns one off)."""

    # a subgraph takes at least its delegate's invoke_floor_us
    invoke_floor: bool = True
    # every subgraph boundary copies tensors between interpreters (same processor too), and
    # the first subgraph copies the app's input in
    boundary_copy: bool = True
    # accelerators copy a subgraph's inputs in and its outputs out (io_copy_gbps)
    io_copy: bool = True
    # scheduling costs time: a fixed cost per dispatched subgraph and the decision's work
    scheduler_cost: bool = True
    # every loaded subgraph holds an interpreter and an arena (and weights, where the
    # delegate copies them) against the memory budget; loading past it fails
    memory: bool = True
    # the rest of the phone (display, video decode) heats the SoC node and counts in power
    phone_power: bool = True
    # a processor past its critical temperature shuts down
    shutdown: bool = True


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
    # CPU memcpy bandwidth for copies between interpreters, GB/s
    memcpy_gbps: float = 10.0
    # fixed cost of copying one tensor between interpreters, us
    copy_fixed_us: float = 2.0
    # scheduling: fixed cost per dispatched subgraph (wake-up, bookkeeping), us, and the
    # time of one unit of a decision's counted work (a chain step, a candidate), ns
    scheduler_fixed_us: float = 0.0
    scheduler_ns_per_op: float = 0.0
    # memory the app may use for interpreters, arenas and weight copies, MB (0: unlimited)
    memory_budget_mb: float = 0.0
    # one interpreter's fixed memory (object, op kernels' state), KB
    interpreter_overhead_kb: float = 0.0
    # the rest of the phone while the app runs (display, video decode, idle radios), W
    rest_of_phone_w: float = 0.0
    mechanisms: MechanismsConf = field(default_factory=MechanismsConf)
    # constant name -> source and confidence tag
    provenance: dict[str, str] = field(default_factory=dict)


@dataclass
class TwinDeviceConf(DeviceConf):
    _target_: str = "devices.twin.TwinDevice"
    processors: list[TwinProcessorConf] = field(default_factory=list)
    twin: TwinDeviceBlock | None = None


def register() -> None:
    ConfigStore.instance().store(group="schema/device", name="twin", node=TwinDeviceConf)
