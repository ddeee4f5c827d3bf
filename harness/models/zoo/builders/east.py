"""EAST text detector (Zhou et al. 2017, "EAST: An Efficient and Accurate Scene Text Detector"),
512×512×3, with the ResNet-50 feature extractor of the widely used reference implementation.

Mean subtraction, ResNet-50 (``keras.applications``, headless) features f1..f4 at strides 32,
16, 8 and 4; the U-shaped merge branch (×2 bilinear unpooling, concatenation, conv 1×1 + conv
3×3 with 128, 64, 32 channels, then conv 3×3 32); and the RBOX output layer: score map
sigmoid(conv 1×1), geometry = 512·sigmoid(conv 1×1, 4 distances) ‖ (sigmoid(conv 1×1) − ½)·π/2
angle, at 128×128.
"""

from __future__ import annotations

import math

import keras

from harness.models.zoo.builders._common import Tensor, conv_bn, input_layer, seed_all, to_tflite

layers = keras.layers

SIZE = 512
#: the backbone outputs fed to the merge branch, deepest first
FEATURES = ("conv5_block3_out", "conv4_block6_out", "conv3_block4_out", "conv2_block3_out")
MEAN_RGB = (123.68, 116.78, 103.94)


def _merge(features: list[Tensor]) -> Tensor:
    g = layers.Resizing(*_double(features[0]), interpolation="bilinear")(features[0])
    for i, channels in ((1, 128), (2, 64), (3, 32)):
        h = layers.Concatenate()([g, features[i]])
        h = conv_bn(h, channels, 1, act="relu")
        h = conv_bn(h, channels, 3, act="relu")
        if i < 3:
            g = layers.Resizing(*_double(h), interpolation="bilinear")(h)
        else:
            g = conv_bn(h, 32, 3, act="relu")
    return g


def _double(x: Tensor) -> tuple[int, int]:
    return int(x.shape[1]) * 2, int(x.shape[2]) * 2


def _outputs(g: Tensor) -> tuple[Tensor, Tensor]:
    score = layers.Conv2D(1, 1, activation="sigmoid", name="score")(g)
    geo = layers.Conv2D(4, 1, activation="sigmoid")(g)
    geo = layers.Rescaling(float(SIZE))(geo)
    angle = layers.Conv2D(1, 1, activation="sigmoid")(g)
    angle = layers.Rescaling(math.pi / 2, offset=-math.pi / 4)(angle)
    return score, layers.Concatenate(name="geometry")([geo, angle])


def build(seed: int = 0) -> bytes:
    seed_all(seed)
    inputs = input_layer((SIZE, SIZE, 3))
    x = layers.Normalization(mean=list(MEAN_RGB), variance=[1.0, 1.0, 1.0])(inputs)
    backbone = keras.applications.ResNet50(include_top=False, weights=None, input_tensor=x)
    features = [backbone.get_layer(name).output for name in FEATURES]
    score, geometry = _outputs(_merge(features))
    return to_tflite(keras.Model(inputs, [score, geometry], name="east"))
