"""DeepLabV3 with a MobileNetV2 backbone (Chen et al. 2017, "Rethinking Atrous Convolution";
the mobile variant of the TensorFlow DeepLab model zoo), 257×257×3, 21 classes (PASCAL VOC).

Input scaling to [-1, 1] as in DeepLab's export; MobileNetV2 ×1.0 at output stride 8: the
blocks after stride 8 use atrous depthwise convolutions (rate 2, then rate 4 for the 160/320
channel blocks) instead of striding. ASPP on the 33×33 features: a 1×1 branch, three 3×3
atrous branches (rates 12, 24, 36 = the paper's 6, 12, 18 at output stride 16, doubled for
output stride 8) and image pooling (global mean, 1×1 conv, bilinear upsampling), concatenated
and projected by a 1×1 conv; a 1×1 classifier and bilinear upsampling to the input size give
(1, 257, 257, 21) logits.

Atrous convolutions are written the way TensorFlow's DeepLab graphs carry them:
SPACE_TO_BATCH_ND → convolution → activation → BATCH_TO_SPACE_ND (the activation, being
element-wise, sits before BATCH_TO_SPACE_ND, which keeps the converter from folding the three
ops into one dilated convolution). This is exact, and it is what makes DeepLabV3 the
fragmented, poorly supported model of the paper (Table III: 3329 subgraphs); Table I's
DeepLabV3 row has 22 such ops ("DLG"), this model 28 (14 atrous convolutions).
"""

from __future__ import annotations

from collections.abc import Callable

import keras
import tensorflow as tf

from harness.models.zoo.builders._common import (
    Tensor,
    activation,
    conv_bn,
    dw_bn,
    input_layer,
    seed_all,
    to_tflite,
)

layers = keras.layers

SIZE = 257
CLASSES = 21
#: MobileNetV2 blocks (expansion, channels, repeats, stride, atrous rate) at output stride 8
BLOCKS = (
    (1, 16, 1, 1, 1),
    (6, 24, 2, 2, 1),
    (6, 32, 3, 2, 1),
    (6, 64, 4, 1, 2),
    (6, 96, 3, 1, 2),
    (6, 160, 3, 1, 4),
    (6, 320, 1, 1, 4),
)
ASPP_RATES = (12, 24, 36)


class SpaceToBatch(keras.layers.Layer):
    """``tf.space_to_batch_nd`` with the padding a 'same' k×k convolution at ``rate`` needs."""

    def __init__(self, rate: int, kernel: int = 3, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.rate, self.kernel = rate, kernel

    def call(self, x: Tensor) -> Tensor:
        pads = [_atrous_pads(int(d), self.kernel, self.rate)[0] for d in x.shape[1:3]]
        return tf.space_to_batch_nd(x, [self.rate, self.rate], pads)


class BatchToSpace(keras.layers.Layer):
    """The inverse of :class:`SpaceToBatch`, cropping back to ``size``."""

    def __init__(self, rate: int, size: tuple[int, int], kernel: int = 3, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.rate, self.size, self.kernel = rate, size, kernel

    def call(self, x: Tensor) -> Tensor:
        crops = [_atrous_pads(d, self.kernel, self.rate)[1] for d in self.size]
        return tf.batch_to_space(x, [self.rate, self.rate], crops)


def _atrous_pads(size: int, kernel: int, rate: int) -> tuple[list[int], list[int]]:
    """(paddings, crops) of one spatial axis, as ``tf.required_space_to_batch_paddings``."""
    total = (kernel - 1) * rate
    low = total // 2
    extra = -(size + total) % rate
    return [low, total - low + extra], [0, extra]


def _atrous(x: Tensor, rate: int, conv: Callable[[Tensor], Tensor], act: str) -> Tensor:
    """A 'same' atrous convolution: space-to-batch, a 'valid' conv, activation, batch-to-space."""
    if rate == 1:
        return activation(conv(x), act)
    size = (int(x.shape[1]), int(x.shape[2]))
    y = activation(conv(SpaceToBatch(rate)(x)), act)
    return BatchToSpace(rate, size)(y)


def _block(x: Tensor, expansion: int, filters: int, strides: int, rate: int) -> Tensor:
    in_ch = int(x.shape[-1])
    y = conv_bn(x, in_ch * expansion, 1, act="relu6") if expansion != 1 else x
    padding = "same" if rate == 1 else "valid"
    y = _atrous(y, rate, lambda t: dw_bn(t, 3, strides, act=None, padding=padding), "relu6")
    y = conv_bn(y, filters, 1, act=None)
    return layers.Add()([x, y]) if strides == 1 and in_ch == filters else y


def _backbone(x: Tensor) -> Tensor:
    x = layers.Rescaling(2.0 / 255.0, offset=-1.0)(x)
    x = conv_bn(x, 32, 3, 2, act="relu6")
    for t, c, n, s, rate in BLOCKS:
        for i in range(n):
            x = _block(x, t, c, s if i == 0 else 1, rate)
    return x


def _aspp(x: Tensor, channels: int = 256) -> Tensor:
    size = (int(x.shape[1]), int(x.shape[2]))
    pooled = layers.GlobalAveragePooling2D(keepdims=True)(x)
    pooled = conv_bn(pooled, channels, 1, act="relu")
    pooled = layers.Resizing(*size, interpolation="bilinear")(pooled)
    branches = [pooled, conv_bn(x, channels, 1, act="relu")]
    branches += [
        _atrous(x, r, lambda t: conv_bn(t, channels, 3, padding="valid", act=None), "relu")
        for r in ASPP_RATES
    ]
    x = layers.Concatenate()(branches)
    return conv_bn(x, channels, 1, act="relu")


def build(seed: int = 0) -> bytes:
    seed_all(seed)
    inputs = input_layer((SIZE, SIZE, 3))
    x = _aspp(_backbone(inputs))
    x = layers.Conv2D(CLASSES, 1)(x)
    outputs = layers.Resizing(SIZE, SIZE, interpolation="bilinear", name="logits")(x)
    return to_tflite(keras.Model(inputs, outputs, name="deeplabv3"))
