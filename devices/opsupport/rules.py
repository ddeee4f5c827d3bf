"""The op-support rule tables, as data: op kind -> condition, per delegate rule set.

Each table restates one section of ``docs/reference/op-support.md`` (itself restated from the
LiteRT sources: ``gpu_compatibility.cc`` / ``model_builder.cc`` for the GPU, ``nnapi_delegate.cc``
for NNAPI, ``hexagon/utils.cc`` for Hexagon; the small XNNPACK table sits beside its global rule
in :mod:`devices.opsupport`). A
*condition* is a :data:`Check`: a small function of an :class:`OpView` (the op and the graph's
tensors) that returns ``None`` when the op passes and a short reason when it does not, so that
:func:`devices.opsupport.explain` can say *why* an op falls back.

Unknown means permissive: an option the ``.tflite`` reader did not record (``stride_h``,
``depth_multiplier``, ``fused_activation``...) never rejects an op. The tables are therefore an
upper bound of what a delegate takes, as the reference notes for NNAPI drivers; per-device
``reject_ops`` narrow them. Shape-broadcast legality and quantisation-scale rules are not
modelled (the reader does not record scales).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from harness.seams.graph import ModelGraph, Op, Tensor

F = ("float32", "float16")
Q8 = ("int8", "uint8")
FQ = F + Q8
RELU_ACTS = ("NONE", "RELU", "RELU6", "RELU_N1_TO_1")


@dataclass(frozen=True, slots=True)
class OpView:
    """One op seen with its graph's tensors (and the NNAPI level the rules run at)."""

    graph: ModelGraph
    op: Op
    api_level: int = 31

    def opt(self, name: str) -> Any:
        """An op option, or ``None`` when the reader did not record it (unknown)."""
        return self.op.options.get(name)

    def input(self, pos: int) -> Tensor | None:
        ins = self.op.inputs
        return self.graph.tensors[ins[pos]] if pos < len(ins) and ins[pos] >= 0 else None

    @property
    def ins(self) -> tuple[Tensor, ...]:
        return tuple(self.graph.tensors[i] for i in self.op.inputs if i >= 0)

    @property
    def rt_ins(self) -> tuple[Tensor, ...]:
        return tuple(t for t in self.ins if not t.is_const)

    @property
    def outs(self) -> tuple[Tensor, ...]:
        return tuple(self.graph.tensors[i] for i in self.op.outputs if i >= 0)

    @property
    def max_rank(self) -> int:
        ranks = [len(t.shape) for t in self.ins + self.outs]
        return max([*ranks, int(self.opt("max_rank") or 0)])


Check = Callable[[OpView], "str | None"]


def ok(_: OpView) -> str | None:
    return None


def all_of(*checks: Check) -> Check:
    return lambda v: next((r for r in (c(v) for c in checks) if r is not None), None)


def ver(n: int) -> Check:
    return lambda v: f"version {v.op.version} > {n}" if v.op.version > n else None


def ver_eq(n: int) -> Check:
    return lambda v: f"version {v.op.version} != {n}" if v.op.version != n else None


def n_in(lo: int, hi: int | None = None, runtime: bool = False) -> Check:
    """Between ``lo`` and ``hi`` inputs (only the runtime ones when ``runtime``)."""
    hi, what = lo if hi is None else hi, "runtime inputs" if runtime else "inputs"

    def check(v: OpView) -> str | None:
        n = len(v.rt_ins if runtime else v.ins)
        return None if lo <= n <= hi else f"{n} {what}, needs {lo}..{hi}"

    return check


def n_rt(lo: int, hi: int | None = None) -> Check:
    return n_in(lo, hi, runtime=True)


def rt_types(*dtypes: str) -> Check:
    """Every runtime input has one of ``dtypes``."""
    return lambda v: next(
        (f"runtime dtype {t.dtype} not in {dtypes}" for t in v.rt_ins if t.dtype not in dtypes),
        None,
    )


def in_type(*dtypes: str) -> Check:
    return lambda v: (
        f"input dtype {t.dtype} not in {dtypes}"
        if (t := v.input(0)) is not None and t.dtype not in dtypes else None
    )


