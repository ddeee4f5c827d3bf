"""Cutting a ``.tflite`` model into standalone slices, one per op set.

A *slice* is a complete TFLite model that runs a subset of the ops of a source model (the
primary subgraph). Any op set works, contiguous or not; its ops run in the source's execution
order, which is topological. Tensor indices of the slice's boundary are reported in the
*source* numbering, so a runtime can feed the outputs of one slice to the inputs of the next:

* **inputs**: the runtime (non-constant) tensors the slice reads but does not produce,
  including source-model inputs, in ascending tensor index;
* **outputs**: the tensors the slice produces that an op outside the slice reads, or that are
  source-model outputs, in ascending tensor index.

Two traps (see ``FINDINGS.md``) shape the cut:

1. Some tensors carry stale shapes in the file. Every runtime tensor of a slice takes its shape
   from a non-delegated interpreter of the source model after ``allocate_tensors()`` (with
   XNNPACK for a model whose custom ops only XNNPACK provides: the way the model runs).
2. Ops whose inputs are all constants (fp16 ``DEQUANTIZE``, ``DENSIFY``, and chains of them:
   *static* ops) are copied into every slice that reads their output, and their outputs are
   never slice outputs (unless they are model outputs); XNNPACK cannot set up a layer whose
   weights arrive at run time, nor a graph whose output is such a static value. An op set made
   only of static ops is therefore an *empty* slice: nothing to run, no file, ``path`` is
   ``None``.

A slice keeps only the buffers, tensors and operator codes it uses. :class:`ModelSlicer` plans
a slice (:class:`SlicePlan`) and builds its bytes; slices are written and kept on disk by
:class:`~devices.host.slicecache.SliceCache`. A slice that cannot be built or allocated raises
:class:`~harness.seams.errors.UserError` naming the model and the op set.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from ai_edge_litert import schema_py_generated as schema
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from ai_edge_litert.tools import flatbuffer_utils

from harness.models.tflite_io import buffer_size, load_model_object, sha256_file
from harness.seams.errors import UserError


@dataclass(frozen=True, slots=True)
class SlicePlan:
    """What a slice contains, in the source model's numbering."""

    #: the requested op set, ascending
    ops: tuple[int, ...]
    #: the ops the slice runs: ``ops`` plus the static ops copied in, ascending
    included_ops: tuple[int, ...]
    #: order = the slice model's input order
    input_tensors: tuple[int, ...]
    #: order = the slice model's output order
    output_tensors: tuple[int, ...]

    @property
    def is_empty(self) -> bool:
        """Only static ops whose outputs their readers re-make: nothing to run."""
        return not self.output_tensors


