"""Typed twin constants, parsed and validated from the ``twin:`` blocks of a device config.

A device YAML (``conf/device/*.yaml``) carries one ``twin:`` block per processor and one for
the device (schemas: :mod:`devices.twin.config`, so Hydra rejects unknown keys and wrong types
at composition). A block may also be a plain mapping (tests build them so). This module turns
each into a frozen dataclass once. The defaults are the schema's (a value such as
``throttle_c`` is written only in :mod:`devices.twin.config`), and so are the ranges: every
number is held to the range its field declares (:func:`harness.seams.fields.check`). This
module adds what a field's metadata cannot say: an unknown or missing key of a plain mapping,
a dtype or op class the twin does not know, v_min_v above v_max_v, and a mechanism that is on
while one of its constants is not given
(:data:`~devices.twin.config.MECHANISM_CONSTANTS`): a phone whose YAML omits them would
otherwise run with the mechanism charging nothing while its manifest says it is on. Every
rejection is a :class:`~harness.seams.errors.UserError` with a one-line message naming the
processor, the key and what is allowed.

Units are in the key names: ``_gops`` (1e9 operations per second, i.e. operations per ns),
``_gbps`` (GB/s, i.e. bytes per ns), ``_us``, ``_ms``, ``_mhz``, ``_w``, ``_v``, ``_c``,
``_j_per_k``, ``_k_per_w``. Each block may carry a ``provenance`` mapping (constant name ->
source key and confidence tag, e.g. ``"devices.md §2 [D]"``) that the device reports in its
manifest facts.

A processor may carry ``measured_us``: latencies measured on a phone, one per (model, op set),
keyed ``"<model>:<op ranges>"`` (:func:`measured_key`); for those subgraphs they replace the
roofline's figure (:mod:`devices.twin.latency`).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, TypeVar

from devices.twin.blocks import (
    as_block,
    as_mapping,
    check_keys,
    checked,
    floats,
    number_table,
    strings,
)
from devices.twin.config import (
    MECHANISM_CONSTANTS,
    CalibrationConf,
    ConcurrencyConf,
    MechanismsConf,
    TwinDeviceBlock,
    TwinDeviceConf,
    TwinProcessorBlock,
    TwinProcessorConf,
)
from harness.seams.errors import UserError
from harness.seams.plan import ProcessorKind, op_ranges

#: numeric classes an op computes in; ``int8`` stands for every 8-bit integer type
DTYPES = ("float32", "float16", "int8")
#: op classes with their own achievable efficiency
OP_CLASSES = ("conv", "depthwise", "fully_connected", "other")

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Calibration:
    """The single-model measurement a processor's efficiencies were scaled to match."""

    #: zoo model name, e.g. mobilenet_v1
    model: str
    #: measured whole-model latency, milliseconds
    target_ms: float
    #: the measurement used the 8-bit quantized model
    int8: bool = False
    #: where the target comes from, e.g. "paper Table II, 1 model [S]"
    source: str = ""