def in_rank(lo: int, hi: int) -> Check:
    return lambda v: (
        f"input rank {len(t.shape)} not in {lo}..{hi}"
        if (t := v.input(0)) is not None and not lo <= len(t.shape) <= hi else None
    )


def rank_le(n: int) -> Check:
    return lambda v: f"a tensor has rank {v.max_rank} > {n}" if v.max_rank > n else None


def const_at(*positions: int) -> Check:
    """The inputs at ``positions`` (when present) are constants."""
    return lambda v: next(
        (f"input {p} must be constant" for p in positions
         if (t := v.input(p)) is not None and not t.is_const),
        None,
    )


def opt_in(name: str, *values: Any) -> Check:
    return lambda v: (
        f"{name}={x!r} not in {values}" if (x := v.opt(name)) is not None and x not in values
        else None
    )


def opt_range(name: str, lo: float, hi: float = 1e9) -> Check:
    return lambda v: (
        f"{name}={x} not in {lo}..{hi}" if (x := v.opt(name)) is not None and not lo <= x <= hi
        else None
    )


def act(*allowed: str) -> Check:
    return opt_in("fused_activation", *allowed)


def strides(lo: int, hi: int = 10**9) -> Check:
    return all_of(opt_range("stride_h", lo, hi), opt_range("stride_w", lo, hi))


def dilation_one(v: OpView) -> str | None:
    d = (v.opt("dilation_h"), v.opt("dilation_w"))
    return "dilation is not 1" if any(x not in (None, 1) for x in d) else None


def below(api: int, check: Check) -> Check:
    """NNAPI: ``check`` applies only at API levels below ``api``."""
    return lambda v: check(v) if v.api_level < api else None


def since(api: int, option: str) -> Check:
    """NNAPI: an op that sets ``option`` (truthy) needs API level ``api``."""
    return lambda v: (
        f"{option} needs NNAPI API {api}" if v.opt(option) and v.api_level < api else None
    )


def input_channels(v: OpView) -> int | None:
    t = v.input(0)
    return t.shape[-1] if t is not None and t.shape else None


# -- shared composite conditions ------------------------------------------------------------


def gpu_dw_multiplier(v: OpView) -> str | None:
    """GPU: depth_multiplier must be 1 unless the input has one channel."""
    m, c = v.opt("depth_multiplier"), input_channels(v)
    if m in (None, 1) or c in (None, 1):
        return None
    return f"depth_multiplier {m} > 1 with {c} input channels"


def hexagon_dw(v: OpView) -> str | None:
    """Hexagon DW: filter height >=2; dilation only at stride 1; multiplier 1 unless C==1."""
    if (fh := v.opt("filter_h")) is not None and fh < 2:
        return f"filter height {fh} < 2"
    dilated = dilation_one(v) is not None
    if dilated and strides(1, 1)(v):
        return "dilation needs stride 1"
    m, c = v.opt("depth_multiplier"), input_channels(v)
    if m in (None, 1) or (c in (None, 1) and not dilated):
        return None
    return f"depth_multiplier {m} > 1"


def corners(v: OpView) -> str | None:
    both = v.opt("align_corners") and v.opt("half_pixel_centers")
    return "align_corners and half_pixel_centers both true" if both else None


def beta_one(v: OpView) -> str | None:
    b = v.opt("beta")
    return f"beta {b} != 1" if b is not None and b != 1 else None


def keep_dims_same_rank(v: OpView) -> str | None:
    t, outs = v.input(0), v.outs
    bad = v.opt("keep_num_dims") and t and outs and len(t.shape) != len(outs[0].shape)
    return "keep_num_dims with input rank != output rank" if bad else None


def first_input_runtime(v: OpView) -> str | None:
    return "input 0 is constant" if (t := v.input(0)) is not None and t.is_const else None


def no_const_inputs(v: OpView) -> str | None:
    return "has constant inputs" if len(v.rt_ins) != len(v.ins) else None


Table = Mapping[str, Check]


def rows(*groups: tuple[str, Check]) -> dict[str, Check]:
    """``("ADD SUB", check)`` rows -> ``{"ADD": check, "SUB": check}``."""
    return {kind: check for kinds, check in groups for kind in kinds.split()}


