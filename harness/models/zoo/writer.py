"""Writing a zoo model's ``.tflite`` from its committed graph profile and recipe, without
TensorFlow.

The file has the profile's tensors (names, shapes, dtypes; quantization from the recipe) and
ops (kinds, versions, inputs, outputs, builtin options rebuilt from the profile's flattened
options and the recipe's table names), in one subgraph, with the profile's inputs and outputs.
Each constant gets its own buffer of the profile's size:

* integer constants without quantization (shapes, axes, paddings) hold the recipe's values;
* float weights (rank 2 or more, ``[out, ..., in]`` as TFLite lays them out) are Glorot-uniform
  as Keras initialises them, other float constants (biases, scales) uniform in [0.5, 1);
* quantized weights are random int8 with random per-channel scales, and a quantized bias's
  scales are its op's input scale times its weights' scales, as TFLite requires; its values
  are small random int32.

Values come from one seeded :class:`numpy.random.Generator` drawn in tensor order, so a seed
always gives the same bytes. (The object API use follows ``tests/fixtures/tinymodels.py`` and
:mod:`devices.host.slicing`.)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from ai_edge_litert import schema_py_generated as schema
from ai_edge_litert.tools import flatbuffer_utils

from harness.models.tflite_io import ACTIVATIONS, DTYPE_NAMES, PADDINGS, option_name
from harness.models.zoo.recipe import Recipe
from harness.seams.graph import ModelGraph, Op, Tensor

_TYPES = {name: value for value, name in DTYPE_NAMES.items()}
_ENUMS = {"fusedActivationFunction": {v: k for k, v in ACTIVATIONS.items()},
          "padding": {v: k for k, v in PADDINGS.items()}}
#: input positions of (input, weights, bias) of the ops whose quantized bias scale is derived
_BIASED = {"CONV_2D": (0, 1, 2), "DEPTHWISE_CONV_2D": (0, 1, 2), "FULLY_CONNECTED": (0, 1, 2),
           "TRANSPOSE_CONV": (2, 1, 3)}
#: the schema's escape code for builtin codes that do not fit the deprecated int8 field
_PLACEHOLDER = 127


def write(graph: ModelGraph, recipe: Recipe, seed: int = 0) -> bytes:
    """The ``.tflite`` bytes of ``graph`` with constants drawn from ``seed``."""
    if len(recipe.options) != graph.num_ops:
        raise ValueError(f"{graph.name}: recipe has {len(recipe.options)} ops, graph "
                         f"{graph.num_ops}")
    rng = np.random.default_rng(seed)
    quant = _quantization(graph, recipe, rng)
    model = schema.ModelT()
    model.version, model.description = 3, f"{graph.name}, written from its profile (seed {seed})"
    model.buffers = [schema.BufferT()]
    sub = schema.SubGraphT()
    sub.name = "main"
    sub.tensors = [_tensor(t, recipe, quant, model.buffers, rng) for t in graph.tensors]
    codes: dict[tuple[str, int], int] = {}
    sub.operators = [_operator(op, recipe.options[op.index], codes) for op in graph.ops]
    sub.inputs, sub.outputs = list(graph.inputs), list(graph.outputs)
    model.subgraphs = [sub]
    model.operatorCodes = [_opcode(kind, version) for kind, version in codes]
    return bytes(flatbuffer_utils.convert_object_to_bytearray(model))


# -- tensors -------------------------------------------------------------------------------


def _tensor(t: Tensor, recipe: Recipe, quant: Mapping[int, schema.QuantizationParametersT],
            buffers: list[schema.BufferT], rng: np.random.Generator) -> schema.TensorT:
    out = schema.TensorT()
    out.name, out.shape, out.type = t.name, list(t.shape), _TYPES[t.dtype]
    out.quantization = quant.get(t.index)
    out.buffer = 0
    if t.is_const:
        data = _values(t, recipe.values.get(t.index), t.index in quant, rng)
        if data.nbytes != t.nbytes:
            raise ValueError(f"tensor {t.index} ({t.name}): {data.nbytes} bytes written, "
                             f"profile has {t.nbytes}")
        buf = schema.BufferT()
        buf.data = np.frombuffer(data.tobytes(), np.uint8)
        out.buffer = len(buffers)
        buffers.append(buf)
    return out


def _values(t: Tensor, values: Sequence[int] | None, quantized: bool,
            rng: np.random.Generator) -> np.ndarray:
    dtype = np.dtype(np.bool_ if t.dtype == "bool" else t.dtype)
    if values is not None:
        return np.array(values, dtype).reshape(t.shape)
    if t.dtype == "int8":
        return rng.integers(-127, 128, t.shape, dtype=np.int8)
    if t.dtype == "int32" and quantized:
        return rng.integers(-256, 256, t.shape, dtype=np.int32)
    if dtype.kind == "f":
        return _float_values(t.shape, rng).astype(dtype)
    raise ValueError(f"tensor {t.index} ({t.name}): no values for a {t.dtype} constant")


def _float_values(shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    if len(shape) < 2:
        return rng.uniform(0.5, 1.0, shape)
    numel = int(np.prod(shape))
    fan_in, fan_out = numel // shape[0], numel // shape[-1]
    limit = np.sqrt(6.0 / (fan_in + fan_out))
    return rng.uniform(-limit, limit, shape)


def _quantization(graph: ModelGraph, recipe: Recipe, rng: np.random.Generator
                  ) -> dict[int, schema.QuantizationParametersT]:
    """Every quantized tensor's parameters; biases' scales derived from their op's."""
    scales: dict[int, np.ndarray] = {}
    params = {}
    for t, (axis, row_scales, zero_points) in sorted(recipe.quantization.items()):
        if zero_points is None:  # a constant: random scales, zero points 0
            scales[t] = rng.uniform(0.002, 0.02, int(row_scales))
            zero_points = [0] * int(row_scales)
        else:
            scales[t] = np.array(row_scales, np.float64)
        params[t] = (axis, zero_points)
    for op in graph.ops:
        _derive_bias(op, graph, scales, params)
    return {t: _params(scales[t], zps, axis) for t, (axis, zps) in params.items()}


