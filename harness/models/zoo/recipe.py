"""A zoo model's *recipe*: what its ``.tflite`` holds beyond its graph profile, so that the file
can be written again from the profile alone (:mod:`harness.models.zoo.writer`).

The graph profile (:class:`~harness.seams.graph.ModelGraph`) keeps every tensor's name, shape,
dtype and size and every op's kind, version, tensors and flattened builtin options. A recipe adds,
under the profile's ``"tflite"`` key (which :meth:`ModelGraph.from_dict` does not read, so the
graph, and everything computed from it, is the same with or without it):

* ``options``: each op's builtin-options table name (``Conv2DOptions``), ``null`` for none;
* ``quantization``: ``[tensor, axis, scales, zero_points]`` for each runtime tensor with
  quantization parameters (exact), ``[tensor, axis, channels]`` for each constant one (its
  values are random, so are its scales; a bias's are derived from its op's, see the writer);
* ``values``: ``[tensor, [values...]]`` for each integer constant without quantization (shape
  vectors, axes, paddings, block sizes: the values that decide shapes).

Only a model of one subgraph with builtin ops whose options the profile keeps whole has a
recipe (:func:`recipe_of` raises ``ValueError`` otherwise).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from ai_edge_litert import schema_py_generated as schema

from harness.models.tflite_io import DTYPE_NAMES, is_plain_option

#: BuiltinOptions value -> table name (``Conv2DOptions``)
OPTIONS_TABLES: Mapping[int, str] = {
    v: k for k, v in vars(schema.BuiltinOptions).items() if not k.startswith("_")
}
_INTEGER = ("int8", "uint8", "int16", "int32", "int64", "bool")


@dataclass(frozen=True)
class Recipe:
    """The parts of a ``.tflite`` a graph profile lacks (see the module docstring)."""

    #: per op: the builtin-options table name, or None
    options: tuple[str | None, ...]
    #: tensor -> (quantized dimension, scales, zero points); constants: (axis, channels)
    quantization: Mapping[int, tuple[int, Any, Any]]
    #: integer constant tensor -> its values, flattened
    values: Mapping[int, tuple[int, ...]]

    def to_dict(self) -> dict[str, Any]:
        quant = [[t, axis, scales, zps] if zps is not None else [t, axis, scales]
                 for t, (axis, scales, zps) in sorted(self.quantization.items())]
        return {"options": list(self.options), "quantization": quant,
                "values": [[t, list(v)] for t, v in sorted(self.values.items())]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Recipe:
        quant = {int(r[0]): (int(r[1]), r[2], r[3] if len(r) > 3 else None)
                 for r in data["quantization"]}
        values = {int(t): tuple(int(v) for v in vs) for t, vs in data["values"]}
        return cls(tuple(data["options"]), quant, values)


def recipe_of(model: schema.ModelT) -> Recipe:
    """The recipe of a model read with the object API; ``ValueError`` if it cannot have one."""
    if len(model.subgraphs) != 1:
        raise ValueError(f"{len(model.subgraphs)} subgraphs; a recipe covers one")
    sub = model.subgraphs[0]
    options = tuple(_options_table(op) for op in sub.operators or [])
    const = {i for i, t in enumerate(sub.tensors) if _has_data(model.buffers, t)}
    quant, values = {}, {}
    for i, t in enumerate(sub.tensors or []):
        q = t.quantization
        if q is not None and q.scale is not None and len(q.scale):
            quant[i] = _quant_row(q, i in const)
        elif i in const and DTYPE_NAMES.get(t.type) in _INTEGER:
            data = np.frombuffer(bytes(model.buffers[t.buffer].data), _numpy_dtype(t.type))
            values[i] = tuple(int(v) for v in data)
    return Recipe(options, quant, values)


def _options_table(op: schema.OperatorT) -> str | None:
    if op.builtinOptions is None:
        return None
    if op.customOptions is not None and len(op.customOptions):
        raise ValueError("an op has custom options")
    dropped = [k for k, v in vars(op.builtinOptions).items()
               if v is not None and not is_plain_option(v)]
    if dropped:
        raise ValueError(f"options {dropped} are not kept by the profile")
    return OPTIONS_TABLES[op.builtinOptionsType]


def _quant_row(q: schema.QuantizationParametersT, is_const: bool) -> tuple[int, Any, Any]:
    axis = int(q.quantizedDimension or 0)
    if is_const:
        return axis, len(q.scale), None
    zps = q.zeroPoint if q.zeroPoint is not None else [0] * len(q.scale)
    return axis, [float(s) for s in q.scale], [int(z) for z in zps]


def _has_data(buffers: Sequence[schema.BufferT], t: schema.TensorT) -> bool:
    if t.isVariable or not 0 < t.buffer < len(buffers):
        return False
    data = buffers[t.buffer].data
    return data is not None and len(data) > 0


def _numpy_dtype(tensor_type: int) -> np.dtype[Any]:
    name = DTYPE_NAMES[tensor_type]
    return np.dtype(np.bool_ if name == "bool" else name)
