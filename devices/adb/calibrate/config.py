"""What a calibration measures on a phone: each slice alone (:class:`ProfileConf`) and one
heat-up trace (:class:`HeatConf`), the ``profile`` and ``heat`` nodes of
``conf/calibrate.yaml``."""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.seams.fields import NONNEG, POS, at_least, spec


@dataclass
class ProfileConf:
    # each slice alone: warm-up and measured seconds of its benchmark_model run
    warmup_s: float = field(default=0.5, metadata=spec(
        "s", NONNEG, "warm-up of each slice's benchmark_model run"))
    duration_s: float = field(default=2.0, metadata=spec(
        "s", POS, "measured seconds of each slice's run"))
    # refuse to profile more slices than this (a big model at size 1 has thousands)
    max_slices: int = field(default=400, metadata=spec(
        "", at_least(1), "refuse to profile more slices than this"))


@dataclass
class HeatConf:
    # the processor the heat-up trace loads (its thermal zone is fitted)
    processor: str = "gpu"
    # the model it runs back to back; empty: the scenario's first
    model: str = ""
    # how long, s (a few thermal time constants)
    duration_s: float = field(default=60.0, metadata=spec("s", POS, "length of the heat-up trace"))