# -- 1. GPU delegate (op-support.md section 1) ----------------------------------------------

def gpu_act(v: OpView) -> str | None:
    return "fused activation SIGN_BIT" if v.opt("fused_activation") == "SIGN_BIT" else None


GPU: Table = rows(
    ("ADD ADD_N", all_of(ver(2), n_in(2))),
    ("MUL", all_of(ver(3), n_in(2), gpu_act)),
    ("SUB DIV", all_of(ver(2), n_in(2), n_rt(1, 2), gpu_act)),
    ("POW SQUARED_DIFFERENCE MAXIMUM MINIMUM FLOOR_DIV FLOOR_MOD",
     all_of(ver(2), n_in(2), n_rt(1, 2))),
    ("EQUAL NOT_EQUAL LESS LESS_EQUAL GREATER GREATER_EQUAL LOGICAL_AND", ver(2)),
    ("ABS COS SIN EXP LOG FLOOR ELU GELU NEG RSQRT SIGN SQRT SQUARE TANH LOGISTIC",
     all_of(ver(2), n_rt(1), no_const_inputs)),
    ("HARD_SWISH", n_rt(1)),
    ("RELU RELU6 RELU_N1_TO_1 RELU_0_TO_1 LEAKY_RELU", ver(2)),
    ("PRELU", all_of(ver(1), const_at(1))),
    ("CONV_2D", all_of(ver(6), n_rt(1, 2), strides(1), gpu_act)),
    ("DEPTHWISE_CONV_2D", all_of(ver(6), in_rank(4, 4), gpu_dw_multiplier, gpu_act)),
    ("TRANSPOSE_CONV", all_of(ver(3), n_rt(1, 2))),
    ("FULLY_CONNECTED", all_of(ver(9), n_rt(1, 2), first_input_runtime, keep_dims_same_rank)),
    ("BATCH_MATMUL", n_in(2)),
    ("AVERAGE_POOL_2D MAX_POOL_2D", all_of(ver(2), n_rt(1), gpu_act)),
    ("CONCATENATION", ver(2)),
    ("RESHAPE", all_of(ver(1), n_rt(1))),
    ("PACK UNPACK SPLIT SPLIT_V", ok),
    ("SLICE", all_of(ver(2), in_rank(3, 4))),
    ("STRIDED_SLICE", all_of(ver(4), in_rank(3, 4))),
    ("PAD PADV2", all_of(ver(2), n_rt(1))),
    ("MIRROR_PAD", all_of(ver(2), opt_in("mode", "REFLECT"))),
    ("MEAN SUM REDUCE_MAX REDUCE_MIN REDUCE_PROD", all_of(n_rt(1), const_at(1))),
    ("SOFTMAX", all_of(ver(2), beta_one)),
    ("RESIZE_BILINEAR", all_of(ver(3), n_rt(1), corners)),
    ("RESIZE_NEAREST_NEIGHBOR", all_of(ver(3), n_rt(1))),
    ("DEPTH_TO_SPACE", opt_range("block_size", 2)),
    ("SPACE_TO_DEPTH", all_of(ver(2), opt_range("block_size", 2))),
    ("TRANSPOSE", all_of(ver(4), n_rt(1), in_rank(2, 4))),
    ("TILE", n_rt(1)),
    ("GATHER", all_of(ver(1), n_rt(1, 2))),
    ("SELECT SELECT_V2 ONE_HOT", ver(1)),
    ("CAST", ok),
    ("CUMSUM", all_of(ver(1), in_type(*F), const_at(1))),
    ("DENSIFY", all_of(ver(1), n_rt(0))),
    ("QUANTIZE", ver(2)),
    ("DEQUANTIZE", ver(3)),
    ("LSTM", ver(4)),
    ("CUSTOM:Convolution2DTransposeBias CUSTOM:MaxPoolingWithArgmax2D "
     "CUSTOM:MaxUnpooling2D CUSTOM:Resampler", ok),
)

# -- 2. NNAPI delegate (section 2): kind -> (lowest API level, condition) --------------------

