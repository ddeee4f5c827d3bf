"""Reading a ``.tflite`` file into a :class:`~harness.seams.graph.ModelGraph`.

A TFLite model is a flatbuffer (file identifier ``TFL3``) holding operator codes, buffers and
subgraphs. Only the primary subgraph (index 0) is read: it is what an interpreter runs.

* **Tensors** keep their shape from the file (a ``-1`` dimension becomes 1), their numpy dtype
  name, their byte size, whether they are constant (backed by a non-empty buffer) and whether
  they carry quantization scales.
* **Ops** keep the file's execution order. The kind is the builtin operator name (the larger of
  ``builtin_code`` and ``deprecated_builtin_code``, as TFLite itself resolves it) or
  ``CUSTOM:<name>``. Optional inputs stay as ``-1``. Options are flattened into a JSON-friendly
  dict in snake case (``stride_h``, ``fused_activation``: ``"RELU6"``, ``padding``: ``"SAME"``,
  ...), plus ``filter_h``/``filter_w`` taken from the weights of convolutions, ``in_dtype`` (the
  dtype of the first runtime input) and ``max_rank`` (the largest rank among the op's tensors).
* Costs come from :func:`harness.models.costs.op_cost`.

Errors a user can cause (a missing file, a file that is not a TFLite flatbuffer) raise
:class:`~harness.seams.errors.UserError` naming the path.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from ai_edge_litert import schema_py_generated as schema
from ai_edge_litert.tools import flatbuffer_utils

from harness.models.costs import op_cost
from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph, Op, Tensor

TFLITE_IDENTIFIER = b"TFL3"

#: TensorType value -> numpy-style dtype name (``FLOAT32`` -> ``float32``)
DTYPE_NAMES: Mapping[int, str] = {
    v: k.lower() for k, v in vars(schema.TensorType).items() if not k.startswith("_")
}
#: bits per element of each dtype; unknown types (string, resource, variant) count 8
_BITS = {"float64": 64, "int64": 64, "uint64": 64, "complex64": 64, "complex128": 128,
         "float32": 32, "int32": 32, "uint32": 32, "float16": 16, "bfloat16": 16, "int16": 16,
         "uint16": 16, "int4": 4, "uint4": 4, "int2": 2}
#: ActivationFunctionType value -> name (``RELU6``); Padding value -> name (``SAME``)
ACTIVATIONS: Mapping[int, str] = {
    v: k for k, v in vars(schema.ActivationFunctionType).items() if not k.startswith("_")
}
PADDINGS: Mapping[int, str] = {
    v: k for k, v in vars(schema.Padding).items() if not k.startswith("_")
}
_RENAMES = {"fusedActivationFunction": "fused_activation", "dilationHFactor": "dilation_h",
            "dilationWFactor": "dilation_w", "filterHeight": "filter_h",
            "filterWidth": "filter_w", "strideH": "stride_h", "strideW": "stride_w",
            "adjX": "adj_x", "adjY": "adj_y"}
_WEIGHT_INPUT = {"CONV_2D": 1, "DEPTHWISE_CONV_2D": 1, "TRANSPOSE_CONV": 1, "CONV_3D": 1}


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


class FileHashes:
    """Files' sha256, each hashed again only when its size or modification time changes."""

    def __init__(self) -> None:
        self._known: dict[tuple[Path, int, int], str] = {}

    def sha256(self, path: Path) -> str:
        stat = path.stat()
        stamp = (path.resolve(), stat.st_mtime_ns, stat.st_size)
        if stamp not in self._known:
            self._known[stamp] = sha256_file(path)
        return self._known[stamp]


