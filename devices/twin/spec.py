"""Typed twin constants, parsed and validated from the ``twin:`` blocks of a device config.

A device YAML (``conf/device/*.yaml``) carries one ``twin:`` block per processor and one for
the device (schemas: :mod:`devices.twin.config`, so Hydra rejects unknown keys and wrong types
at composition). A block may also be a plain mapping (tests build them so). This module turns
each into a frozen dataclass once (the defaults are the schema's, :func:`_defaults`: a
value such as ``throttle_c`` is written only in :mod:`devices.twin.config`), rejecting what
the twin cannot use: an unknown key (a
typo), a missing key, a non-positive throughput or a fraction outside (0, 1]. Every
rejection is a :class:`~harness.seams.errors.UserError` with a one-line message naming the
processor and the bad value.

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
from typing import Any

from omegaconf import MISSING

from devices.twin.config import (
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

_PROCESSOR_KEYS = ({f.name for f in dataclasses.fields(TwinProcessorSpec)} - {"name", "kind",
                                                                            "measured_ns"}
                   | {"measured_us"})
_DEVICE_KEYS = {f.name for f in dataclasses.fields(TwinDeviceSpec)}


def parse(conf: TwinDeviceConf) -> TwinSpec:
    """Validate the ``twin:`` blocks of ``conf``."""
    device = _parse_device(conf.name, {**_defaults(TwinDeviceBlock),
                                       **_mapping(conf.twin, f"device {conf.name}")})
    procs = tuple(_parse_processor(conf.name, p) for p in conf.processors)
    if not procs:
        raise UserError(f"twin {conf.name}: no processors")
    return TwinSpec(conf.name, conf.description, device, procs)


def _mapping(value: Any, where: str) -> dict[str, Any]:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = {k: v for k, v in dataclasses.asdict(value).items() if v is not None}
    if value is None:
        raise UserError(f"twin: {where} has no twin: block")
    if not isinstance(value, Mapping):
        raise UserError(f"twin: {where} twin: must be a mapping, got {value!r}")
    return {str(k): v for k, v in value.items()}


def _check_keys(where: str, raw: Mapping[str, Any], allowed: set[str], required: set[str]) -> None:
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise UserError(f"twin: {where}: unknown key {unknown[0]!r} (allowed: {sorted(allowed)})")
    missing = sorted(required - set(raw))
    if missing:
        raise UserError(f"twin: {where}: missing key {missing[0]!r}")


def _required(cls: type) -> set[str]:
    """The schema's fields without a default."""
    return {f.name for f in dataclasses.fields(cls)} - set(_defaults(cls))


