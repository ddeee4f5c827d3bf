"""YOLOv3 (Redmon & Farhadi 2018), 416×416×3, 80 COCO classes, 3 anchors per cell.

Darknet-53 (conv-BN-LeakyReLU(0.1); stride-2 convs after top-left zero padding, as in the
common Keras port; 1/2/8/8/4 residual units), three detection heads at strides 32, 16 and 8
(five alternating 1×1/3×3 convs, a 3×3 conv and a linear 1×1 conv to 255 channels), joined by
1×1 conv + ×2 nearest upsampling + concatenation with the backbone feature. Each head's output
is decoded as in the reference implementation (sigmoid centre + cell offset, exp size × anchor,
sigmoid objectness × sigmoid class scores), giving boxes (1, 10647, 4) and scores
(1, 10647, 80).
"""

from __future__ import annotations

import keras
import numpy as np
from keras import ops

from harness.models.zoo.builders._common import (
    Tensor,
    conv_bn,
    input_layer,
    seed_all,
    to_tflite,
    upsample2x,
)

layers = keras.layers

SIZE = 416
CLASSES = 80
#: COCO anchors (w, h) in pixels for the stride-32, -16 and -8 heads
ANCHORS = (
    ((116, 90), (156, 198), (373, 326)),
    ((30, 61), (62, 45), (59, 119)),
    ((10, 13), (16, 30), (33, 23)),
)


def _dark_conv(x: Tensor, filters: int, kernel: int, strides: int = 1) -> Tensor:
    if strides == 2:
        x = layers.ZeroPadding2D(((1, 0), (1, 0)))(x)
        return conv_bn(x, filters, kernel, 2, act="leaky", padding="valid")
    return conv_bn(x, filters, kernel, act="leaky")


def _res_stage(x: Tensor, filters: int, units: int) -> Tensor:
    x = _dark_conv(x, filters, 3, 2)
    for _ in range(units):
        y = _dark_conv(_dark_conv(x, filters // 2, 1), filters, 3)
        x = layers.Add()([x, y])
    return x


def _darknet53(x: Tensor) -> list[Tensor]:
    x = _dark_conv(x, 32, 3)
    outs = []
    for filters, units in ((64, 1), (128, 2), (256, 8), (512, 8), (1024, 4)):
        x = _res_stage(x, filters, units)
        outs.append(x)
    return outs[2:]  # strides 8, 16, 32


def _head(x: Tensor, filters: int) -> tuple[Tensor, Tensor]:
    for i in range(5):
        x = _dark_conv(x, filters if i % 2 == 0 else filters * 2, 1 if i % 2 == 0 else 3)
    y = _dark_conv(x, filters * 2, 3)
    # small initial weights, as detection heads are initialised: keeps exp() finite
    y = layers.Conv2D(len(ANCHORS[0]) * (5 + CLASSES), 1,
                      kernel_initializer=keras.initializers.RandomNormal(stddev=0.01))(y)
    return x, y


class YoloDecode(keras.layers.Layer):
    """Turn one head's raw (1, g, g, 3·85) map into boxes (1, g·g·3, 4) and scores (…, 80)."""

    def __init__(self, anchors: tuple[tuple[int, int], ...], **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.anchors = anchors

    def call(self, feats: Tensor) -> tuple[Tensor, Tensor]:
        grid = int(feats.shape[1])
        n = len(self.anchors)
        feats = ops.reshape(feats, (1, grid, grid, n, 5 + CLASSES))
        xy, wh, conf, prob = ops.split(feats, [2, 4, 5], axis=-1)
        cells = np.stack(np.meshgrid(np.arange(grid), np.arange(grid)), axis=-1)
        cells = cells.reshape(1, grid, grid, 1, 2).astype("float32")
        anchors = np.asarray(self.anchors, "float32").reshape(1, 1, 1, n, 2) / SIZE
        xy = (ops.sigmoid(xy) + cells) * (1.0 / grid)
        wh = ops.exp(wh) * anchors
        boxes = ops.reshape(ops.concatenate([xy, wh], axis=-1), (1, grid * grid * n, 4))
        scores = ops.reshape(ops.sigmoid(conf) * ops.sigmoid(prob), (1, grid * grid * n, CLASSES))
        return boxes, scores


def build(seed: int = 0) -> bytes:
    seed_all(seed)
    inputs = input_layer((SIZE, SIZE, 3))
    c3, c4, c5 = _darknet53(inputs)
    x, y1 = _head(c5, 512)
    x = upsample2x(_dark_conv(x, 256, 1))
    x, y2 = _head(layers.Concatenate()([x, c4]), 256)
    x = upsample2x(_dark_conv(x, 128, 1))
    _, y3 = _head(layers.Concatenate()([x, c3]), 128)
    decoded = [YoloDecode(a)(y) for a, y in zip(ANCHORS, (y1, y2, y3), strict=True)]
    boxes = layers.Concatenate(axis=1, name="boxes")([d[0] for d in decoded])
    scores = layers.Concatenate(axis=1, name="scores")([d[1] for d in decoded])
    return to_tflite(keras.Model(inputs, [boxes, scores], name="yolov3"))