def load_model_object(path: str | Path) -> schema.ModelT:
    """The flatbuffer object of a ``.tflite`` file; ``UserError`` if it is not one."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"model file {str(path)!r} does not exist")
    with path.open("rb") as f:
        head = f.read(8)
    if len(head) < 8 or head[4:8] != TFLITE_IDENTIFIER:
        raise UserError(f"{str(path)!r} is not a TFLite model (no TFL3 identifier)")
    try:
        model = flatbuffer_utils.read_model(str(path))
    except Exception as exc:  # a corrupt flatbuffer can fail in many ways
        raise UserError(f"{str(path)!r} is a corrupt TFLite model: {exc}") from None
    if not model.subgraphs:
        raise UserError(f"{str(path)!r} has no subgraph")
    return model


def read_tflite(path: str | Path, name: str | None = None) -> ModelGraph:
    """Read the primary subgraph of a ``.tflite`` file as a :class:`ModelGraph`."""
    path = Path(path)
    model = load_model_object(path)
    sub = model.subgraphs[0]
    tensors = tuple(
        _tensor(i, t, model.buffers or []) for i, t in enumerate(sub.tensors or [])
    )
    ops = tuple(_op(i, op, model, tensors) for i, op in enumerate(sub.operators or []))
    return ModelGraph(
        name=name or path.stem,
        tensors=tensors,
        ops=ops,
        inputs=tuple(int(i) for i in sub.inputs or []),
        outputs=tuple(int(i) for i in sub.outputs or []),
        source_sha256=sha256_file(path),
        meta={"source_file": path.name},
    )


# -- tensors -------------------------------------------------------------------------------


def tensor_shape(t: schema.TensorT) -> tuple[int, ...]:
    """Shape from the file (``shape``, else ``shape_signature``); ``-1`` becomes 1."""
    dims = t.shape if t.shape is not None and len(t.shape) else t.shapeSignature
    return tuple(1 if int(d) < 0 else int(d) for d in (dims if dims is not None else ()))


def buffer_size(model_buffers: Sequence[schema.BufferT], index: int) -> int:
    """Bytes of data in a buffer (0 for the empty buffer or an out-of-range index)."""
    if not 0 < index < len(model_buffers):
        return 0
    data = model_buffers[index].data
    return len(data) if data is not None else 0


def _tensor(index: int, t: schema.TensorT, buffers: Sequence[schema.BufferT]) -> Tensor:
    shape = tensor_shape(t)
    dtype = DTYPE_NAMES.get(t.type, f"type{t.type}")
    const_bytes = 0 if t.isVariable else buffer_size(buffers, t.buffer)
    numel = int(np.prod(shape, dtype=np.int64)) if shape else 1
    nbytes = const_bytes or (numel * _BITS.get(dtype, 8) + 7) // 8
    q = t.quantization
    return Tensor(
        index=index,
        name=_text(t.name) or f"t{index}",
        shape=shape,
        dtype=dtype,
        nbytes=nbytes,
        is_const=const_bytes > 0,
        quantized=q is not None and q.scale is not None and len(q.scale) > 0,
    )


def _text(value: bytes | str | None) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return value or ""


# -- ops -----------------------------------------------------------------------------------


def op_kind(model: schema.ModelT, opcode_index: int) -> tuple[str, int]:
    """The kind name (``CONV_2D`` or ``CUSTOM:<name>``) and version of an opcode."""
    code = model.operatorCodes[opcode_index]
    builtin = flatbuffer_utils.get_builtin_code_from_operator_code(code)
    if builtin == schema.BuiltinOperator.CUSTOM:
        kind = f"CUSTOM:{_text(code.customCode)}"
    else:
        kind = flatbuffer_utils.opcode_to_name(model, opcode_index) or f"BUILTIN_{builtin}"
    return kind, int(code.version or 1)


def _op(index: int, op: schema.OperatorT, model: schema.ModelT, tensors: Sequence[Tensor]) -> Op:
    kind, version = op_kind(model, op.opcodeIndex)
    inputs = tuple(int(i) for i in op.inputs or [])
    outputs = tuple(int(i) for i in op.outputs or [])
    ins = [tensors[i] if i >= 0 else None for i in inputs]
    outs = [tensors[i] for i in outputs if i >= 0]
    options = op_options(kind, op, ins, outs)
    cost = op_cost(kind, ins, outs, options)
    return Op(
        index=index, kind=kind, version=version, inputs=inputs, outputs=outputs,
        macs=cost.macs, flops=cost.flops, weight_bytes=cost.weight_bytes,
        in_bytes=cost.in_bytes, out_bytes=cost.out_bytes, options=options,
    )


def op_options(
    kind: str, op: schema.OperatorT, ins: Sequence[Tensor | None], outs: Sequence[Tensor]
) -> dict[str, Any]:
    """The op's builtin options, flattened, plus derived facts (see module docstring)."""
    options = _builtin_options(op.builtinOptions)
    weight_at = _WEIGHT_INPUT.get(kind)
    if weight_at is not None and len(ins) > weight_at and ins[weight_at] is not None:
        w_shape = ins[weight_at].shape  # type: ignore[union-attr]
        if len(w_shape) >= 3:
            options["filter_h"], options["filter_w"] = int(w_shape[-3]), int(w_shape[-2])
    runtime = [t for t in ins if t is not None and not t.is_const]
    options["in_dtype"] = runtime[0].dtype if runtime else ""
    present = [t for t in ins if t is not None] + list(outs)
    options["max_rank"] = max((len(t.shape) for t in present), default=0)
    return options


def _builtin_options(obj: object) -> dict[str, Any]:
    if obj is None:
        return {}
    return {
        option_name(key): _option_value(key, value)
        for key, value in vars(obj).items()
        if is_plain_option(value)
    }


def option_name(key: str) -> str:
    """The profile's name of an options attribute (``strideH`` -> ``stride_h``)."""
    return _RENAMES.get(key) or re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower()


def is_plain_option(value: object) -> bool:
    """A value the profile keeps: a number, a flag or a list of integers."""
    if isinstance(value, list | np.ndarray):
        return all(isinstance(v, int | np.integer) for v in value)
    return isinstance(value, bool | int | float | np.bool_ | np.integer | np.floating)


def _option_value(key: str, value: Any) -> Any:
    if key == "fusedActivationFunction":
        return ACTIVATIONS.get(int(value), str(value))
    if key == "padding":
        return PADDINGS.get(int(value), str(value))
    if isinstance(value, list | np.ndarray):
        return [int(v) for v in value]
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, float | np.floating):
        return float(value)
    return int(value)
