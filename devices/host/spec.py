"""Typed host settings, parsed once from the ``host:`` blocks of a device config.

A ``host`` device emulates a phone's heterogeneous processors on this machine's cores. Each
processor carries a ``host:`` block that says how its worker runs LiteRT; the device itself
carries a ``host:`` block with device-wide settings (schemas: :mod:`devices.host.config`; a
block may also be a plain mapping, as tests build them). This module validates them and
turns them into frozen values. Anything a user can get wrong (an unknown key, a kernel name,
a core the machine lacks) is a one-line :class:`~harness.seams.errors.UserError`.

Processor ``host:`` keys:

* ``kernel``: ``xnnpack`` (LiteRT's default resolver, XNNPACK applied), ``builtin``
  (optimised built-in kernels, no default delegate) or ``reference`` (reference kernels);
* ``threads``: the interpreter's ``num_threads``;
* ``cores``: core ids the worker thread (and the interpreter threads it starts) is pinned to;
  default: every core this process may use.

Device ``host:`` keys: ``profile_runs``, ``warmup_runs``, ``seed``, ``input_frames``,
``eager_build_limit``, ``keep_outputs``, ``join_timeout_s``, ``profile_cache`` (see
:class:`HostSettings`).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from devices.host.config import HostDeviceConf, HostProcessorConf, Kernel
from devices.processors import SupportRules
from harness.seams.errors import UserError
from harness.seams.plan import Processor, ProcessorKind


@dataclass(frozen=True, slots=True)
class HostProcessorSpec:
    """One host processor: a worker thread with its kernels, threads and cores."""

    name: str
    kind: ProcessorKind
    support: SupportRules
    kernel: Kernel
    threads: int
    cores: tuple[int, ...]

    @property
    def processor(self) -> Processor:
        return Processor(self.name, self.kind)


@dataclass(frozen=True, slots=True)
class HostSettings:
    """Device-wide host settings."""

    #: timed runs per profiled subgraph (the median is reported)
    profile_runs: int = 5
    #: untimed runs before the timed ones
    warmup_runs: int = 2
    #: seed of the random model inputs
    seed: int = 0
    #: distinct input frames per model input; request r uses frame r % input_frames
    input_frames: int = 8
    #: load() builds at most this many slice interpreters; the rest are built on first use
    eager_build_limit: int = 256
    #: finished jobs whose model outputs stay readable through ``HostDevice.outputs``
    keep_outputs: int = 64
    #: how long close() waits for each worker thread, seconds
    join_timeout_s: float = 5.0
    #: keep subgraph profiles on disk and reuse them (:mod:`devices.host.profiles`)
    profile_cache: bool = True


_PROCESSOR_KEYS = ("kernel", "threads", "cores")
_MINIMUM = {"profile_runs": 1, "input_frames": 1}
_FLAGS = ("profile_cache",)


def available_cores() -> tuple[int, ...]:
    """Core ids this process may run on."""
    return tuple(sorted(os.sched_getaffinity(0)))


def parse_device(
    conf: HostDeviceConf,
) -> tuple[HostSettings, tuple[HostProcessorSpec, ...]]:
    """Device-wide settings and one :class:`HostProcessorSpec` per processor of ``conf``."""
    if not conf.processors:
        raise UserError(f"host device {conf.name!r} has no processors")
    names = [p.name for p in conf.processors]
    if len(set(names)) != len(names):
        raise UserError(f"host device {conf.name!r}: duplicate processor names in {names}")
    cores = available_cores()
    return parse_settings(conf.host), tuple(parse_processor(p, cores) for p in conf.processors)


def parse_settings(raw: Any) -> HostSettings:
    """Validate the device's ``host:`` mapping."""
    values = _mapping(raw, "device host settings", [f.name for f in fields(HostSettings)])
    out: dict[str, Any] = {}
    for f in fields(HostSettings):
        if f.name not in values:
            continue
        if f.name in _FLAGS:
            out[f.name] = _flag(values[f.name], f.name)
        else:
            kind = float if f.name.endswith("_s") else int
            out[f.name] = parse_number(values[f.name], f.name, kind, _MINIMUM.get(f.name, 0))
    return HostSettings(**out)


def parse_processor(conf: HostProcessorConf, cores: Sequence[int]) -> HostProcessorSpec:
    """Validate one processor's ``host:`` mapping against the cores this machine has."""
    where = f"processor {conf.name!r}"
    values = _mapping(conf.host, f"{where} host settings", _PROCESSOR_KEYS)
    return HostProcessorSpec(
        name=conf.name,
        kind=conf.kind,
        support=conf.support,
        kernel=parse_kernel(values.get("kernel", "xnnpack"), where),
        threads=parse_number(values.get("threads", 1), f"{where} threads", int, 1),
        cores=parse_cores(values.get("cores"), cores, where),
    )


def _mapping(raw: Any, what: str, allowed: Sequence[str]) -> Mapping[str, Any]:
    if dataclasses.is_dataclass(raw) and not isinstance(raw, type):
        raw = {k: v for k, v in dataclasses.asdict(raw).items() if v is not None}
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise UserError(f"{what} must be a mapping, got {raw!r}")
    unknown = sorted(str(k) for k in raw if k not in allowed)
    if unknown:
        raise UserError(f"{what}: unknown key(s) {unknown}; allowed: {list(allowed)}")
    return raw


def parse_kernel(value: Any, where: str) -> Kernel:
    name = value.name if isinstance(value, Kernel) else str(value)
    try:
        return Kernel[name]
    except KeyError:
        allowed = ", ".join(k.name for k in Kernel)
        raise UserError(f"{where}: unknown kernel {name!r}; allowed: {allowed}") from None


def parse_number(value: Any, what: str, kind: type, minimum: float) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise UserError(f"{what} must be a number, got {value!r}")
    if kind is int and not float(value).is_integer():
        raise UserError(f"{what} must be an integer, got {value!r}")
    if value < minimum:
        raise UserError(f"{what} must be >= {minimum}, got {value!r}")
    return kind(value)


def _flag(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise UserError(f"{what} must be true or false, got {value!r}")
    return value


def parse_cores(value: Any, available: Sequence[int], where: str) -> tuple[int, ...]:
    if value is None:
        return tuple(available)
    if isinstance(value, int) and not isinstance(value, bool):
        value = [value]
    if isinstance(value, str | bytes) or not isinstance(value, Sequence) or not value:
        raise UserError(f"{where}: cores must be a non-empty list of core ids, got {value!r}")
    for core in value:
        if core not in available:
            listed = ", ".join(map(str, available))
            raise UserError(f"{where}: core {core!r} is not available (available cores: {listed})")
    return tuple(sorted({int(c) for c in value}))
