"""Known-answer tests of the per-op cost formulas (each figure computed by hand)."""

from __future__ import annotations

import pytest

from harness.models.costs import ELEMENTWISE_FLOPS, OpCost, numel, op_cost
from harness.seams.graph import Tensor


def t(*shape: int, const: bool = False, itemsize: int = 4) -> Tensor:
    return Tensor(0, "t", tuple(shape), "float32", numel(shape) * itemsize, const)


def test_conv2d_with_bias_and_fused_activation() -> None:
    x, w, b, y = t(1, 8, 8, 3), t(16, 3, 3, 3, const=True), t(16, const=True), t(1, 4, 4, 16)
    cost = op_cost("CONV_2D", [x, w, b], [y], {"fused_activation": "RELU6"})
    # 4*4*16 outputs, each 3*3*3 MACs; + 256 bias adds + 256 clamps
    assert cost == OpCost(macs=6912, flops=2 * 6912 + 256 + 256, weight_bytes=1792,
                          in_bytes=768, out_bytes=1024)


def test_depthwise_conv() -> None:
    x, w, b = t(1, 8, 8, 16), t(1, 3, 3, 16, const=True), t(16, const=True)
    cost = op_cost("DEPTHWISE_CONV_2D", [x, w, b], [t(1, 8, 8, 16)], {"fused_activation": "NONE"})
    assert (cost.macs, cost.flops) == (1024 * 9, 2 * 9216 + 1024)


def test_transpose_conv_scatters_each_input_element() -> None:
    shape, w, x = t(4, const=True), t(8, 3, 3, 4, const=True), t(1, 4, 4, 4)
    cost = op_cost("TRANSPOSE_CONV", [shape, w, x, None], [t(1, 8, 8, 8)], {})
    assert (cost.macs, cost.flops) == (64 * 9 * 8, 2 * 4608)
    assert cost.weight_bytes == 16 + 8 * 9 * 4 * 4


def test_fully_connected_with_and_without_bias() -> None:
    x, w, b, y = t(1, 128), t(10, 128, const=True), t(10, const=True), t(1, 10)
    assert op_cost("FULLY_CONNECTED", [x, w, b], [y]).flops == 2 * 1280 + 10
    no_bias = op_cost("FULLY_CONNECTED", [x, w, None], [y])
    assert (no_bias.macs, no_bias.flops) == (1280, 2560)


def test_batch_matmul_contracts_over_k() -> None:
    assert op_cost("BATCH_MATMUL", [t(2, 3, 4), t(2, 4, 5)], [t(2, 3, 5)]).macs == 30 * 4
    adjoint = op_cost("BATCH_MATMUL", [t(2, 6, 3), t(2, 6, 5)], [t(2, 3, 5)], {"adj_x": True})
    assert adjoint.macs == 30 * 6
    # a runtime right-hand side is an activation, not a weight
    assert adjoint.weight_bytes == 0 and adjoint.in_bytes == (36 + 60) * 4


@pytest.mark.parametrize(
    ("kind", "per_element"),
    [("ADD", 1), ("MUL", 1), ("MAXIMUM", 1), ("SQUARED_DIFFERENCE", 2), ("RELU", 1),
     ("RELU6", 2), ("LOGISTIC", 4), ("TANH", 4), ("HARD_SWISH", 5), ("PRELU", 2),
     ("SOFTMAX", 5), ("QUANTIZE", 2), ("DEQUANTIZE", 2), ("L2_NORMALIZATION", 3)],
)
def test_elementwise_flops_per_output_element(kind: str, per_element: int) -> None:
    cost = op_cost(kind, [t(1, 4, 4, 8), t(1, 4, 4, 8)], [t(1, 4, 4, 8)])
    assert cost.flops == per_element * 128 and cost.macs == 0
    assert ELEMENTWISE_FLOPS[kind] == per_element


def test_fused_activation_adds_one_flop_per_output() -> None:
    ins, outs = [t(1, 4, 4, 8), t(1, 1, 1, 8)], [t(1, 4, 4, 8)]
    assert op_cost("ADD", ins, outs, {"fused_activation": "RELU"}).flops == 256
    assert op_cost("ADD", ins, outs, {"fused_activation": "NONE"}).flops == 128


def test_add_n_counts_one_add_per_extra_input() -> None:
    assert op_cost("ADD_N", [t(1, 10)] * 4, [t(1, 10)]).flops == 30


@pytest.mark.parametrize("kind", ["MAX_POOL_2D", "AVERAGE_POOL_2D"])
def test_pooling_is_window_times_output(kind: str) -> None:
    cost = op_cost(kind, [t(1, 8, 8, 8)], [t(1, 4, 4, 8)], {"filter_h": 2, "filter_w": 3})
    assert cost.flops == 128 * 6


def test_reductions() -> None:
    x, axes = t(1, 4, 4, 8), t(2, const=True)
    assert op_cost("SUM", [x, axes], [t(1, 8)]).flops == 128
    assert op_cost("REDUCE_MAX", [x, axes], [t(1, 8)]).flops == 128
    assert op_cost("MEAN", [x, axes], [t(1, 8)]).flops == 128 + 8


def test_resize() -> None:
    x, size = t(1, 4, 4, 2), t(2, const=True)
    assert op_cost("RESIZE_BILINEAR", [x, size], [t(1, 8, 8, 2)]).flops == 128 * 8
    nearest = op_cost("RESIZE_NEAREST_NEIGHBOR", [x, size], [t(1, 8, 8, 2)])
    assert nearest == OpCost(0, 0, weight_bytes=8, in_bytes=128, out_bytes=512)


@pytest.mark.parametrize("kind", ["RESHAPE", "SQUEEZE", "CONCATENATION", "PAD", "TRANSPOSE"])
def test_data_movement_costs_bytes_only(kind: str) -> None:
    cost = op_cost(kind, [t(1, 4, 4, 8), t(4, const=True)], [t(1, 128)])
    assert cost == OpCost(0, 0, weight_bytes=16, in_bytes=512, out_bytes=512)


def test_unknown_kind_defaults_to_output_elements() -> None:
    cost = op_cost("CUSTOM:Foo", [t(1, 10)], [t(1, 10), t(1, 3)])
    assert cost == OpCost(0, 13, 0, in_bytes=40, out_bytes=52)


def test_dimensions_below_one_count_as_one() -> None:
    assert numel((-1, 0, 3)) == 3
    assert numel(()) == 1