@dataclass(frozen=True, slots=True)
class TwinProcessorSpec:
    """Twin constants of one processor (``processors[i].twin``)."""

    name: str
    kind: ProcessorKind
    #: peak throughput per dtype at the top frequency (GFLOP/s for floats, GOP/s for int8)
    peak_gflops: Mapping[str, float]
    #: achievable fraction of peak per op class
    efficiency: Mapping[str, float]
    #: fraction of the device memory bandwidth this processor can draw alone
    bandwidth_share: float
    #: fixed cost of one subgraph invocation, microseconds
    invoke_overhead_us: float
    #: fixed cost of dispatching one op, microseconds
    dispatch_overhead_us: float
    #: DVFS levels, MHz, ascending
    freqs_mhz: tuple[float, ...]
    #: idle (leakage) power, W
    static_w: float
    #: dynamic power when busy at the top frequency, W
    dynamic_w: float
    #: supply voltage at the lowest and the top DVFS level, V (power ~ f V^2)
    v_min_v: float
    v_max_v: float
    #: thermal node: heat capacity J/K and resistance to the SoC node K/W
    capacitance_j_per_k: float
    resistance_k_per_w: float
    #: governor steps one level down per period above this temperature
    throttle_c: float
    #: ... and one level up per period below throttle_c - hysteresis_c
    hysteresis_c: float
    #: dtype an op of a given dtype is computed in (GPU delegate: float32 -> float16)
    run_as: Mapping[str, str]
    #: a subgraph takes at least this long on this processor, us
    invoke_floor_us: float
    #: delegate I/O copies (inputs in, outputs out), GB/s; 0: none
    io_copy_gbps: float
    #: the delegate keeps its own copy of each subgraph's weights
    weight_copy: bool
    #: shutdown temperature, C (0: never)
    critical_c: float
    calibration: Calibration | None
    provenance: Mapping[str, str]
    #: (model, op set) -> measured latency alone at the top frequency, ns
    measured_ns: Mapping[tuple[str, frozenset[int]], float]
    #: (concurrent invocations, latency of each over one alone), ascending from (1, 1.0)
    #: (:func:`devices.twin.sharing.slowdown`); empty: time-sliced, no overlap
    concurrency: tuple[tuple[int, float], ...]
    #: latency factor per other processor busy beside it (interference the bandwidth model
    #: leaves out); 1: none
    corun_factor: float

    @property
    def f_max_mhz(self) -> float:
        return self.freqs_mhz[-1]

    def compute_dtype(self, dtype: str) -> str | None:
        """The dtype ``dtype`` ops compute in here, or None when this processor cannot."""
        target = self.run_as.get(dtype, dtype)
        return target if target in self.peak_gflops else None


@dataclass(frozen=True, slots=True)
class TwinDeviceSpec:
    """Device-wide twin constants (``twin`` of the device)."""

    #: ambient temperature, degrees C
    ambient_c: float
    #: shared SoC/skin node: heat capacity J/K and resistance to ambient K/W
    soc_capacitance_j_per_k: float
    soc_resistance_k_per_w: float
    #: DRAM peak bandwidth, GB/s
    memory_bandwidth_gbps: float
    #: moving a tensor between processors: fixed cost (us) plus bytes / bandwidth (GB/s)
    transfer_fixed_us: float
    transfer_bandwidth_gbps: float
    #: thermal governor period, ms
    governor_period_ms: float
    #: sigma of the multiplicative lognormal latency noise (median factor 1); 0 = deterministic
    noise_sigma: float
    #: copies between interpreters: CPU memcpy GB/s and a fixed cost per tensor, us
    memcpy_gbps: float
    copy_fixed_us: float
    #: scheduling: fixed us per dispatched subgraph, ns per unit of decision work
    scheduler_fixed_us: float
    scheduler_ns_per_op: float
    #: ns per unit of decision work by baseline or policy name (else scheduler_ns_per_op)
    scheduler_ns_per_work: Mapping[str, float]
    #: memory for interpreters, arenas and weight copies, MB (0: unlimited); per interpreter, KB
    memory_budget_mb: float
    interpreter_overhead_kb: float
    #: the rest of the phone, W
    rest_of_phone_w: float
    #: mechanism switches
    mechanisms: Mechanisms
    provenance: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class Mechanisms:
    """Which of the twin's mechanisms are on (:class:`devices.twin.config.MechanismsConf`)."""

    invoke_floor: bool = True
    boundary_copy: bool = True
    io_copy: bool = True
    scheduler_cost: bool = True
    memory: bool = True
    phone_power: bool = True
    shutdown: bool = True


@dataclass(frozen=True, slots=True)
class TwinSpec:
    """All twin constants of one device."""

    name: str
    description: str
    device: TwinDeviceSpec
    processors: tuple[TwinProcessorSpec, ...]

    def processor(self, name: str) -> TwinProcessorSpec:
        for p in self.processors:
            if p.name == name:
                return p
        raise UserError(f"twin {self.name}: unknown processor {name!r}")

    def provenance(self) -> dict[str, str]:
        """``<processor>.<constant>`` (or ``device.<constant>``) -> source and tag."""
        facts = {f"device.{k}": v for k, v in self.device.provenance.items()}
        for p in self.processors:
            facts.update({f"{p.name}.{k}": v for k, v in p.provenance.items()})
        return facts