NN_FQ = rt_types(*FQ)
NN_F = rt_types(*F)
NN_FQI = rt_types(*FQ, "int32")
NN_CORNERS = all_of(since(30, "align_corners"), since(30, "half_pixel_centers"))
NN_OLD_CONV = below(29, all_of(rt_types(*F, "uint8"), dilation_one))


def _levels(*groups: tuple[int, str, Check]) -> dict[str, tuple[int, Check]]:
    """``(api, "ADD MUL", check)`` rows -> ``{"ADD": (api, check), "MUL": (api, check)}``."""
    return {kind: (api, check) for api, kinds, check in groups for kind in kinds.split()}


#: API levels 27..31 are Android 8.1..12; 33 and 34 stand for NNAPI feature levels 6 and 7.
NNAPI: Mapping[str, tuple[int, Check]] = _levels(
    (27, "ADD MUL", all_of(ver(2), NN_FQI, rank_le(4))),
    (28, "SUB", all_of(ver(3), rank_le(4), below(29, NN_F))),
    (28, "DIV", all_of(ver(1), NN_F, rank_le(4))),
    (27, "AVERAGE_POOL_2D MAX_POOL_2D RELU RELU_N1_TO_1 RELU6 LOGISTIC SPACE_TO_DEPTH",
     all_of(ver(2), NN_FQ)),
    (27, "L2_POOL_2D", all_of(ver(1), NN_F)),
    (27, "CONV_2D", all_of(ver(5), NN_OLD_CONV)),
    (27, "DEPTHWISE_CONV_2D", all_of(ver(3), NN_OLD_CONV)),
    (27, "FULLY_CONNECTED", all_of(ver(5), since(30, "keep_num_dims"),
                                   below(29, rt_types(*F, "uint8")))),
    (27, "SOFTMAX", all_of(ver(2), NN_FQ, rank_le(4))),
    (27, "RESHAPE", all_of(ver(1), NN_FQ, rank_le(4), const_at(1))),
    (27, "RESIZE_BILINEAR", all_of(ver(3), in_rank(4, 4), const_at(1), below(29, NN_F),
                                   NN_CORNERS)),
    (29, "RESIZE_NEAREST_NEIGHBOR", all_of(ver(3), NN_FQ, const_at(1), NN_CORNERS)),
    (27, "CONCATENATION", all_of(ver(2), act("NONE"), rank_le(4), NN_FQ)),
    (27, "TANH", all_of(ver(2), below(29, NN_F), NN_FQ)),
    (27, "HARD_SWISH DEPTH_TO_SPACE", NN_FQ),
    (27, "FLOOR LOCAL_RESPONSE_NORMALIZATION HASHTABLE_LOOKUP EMBEDDING_LOOKUP LSH_PROJECTION "
     "RNN", ver(1)),
    (27, "DEQUANTIZE", all_of(ver(2), below(29, in_type("uint8")))),
    (27, "L2_NORMALIZATION", all_of(ver(2), act("NONE"), below(29, all_of(NN_F, rank_le(4))))),
    (28, "SVDF SQUEEZE", ver(1)),
    (28, "LSTM", ver(3)),
    (28, "PAD PADV2", all_of(ver(2), NN_FQ, below(29, NN_F))),
    (28, "SPACE_TO_BATCH_ND BATCH_TO_SPACE_ND", ver(2)),
    (28, "STRIDED_SLICE", all_of(ver(2), NN_FQ)),
    (28, "TRANSPOSE", all_of(ver(2), const_at(1))),
    (28, "MEAN", all_of(ver(2), rank_le(4), below(29, NN_F), NN_FQ)),
    (28, "SQUARED_DIFFERENCE", all_of(ver(2), rank_le(4), below(29, NN_F))),
    (29, "ABS EXP LOG POW SQRT SIN COS LOG_SOFTMAX REDUCE_PROD SUM", all_of(ver(1), NN_F)),
    (29, "RSQRT", all_of(ver(2), NN_F)),
    (29, "NEG", all_of(ver(2), rt_types(*F, "int32"))),
    (29, "ARG_MAX ARG_MIN SLICE GATHER", all_of(ver(2), NN_FQI)),
    (29, "MAXIMUM MINIMUM", all_of(ver(3), NN_FQI)),
    (29, "LESS LESS_EQUAL GREATER GREATER_EQUAL EQUAL NOT_EQUAL SELECT",
     all_of(ver(2), rt_types(*FQ, "int32", "bool"))),
    (29, "LOGICAL_AND LOGICAL_OR LOGICAL_NOT", all_of(ver(1), rt_types("bool"))),
    (29, "CAST", all_of(ver(1), rt_types("float32", "int32", "uint8", "int8"))),
    (29, "PRELU LEAKY_RELU", all_of(ver(1), NN_FQ)),
    (29, "TILE", all_of(ver(1), NN_FQI)),
    (29, "TOPK_V2", all_of(ver(2), const_at(1))),
    (29, "EXPAND_DIMS", all_of(ver(1), const_at(1))),
    (29, "SPLIT", all_of(ver(3), const_at(0))),
    (29, "TRANSPOSE_CONV", all_of(ver(4), const_at(0, 1))),
    (29, "QUANTIZE UNIDIRECTIONAL_SEQUENCE_LSTM", ver(2)),
    (29, "REDUCE_MIN REDUCE_MAX REDUCE_ANY", all_of(ver(2), NN_FQ)),
    (29, "UNIDIRECTIONAL_SEQUENCE_RNN BIDIRECTIONAL_SEQUENCE_LSTM", ver(1)),
    (30, "ELU", all_of(ver(1), NN_F)),
    (30, "SPLIT_V", all_of(ver(2), const_at(1, 2))),
    (30, "FILL", all_of(ver(1), const_at(0))),
    (30, "PACK", ver(2)),
    (30, "UNPACK", all_of(ver(2), in_rank(2, 4))),
    (30, "DENSIFY", n_rt(0)),
    (33, "BATCH_MATMUL", all_of(ver(2), in_rank(2, 4))),
    (34, "MIRROR_PAD", ver(2)),
    (34, "REVERSE_V2", ver(3)),
)

