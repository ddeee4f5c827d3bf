"""Per-op cost figures computed from tensor shapes alone.

A cost is a pure function of an op's kind, its input tensors (shape, byte size, constant or
not), its output tensors and its options. Nothing is measured here: these are the analytic
figures a graph profile carries so that simulated devices and schedulers can reason about work
without running the model.

Notation: ``numel(t)`` is the element count of tensor ``t`` (dimensions below 1 count as 1),
``out`` is the first output, ``in`` the first input.

Multiply-accumulate ops (``flops = 2 * macs`` plus element-wise work):

* ``CONV_2D``: weights ``[O, kh, kw, Ci]``; ``macs = numel(out) * kh * kw * Ci``.
* ``DEPTHWISE_CONV_2D``: weights ``[1, kh, kw, O]``; ``macs = numel(out) * kh * kw``.
* ``CONV_3D``: weights ``[kd, kh, kw, Ci, O]``; ``macs = numel(out) * kd * kh * kw * Ci``.
* ``TRANSPOSE_CONV``: inputs ``(output_shape, weights [O, kh, kw, Ci], x, bias?)``; every input
  element is scattered over a ``kh x kw x O`` window: ``macs = numel(x) * kh * kw * O``.
* ``FULLY_CONNECTED``: weights ``[U, K]``; ``macs = numel(out) * K``.
* ``BATCH_MATMUL``: ``K`` is the last dim of ``in`` (second to last when ``adj_x``);
  ``macs = numel(out) * K``.

  These ops add ``numel(out)`` flops when a bias input is present.

Element-wise ops, ``flops = c * numel(out)`` with ``c`` from :data:`ELEMENTWISE_FLOPS`
(e.g. ``ADD`` 1, ``SQUARED_DIFFERENCE`` 2, ``RELU6`` 2, ``LOGISTIC`` 4, ``HARD_SWISH`` 5,
``SOFTMAX`` 5, ``QUANTIZE``/``DEQUANTIZE`` 2, ``L2_NORMALIZATION`` 3); ``ADD_N`` with ``n``
inputs costs ``(n - 1) * numel(out)``.

Windows and reductions:

* pooling (``AVERAGE_POOL_2D``, ``MAX_POOL_2D``, ``L2_POOL_2D``): window times output,
  ``flops = numel(out) * filter_h * filter_w``.
* reductions (``SUM``, ``REDUCE_*``, ``ARG_MAX``, ``ARG_MIN``): ``flops = numel(in)``;
  ``MEAN`` adds one division per output element: ``numel(in) + numel(out)``.
* ``RESIZE_BILINEAR``: four weighted taps per output element, ``flops = 8 * numel(out)``.

Data movement (``RESHAPE``, ``SQUEEZE``, ``CONCATENATION``, ``PAD``, ``TRANSPOSE``,
``RESIZE_NEAREST_NEIGHBOR``, ... see :data:`DATA_MOVEMENT`): 0 flops, bytes only.

Any other kind: ``flops = sum(numel(o) for o in outputs)`` (one operation per element written).

A fused activation (option ``fused_activation`` other than ``NONE``) adds ``numel(out)`` flops
to any op. Bytes: ``weight_bytes`` sums the constant inputs, ``in_bytes`` the runtime
(non-constant) inputs, ``out_bytes`` the outputs. Optional inputs that are absent are ``None``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol


class TensorLike(Protocol):
    """What a cost needs of a tensor (:class:`harness.seams.graph.Tensor` satisfies it)."""

    @property
    def shape(self) -> tuple[int, ...]: ...

    @property
    def nbytes(self) -> int: ...

    @property
    def is_const(self) -> bool: ...


@dataclass(frozen=True, slots=True)
class OpCost:
    """The cost figures of one op."""

    macs: int = 0
    flops: int = 0
    weight_bytes: int = 0
    in_bytes: int = 0
    out_bytes: int = 0


#: flops per output element of element-wise ops
ELEMENTWISE_FLOPS: Mapping[str, int] = {
    **dict.fromkeys(
        ("ADD", "SUB", "MUL", "DIV", "MAXIMUM", "MINIMUM", "POW", "FLOOR_DIV", "FLOOR_MOD",
         "EQUAL", "NOT_EQUAL", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL",
         "LOGICAL_AND", "LOGICAL_OR", "LOGICAL_NOT", "SELECT", "SELECT_V2", "RELU", "ABS",
         "NEG", "FLOOR", "CEIL", "ROUND", "SIGN", "SQUARE", "SQRT", "RSQRT", "EXP", "LOG",
         "SIN", "COS", "CAST"),
        1,
    ),
    **dict.fromkeys(
        ("SQUARED_DIFFERENCE", "RELU6", "RELU_N1_TO_1", "RELU_0_TO_1", "LEAKY_RELU", "PRELU",
         "QUANTIZE", "DEQUANTIZE"),
        2,
    ),
    "ELU": 3,
    "L2_NORMALIZATION": 3,
    "LOGISTIC": 4,
    "TANH": 4,
    "HARD_SWISH": 5,
    "SOFTMAX": 5,
    "LOG_SOFTMAX": 5,
    "GELU": 8,
    "RESIZE_BILINEAR": 8,
}

#: ops that only move or reinterpret data: 0 flops
DATA_MOVEMENT: frozenset[str] = frozenset(
    ("RESHAPE", "SQUEEZE", "EXPAND_DIMS", "CONCATENATION", "PAD", "PADV2", "MIRROR_PAD",
     "TRANSPOSE", "GATHER", "GATHER_ND", "SLICE", "STRIDED_SLICE", "SHAPE", "PACK", "UNPACK",
     "SPLIT", "SPLIT_V", "DEPTH_TO_SPACE", "SPACE_TO_DEPTH", "SPACE_TO_BATCH_ND",
     "BATCH_TO_SPACE_ND", "TILE", "BROADCAST_TO", "RESIZE_NEAREST_NEIGHBOR", "REVERSE_V2",
     "DENSIFY", "ZEROS_LIKE", "ONES_LIKE", "FILL", "RANK", "BITCAST")
)

POOLS = frozenset(("AVERAGE_POOL_2D", "MAX_POOL_2D", "L2_POOL_2D"))
REDUCTIONS = frozenset(
    ("SUM", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PROD", "REDUCE_ANY", "REDUCE_ALL",
     "ARG_MAX", "ARG_MIN")
)

_Ins = Sequence[TensorLike | None]
_Outs = Sequence[TensorLike]


def numel(shape: Iterable[int]) -> int:
    """Element count of a shape; dimensions below 1 count as 1."""
    n = 1
    for d in shape:
        n *= max(int(d), 1)
    return n


def _dim(t: TensorLike | None, axis: int) -> int:
    """Size of one dimension (1 when the tensor is absent or has too few dimensions)."""
    if t is None or not -len(t.shape) <= axis < len(t.shape):
        return 1
    return max(int(t.shape[axis]), 1)


def _bias(ins: _Ins, at: int, out_elems: int) -> int:
    return out_elems if len(ins) > at and ins[at] is not None else 0


def _conv2d(ins: _Ins, outs: _Outs, opts: Mapping[str, Any]) -> tuple[int, int]:
    n = numel(outs[0].shape)
    w = ins[1]
    macs = n * _dim(w, 1) * _dim(w, 2) * _dim(w, 3)
    return macs, 2 * macs + _bias(ins, 2, n)


def _depthwise(ins: _Ins, outs: _Outs, opts: Mapping[str, Any]) -> tuple[int, int]:
    n = numel(outs[0].shape)
    macs = n * _dim(ins[1], 1) * _dim(ins[1], 2)
    return macs, 2 * macs + _bias(ins, 2, n)


def _conv3d(ins: _Ins, outs: _Outs, opts: Mapping[str, Any]) -> tuple[int, int]:
    n = numel(outs[0].shape)
    w = ins[1]
    macs = n * _dim(w, 0) * _dim(w, 1) * _dim(w, 2) * _dim(w, 3)
    return macs, 2 * macs + _bias(ins, 2, n)


def _transpose_conv(ins: _Ins, outs: _Outs, opts: Mapping[str, Any]) -> tuple[int, int]:
    w, x = ins[1], ins[2]
    x_elems = numel(x.shape) if x is not None else 0
    macs = x_elems * _dim(w, 1) * _dim(w, 2) * _dim(w, 0)
    return macs, 2 * macs + _bias(ins, 3, numel(outs[0].shape))


def _fully_connected(ins: _Ins, outs: _Outs, opts: Mapping[str, Any]) -> tuple[int, int]:
    n = numel(outs[0].shape)
    macs = n * _dim(ins[1], -1)
    return macs, 2 * macs + _bias(ins, 2, n)


def _batch_matmul(ins: _Ins, outs: _Outs, opts: Mapping[str, Any]) -> tuple[int, int]:
    k = _dim(ins[0], -2) if opts.get("adj_x") else _dim(ins[0], -1)
    macs = numel(outs[0].shape) * k
    return macs, 2 * macs


_MAC_OPS: Mapping[str, Callable[[_Ins, _Outs, Mapping[str, Any]], tuple[int, int]]] = {
    "CONV_2D": _conv2d,
    "DEPTHWISE_CONV_2D": _depthwise,
    "CONV_3D": _conv3d,
    "TRANSPOSE_CONV": _transpose_conv,
    "FULLY_CONNECTED": _fully_connected,
    "BATCH_MATMUL": _batch_matmul,
}


def _plain_flops(kind: str, ins: _Ins, outs: _Outs, opts: Mapping[str, Any]) -> int:
    """Flops of ops without multiply-accumulates."""
    out_elems = numel(outs[0].shape) if outs else 0
    if kind in ELEMENTWISE_FLOPS:
        return ELEMENTWISE_FLOPS[kind] * out_elems
    if kind == "ADD_N":
        return max(len(ins) - 1, 0) * out_elems
    if kind in POOLS:
        return out_elems * int(opts.get("filter_h", 1)) * int(opts.get("filter_w", 1))
    in_elems = numel(ins[0].shape) if ins and ins[0] is not None else 0
    if kind in REDUCTIONS:
        return in_elems
    if kind == "MEAN":
        return in_elems + out_elems
    if kind in DATA_MOVEMENT:
        return 0
    return sum(numel(o.shape) for o in outs)


def _activation_flops(outs: _Outs, opts: Mapping[str, Any]) -> int:
    act = opts.get("fused_activation", "NONE")
    return numel(outs[0].shape) if outs and act not in ("NONE", None) else 0


def op_cost(
    kind: str, inputs: _Ins, outputs: _Outs, options: Mapping[str, Any] | None = None
) -> OpCost:
    """The cost figures of one op (formulas in the module docstring)."""
    opts = options or {}
    if kind in _MAC_OPS:
        macs, flops = _MAC_OPS[kind](inputs, outputs, opts)
    else:
        macs, flops = 0, _plain_flops(kind, inputs, outputs, opts)
    present = [t for t in inputs if t is not None]
    return OpCost(
        macs=macs,
        flops=flops + _activation_flops(outputs, opts),
        weight_bytes=sum(t.nbytes for t in present if t.is_const),
        in_bytes=sum(t.nbytes for t in present if not t.is_const),
        out_bytes=sum(t.nbytes for t in outputs),
    )
