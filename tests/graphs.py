"""Hand-built model graphs for tests: chains, DAGs and single-op graphs.

Layout of :func:`dag`: tensor 0 is the model input; op ``i`` writes tensor ``i + 1`` and reads
the outputs of its predecessors (the model input when it has none, or only a constant when it
is listed in ``const_only``); the outputs of ops nothing reads are the model outputs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from harness.graph import ModelGraph, Op, Tensor
from harness.plan import Processor, ProcessorKind

SHAPE = (1, 8, 8, 4)
CPU = Processor("cpu", ProcessorKind.CPU)
GPU = Processor("gpu", ProcessorKind.GPU)
NPU = Processor("npu", ProcessorKind.NPU)


def _tensor(index: int, shape: Sequence[int] = SHAPE, dtype: str = "float32",
            const: bool = False) -> Tensor:
    n = 1
    for d in shape:
        n *= d
    return Tensor(index, f"t{index}", tuple(shape), dtype, n * 4, const, dtype in ("int8", "uint8"))


def dag(
    edges: Iterable[tuple[int, int]],
    kinds: Sequence[str],
    const_only: Iterable[int] = (),
    name: str = "dag",
) -> ModelGraph:
    """A DAG of ``len(kinds)`` ops; ``edges`` are ``(producer, consumer)`` op pairs, and every
    edge goes forward (``producer < consumer``), so op order is a topological order."""
    n = len(kinds)
    preds: dict[int, list[int]] = {i: [] for i in range(n)}
    for a, b in edges:
        assert 0 <= a < b < n, (a, b)
        preds[b].append(a)
    const_ops, weight = set(const_only), n + 1
    tensors = [_tensor(i) for i in range(n + 1)] + [_tensor(weight, const=True)]
    ops = []
    for i, kind in enumerate(kinds):
        ins = [weight] if i in const_ops else [a + 1 for a in preds[i]] or [0]
        ops.append(Op(i, kind, 1, tuple(ins), (i + 1,), flops=100))
    read = {t for op in ops for t in op.inputs}
    outputs = tuple(i + 1 for i in range(n) if i + 1 not in read)
    return ModelGraph(name, tuple(tensors), tuple(ops), (0,), outputs)


def chain(kinds: Sequence[str], name: str = "chain") -> ModelGraph:
    """Ops in a line: op ``i`` reads op ``i - 1``."""
    return dag([(i, i + 1) for i in range(len(kinds) - 1)], kinds, name=name)


def single_op(
    kind: str,
    inputs: Sequence[tuple[Sequence[int], str, bool]] = ((SHAPE, "float32", False),),
    outputs: Sequence[tuple[Sequence[int], str]] = ((SHAPE, "float32"),),
    version: int = 1,
    options: Mapping[str, Any] | None = None,
) -> ModelGraph:
    """One op; ``inputs`` are ``(shape, dtype, is_const)``, ``outputs`` ``(shape, dtype)``."""
    tensors = [_tensor(i, s, d, c) for i, (s, d, c) in enumerate(inputs)]
    tensors += [_tensor(len(tensors) + k, s, d) for k, (s, d) in enumerate(outputs)]
    ins = tuple(range(len(inputs)))
    outs = tuple(range(len(inputs), len(tensors)))
    op = Op(0, kind, version, ins, outs, options=dict(options or {}))
    graph_ins = tuple(i for i in ins if not tensors[i].is_const)
    return ModelGraph(kind.lower(), tuple(tensors), (op,), graph_ins, outs)
