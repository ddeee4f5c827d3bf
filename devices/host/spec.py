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

Device ``host:`` keys: those of :class:`~devices.host.config.HostSettingsConf`, which the
device uses as they are. Every range is the one a field declares in its metadata
(:func:`harness.seams.fields.check`); this module adds what a schema cannot say: kernel names
and cores this machine has.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from devices.host.config import (
    HostDeviceConf,
    HostProcessorBlock,
    HostProcessorConf,
    HostSettingsConf,
    Kernel,
)
from devices.processors import SupportRules
from harness.seams.errors import UserError
from harness.seams.fields import check
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


_PROCESSOR_KEYS = tuple(f.name for f in fields(HostProcessorBlock))


def available_cores() -> tuple[int, ...]:
    """Core ids this process may run on."""
    return tuple(sorted(os.sched_getaffinity(0)))


def parse_device(
    conf: HostDeviceConf,
) -> tuple[HostSettingsConf, tuple[HostProcessorSpec, ...]]:
    """Device-wide settings and one :class:`HostProcessorSpec` per processor of ``conf``."""
    if not conf.processors:
        raise UserError(f"host device {conf.name!r} has no processors")
    names = [p.name for p in conf.processors]
    if len(set(names)) != len(names):
        raise UserError(f"host device {conf.name!r}: duplicate processor names in {names}")
    cores = available_cores()
    return parse_settings(conf.host), tuple(
        parse_processor(p, cores, f"device.processors.{i}.host")
        for i, p in enumerate(conf.processors))


def parse_settings(raw: Any) -> HostSettingsConf:
    """The device's ``host:`` settings, held to their fields' declared ranges; a plain
    mapping (as tests write one) fills the schema's dataclass, defaults and all."""
    settings = raw if isinstance(raw, HostSettingsConf) else HostSettingsConf(
        **_mapping(raw, "device host settings", [f.name for f in fields(HostSettingsConf)]))
    check(settings, "device.host")
    return settings


def parse_processor(conf: HostProcessorConf, cores: Sequence[int],
                    path: str = "host") -> HostProcessorSpec:
    """One processor's ``host:`` block, held to its fields' declared ranges and to the cores
    this machine has; ``path`` names the block in errors."""
    where = f"processor {conf.name!r}"
    block = conf.host if isinstance(conf.host, HostProcessorBlock) else HostProcessorBlock(
        **_mapping(conf.host, f"{where} host settings", _PROCESSOR_KEYS))
    check(block, path)
    return HostProcessorSpec(
        name=conf.name,
        kind=conf.kind,
        support=conf.support,
        kernel=parse_kernel(block.kernel, where),
        threads=block.threads,
        cores=parse_cores(block.cores, cores, where),
    )


def _mapping(raw: Any, what: str, allowed: Sequence[str]) -> Mapping[str, Any]:
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