class ModelSlicer:
    """Cuts slices out of one source model (read once)."""

    def __init__(self, model_path: str | Path) -> None:
        self.path = Path(model_path)
        self.model = load_model_object(self.path)
        self.sha256 = sha256_file(self.path)
        sub = self.model.subgraphs[0]
        self.tensors: list[schema.TensorT] = list(sub.tensors or [])
        self.operators: list[schema.OperatorT] = list(sub.operators or [])
        self.model_outputs = frozenset(int(i) for i in sub.outputs or [])
        self.const = frozenset(
            i for i, t in enumerate(self.tensors)
            if not t.isVariable and buffer_size(self.model.buffers or [], t.buffer) > 0
        )
        self.producer = {t: i for i, op in enumerate(self.operators) for t in _outs(op)}
        self.readers = _readers(self.operators)
        self.static_ops = _static_ops(self.operators, self.const)
        self._shapes: dict[int, list[int]] | None = None

    # -- planning --------------------------------------------------------------------------

    def plan(self, op_set: Iterable[int]) -> SlicePlan:
        """The ops, inputs and outputs of the slice for ``op_set``."""
        ops = self._checked(op_set)
        included = self._with_static_producers(ops)
        produced = {t for i in included for t in _outs(self.operators[i])}
        read = {t for i in included for t in _ins(self.operators[i])}
        outputs = sorted(t for t in produced if self._is_boundary_output(t, included))
        if not outputs and not self.static_ops.issuperset(ops):
            raise UserError(f"{self._name(ops)}: the slice produces nothing that is used")
        inputs = sorted(read - produced - self.const) if outputs else []
        return SlicePlan(ops, tuple(included), tuple(inputs), tuple(outputs))

    def _checked(self, op_set: Iterable[int]) -> tuple[int, ...]:
        ops = tuple(sorted({int(i) for i in op_set}))
        bad = [i for i in ops if not 0 <= i < len(self.operators)]
        if not ops or bad:
            raise UserError(
                f"{self._name(ops)}: op set must be non-empty indices below "
                f"{len(self.operators)}; bad: {bad}"
            )
        return ops

    def _with_static_producers(self, ops: Sequence[int]) -> list[int]:
        """``ops`` plus, transitively, the static ops producing what they read."""
        included, stack = set(ops), list(ops)
        while stack:
            for t in _ins(self.operators[stack.pop()]):
                p = self.producer.get(t)
                if p is not None and p in self.static_ops and p not in included:
                    included.add(p)
                    stack.append(p)
        return sorted(included)

    def _is_boundary_output(self, tensor: int, included: Sequence[int]) -> bool:
        """A model output, or read outside the slice and not made by a static op (whose
        readers copy it)."""
        if tensor in self.model_outputs:
            return True
        inside = set(included)
        return self.producer[tensor] not in self.static_ops and any(
            r not in inside for r in self.readers.get(tensor, ())
        )

    def _name(self, ops: Sequence[int]) -> str:
        return f"slice of {str(self.path)!r} with ops {ops_text(ops)}"

    # -- building --------------------------------------------------------------------------

    def build(self, op_set: Iterable[int], check: bool = True) -> tuple[bytes | None, SlicePlan]:
        """The ``.tflite`` bytes of the slice for ``op_set`` (checked to allocate unless
        ``check`` is false: a slice built and checked before), or ``None`` for an empty
        slice."""
        plan = self.plan(op_set)
        if plan.is_empty:
            return None, plan
        self._reject_control_flow(plan)
        data = bytes(flatbuffer_utils.convert_object_to_bytearray(self._slice_model(plan)))
        if check:
            _check_allocates(data, self._name(plan.ops))
        return data, plan

    def whole(self, op_set: Iterable[int]) -> SlicePlan | None:
        """The plan of ``op_set`` as the source model itself (its inputs and outputs in the
        source's order), when the op set is every op and its boundary is the model's; else
        ``None``."""
        ops = self._checked(op_set)
        if len(ops) != len(self.operators):
            return None
        sub = self.model.subgraphs[0]
        inputs, outputs = tuple(int(i) for i in sub.inputs or []), tuple(
            int(i) for i in sub.outputs or [])
        plan = self.plan(ops)
        if set(plan.input_tensors) != set(inputs) or set(plan.output_tensors) != set(outputs):
            return None
        if self._shapes is None:  # the source must allocate, as every slice is checked to
            self._shapes = _interpreter_shapes(self.path)
        return SlicePlan(plan.ops, plan.included_ops, inputs, outputs)

    def _reject_control_flow(self, plan: SlicePlan) -> None:
        for i in plan.included_ops:
            options = self.operators[i].builtinOptions
            if options is not None and any("subgraph" in k.lower() for k in vars(options)):
                raise UserError(f"{self._name(plan.ops)}: op {i} calls a subgraph; "
                                "control flow cannot be sliced")

    def _slice_model(self, plan: SlicePlan) -> schema.ModelT:
        ops = [self.operators[i] for i in plan.included_ops]
        used = sorted({t for op in ops for t in (*_ins(op), *_outs(op), *_mids(op))})
        tensor_map = {old: new for new, old in enumerate(used)}
        buffers, tensors = self._tensors_and_buffers(used)
        opcode_map: dict[int, int] = {}
        sub = schema.SubGraphT()
        sub.tensors, sub.name = tensors, "slice"
        sub.operators = [_remap_op(op, tensor_map, opcode_map) for op in ops]
        sub.inputs = [tensor_map[t] for t in plan.input_tensors]
        sub.outputs = [tensor_map[t] for t in plan.output_tensors]
        model = schema.ModelT()
        model.version, model.description = self.model.version, f"slice {ops_text(plan.ops)}"
        model.subgraphs, model.buffers = [sub], buffers
        model.operatorCodes = [self.model.operatorCodes[old] for old in opcode_map]
        return model

    def _tensors_and_buffers(
        self, used: Sequence[int]
    ) -> tuple[list[schema.BufferT], list[schema.TensorT]]:
        buffers: list[schema.BufferT] = [schema.BufferT()]
        buffer_map: dict[int, int] = {}
        tensors = []
        for old in used:
            t = copy.copy(self.tensors[old])
            if old in self.const:
                if t.buffer not in buffer_map:
                    buffer_map[t.buffer] = len(buffers)
                    buffers.append(_array_buffer(self.model.buffers[t.buffer]))
                t.buffer = buffer_map[t.buffer]
            else:
                t.buffer = 0
                t.shape, t.shapeSignature = self._runtime_shape(old, t), None
            tensors.append(t)
        return buffers, tensors

    def _runtime_shape(self, index: int, tensor: schema.TensorT) -> list[int]:
        if self._shapes is None:
            self._shapes = _interpreter_shapes(self.path)
        return self._shapes.get(index, list(tensor.shape if tensor.shape is not None else []))


