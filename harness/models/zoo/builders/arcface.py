"""Face-embedding networks of the ArcFace family (Deng et al. 2019), 112×112×3 aligned faces.

* ``resnet50``: the "IR-50" backbone of the ArcFace paper (improved residual units
  BN-conv-BN-PReLU-conv-BN, stages of 3/4/14/3 units with 64/128/256/512 channels), then the
  output block BN → dropout → flatten → FC 512 → BN: a 512-d embedding.
* ``mobilenet``: MobileFaceNet (Chen et al. 2018, Table 1): conv 3×3/2, depthwise 3×3,
  bottlenecks (t, c, n, s) = (2,64,5,2), (4,128,1,2), (2,128,6,1), (4,128,1,2), (2,128,2,1),
  conv 1×1 512, linear global depthwise conv 7×7, linear conv 1×1 → 128-d embedding.
  ReLU replaces PReLU so activations fuse into the convolutions, as in the op mix the ADMS
  paper's Table I gives for its ArcFace model (17 depthwise convolutions, no activation ops).
"""

from __future__ import annotations

import keras

from harness.models.zoo.builders._common import (
    Tensor,
    conv_bn,
    dw_bn,
    input_layer,
    inverted_residual,
    seed_all,
    to_tflite,
)

layers = keras.layers

FACE = (112, 112, 3)


def _ir_unit(x: Tensor, filters: int, strides: int) -> Tensor:
    """Improved residual unit: BN-conv3×3-BN-PReLU-conv3×3(stride)-BN + shortcut."""
    in_ch = int(x.shape[-1])
    if in_ch == filters:
        shortcut = layers.MaxPooling2D(1, strides)(x) if strides > 1 else x
    else:
        shortcut = conv_bn(x, filters, 1, strides, act=None)
    y = layers.BatchNormalization()(x)
    y = conv_bn(y, filters, 3, act="prelu")
    y = conv_bn(y, filters, 3, strides, act=None)
    return layers.Add()([shortcut, y])


def _ir50_body(x: Tensor) -> Tensor:
    for filters, units in ((64, 3), (128, 4), (256, 14), (512, 3)):
        for i in range(units):
            x = _ir_unit(x, filters, 2 if i == 0 else 1)
    return x


def resnet50(seed: int = 0) -> bytes:
    seed_all(seed)
    inputs = input_layer(FACE)
    x = conv_bn(inputs, 64, 3, act="prelu")
    x = _ir50_body(x)
    x = layers.BatchNormalization()(x)
    x = layers.Dropout(0.4)(x)
    x = layers.Flatten()(x)
    x = layers.Dense(512)(x)
    outputs = layers.BatchNormalization()(x)
    return to_tflite(keras.Model(inputs, outputs, name="arcface_resnet50"))


#: MobileFaceNet bottleneck settings (expansion t, channels c, repeats n, first stride s)
MOBILEFACENET = ((2, 64, 5, 2), (4, 128, 1, 2), (2, 128, 6, 1), (4, 128, 1, 2), (2, 128, 2, 1))


def mobilenet(seed: int = 0, embedding: int = 128) -> bytes:
    seed_all(seed)
    inputs = input_layer(FACE)
    x = conv_bn(inputs, 64, 3, 2, act="relu")
    x = dw_bn(x, 3, act="relu")
    for t, c, n, s in MOBILEFACENET:
        for i in range(n):
            x = inverted_residual(x, t, c, s if i == 0 else 1, act="relu")
    x = conv_bn(x, 512, 1, act="relu")
    x = dw_bn(x, 7, padding="valid", act=None)  # global depthwise convolution
    x = conv_bn(x, embedding, 1, act=None)
    outputs = layers.Flatten()(x)
    return to_tflite(keras.Model(inputs, outputs, name="arcface_mobilenet"))
