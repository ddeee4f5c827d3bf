"""A MediaPipe-like hand-landmark regressor (after Zhang et al. 2020, "MediaPipe Hands"),
224×224×3 → 21 landmarks × (x, y, z), hand presence, handedness and 21 world landmarks.

MediaPipe publishes the trained model but not its layer recipe; this is a MobileNetV2-style
network with the op mix the ADMS paper's Table I gives for HandLmk (about as many ADDs as
depthwise convolutions, twice as many CONV_2D): a conv 3×3/2 stem and inverted-residual units
(expansion 4, depthwise 5×5 after the first stage), every unit residual — a unit that changes
the resolution or width takes a 2×2 max-pooled, 1×1-projected shortcut — down to 7×7×192,
followed by four 7×7 "valid" convolution heads (63 landmarks, 1 presence logit, 1 handedness
logit, 63 world coordinates) with sigmoid on the two scores.
"""

from __future__ import annotations

import keras

from harness.models.zoo.builders._common import (
    Tensor,
    conv_bn,
    dw_bn,
    input_layer,
    seed_all,
    to_tflite,
)

layers = keras.layers

#: (channels, units, first stride, depthwise kernel) per stage; ends at 7×7 for 224×224 input
STAGES = ((24, 2, 1, 3), (32, 3, 2, 5), (48, 4, 2, 5), (96, 4, 2, 5), (192, 4, 2, 5))
EXPANSION = 4


def _unit(x: Tensor, filters: int, strides: int, kernel: int) -> Tensor:
    in_ch = int(x.shape[-1])
    shortcut = x
    if strides > 1:
        shortcut = layers.MaxPooling2D(strides, strides)(shortcut)
    if strides > 1 or in_ch != filters:
        shortcut = conv_bn(shortcut, filters, 1, act=None)
    y = conv_bn(x, in_ch * EXPANSION, 1, act="relu6")
    y = dw_bn(y, kernel, strides, act="relu6")
    y = conv_bn(y, filters, 1, act=None)
    return layers.Add()([shortcut, y])


def _head(x: Tensor, units: int, name: str, act: str | None = None) -> Tensor:
    y = layers.Conv2D(units, int(x.shape[1]), padding="valid", activation=act)(x)
    return layers.Reshape((units,), name=name)(y)


def build(seed: int = 0) -> bytes:
    seed_all(seed)
    inputs = input_layer((224, 224, 3))
    x = conv_bn(inputs, 24, 3, 2, act="relu6")
    for filters, units, strides, kernel in STAGES:
        for i in range(units):
            x = _unit(x, filters, strides if i == 0 else 1, kernel)
    outputs = [
        _head(x, 63, "landmarks"),
        _head(x, 1, "presence", "sigmoid"),
        _head(x, 1, "handedness", "sigmoid"),
        _head(x, 63, "world_landmarks"),
    ]
    return to_tflite(keras.Model(inputs, outputs, name="hand_landmark"))