def _derive_bias(op: Op, graph: ModelGraph, scales: dict[int, np.ndarray],
                 params: Mapping[int, Any]) -> None:
    at = _BIASED.get(op.kind)
    if at is None or len(op.inputs) <= max(at):
        return
    x, w, b = (op.inputs[i] for i in at)
    if min(x, w, b) < 0 or not {x, w, b} <= params.keys() or not graph.tensors[b].is_const:
        return
    scales[b] = scales[x][0] * scales[w] * np.ones(len(scales[b]))


def _params(scales: np.ndarray, zero_points: Sequence[int], axis: int
            ) -> schema.QuantizationParametersT:
    q = schema.QuantizationParametersT()
    q.scale = [float(s) for s in scales]
    q.zeroPoint = [int(z) for z in zero_points]
    q.quantizedDimension = axis
    return q


# -- operators -----------------------------------------------------------------------------


def _operator(op: Op, table: str | None, codes: dict[tuple[str, int], int]) -> schema.OperatorT:
    out = schema.OperatorT()
    out.opcodeIndex = codes.setdefault((op.kind, op.version), len(codes))
    out.inputs, out.outputs = list(op.inputs), list(op.outputs)
    if table is not None:
        out.builtinOptionsType = getattr(schema.BuiltinOptions, table)
        out.builtinOptions = _options(table, op.options)
    return out


def _options(table: str, flat: Mapping[str, Any]) -> Any:
    """The options table ``table`` with the attributes the profile's flat options name."""
    options = getattr(schema, f"{table}T")()
    for attr in vars(options):
        name = option_name(attr)
        if name in flat:
            value = flat[name]
            setattr(options, attr, _ENUMS[attr][value] if attr in _ENUMS else value)
    return options


def _opcode(kind: str, version: int) -> schema.OperatorCodeT:
    if kind.startswith("CUSTOM:"):
        raise ValueError(f"custom op {kind} cannot be written from a profile")
    code = schema.OperatorCodeT()
    code.builtinCode = getattr(schema.BuiltinOperator, kind)
    code.deprecatedBuiltinCode = min(code.builtinCode, _PLACEHOLDER)
    code.version = version
    return code
