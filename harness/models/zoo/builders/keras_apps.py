"""Models that Keras ships (``keras.applications``), built with ``weights=None``.

MobileNetV1 (Howard et al. 2017) and MobileNetV2 (Sandler et al. 2018) at 224×224, width 1.0;
EfficientNet-B0 at 224×224 and EfficientNet-B4 at 380×380 (Tan & Le 2019). All keep their
1000-class classifier top.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import keras

from harness.models.zoo.builders._common import input_layer, seed_all, to_tflite


def _build(app: Callable[..., Any], shape: tuple[int, int, int], seed: int) -> bytes:
    seed_all(seed)
    model = app(input_tensor=input_layer(shape), weights=None, include_top=True)
    return to_tflite(model)


def mobilenet_v1(seed: int = 0) -> bytes:
    return _build(keras.applications.MobileNet, (224, 224, 3), seed)


def mobilenet_v2(seed: int = 0) -> bytes:
    return _build(keras.applications.MobileNetV2, (224, 224, 3), seed)


def efficientnet_b0(seed: int = 0) -> bytes:
    return _build(keras.applications.EfficientNetB0, (224, 224, 3), seed)


def efficientnet_b4(seed: int = 0) -> bytes:
    return _build(keras.applications.EfficientNetB4, (380, 380, 3), seed)