def _positive(where: str, key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise UserError(f"twin: {where}: {key} must be a positive number, got {value!r}")
    return float(value)


def _fraction(where: str, key: str, value: Any) -> float:
    x = _positive(where, key, value)
    if x > 1.0:
        raise UserError(f"twin: {where}: {key} must be in (0, 1], got {value!r}")
    return x


def _nonneg(where: str, key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise UserError(f"twin: {where}: {key} must be a number >= 0, got {value!r}")
    return float(value)


def _number(where: str, key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise UserError(f"twin: {where}: {key} must be a number, got {value!r}")
    return float(value)


#: device constants that may be 0 (a cost or a limit that is switched off)
_DEVICE_NONNEG = ("noise_sigma", "transfer_fixed_us", "copy_fixed_us", "scheduler_fixed_us",
                  "scheduler_ns_per_op", "memory_budget_mb", "interpreter_overhead_kb",
                  "rest_of_phone_w")
def _defaults(cls: type) -> dict[str, Any]:
    """The schema's defaults (the only place they are written), MISSING ones left out."""
    out = {}
    for f in dataclasses.fields(cls):
        value = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        if value is not dataclasses.MISSING and value != MISSING:
            out[f.name] = value
    return out


def _parse_device(name: str, raw: dict[str, Any]) -> TwinDeviceSpec:
    where = f"device {name}"
    _check_keys(where, raw, _DEVICE_KEYS, _required(TwinDeviceBlock))
    values: dict[str, Any] = {"provenance": _strings(where, raw.get("provenance", {})),
                              "mechanisms": _mechanisms(where, raw.get("mechanisms", {}))}
    values["ambient_c"] = _number(where, "ambient_c", raw["ambient_c"])
    for key in _DEVICE_NONNEG:
        values[key] = _nonneg(where, key, raw[key])
    for key in _DEVICE_KEYS - set(values):
        values[key] = _positive(where, key, raw.get(key))
    return TwinDeviceSpec(**values)


def _mechanisms(where: str, raw: Any) -> Mechanisms:
    table = _mapping(raw, f"{where} mechanisms")
    names = {f.name for f in dataclasses.fields(Mechanisms)}
    _check_keys(f"{where} mechanisms", table, names, set())
    bad = [k for k, v in table.items() if not isinstance(v, bool)]
    if bad:
        raise UserError(f"twin: {where}: mechanisms.{bad[0]} must be true or false, got "
                        f"{table[bad[0]]!r}")
    return Mechanisms(**table)


def _parse_processor(device: str, conf: TwinProcessorConf) -> TwinProcessorSpec:
    where = f"{device} processor {conf.name}"
    raw = {**_defaults(TwinProcessorBlock), **_mapping(conf.twin, where)}
    _check_keys(where, raw, _PROCESSOR_KEYS, _required(TwinProcessorBlock))
    values: dict[str, Any] = {
        "peak_gflops": _peaks(where, raw["peak_gflops"]),
        "efficiency": _efficiency(where, raw["efficiency"]),
        "bandwidth_share": _fraction(where, "bandwidth_share", raw["bandwidth_share"]),
        "freqs_mhz": _levels(where, raw["freqs_mhz"]),
        "run_as": _run_as(where, raw.get("run_as", {})),
        "calibration": _calibration(where, raw.get("calibration")),
        "provenance": _strings(where, raw.get("provenance", {})),
        "throttle_c": _number(where, "throttle_c", raw["throttle_c"]),
        "hysteresis_c": _nonneg(where, "hysteresis_c", raw["hysteresis_c"]),
        "weight_copy": bool(raw["weight_copy"]),
        "measured_ns": _measured(where, raw.get("measured_us", {})),
        "concurrency": _concurrency(where, raw.get("concurrency")),
    }
    for key in ("invoke_floor_us", "io_copy_gbps", "critical_c"):
        values[key] = _nonneg(where, key, raw[key])
    for key in ("invoke_overhead_us", "dispatch_overhead_us", "static_w"):
        values[key] = _nonneg(where, key, raw[key])
    for key in _PROCESSOR_KEYS - set(values) - {"measured_us"}:
        values[key] = _positive(where, key, raw[key])
    spec = TwinProcessorSpec(name=conf.name, kind=conf.kind, **values)
    _check_voltage(where, spec)
    return spec


def _peaks(where: str, raw: Any) -> dict[str, float]:
    table = _mapping(raw, f"{where} peak_gflops")
    _check_keys(f"{where} peak_gflops", table, set(DTYPES), set())
    if not table:
        raise UserError(f"twin: {where}: peak_gflops needs at least one dtype")
    return {k: _positive(where, f"peak_gflops.{k}", v) for k, v in table.items()}


def _efficiency(where: str, raw: Any) -> dict[str, float]:
    table = _mapping(raw, f"{where} efficiency")
    _check_keys(f"{where} efficiency", table, set(OP_CLASSES), set(OP_CLASSES))
    return {k: _fraction(where, f"efficiency.{k}", v) for k, v in table.items()}


def _levels(where: str, raw: Any) -> tuple[float, ...]:
    if not isinstance(raw, list | tuple) or not raw:
        raise UserError(f"twin: {where}: freqs_mhz must be a non-empty list, got {raw!r}")
    return tuple(sorted(_positive(where, "freqs_mhz", f) for f in raw))


def _run_as(where: str, raw: Any) -> dict[str, str]:
    table = _strings(where, raw)
    _check_keys(f"{where} run_as", table, set(DTYPES), set())
    bad = [v for v in table.values() if v not in DTYPES]
    if bad:
        raise UserError(f"twin: {where}: run_as target {bad[0]!r} is not one of {DTYPES}")
    return table


def _strings(where: str, raw: Any) -> dict[str, str]:
    if not isinstance(raw, Mapping):
        raise UserError(f"twin: {where}: expected a mapping, got {raw!r}")
    return {str(k): str(v) for k, v in raw.items()}


def _calibration(where: str, raw: Any) -> Calibration | None:
    if raw is None:
        return None
    table = _mapping(raw, f"{where} calibration")
    keys = {f.name for f in dataclasses.fields(Calibration)}
    _check_keys(f"{where} calibration", table, keys, {"model", "target_ms"})
    target = _positive(where, "calibration.target_ms", table["target_ms"])
    return Calibration(str(table["model"]), target, bool(table.get("int8", False)),
                       str(table.get("source", "")))


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
    table = _mapping(raw, f"{where} measured_us")
    out = {}
    for key, value in table.items():
        try:
            parsed = parse_measured_key(key)
        except ValueError:
            raise UserError(f"twin: {where}: measured_us key {key!r} is not "
                            "'<model>:<op ranges>' (e.g. 'mobilenet_v2:0-11,14')") from None
        out[parsed] = _positive(where, f"measured_us[{key!r}]", value) * 1000.0
    return out


def _concurrency(where: str, raw: Any) -> tuple[tuple[int, float], ...]:
    """``{copies: [1, ...], latency_ms: [...]}`` (one model's copies at once, each copy's
    latency) -> (copies, latency over one alone) pairs."""
    if raw is None:
        return ()
    table = _mapping(raw, f"{where} concurrency")
    _check_keys(f"{where} concurrency", table, {"copies", "latency_ms", "source"},
                {"copies", "latency_ms"})
    copies, ms = list(table["copies"]), list(table["latency_ms"])
    if len(copies) != len(ms) or len(copies) < 2 or copies[0] != 1 or any(
            not isinstance(k, int) or k <= j for j, k in itertools.pairwise(copies)):
        raise UserError(f"twin: {where}: concurrency needs copies ascending from 1 (at least "
                        f"two) and one latency_ms each, got {copies!r} and {ms!r}")
    alone = _positive(where, "concurrency.latency_ms", ms[0])
    return tuple((int(k), _positive(where, "concurrency.latency_ms", v) / alone)
                 for k, v in zip(copies, ms, strict=True))


def _check_voltage(where: str, spec: TwinProcessorSpec) -> None:
    if spec.v_min_v > spec.v_max_v:
        raise UserError(f"twin: {where}: v_min_v {spec.v_min_v} exceeds v_max_v {spec.v_max_v}")
