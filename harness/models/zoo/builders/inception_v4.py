"""Inception-v4 (Szegedy, Ioffe, Vanhoucke & Alemi 2016, "Inception-v4, Inception-ResNet and
the Impact of Residual Connections on Learning", Figures 3-9), 299×299×3, 1000 classes.

Stem, 4 × Inception-A, Reduction-A (k=192, l=224, m=256, n=384), 7 × Inception-B,
Reduction-B, 3 × Inception-C, average pooling, dropout and a softmax classifier. Every
convolution is conv-BN-ReLU (one fused CONV_2D after conversion).
"""

from __future__ import annotations

import keras

from harness.models.zoo.builders._common import Tensor, conv_bn, input_layer, seed_all, to_tflite

layers = keras.layers


def _conv(x: Tensor, filters: int, kernel: tuple[int, int], strides: int = 1,
          padding: str = "same") -> Tensor:
    return conv_bn(x, filters, kernel, strides, act="relu", padding=padding)


def _stem(x: Tensor) -> Tensor:
    x = _conv(x, 32, (3, 3), 2, "valid")
    x = _conv(x, 32, (3, 3), padding="valid")
    x = _conv(x, 64, (3, 3))
    x = layers.Concatenate()([
        layers.MaxPooling2D(3, 2, padding="valid")(x), _conv(x, 96, (3, 3), 2, "valid"),
    ])
    a = _conv(_conv(x, 64, (1, 1)), 96, (3, 3), padding="valid")
    b = _conv(x, 64, (1, 1))
    b = _conv(_conv(b, 64, (7, 1)), 64, (1, 7))
    b = _conv(b, 96, (3, 3), padding="valid")
    x = layers.Concatenate()([a, b])
    return layers.Concatenate()([
        _conv(x, 192, (3, 3), 2, "valid"), layers.MaxPooling2D(3, 2, padding="valid")(x),
    ])


def _pool_branch(x: Tensor, filters: int) -> Tensor:
    return _conv(layers.AveragePooling2D(3, 1, padding="same")(x), filters, (1, 1))


def _inception_a(x: Tensor) -> Tensor:
    b2 = _conv(_conv(x, 64, (1, 1)), 96, (3, 3))
    b3 = _conv(_conv(_conv(x, 64, (1, 1)), 96, (3, 3)), 96, (3, 3))
    return layers.Concatenate()([_pool_branch(x, 96), _conv(x, 96, (1, 1)), b2, b3])


def _reduction_a(x: Tensor, k: int = 192, l: int = 224, m: int = 256, n: int = 384) -> Tensor:  # noqa: E741
    b2 = _conv(x, n, (3, 3), 2, "valid")
    b3 = _conv(_conv(_conv(x, k, (1, 1)), l, (3, 3)), m, (3, 3), 2, "valid")
    return layers.Concatenate()([layers.MaxPooling2D(3, 2, padding="valid")(x), b2, b3])


def _inception_b(x: Tensor) -> Tensor:
    b2 = _conv(x, 384, (1, 1))
    b3 = _conv(_conv(_conv(x, 192, (1, 1)), 224, (1, 7)), 256, (7, 1))
    b4 = _conv(x, 192, (1, 1))
    for filters, kernel in ((192, (1, 7)), (224, (7, 1)), (224, (1, 7)), (256, (7, 1))):
        b4 = _conv(b4, filters, kernel)
    return layers.Concatenate()([_pool_branch(x, 128), b2, b3, b4])


def _reduction_b(x: Tensor) -> Tensor:
    b2 = _conv(_conv(x, 192, (1, 1)), 192, (3, 3), 2, "valid")
    b3 = _conv(_conv(_conv(x, 256, (1, 1)), 256, (1, 7)), 320, (7, 1))
    b3 = _conv(b3, 320, (3, 3), 2, "valid")
    return layers.Concatenate()([layers.MaxPooling2D(3, 2, padding="valid")(x), b2, b3])


def _inception_c(x: Tensor) -> Tensor:
    b3 = _conv(x, 384, (1, 1))
    b4 = _conv(_conv(_conv(x, 384, (1, 1)), 448, (1, 3)), 512, (3, 1))
    return layers.Concatenate()([
        _pool_branch(x, 256), _conv(x, 256, (1, 1)),
        _conv(b3, 256, (1, 3)), _conv(b3, 256, (3, 1)),
        _conv(b4, 256, (1, 3)), _conv(b4, 256, (3, 1)),
    ])


def build(seed: int = 0) -> bytes:
    seed_all(seed)
    inputs = input_layer((299, 299, 3))
    x = _stem(inputs)
    for _ in range(4):
        x = _inception_a(x)
    x = _reduction_a(x)
    for _ in range(7):
        x = _inception_b(x)
    x = _reduction_b(x)
    for _ in range(3):
        x = _inception_c(x)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dropout(0.2)(x)
    outputs = layers.Dense(1000, activation="softmax")(x)
    return to_tflite(keras.Model(inputs, outputs, name="inception_v4"))
