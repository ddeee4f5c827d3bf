"""ICN_quant: a full-integer (int8) image-classification network, 224×224×3 → 1000 classes.

The ADMS paper does not describe its "ICN_quant" beyond an op count (Table III: 77) and an op
mix (Table I, ICN: 27% ADD, 57% CONV_2D, 2% DEPTHWISE_CONV_2D). This is a residual network
built to that description: a conv 3×3/2 stem and one depthwise-separable layer, four stages of
basic residual units (conv 3×3 – conv 3×3 – add; 4, 6, 8 and 4 units with 32, 64, 128 and 256
channels, a 1×1/2 projection shortcut where a stage starts), a depthwise 3×3 before global
average pooling, and a softmax classifier. It is converted with post-training full-integer
quantization (seeded random representative dataset, int8 input and output, int8 kernels only).
"""

from __future__ import annotations

import keras
import tensorflow as tf

from harness.models.zoo.builders._common import (
    Tensor,
    conv_bn,
    dw_bn,
    input_layer,
    seed_all,
    to_tflite_int8,
)

layers = keras.layers

#: (channels, residual units) per stage
STAGES = ((32, 4), (64, 6), (128, 8), (256, 4))


def _basic_unit(x: Tensor, filters: int, strides: int) -> Tensor:
    shortcut = x
    if strides != 1 or int(x.shape[-1]) != filters:
        shortcut = conv_bn(x, filters, 1, strides, act=None)
    y = conv_bn(x, filters, 3, strides, act="relu")
    y = conv_bn(y, filters, 3, act=None)
    return layers.ReLU()(layers.Add()([shortcut, y]))


def _network(inputs: Tensor) -> Tensor:
    x = conv_bn(inputs, 32, 3, 2, act="relu")
    x = dw_bn(x, 3, act="relu")
    x = conv_bn(x, 32, 1, act="relu")
    for stage, (filters, units) in enumerate(STAGES):
        for i in range(units):
            x = _basic_unit(x, filters, 2 if i == 0 and stage > 0 else 1)
    x = dw_bn(x, 3, act="relu")
    x = layers.GlobalAveragePooling2D()(x)
    return layers.Dense(1000, activation="softmax")(x)


def build(seed: int = 0) -> bytes:
    seed_all(seed)
    inputs = input_layer((224, 224, 3))
    model = keras.Model(inputs, _network(inputs), name="icn_quant")
    return to_tflite_int8(model, seed, io_type=tf.int8)
