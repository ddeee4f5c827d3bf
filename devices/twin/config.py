"""The twin's config schemas: what a ``conf/device/<phone>.yaml`` of ``TwinDevice`` holds.

Each processor carries a ``twin:`` block of constants (:class:`TwinProcessorBlock`) and the
device one more (:class:`TwinDeviceBlock`). Each field declares its unit, range and meaning
here, in its metadata, and a default where one holds for every phone (with its source); a
device YAML writes only what differs. A mechanism's constants (:data:`MECHANISM_CONSTANTS`)
have no default: a phone whose mechanism is on gives them all, or parsing names the missing
ones, so a mechanism never charges a borrowed or zero value unseen. :mod:`devices.twin.spec`
turns the blocks into frozen specs, validated by that metadata alone. Hydra rejects unknown
keys and wrong types when it composes a device YAML, because the YAML's defaults list names
``/schema/device/twin``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING

from devices.processors import ProcessorConf
from harness.config.schema import DeviceConf
from harness.seams.fields import ANY, NONNEG, OPEN_FRACTION, POS, Range, at_least, spec


@dataclass
class CalibrationConf:
    # zoo model name the efficiencies were scaled to, e.g. mobilenet_v1
    model: str = MISSING
    target_ms: float = field(default=MISSING, metadata=spec(
        "ms", POS, "measured whole-model latency alone"))
    # the measurement used the 8-bit quantized model
    int8: bool = False
    # where the target comes from, e.g. "paper Table II, 1 model [S]"
    source: str = ""


@dataclass
class ConcurrencyConf:
    copies: list[int] = field(default=MISSING, metadata=spec(
        "", at_least(1), "how many copies of one model ran at once, ascending from 1",
        non_empty=True))
    latency_ms: list[float] = field(default=MISSING, metadata=spec(
        "ms", POS, "the latency of each copy (the first: one copy alone)", non_empty=True))
    # where the measurement comes from, e.g. "paper Table II [S]"
    source: str = ""


@dataclass
class TwinProcessorBlock:
    # peak throughput per dtype at the top frequency (GFLOP/s for floats, GOP/s for int8)
    peak_gflops: dict[str, float] = field(default=MISSING, metadata=spec(
        "GFLOP/s", POS, "peak throughput per dtype at the top frequency", non_empty=True))
    # achievable fraction of peak per op class: conv, depthwise, fully_connected, other
    efficiency: dict[str, float] = field(default=MISSING, metadata=spec(
        "fraction", OPEN_FRACTION, "achievable fraction of peak per op class"))
    # fraction of the device memory bandwidth this processor can draw alone
    bandwidth_share: float = field(default=MISSING, metadata=spec(
        "fraction", OPEN_FRACTION, "share of memory bandwidth alone"))
    invoke_overhead_us: float = field(default=MISSING, metadata=spec(
        "µs", NONNEG, "fixed cost of one subgraph invocation"))
    dispatch_overhead_us: float = field(default=MISSING, metadata=spec(
        "µs", NONNEG, "fixed cost of dispatching one op"))
    freqs_mhz: list[float] = field(default=MISSING, metadata=spec(
        "MHz", POS, "DVFS levels", non_empty=True))
    static_w: float = field(default=MISSING, metadata=spec("W", NONNEG, "idle (leakage) power"))
    dynamic_w: float = field(default=MISSING, metadata=spec(
        "W", NONNEG, "dynamic power when busy at the top frequency"))
    v_min_v: float = field(default=MISSING, metadata=spec(
        "V", POS, "supply voltage at the lowest DVFS level"))
    v_max_v: float = field(default=MISSING, metadata=spec(
        "V", POS, "supply voltage at the top DVFS level"))
    # thermal node: heat capacity J/K and resistance to the SoC node K/W
    capacitance_j_per_k: float = field(default=MISSING, metadata=spec(
        "J/K", POS, "heat capacity of the thermal node"))
    resistance_k_per_w: float = field(default=MISSING, metadata=spec(
        "K/W", POS, "thermal resistance to the SoC node"))
    # 68 °C: the throttling threshold of paper §4.8 [S], stated for the K50 Pro and
    # transferred to every phone
    throttle_c: float = field(default=68.0, metadata=spec(
        "°C", ANY, "the governor steps down one level per period above this "
        "(68: paper §4.8 [S])"))
    # ... and up one level per period below throttle_c - hysteresis_c, C; 3 °C is an
    # estimate [E] (a phone whose governor's gap is known sets its own)
    hysteresis_c: float = field(default=3.0, metadata=spec(
        "°C", NONNEG, "steps up again below throttle_c minus this (3: [E])"))
    # dtype an op of a given dtype computes in (GPU delegate: float32 -> float16); empty:
    # each dtype computes in itself, as XNNPACK on a CPU runs float32 in float32 (fp16
    # inference is opt-in) [E]
    run_as: dict[str, str] = field(default_factory=dict)
    # the shortest an invoke of this delegate can take (driver round trip, command-queue
    # flush), us; a subgraph takes at least this long. 0 (no floor): a CPU shares memory
    # with the app. None: not given (an error while mechanisms.invoke_floor is on)
    invoke_floor_us: float | None = field(default=None, metadata=spec(
        "µs", NONNEG, "shortest invoke of the delegate; 0: none"))
    # copying a subgraph's inputs to the processor and its outputs back (delegate I/O
    # between CPU memory and the accelerator's buffers), GB/s; 0: shares CPU memory (a
    # CPU), no copy. None: not given (an error while mechanisms.io_copy is on)
    io_copy_gbps: float | None = field(default=None, metadata=spec(
        "GB/s", NONNEG, "delegate I/O copy bandwidth; 0: no copy"))
    # the delegate keeps its own copy of the weights of every subgraph it runs; whether a
    # delegate does is not established from a public source [U], so off
    weight_copy: bool = False
    # at this temperature the processor shuts down (takes no work) until it cools by
    # hysteresis_c, C; 0: never. None: not given (an error while mechanisms.shutdown is on)
    critical_c: float | None = field(default=None, metadata=spec(
        "°C", NONNEG, "shutdown temperature; 0: never"))
    # the single-model measurement the efficiencies were scaled to
    calibration: CalibrationConf | None = None
    # measured latencies that replace the roofline: "<model>:<op ranges>" (e.g.
    # "retinaface:0-11,14") -> the subgraph alone at the top frequency as a single-model
    # benchmark measures it (one interpreter, its delegate's I/O included), us; written by
    # python -m harness.calibrate from benchmark_model runs of each slice on a phone
    measured_us: dict[str, float] = field(
        default_factory=dict, metadata=spec("µs", POS, "a subgraph's latency measured alone "
                                            "on a phone, by its op set (written by python -m "
                                            "harness.calibrate)"))
    # invocations at once on this processor (interpreters of their own, as vanilla apps run
    # them): each copy's latency with 1, 2, ... copies of one model; none: time-sliced
    concurrency: ConcurrencyConf | None = None
    # interference beyond the bandwidth model (shared caches, the memory controller's
    # queues, an SMT sibling): a subgraph's latency is multiplied by 1 + (corun_factor - 1)
    # per other processor busy beside it; 1: none. Measured on this machine by
    # python -m harness.validate (each slice alone, then beside a loop on the other core)
    corun_factor: float = field(default=1.0, metadata=spec(
        "x", POS, "latency factor per other processor busy beside it; 1: none"))
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


#: each mechanism's constants (docs/results.md): the device block's (TwinDeviceBlock) and each
#: processor's (TwinProcessorBlock). A mechanism that is on needs every one of them given.
MECHANISM_CONSTANTS: dict[str, tuple[str, ...]] = {
    "invoke_floor": ("invoke_floor_us",),
    "boundary_copy": ("memcpy_gbps", "copy_fixed_us"),
    "io_copy": ("io_copy_gbps",),
    "scheduler_cost": ("scheduler_fixed_us", "scheduler_ns_per_op"),
    "memory": ("memory_budget_mb", "interpreter_overhead_kb"),
    "phone_power": ("rest_of_phone_w",),
    "shutdown": ("critical_c",),
}


@dataclass
class TwinDeviceBlock:
    ambient_c: float = field(default=MISSING, metadata=spec("°C", Range(-50, 60), "ambient air"))
    # shared SoC/skin node: heat capacity J/K and resistance to ambient K/W
    soc_capacitance_j_per_k: float = field(default=MISSING, metadata=spec(
        "J/K", POS, "heat capacity of the SoC/skin node"))
    soc_resistance_k_per_w: float = field(default=MISSING, metadata=spec(
        "K/W", POS, "thermal resistance of the SoC to ambient"))
    memory_bandwidth_gbps: float = field(default=MISSING, metadata=spec(
        "GB/s", POS, "DRAM peak bandwidth"))
    # moving a tensor between processors: fixed cost (us) plus bytes / bandwidth (GB/s)
    transfer_fixed_us: float = field(default=MISSING, metadata=spec(
        "µs", NONNEG, "fixed cost of moving a tensor"))
    transfer_bandwidth_gbps: float = field(default=MISSING, metadata=spec(
        "GB/s", POS, "bandwidth of moving a tensor"))
    governor_period_ms: float = field(default=MISSING, metadata=spec(
        "ms", POS, "thermal governor period"))
    # sigma of the multiplicative lognormal latency noise (median factor 1); 0 = deterministic
    noise_sigma: float = field(default=0.0, metadata=spec(
        "", Range(0, 2), "sigma of the lognormal latency noise; 0: none"))
    # Each mechanism's constants (MECHANISM_CONSTANTS) default to None, "not given": parsing
    # refuses a device whose mechanism is on while one of them is None (devices.twin.spec).
    # CPU memcpy bandwidth for copies between interpreters, GB/s
    memcpy_gbps: float | None = field(default=None, metadata=spec(
        "GB/s", POS, "memcpy bandwidth between interpreters"))
    # bookkeeping per tensor copied between interpreters [E]
    copy_fixed_us: float | None = field(default=None, metadata=spec(
        "µs", NONNEG, "fixed cost of copying one tensor"))
    # scheduling: fixed cost per dispatched subgraph (wake-up, bookkeeping), us, and the
    # time of one unit of a decision's counted work (a chain step, a candidate), ns
    scheduler_fixed_us: float | None = field(default=None, metadata=spec(
        "µs", NONNEG, "fixed cost per dispatched subgraph"))
    scheduler_ns_per_op: float | None = field(default=None, metadata=spec(
        "ns", NONNEG, "time of one unit of decision work"))
    # a policy's own price of one unit of its decision work, ns, by baseline name (band_heft)
    # or policy name (band, adms, tflite; the baseline's name is looked up first): each
    # policy counts its own unit, so each has its own measured price (docs/decision-cost.md);
    # a policy not listed pays scheduler_ns_per_op
    scheduler_ns_per_work: dict[str, float] = field(default_factory=dict, metadata=spec(
        "ns", NONNEG, "decision time per counted unit of work, by baseline or policy"))
    # memory the app may use for interpreters, arenas and weight copies, MB (0: unlimited)
    memory_budget_mb: float | None = field(default=None, metadata=spec(
        "MB", NONNEG, "memory for interpreters; 0: unlimited"))
    # one interpreter's fixed memory (object, op kernels' state), KB
    interpreter_overhead_kb: float | None = field(default=None, metadata=spec(
        "KB", NONNEG, "one interpreter's fixed memory"))
    # the rest of the phone while the app runs (display, video decode, idle radios), W
    rest_of_phone_w: float | None = field(default=None, metadata=spec(
        "W", NONNEG, "power of the rest of the phone"))
    # every mechanism on, as on a phone; an ablation turns one off
    mechanisms: MechanismsConf = field(default_factory=MechanismsConf)
    # constant name -> source and confidence tag
    provenance: dict[str, str] = field(default_factory=dict)


@dataclass
class TwinDeviceConf(DeviceConf):
    _target_: str = "devices.twin.TwinDevice"
    processors: list[TwinProcessorConf] = field(
        default_factory=list, metadata=spec("", ANY, "the processors", non_empty=True))
    twin: TwinDeviceBlock | None = None


def register() -> None:
    ConfigStore.instance().store(group="schema/device", name="twin", node=TwinDeviceConf)
