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
from harness.seams.fields import ANY, NONNEG, POS, SEED, at_least, spec


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
    threads: int = field(default=1, metadata=spec(
        "", at_least(1), "interpreter threads (num_threads)"))
    # core ids the worker is pinned to; null: every core this process may use
    cores: list[int] | None = field(default=None, metadata=spec(
        "", NONNEG, "core ids the worker is pinned to", non_empty=True))


@dataclass
class HostProcessorConf(ProcessorConf):
    host: HostProcessorBlock | None = None


@dataclass
class HostSettingsConf:
    # timed runs per profiled subgraph (the median is reported)
    profile_runs: int = field(default=5, metadata=spec(
        "", at_least(1), "timed runs per profiled subgraph"))
    warmup_runs: int = field(default=2, metadata=spec("", NONNEG, "untimed runs before them"))
    seed: int = field(default=0, metadata=spec("", SEED, "seed of the random model inputs"))
    # distinct input frames per model input; request r uses frame r % input_frames
    input_frames: int = field(default=8, metadata=spec(
        "", at_least(1), "distinct input frames per model input"))
    # load() builds at most this many slice interpreters; the rest are built on first use
    eager_build_limit: int = field(default=256, metadata=spec(
        "", NONNEG, "interpreters built up front"))
    keep_outputs: int = field(default=64, metadata=spec(
        "", NONNEG, "finished jobs whose outputs stay readable"))
    join_timeout_s: float = field(default=5.0, metadata=spec(
        "s", POS, "how long close() waits for each worker"))
    # reuse subgraph profiles measured before, kept under <zoo_cache>/slices/profiles and keyed
    # by model sha256, op set, kernel, threads, cores, run counts, seed, LiteRT version and CPU
    # model (devices/host/profiles.py); only clean measurements are stored (the worker thread
    # had its core >= 90% of the time); false measures every subgraph afresh
    profile_cache: bool = True


@dataclass
class HostDeviceConf(DeviceConf):
    _target_: str = "devices.host.HostDevice"
    processors: list[HostProcessorConf] = field(
        default_factory=list, metadata=spec("", ANY, "the processors", non_empty=True))
    # device-wide settings; every one has a default, so a YAML may leave the block out
    host: HostSettingsConf = field(default_factory=HostSettingsConf)


def register() -> None:
    ConfigStore.instance().store(group="schema/device", name="host", node=HostDeviceConf)
