"""RetinaFace with a MobileNet-0.25 backbone (Deng et al. 2020; layout of the widely used
``Pytorch_Retinaface`` mobile model), 640×640×3.

MobileNetV1 ×0.25 (conv-BN-LeakyReLU(0.1) throughout) gives features at strides 8, 16 and 32;
a 3-level FPN (64 channels, nearest-neighbour upsampling and addition, 3×3 merge convs); an SSH
context module per level (3×3 | 5×5 as two 3×3 | 7×7 as three 3×3, concatenated, ReLU); and per
level, with 2 anchors a cell, 1×1 heads for face class (2), box (4) and five landmarks (10).
Outputs: boxes (1, 16800, 4), class scores after softmax (1, 16800, 2), landmarks
(1, 16800, 10).
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
    upsample2x,
)

layers = keras.layers

SIZE = 640
ANCHORS = 2
#: MobileNet-0.25 depthwise-separable layers: (output channels, stride); the three stages end
#: at strides 8, 16 and 32
STAGES = (
    ((16, 1), (32, 2), (32, 1), (64, 2), (64, 1)),
    ((128, 2), (128, 1), (128, 1), (128, 1), (128, 1), (128, 1)),
    ((256, 2), (256, 1)),
)


def _backbone(x: Tensor) -> list[Tensor]:
    x = conv_bn(x, 8, 3, 2, act="leaky")
    features = []
    for stage in STAGES:
        for filters, strides in stage:
            x = dw_bn(x, 3, strides, act="leaky")
            x = conv_bn(x, filters, 1, act="leaky")
        features.append(x)
    return features


def _fpn(features: list[Tensor], channels: int = 64) -> list[Tensor]:
    c3, c4, c5 = (conv_bn(f, channels, 1, act="leaky") for f in features)
    c4 = layers.Add()([c4, upsample2x(c5)])
    c4 = conv_bn(c4, channels, 3, act="leaky")
    c3 = layers.Add()([c3, upsample2x(c4)])
    c3 = conv_bn(c3, channels, 3, act="leaky")
    return [c3, c4, c5]


def _ssh(x: Tensor, channels: int = 64) -> Tensor:
    b3 = conv_bn(x, channels // 2, 3, act=None)
    b5 = conv_bn(x, channels // 4, 3, act="leaky")
    b7 = conv_bn(b5, channels // 4, 3, act="leaky")
    b5 = conv_bn(b5, channels // 4, 3, act=None)
    b7 = conv_bn(b7, channels // 4, 3, act=None)
    return layers.ReLU()(layers.Concatenate()([b3, b5, b7]))


def _head(x: Tensor, per_anchor: int) -> Tensor:
    y = layers.Conv2D(ANCHORS * per_anchor, 1)(x)
    cells = int(x.shape[1]) * int(x.shape[2]) * ANCHORS
    return layers.Reshape((cells, per_anchor))(y)


def build(seed: int = 0) -> bytes:
    seed_all(seed)
    inputs = input_layer((SIZE, SIZE, 3))
    levels = [_ssh(f) for f in _fpn(_backbone(inputs))]
    boxes = layers.Concatenate(axis=1, name="boxes")([_head(f, 4) for f in levels])
    scores = layers.Concatenate(axis=1)([_head(f, 2) for f in levels])
    scores = layers.Softmax(axis=-1, name="scores")(scores)
    landmarks = layers.Concatenate(axis=1, name="landmarks")([_head(f, 10) for f in levels])
    model = keras.Model(inputs, [boxes, scores, landmarks], name="retinaface")
    return to_tflite(model)