# -- helpers -------------------------------------------------------------------------------


def _ins(op: schema.OperatorT) -> list[int]:
    return [int(i) for i in op.inputs or [] if i >= 0]


def _outs(op: schema.OperatorT) -> list[int]:
    return [int(i) for i in op.outputs or [] if i >= 0]


def _mids(op: schema.OperatorT) -> list[int]:
    return [int(i) for i in op.intermediates or [] if i >= 0]


def _readers(operators: Sequence[schema.OperatorT]) -> dict[int, set[int]]:
    readers: dict[int, set[int]] = {}
    for i, op in enumerate(operators):
        for t in _ins(op):
            readers.setdefault(t, set()).add(i)
    return readers


def _static_ops(operators: Sequence[schema.OperatorT], const: frozenset[int]) -> frozenset[int]:
    """Ops whose inputs are all constants or outputs of other static ops."""
    static_tensors, static = set(const), set()
    for i, op in enumerate(operators):
        ins = _ins(op)
        if ins and all(t in static_tensors for t in ins):
            static.add(i)
            static_tensors.update(_outs(op))
    return frozenset(static)


def _remap_op(
    op: schema.OperatorT, tensor_map: dict[int, int], opcode_map: dict[int, int]
) -> schema.OperatorT:
    new = copy.copy(op)
    new.inputs = [tensor_map[i] if i >= 0 else -1 for i in op.inputs or []]
    new.outputs = [tensor_map[i] for i in op.outputs or []]
    if op.intermediates:
        new.intermediates = [tensor_map[i] for i in op.intermediates]
    new.opcodeIndex = opcode_map.setdefault(op.opcodeIndex, len(opcode_map))
    return new


def _array_buffer(buffer: schema.BufferT) -> schema.BufferT:
    """A copy whose data is a uint8 array (packed fast, not byte by byte)."""
    new = schema.BufferT()
    data = buffer.data
    new.data = data if isinstance(data, np.ndarray) else np.frombuffer(bytes(data), np.uint8)
    return new


def _interpreter_shapes(path: Path) -> dict[int, list[int]]:
    """Tensor index -> shape from an interpreter after ``allocate_tensors()``: a non-delegated
    one, or, for a model with custom ops that only the XNNPACK delegate provides (MediaPipe's
    ``Convolution2DTransposeBias``), one with XNNPACK, the way the model runs."""
    try:
        interpreter = _allocated(path, OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    except (RuntimeError, ValueError) as exc:
        if "unresolved custom op" not in str(exc):
            raise UserError(f"{str(path)!r} does not allocate in LiteRT: {_first_line(exc)}"
                            ) from None
        try:
            interpreter = _allocated(path, OpResolverType.AUTO)
        except (RuntimeError, ValueError) as again:
            raise UserError(f"{str(path)!r} does not allocate in LiteRT, with or without "
                            f"XNNPACK: {_first_line(again)}") from None
    return {int(d["index"]): [int(v) for v in d["shape"]]
            for d in interpreter.get_tensor_details()}


def _allocated(path: Path, resolver: OpResolverType) -> Interpreter:
    interpreter = Interpreter(model_path=str(path), experimental_op_resolver_type=resolver)
    interpreter.allocate_tensors()
    return interpreter


def _check_allocates(data: bytes, name: str) -> None:
    """Build an interpreter (XNNPACK applied, as at run time) and allocate its tensors."""
    try:
        Interpreter(model_content=data, num_threads=1).allocate_tensors()
    except (RuntimeError, ValueError) as exc:
        raise UserError(f"{name} does not build: {_first_line(exc)}") from None


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def ops_text(ops: Sequence[int]) -> str:
    """An op set for messages: ``[0,1,2]``, cut short past 60 characters."""
    text = ",".join(map(str, ops))
    return f"[{text}]" if len(text) <= 60 else f"[{text[:57]}...] ({len(ops)} ops)"
