"""The ``threads`` baseline's config schema: how each model's interpreter runs."""

from __future__ import annotations

from dataclasses import dataclass, field

from hydra.core.config_store import ConfigStore

from harness.config.schema import BaselineConf
from harness.seams.fields import NONNEG, at_least, spec

#: the ``_target_`` of the baseline (its class declares ``Runner.THREADS``, which the host
#: device runs)
TARGET = "baselines.threads.ThreadsBaseline"


@dataclass
class ThreadsConf(BaselineConf):
    _target_: str = TARGET
    # LiteRT kernels of every model's interpreter: xnnpack | builtin | reference
    kernel: str = "xnnpack"
    threads: int = field(default=1, metadata=spec(
        "", at_least(1), "interpreter threads (num_threads) of each model's interpreter"))
    # core ids the models' threads may run on (the OS shares them); null: every core of
    # the host device's processors
    cores: list[int] | None = field(default=None, metadata=spec(
        "", NONNEG, "core ids the models' threads may run on"))


def register() -> None:
    ConfigStore.instance().store(group="schema/baseline", name="threads", node=ThreadsConf)
