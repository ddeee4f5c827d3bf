"""Shared pieces of the zoo builders: seeding, conversion to TFLite and small layer blocks.

All models have a fixed batch of 1 (``keras.Input(shape, batch_size=1)``): a dynamic batch adds
SHAPE/STRIDED_SLICE/PACK chains to the converted graph. Batch normalisation after a convolution
is folded into the convolution by the converter, and ReLU/ReLU6 are fused into it, so a
``conv_bn`` block becomes one ``CONV_2D`` op.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import keras
import numpy as np
import tensorflow as tf

layers = keras.layers

Tensor = Any


def seed_all(seed: int) -> None:
    """Seed Python, NumPy and the backend (the weights are random but reproducible)."""
    keras.utils.set_random_seed(seed)


def input_layer(shape: tuple[int, int, int], name: str = "input") -> Tensor:
    """A batch-1 image input."""
    return keras.Input(shape=shape, batch_size=1, name=name)


def to_tflite(model: keras.Model) -> bytes:
    """Convert a Keras model to a float32 TFLite flatbuffer."""
    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    return bytes(converter.convert())


def to_tflite_int8(
    model: keras.Model, seed: int, samples: int = 8, io_type: Any = None
) -> bytes:
    """Convert to a full-integer int8 model, calibrated on a seeded random dataset."""
    shape = tuple(int(d) for d in model.inputs[0].shape)
    rng = np.random.default_rng(seed)

    def representative() -> Iterator[list[np.ndarray]]:
        for _ in range(samples):
            yield [rng.uniform(-1.0, 1.0, size=shape).astype(np.float32)]

    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    converter.representative_dataset = representative
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    converter.inference_input_type = io_type or tf.int8
    converter.inference_output_type = io_type or tf.int8
    return bytes(converter.convert())


def conv_bn(
    x: Tensor,
    filters: int,
    kernel: int | tuple[int, int] = 1,
    strides: int = 1,
    act: str | None = "relu",
    padding: str = "same",
    dilation: int = 1,
    name: str = "",
) -> Tensor:
    """Conv -> BatchNorm -> activation (folded and fused into one CONV_2D when ReLU/ReLU6)."""
    x = layers.Conv2D(
        filters, kernel, strides=strides, padding=padding, dilation_rate=dilation,
        use_bias=False, name=f"{name}_conv" if name else None,
    )(x)
    x = layers.BatchNormalization(name=f"{name}_bn" if name else None)(x)
    return activation(x, act)


def dw_bn(
    x: Tensor,
    kernel: int = 3,
    strides: int = 1,
    act: str | None = "relu",
    padding: str = "same",
    dilation: int = 1,
    name: str = "",
) -> Tensor:
    """DepthwiseConv -> BatchNorm -> activation."""
    x = layers.DepthwiseConv2D(
        kernel, strides=strides, padding=padding, dilation_rate=dilation, use_bias=False,
        name=f"{name}_dw" if name else None,
    )(x)
    x = layers.BatchNormalization(name=f"{name}_dwbn" if name else None)(x)
    return activation(x, act)


def activation(x: Tensor, act: str | None) -> Tensor:
    """Apply an activation by name: relu, relu6, leaky (slope 0.1), prelu, sigmoid or None."""
    if act is None:
        return x
    if act == "relu":
        return layers.ReLU()(x)
    if act == "relu6":
        return layers.ReLU(max_value=6.0)(x)
    if act == "leaky":
        return layers.LeakyReLU(negative_slope=0.1)(x)
    if act == "prelu":
        return layers.PReLU(shared_axes=[1, 2])(x)
    if act == "sigmoid":
        return layers.Activation("sigmoid")(x)
    raise ValueError(f"unknown activation {act!r}")


def inverted_residual(
    x: Tensor,
    expansion: int,
    filters: int,
    strides: int = 1,
    kernel: int = 3,
    dilation: int = 1,
    act: str = "relu6",
    name: str = "",
) -> Tensor:
    """MobileNetV2's block: 1×1 expand, depthwise, linear 1×1 project, and a residual add
    when the shapes match."""
    in_ch = int(x.shape[-1])
    expand, project = (f"{name}_expand", f"{name}_project") if name else ("", "")
    y = conv_bn(x, in_ch * expansion, 1, act=act, name=expand) if expansion != 1 else x
    y = dw_bn(y, kernel, strides, act=act, dilation=dilation, name=name)
    y = conv_bn(y, filters, 1, act=None, name=project)
    if strides == 1 and in_ch == filters:
        y = layers.Add(name=f"{name}_add" if name else None)([x, y])
    return y


def upsample2x(x: Tensor, interpolation: str = "nearest") -> Tensor:
    """×2 upsampling as one RESIZE op (``UpSampling2D`` becomes RESHAPE/TILE chains)."""
    return layers.Resizing(int(x.shape[1]) * 2, int(x.shape[2]) * 2, interpolation=interpolation)(x)