# -- parsing -----------------------------------------------------------------------------------


def parse(conf: TwinDeviceConf) -> TwinSpec:
    """The ``twin:`` blocks of ``conf``, held to their fields' declared ranges, with every
    constant of each mechanism that is on given, as specs."""
    device = _device_block(conf.name, conf.twin)
    blocks = [_processor_block(conf.name, i, p) for i, p in enumerate(conf.processors)]
    if not blocks:
        raise UserError(f"twin {conf.name}: no processors")
    named = [(p.name, b) for p, b in zip(conf.processors, blocks, strict=True)]
    _check_mechanisms(conf.name, device, named)
    procs = tuple(_processor_spec(conf.name, p, b)
                  for p, b in zip(conf.processors, blocks, strict=True))
    return TwinSpec(conf.name, conf.description, _device_spec(conf.name, device), procs)


def _check_mechanisms(name: str, device: TwinDeviceBlock,
                      processors: Iterable[tuple[str, TwinProcessorBlock]]) -> None:
    """One UserError naming every constant not given of each mechanism that is on."""
    processors = list(processors)
    clauses = []
    for mechanism, constants in MECHANISM_CONSTANTS.items():
        if not getattr(device.mechanisms, mechanism):
            continue
        unset = [c for c in constants if c in _DEVICE_NUMBERS and getattr(device, c) is None]
        unset += [f"{p}.{c}" for p, block in processors for c in constants
                  if c in _PROCESSOR_NUMBERS and getattr(block, c) is None]
        if unset:
            clauses.append(_unset_clause(mechanism, unset))
    if clauses:
        raise UserError(f"twin: device {name}: " + "; ".join(clauses))


def _unset_clause(mechanism: str, unset: list[str]) -> str:
    are, them = ("is", "it") if len(unset) == 1 else ("are", "them")
    return (f"mechanism {mechanism} is on but {', '.join(unset)} {are} not set (set {them}, "
            f"or device.twin.mechanisms.{mechanism}=false)")


#: the device block's numbers (the rest: provenance and mechanisms)
_DEVICE_NUMBERS = tuple(f.name for f in dataclasses.fields(TwinDeviceBlock)
                        if f.name not in ("mechanisms", "provenance", "scheduler_ns_per_work"))


def _device_block(name: str, raw: Any) -> TwinDeviceBlock:
    where = f"device {name}"
    block = as_block(TwinDeviceBlock, raw, where)
    block.mechanisms = as_block(MechanismsConf, block.mechanisms, f"{where} mechanisms")
    checked(block, where, "device.twin")
    return block


def _device_spec(name: str, block: TwinDeviceBlock) -> TwinDeviceSpec:
    return TwinDeviceSpec(**floats(block, _DEVICE_NUMBERS),
                          scheduler_ns_per_work=_prices(name, block.scheduler_ns_per_work),
                          mechanisms=Mechanisms(**dataclasses.asdict(block.mechanisms)),
                          provenance=strings(f"device {name}", block.provenance))


def _prices(name: str, raw: Any) -> Mapping[str, float]:
    """``scheduler_ns_per_work``: a policy's name -> a price of at least 0 ns."""
    prices = dict(raw or {})
    for key, value in prices.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise UserError(f"twin: device {name}: scheduler_ns_per_work.{key} must be a "
                            f"number of ns >= 0, not {value!r}")
    return MappingProxyType({str(k): float(v) for k, v in prices.items()})


#: the processor block's plain numbers (the rest are tables, levels, flags and text)
_PROCESSOR_NUMBERS = tuple(f.name for f in dataclasses.fields(TwinProcessorBlock)
                           if f.type in ("float", "float | None", float))


def _processor_block(device: str, index: int, conf: TwinProcessorConf) -> TwinProcessorBlock:
    where = f"{device} processor {conf.name}"
    block = as_block(TwinProcessorBlock, conf.twin, where)
    if block.calibration is not None:
        block.calibration = as_block(CalibrationConf, block.calibration, f"{where} calibration")
    if block.concurrency is not None:
        block.concurrency = as_block(ConcurrencyConf, block.concurrency, f"{where} concurrency")
    checked(block, where, f"device.processors.{index}.twin")
    return block


