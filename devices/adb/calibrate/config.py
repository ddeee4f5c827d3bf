"""What a calibration measures on a phone: each slice alone (:class:`ProfileConf`) and one
heat-up trace (:class:`HeatConf`), the ``profile`` and ``heat`` nodes of
``conf/calibrate.yaml``."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class ProfileConf:
    # each slice alone: warm-up and measured seconds of its benchmark_model run
    warmup_s: float = 0.5
    duration_s: float = 2.0
    # refuse to profile more slices than this (a big model at size 1 has thousands)
    max_slices: int = 400


@dataclass
class HeatConf:
    # the processor the heat-up trace loads (its thermal zone is fitted)
    processor: str = "gpu"
    # the model it runs back to back; empty: the scenario's first
    model: str = ""
    # how long, s (a few thermal time constants)
    duration_s: float = 60.0
