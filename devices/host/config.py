"""The host's config schemas: what ``conf/device/host.yaml`` holds.

Each processor is a worker thread with its LiteRT kernels, interpreter threads and cores
(:class:`HostProcessorBlock`); the device has run settings (:class:`HostSettingsConf`).
:mod:`devices.host.spec` validates the values against this machine (cores that exist) and
turns them into frozen specs. Hydra rejects unknown keys and wrong types at composition,
because the YAML's defaults list names ``/schema/device/host``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from hydra.core.config_store import ConfigStore

from devices.processors import ProcessorConf
from harness.config.schema import DeviceConf


class Kernel(Enum):
    """Which LiteRT kernels a processor's interpreters use."""

    #: default resolver: built-in kernels with the XNNPACK delegate applied
    xnnpack = "xnnpack"
    #: ``OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES``: optimised kernels, no XNNPACK
    builtin = "builtin"
    #: ``OpResolverType.BUILTIN_REF``: reference kernels (slow, runs everything)
    reference = "reference"


@dataclass
class HostProcessorBlock:
    # xnnpack | builtin | reference (reference kernels are ~37x slower than XNNPACK)
    kernel: Kernel = Kernel.xnnpack
    # interpreter threads (num_threads)
    threads: int = 1
    # core ids the worker is pinned to; null: every core this process may use
    cores: list[int] | None = None


@dataclass
class HostProcessorConf(ProcessorConf):
    host: HostProcessorBlock | None = None


@dataclass
class HostSettingsConf:
    # timed runs per profiled subgraph (the median is reported)
    profile_runs: int = 5
    # untimed runs before the timed ones
    warmup_runs: int = 2
    # seed of the random model inputs
    seed: int = 0
    # distinct input frames per model input; request r uses frame r % input_frames
    input_frames: int = 8
    # load() builds at most this many slice interpreters; the rest are built on first use
    eager_build_limit: int = 256
    # finished jobs whose model outputs stay readable through HostDevice.outputs
    keep_outputs: int = 64
    # how long close() waits for each worker thread, seconds
    join_timeout_s: float = 5.0
    # keep subgraph profiles on disk and reuse them (devices/host/profiles.py)
    profile_cache: bool = True


@dataclass
class HostDeviceConf(DeviceConf):
    _target_: str = "devices.host.HostDevice"
    processors: list[HostProcessorConf] = field(default_factory=list)
    host: HostSettingsConf | None = None


def register() -> None:
    ConfigStore.instance().store(group="schema/device", name="host", node=HostDeviceConf)
