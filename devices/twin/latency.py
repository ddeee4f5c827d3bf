"""Roofline op costs: how long a subgraph takes on one processor in a given state.

An op is either compute-bound or memory-bound (the roofline model):

    op_ns = max(flops / (peak[dtype] * efficiency[class] * f / f_max),
                bytes / bandwidth) + dispatch overhead

with ``peak`` in GOP/s (= operations per ns) and ``bandwidth`` in GB/s (= bytes per ns).
``dtype`` is what the op computes in on that processor (the GPU delegate runs float32 as
float16, see ``run_as``); ``bytes`` are its weights plus runtime activations read and written,
rescaled to that dtype's element size. A subgraph costs the sum of its ops plus one invoke
overhead. The frequency ``f`` (after throttling) and the bandwidth (after contention) are the
*state*; the rest depends only on the graph and the processor, so :func:`subgraph_cost`
computes it once and :meth:`SubgraphCost.latency_ns` evaluates it for any state.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from devices.twin.spec import TwinProcessorSpec
from harness.seams.graph import ModelGraph, Op

NS_PER_US = 1_000.0

_ELEMENT_BYTES = {"float32": 4, "float16": 2, "int8": 1}
_FLOATS = ("float32", "float16")
_INT8 = ("int8", "uint8")
_CLASS_OF_KIND = {
    "CONV_2D": "conv",
    "CONV_3D": "conv",
    "TRANSPOSE_CONV": "conv",
    "DEPTHWISE_CONV_2D": "depthwise",
    "FULLY_CONNECTED": "fully_connected",
    "BATCH_MATMUL": "fully_connected",
}


def op_class(op: Op) -> str:
    """``conv``, ``depthwise``, ``fully_connected`` or ``other`` (element-wise, pooling...)."""
    return _CLASS_OF_KIND.get(op.kind, "other")


def op_dtype(graph: ModelGraph, op: Op) -> str:
    """The numeric type an op works in: any float tensor makes it a float op."""
    tensors = [graph.tensors[i] for i in (*graph.runtime_inputs(op.index), *op.outputs) if i >= 0]
    dtypes = {t.dtype for t in tensors}
    for d in _FLOATS:
        if d in dtypes:
            return d
    return "int8"  # 8-bit and other integer ops (int32 index ops) use the integer units


@dataclass(frozen=True, slots=True)
class SubgraphCost:
    """State-independent cost figures of one subgraph on one processor."""

    #: per op: compute time at the top frequency, ns
    compute_ns: np.ndarray
    #: per op: bytes moved to and from memory
    nbytes: np.ndarray
    #: invoke overhead + dispatch overhead of every op, ns
    fixed_ns: float

    def latency_ns(self, f_ratio: float, bandwidth_gbps: float) -> float:
        """Latency at frequency ``f_ratio`` x f_max with ``bandwidth_gbps`` available."""
        compute = self.compute_ns / f_ratio
        memory = self.nbytes / bandwidth_gbps
        return float(np.maximum(compute, memory).sum()) + self.fixed_ns


def op_cost(spec: TwinProcessorSpec, graph: ModelGraph, op: Op) -> tuple[float, float]:
    """(compute ns at f_max, bytes) of one op on ``spec``'s processor."""
    dtype = op_dtype(graph, op)
    run = spec.compute_dtype(dtype)
    assert run is not None, f"{spec.name} cannot compute {dtype} op {op.index} ({op.kind})"
    rate = spec.peak_gflops[run] * spec.efficiency[op_class(op)]
    scale = _ELEMENT_BYTES[run] / _ELEMENT_BYTES[dtype]
    return op.flops / rate, (op.weight_bytes + op.in_bytes + op.out_bytes) * scale


def subgraph_cost(spec: TwinProcessorSpec, graph: ModelGraph, ops: Iterable[int]) -> SubgraphCost:
    """Cost figures of running ``ops`` of ``graph`` as one subgraph on ``spec``'s processor."""
    return OpTable.of(spec, graph).subgraph(ops)


@dataclass(frozen=True)
class OpTable:
    """Every op's (compute ns at f_max, bytes) on one processor, computed once per model;
    NaN marks an op whose dtype the processor cannot compute."""

    spec: TwinProcessorSpec
    graph: ModelGraph
    compute_ns: np.ndarray
    nbytes: np.ndarray

    @classmethod
    def of(cls, spec: TwinProcessorSpec, graph: ModelGraph) -> OpTable:
        rows = [op_cost(spec, graph, op) if spec.compute_dtype(op_dtype(graph, op)) is not None
                else (np.nan, np.nan) for op in graph.ops]
        table = np.array(rows, dtype=float).reshape(len(rows), 2)
        return cls(spec, graph, table[:, 0].copy(), table[:, 1].copy())

    def subgraph(self, ops: Iterable[int]) -> SubgraphCost:
        indices = np.fromiter(sorted(ops), dtype=np.int64)
        compute, nbytes = self.compute_ns[indices], self.nbytes[indices]
        if np.isnan(compute).any():
            bad = int(indices[np.isnan(compute)][0])
            op_cost(self.spec, self.graph, self.graph.ops[bad])  # raises with the op named
        spec = self.spec
        fixed = (spec.invoke_overhead_us + spec.dispatch_overhead_us * len(indices)) * NS_PER_US
        return SubgraphCost(compute, nbytes, fixed)


def transfer_ns(nbytes: int, fixed_us: float, bandwidth_gbps: float) -> float:
    """Moving ``nbytes`` of tensors to another processor (0 when nothing moves)."""
    return fixed_us * NS_PER_US + nbytes / bandwidth_gbps if nbytes > 0 else 0.0


def effective_bandwidth(total_gbps: float, share: float, busy: int) -> float:
    """Bandwidth one processor gets while ``busy`` processors (itself included) run: its own
    cap ``share`` x total, or an equal split of the total, whichever is smaller."""
    return min(share * total_gbps, total_gbps / max(busy, 1))
