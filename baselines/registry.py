"""Policies by name: ``tflite``, ``band`` and ``adms``, each built from its config.

The harness turns ``run: [tflite, band, adms]`` into policy objects here, so the runtime
never imports a baseline directly. Imports are lazy: a run of one baseline loads only it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from harness.config import BaselinesConf, DeviceConf
from harness.errors import UserError
from harness.plan import ModelPlan, Subgraph
from harness.runtime.api import Policy

#: the names :func:`make_policy` accepts
POLICY_NAMES = ("tflite", "band", "adms")


def make_policy(
    name: str,
    conf: BaselinesConf,
    profile_fn: Callable[[ModelPlan, Subgraph], int],
    device_name: str,
    cache_dir: Path | None = None,
    device: DeviceConf | None = None,
) -> Policy:
    """The policy called ``name``; ``profile_fn`` and ``cache_dir`` serve ADMS's tuner;
    ``device`` gives vanilla TFLite its delegates' partition limits."""
    if name == "tflite":
        return _tflite(conf, device)
    if name == "band":
        from baselines.band.policy import BandPolicy

        window = conf.band.schedule_window_size
        return BandPolicy(conf.band, schedule_window=window if window > 0 else None)
    if name == "adms":
        from adms.policy import AdmsPolicy

        return AdmsPolicy(conf.adms, profile_fn, device_name, cache_dir)
    raise UserError(f"unknown baseline {name!r}; allowed: {', '.join(POLICY_NAMES)}")


def _tflite(conf: BaselinesConf, device: DeviceConf | None) -> Policy:
    """Vanilla TFLite, with each delegate's partition limits when the device is known."""
    from baselines.tflite import TflitePolicy
    from harness.opsupport import max_partitions, min_partition_ops

    if device is None:
        return TflitePolicy(conf.tflite)
    cpu = next((p.name for p in device.processors if p.support.value == "all"), "cpu")
    limits = {p.name: m for p in device.processors if (m := max_partitions(p)) is not None}
    minimum = {p.name: min_partition_ops(p) for p in device.processors}
    return TflitePolicy(conf.tflite, cpu, limits, minimum)