# -- 3. Hexagon delegate (section 3); the q8 / rank-4 rule is global -------------------------

HEX_ACT = act(*RELU_ACTS)
HEXAGON: Table = rows(
    ("ADD SUB MUL", all_of(ver(2), HEX_ACT)),
    ("CONV_2D", all_of(ver(3), strides(1, 3), dilation_one, HEX_ACT)),
    ("DEPTHWISE_CONV_2D", all_of(ver(3), strides(1, 3), hexagon_dw, HEX_ACT)),
    ("TRANSPOSE_CONV", all_of(ver(3), strides(1, 3), opt_in("padding", "SAME", "VALID"))),
    ("FULLY_CONNECTED", all_of(ver(4), opt_in("keep_num_dims", False), HEX_ACT)),
    ("AVERAGE_POOL_2D MAX_POOL_2D", all_of(ver(2), n_in(1), act("NONE"))),
    ("CONCATENATION PACK SOFTMAX TANH LOGISTIC RELU6 SPACE_TO_DEPTH DEPTH_TO_SPACE "
     "ARG_MAX ARG_MIN MAXIMUM MINIMUM SLICE SPLIT TRANSPOSE QUANTIZE", ver(2)),
    ("RESHAPE", all_of(ver(1), n_in(1, 2))),
    ("RELU", ver_eq(2)),
    ("HARD_SWISH NEG", ver(1)),
    ("L2_NORMALIZATION", all_of(ver(2), act("NONE"))),
    ("MEAN", all_of(ver(2), const_at(1))),
    ("PAD", all_of(ver(2), n_in(2), const_at(1))),
    ("MIRROR_PAD", all_of(ver(2), const_at(1))),
    ("RESIZE_BILINEAR RESIZE_NEAREST_NEIGHBOR", all_of(ver(3), const_at(1))),
    ("STRIDED_SLICE", all_of(ver(2), const_at(1, 2, 3))),
    ("SQUARED_DIFFERENCE RSQRT", all_of(ver_eq(2), rt_types("int8"))),
)
