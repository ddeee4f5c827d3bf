"""Model graphs: the operators and tensors of a DNN, with per-op cost figures.

A :class:`ModelGraph` is what every other part of the harness knows of a model. It is read
once from a ``.tflite`` file (:mod:`harness.models.tflite_io`) and can be saved to, and loaded
from, a compact JSON *graph profile*, so that the simulated devices need neither the
``.tflite`` file nor TensorFlow.

Vocabulary (as in TFLite and Band's ``ModelSpec``):

* an **op** has input and output tensors; its *runtime inputs* are the inputs that are not
  constant (weights and biases are always available, so they never create a dependency);
* the graph is a DAG: an op depends on the producers of its runtime inputs;
* ``ops`` are stored in the file's execution order, which is a topological order.

Costs are per op: ``macs`` (multiply-accumulates), ``flops`` (floating-point or integer
operations, 2 per MAC plus element-wise work), ``weight_bytes`` (constant inputs), and
``in_bytes`` / ``out_bytes`` (runtime activations read and written).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from harness.seams.errors import UserError

#: Version of the JSON graph-profile layout; bump it and migrate in :func:`_migrate` on change.
PROFILE_SCHEMA = 1


@dataclass(frozen=True, slots=True)
class Tensor:
    """One tensor of the model."""

    index: int
    name: str
    shape: tuple[int, ...]
    #: numpy-style dtype name: ``float32``, ``float16``, ``int8``, ``uint8``, ``int32``, ``bool``...
    dtype: str
    nbytes: int
    #: a constant (weights, biases, shape vectors): backed by a buffer in the file
    is_const: bool
    #: carries quantization parameters (scale / zero point)
    quantized: bool = False


@dataclass(frozen=True, slots=True, eq=False)
class Op:
    """One operator, with its cost figures."""

    index: int
    #: TFLite builtin name, e.g. ``CONV_2D``; custom ops are ``CUSTOM:<name>``
    kind: str
    version: int
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    macs: int = 0
    flops: int = 0
    weight_bytes: int = 0
    in_bytes: int = 0
    out_bytes: int = 0
    #: op options that op-support rules look at (strides, dilation, fused activation, ...)
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class ModelGraph:
    """The ops and tensors of one model, in execution order."""

    name: str
    tensors: tuple[Tensor, ...]
    ops: tuple[Op, ...]
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    #: sha256 of the source ``.tflite`` (empty for hand-built graphs)
    source_sha256: str = ""
    #: free-form facts about how the model was made (builder, seed, versions)
    meta: Mapping[str, Any] = field(default_factory=dict)

    # -- structure -------------------------------------------------------------------------

    @property
    def num_ops(self) -> int:
        return len(self.ops)

    def runtime_inputs(self, op_index: int) -> frozenset[int]:
        """Non-constant input tensors of an op (Band: ``op_input_tensors``)."""
        return self._runtime_inputs[op_index]

    def op_outputs(self, op_index: int) -> frozenset[int]:
        return self._op_outputs[op_index]

    @cached_property
    def _runtime_inputs(self) -> tuple[frozenset[int], ...]:
        const = {t.index for t in self.tensors if t.is_const}
        return tuple(
            frozenset(i for i in op.inputs if i >= 0 and i not in const) for op in self.ops
        )

    @cached_property
    def _op_outputs(self) -> tuple[frozenset[int], ...]:
        return tuple(frozenset(o for o in op.outputs if o >= 0) for op in self.ops)

    @cached_property
    def producer(self) -> Mapping[int, int]:
        """Tensor index -> index of the op that writes it."""
        return {t: op.index for op in self.ops for t in self._op_outputs[op.index]}

    @cached_property
    def _consumers(self) -> Mapping[int, frozenset[int]]:
        readers: dict[int, set[int]] = {}
        for i, ins in enumerate(self._runtime_inputs):
            for t in ins:
                readers.setdefault(t, set()).add(i)
        return {t: frozenset(ops) for t, ops in readers.items()}

    def consumers_of(self, tensor: int) -> frozenset[int]:
        """The ops that read ``tensor`` at run time."""
        return self._consumers.get(tensor, frozenset())

    @cached_property
    def predecessors(self) -> tuple[frozenset[int], ...]:
        """For each op, the ops whose outputs it reads."""
        prod = self.producer
        return tuple(
            frozenset(prod[t] for t in self._runtime_inputs[i] if t in prod)
            for i in range(self.num_ops)
        )

    @cached_property
    def successors(self) -> tuple[frozenset[int], ...]:
        succ: list[set[int]] = [set() for _ in self.ops]
        for i, preds in enumerate(self.predecessors):
            for p in preds:
                succ[p].add(i)
        return tuple(frozenset(s) for s in succ)

    @cached_property
    def _memo(self) -> dict[tuple[str, frozenset[int]], frozenset[int]]:
        """:meth:`pure_inputs`, :meth:`outputs_of` and :meth:`exported` by op set, made once
        per graph (a graph never changes; a run asks for each subgraph's several times, and
        every run of a process reads the same graphs)."""
        return {}

    def pure_inputs(self, op_indices: Iterable[int]) -> frozenset[int]:
        """Runtime tensors a set of ops reads but does not itself produce (Band's
        ``GetPureInputTensors``)."""
        ops = frozenset(op_indices)
        key = ("pure", ops)
        hit = self._memo.get(key)
        if hit is None:
            read: set[int] = set().union(*(self._runtime_inputs[i] for i in ops))
            made: set[int] = set().union(*(self._op_outputs[i] for i in ops))
            hit = self._memo[key] = frozenset(read - made)
        return hit

    def outputs_of(self, op_indices: Iterable[int]) -> frozenset[int]:
        """All tensors written by a set of ops (Band's ``GetOutputTensors``)."""
        ops = frozenset(op_indices)
        key = ("out", ops)
        hit = self._memo.get(key)
        if hit is None:
            hit = self._memo[key] = frozenset().union(*(self._op_outputs[i] for i in ops))
        return hit

    def exported(self, op_indices: Iterable[int]) -> frozenset[int]:
        """Tensors a set of ops writes that something outside it reads (or the model
        returns)."""
        ops = frozenset(op_indices)
        key = ("exported", ops)
        hit = self._memo.get(key)
        if hit is None:
            outputs = set(self.outputs)
            hit = self._memo[key] = frozenset(
                t for t in self.outputs_of(ops) if t in outputs
                or any(c not in ops for c in self.consumers_of(t)))
        return hit

    # -- totals ----------------------------------------------------------------------------

    @property
    def total_flops(self) -> int:
        return sum(op.flops for op in self.ops)

    @property
    def total_macs(self) -> int:
        return sum(op.macs for op in self.ops)

    @property
    def parameter_count(self) -> int:
        weight_tensors = {i for op in self.ops for i in op.inputs if i >= 0}
        return sum(
            _numel(t.shape) for t in self.tensors if t.is_const and t.index in weight_tensors
        )

    @property
    def weight_bytes(self) -> int:
        return sum(t.nbytes for t in self.tensors if t.is_const)

    def op_kind_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for op in self.ops:
            counts[op.kind] = counts.get(op.kind, 0) + 1
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

    @property
    def is_quantized(self) -> bool:
        """True when the model computes in 8-bit integers: its inputs are 8-bit, or its first
        op quantizes a float input."""
        q8_inputs = any(self.tensors[i].dtype in ("int8", "uint8") for i in self.inputs)
        return q8_inputs or (bool(self.ops) and self.ops[0].kind == "QUANTIZE")

    # -- JSON profile ----------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": PROFILE_SCHEMA,
            "name": self.name,
            "source_sha256": self.source_sha256,
            "meta": dict(self.meta),
            "inputs": list(self.inputs),
            "outputs": list(self.outputs),
            # compact rows: [name, shape, dtype, nbytes, is_const, quantized]
            "tensors": [
                [t.name, list(t.shape), t.dtype, t.nbytes, int(t.is_const), int(t.quantized)]
                for t in self.tensors
            ],
            # compact rows: [kind, version, inputs, outputs, macs, flops, weight_bytes,
            #                in_bytes, out_bytes, options]
            "ops": [
                [
                    op.kind, op.version, list(op.inputs), list(op.outputs), op.macs, op.flops,
                    op.weight_bytes, op.in_bytes, op.out_bytes, dict(op.options),
                ]
                for op in self.ops
            ],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ModelGraph:
        data = _migrate(dict(data))
        tensors = tuple(
            Tensor(i, r[0], tuple(r[1]), r[2], int(r[3]), bool(r[4]), bool(r[5]))
            for i, r in enumerate(data["tensors"])
        )
        ops = tuple(
            Op(i, r[0], int(r[1]), tuple(r[2]), tuple(r[3]), int(r[4]), int(r[5]), int(r[6]),
               int(r[7]), int(r[8]), dict(r[9]))
            for i, r in enumerate(data["ops"])
        )
        return cls(
            name=data["name"], tensors=tensors, ops=ops, inputs=tuple(data["inputs"]),
            outputs=tuple(data["outputs"]), source_sha256=data.get("source_sha256", ""),
            meta=dict(data.get("meta", {})),
        )

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_dict(), separators=(",", ":")) + "\n")
        return path

    @classmethod
    def load(cls, path: str | Path) -> ModelGraph:
        path = Path(path)
        if not path.is_file():
            raise UserError(f"graph profile {str(path)!r} does not exist")
        try:
            return cls.from_dict(json.loads(path.read_text()))
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise UserError(f"{str(path)!r} is not a graph profile: {exc}") from None


def _numel(shape: Iterable[int]) -> int:
    n = 1
    for d in shape:
        n *= max(int(d), 1)
    return n


def _migrate(data: dict[str, Any]) -> dict[str, Any]:
    schema = data.get("schema")
    if schema != PROFILE_SCHEMA:
        raise ValueError(f"graph profile schema {schema!r}, expected {PROFILE_SCHEMA}")
    return data