def _processor_spec(device: str, conf: TwinProcessorConf, block: TwinProcessorBlock
                    ) -> TwinProcessorSpec:
    where = f"{device} processor {conf.name}"
    spec = TwinProcessorSpec(
        name=conf.name, kind=conf.kind, **floats(block, _PROCESSOR_NUMBERS),
        peak_gflops=number_table(where, "peak_gflops", block.peak_gflops, set(DTYPES), set()),
        efficiency=number_table(where, "efficiency", block.efficiency, set(OP_CLASSES),
                          set(OP_CLASSES)),
        freqs_mhz=tuple(sorted(float(f) for f in block.freqs_mhz)),
        run_as=_run_as(where, block.run_as), weight_copy=bool(block.weight_copy),
        calibration=_calibration(block.calibration), provenance=strings(where, block.provenance),
        measured_ns=_measured(where, block.measured_us),
        concurrency=_concurrency(where, block.concurrency))
    _check_voltage(where, spec)
    return spec


def _run_as(where: str, raw: Any) -> dict[str, str]:
    table = strings(where, raw)
    check_keys(f"{where} run_as", table, set(DTYPES), set())
    bad = [v for v in table.values() if v not in DTYPES]
    if bad:
        raise UserError(f"twin: {where}: run_as target {bad[0]!r} is not one of {DTYPES}")
    return table


def _calibration(conf: CalibrationConf | None) -> Calibration | None:
    if conf is None:
        return None
    return Calibration(str(conf.model), float(conf.target_ms), bool(conf.int8), str(conf.source))


def measured_key(model: str, ops: Iterable[int]) -> str:
    """The ``measured_us`` key of a subgraph: ``"<model>:<op ranges>"``."""
    return f"{model}:{op_ranges(ops)}"


def parse_measured_key(key: str) -> tuple[str, frozenset[int]]:
    """``"m:0-2,5"`` -> ``("m", {0, 1, 2, 5})``; ValueError when it is not one."""
    model, sep, ranges = key.rpartition(":")
    if not sep or not model or not ranges:
        raise ValueError(key)
    ops: set[int] = set()
    for part in ranges.split(","):
        lo, _, hi = part.partition("-")
        first, last = int(lo), int(hi or lo)
        if first < 0 or last < first:
            raise ValueError(key)
        ops.update(range(first, last + 1))
    return model, frozenset(ops)


def _measured(where: str, raw: Any) -> dict[tuple[str, frozenset[int]], float]:
    table = as_mapping(raw, f"{where} measured_us")
    out = {}
    for key, value in table.items():
        try:
            parsed = parse_measured_key(key)
        except ValueError:
            raise UserError(f"twin: {where}: measured_us key {key!r} is not "
                            "'<model>:<op ranges>' (e.g. 'mobilenet_v2:0-11,14')") from None
        out[parsed] = float(value) * 1000.0
    return out


def _concurrency(where: str, conf: ConcurrencyConf | None) -> tuple[tuple[int, float], ...]:
    """One model's copies at once and each copy's latency (their ranges checked by the
    schema) -> (copies, latency over one alone) pairs."""
    if conf is None:
        return ()
    copies, ms = list(conf.copies), [float(v) for v in conf.latency_ms]
    if len(copies) != len(ms) or len(copies) < 2 or copies[0] != 1 or any(
            k <= j for j, k in itertools.pairwise(copies)):
        raise UserError(f"twin: {where}: concurrency needs copies ascending from 1 (at least "
                        f"two) and one latency_ms each, got {copies!r} and {ms!r}")
    return tuple((int(k), v / ms[0]) for k, v in zip(copies, ms, strict=True))


def _check_voltage(where: str, spec: TwinProcessorSpec) -> None:
    if spec.v_min_v > spec.v_max_v:
        raise UserError(f"twin: {where}: v_min_v {spec.v_min_v} exceeds v_max_v {spec.v_max_v}")


def calibration_fact(p: TwinProcessorSpec) -> object:
    """What a processor's calibration was, as a run's device facts record it."""
    c = p.calibration
    if c is None:
        return None
    return {"model": c.model, "target_ms": c.target_ms, "int8": c.int8, "source": c.source}
