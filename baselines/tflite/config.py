"""Vanilla TFLite's config schema: where each model runs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum

from hydra.core.config_store import ConfigStore

from harness.config.schema import BaselineConf


class Placement(Enum):
    #: every model on the processor its single-model profiles make best for the frame: the
    #: assignment of whole models to processors with the shortest per-frame busy time on the
    #: busiest processor (one model per processor where that is best, as the paper's Figure 10
    #: shows TFLite running); ``processor_map`` pins models
    best = "best"
    #: ``processor_map``, else ``default_processor``, for every model
    fixed = "fixed"


@dataclass
class TfliteConf(BaselineConf):
    _target_: str = "baselines.tflite.TflitePolicy"
    placement: Placement = Placement.best
    # processor for some models (pinned under placement=best; used as given under fixed)
    processor_map: dict[str, str] = field(default_factory=dict)
    # processor of every model not in processor_map, under placement=fixed
    default_processor: str = "gpu"
    # under placement=fixed, processors for quantised (8-bit) models, in preference order:
    # the first one the device has runs every quantised model not in processor_map (apps
    # hand int8 models to NNAPI, or to the Hexagon delegate on a Qualcomm DSP); empty, or
    # none on the device: quantised models go to default_processor like the others
    quantized_processors: list[str] = field(default_factory=list)
    # each model's interpreter on a thread of its own, as an app runs them: models that share
    # a processor run concurrently (the device shares it); false: one at a time per processor
    concurrent: bool = True

    def fixed_processor(self, model: str, quantized: bool, processors: Sequence[str]) -> str:
        """The processor ``model`` is delegated to under ``placement: fixed``:
        ``processor_map``, else (a quantised model) the first of ``quantized_processors`` on
        the device, else ``default_processor`` (the policy's rule, and the stock tool's on a
        phone, which asks the config it is given: a device imports no baseline)."""
        if model in self.processor_map:
            return self.processor_map[model]
        if quantized:
            for name in self.quantized_processors:
                if name in processors:
                    return name
        return self.default_processor


def register() -> None:
    ConfigStore.instance().store(group="schema/baseline", name="tflite", node=TfliteConf)
