"""Roofline op costs: how long a subgraph takes on one processor in a given state.

An op is either compute-bound or memory-bound (the roofline model):

    op_ns = max(flops / (peak[dtype] * efficiency[class] * f / f_max),
                bytes / bandwidth) + dispatch overhead

with ``peak`` in GOP/s (= operations per ns) and ``bandwidth`` in GB/s (= bytes per ns).
``dtype`` is what the op computes in on that processor (the GPU delegate runs float32 as
float16, see ``run_as``); ``bytes`` are its weights plus runtime activations read and written,
rescaled to that dtype's element size. A subgraph costs the sum of its ops plus one invoke
overhead (and, with the scheduler-cost mechanism, the scheduler's fixed cost of dispatching
it), and at least its delegate's invoke floor; then the copies every subgraph pays, whatever
the state: its inputs copied in from the previous interpreter (boundary copy, by the CPU at
``memcpy_gbps``, same processor too) and, on an accelerator, its inputs and outputs copied
to and from the delegate's buffers (``io_copy_gbps``). The frequency ``f`` (after throttling)
and the bandwidth (after contention) are the *state*; the rest depends only on the graph and
the processor, so :func:`subgraph_cost` computes it once and :meth:`SubgraphCost.latency_ns`
evaluates it for any state.

Measured latencies (``measured_us`` of a processor, written by ``python -m harness.calibrate``
from ``benchmark_model`` runs of each slice on a phone) take precedence over the roofline: a
subgraph whose (model, op set) was measured keeps the roofline's *shape* (which ops are
compute- or memory-bound, so throttling and contention still act on it) but its per-op figures
are scaled so that alone, at the top frequency, with the processor's own bandwidth share and
as one interpreter (as the single-model benchmark ran it) it takes exactly the measured time
(:func:`measured_cost`). Boundary copies and the scheduler's dispatch, which a single-model
benchmark does not pay, come on top as for any subgraph.

Memory: a loaded subgraph holds an interpreter and its weights where the delegate keeps its
own copy (:meth:`OpTable.held_bytes`), and an arena at least as large as its largest op's
inputs and outputs (:meth:`OpTable.arena_bytes`), resident once it first runs.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from devices.twin.spec import Mechanisms, TwinDeviceSpec, TwinProcessorSpec
from harness.seams.errors import UserError
from harness.seams.fields import MAX_TIME_S
from harness.seams.graph import ModelGraph, Op
from harness.seams.units import NS_PER_S, round_int

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
    #: invoke overhead + dispatch overhead of every op (+ the scheduler's dispatch), ns
    fixed_ns: float
    #: the delegate's shortest invoke, ns
    floor_ns: float = 0.0
    #: boundary and delegate I/O copies, ns
    copy_ns: float = 0.0

    def latency_ns(self, f_ratio: float, bandwidth_gbps: float) -> float:
        """Latency at frequency ``f_ratio`` x f_max with ``bandwidth_gbps`` available."""
        compute = self.compute_ns / f_ratio
        memory = self.nbytes / bandwidth_gbps
        run = float(np.maximum(compute, memory).sum()) + self.fixed_ns
        return max(run, self.floor_ns) + self.copy_ns


def op_cost(spec: TwinProcessorSpec, graph: ModelGraph, op: Op) -> tuple[float, float]:
    """(compute ns at f_max, bytes) of one op on ``spec``'s processor."""
    dtype = op_dtype(graph, op)
    run = spec.compute_dtype(dtype)
    assert run is not None, f"{spec.name} cannot compute {dtype} op {op.index} ({op.kind})"
    rate = spec.peak_gflops[run] * spec.efficiency[op_class(op)]
    scale = _ELEMENT_BYTES[run] / _ELEMENT_BYTES[dtype]
    return op.flops / rate, (op.weight_bytes + op.in_bytes + op.out_bytes) * scale


def subgraph_cost(spec: TwinProcessorSpec, graph: ModelGraph, ops: Iterable[int],
                  device: TwinDeviceSpec | None = None) -> SubgraphCost:
    """Cost figures of running ``ops`` of ``graph`` as one subgraph on ``spec``'s processor
    (without ``device``: the processor alone, no copies or scheduler)."""
    return OpTable.of(spec, graph, device).subgraph(ops)


_OFF = Mechanisms(False, False, False, False, False, False, False)


@dataclass(frozen=True)
class OpTable:
    """Every op's (compute ns at f_max, bytes) on one processor, computed once per model;
    NaN marks an op whose dtype the processor cannot compute. With the device's constants it
    also prices a subgraph's copies and the scheduler's dispatch."""

    spec: TwinProcessorSpec
    graph: ModelGraph
    compute_ns: np.ndarray
    nbytes: np.ndarray
    device: TwinDeviceSpec | None = None

    @classmethod
    def of(cls, spec: TwinProcessorSpec, graph: ModelGraph,
           device: TwinDeviceSpec | None = None) -> OpTable:
        rows = [op_cost(spec, graph, op) if spec.compute_dtype(op_dtype(graph, op)) is not None
                else (np.nan, np.nan) for op in graph.ops]
        table = np.array(rows, dtype=float).reshape(len(rows), 2)
        return cls(spec, graph, table[:, 0].copy(), table[:, 1].copy(), device)

    @property
    def mechanisms(self) -> Mechanisms:
        return _OFF if self.device is None else self.device.mechanisms

    def subgraph(self, ops: Iterable[int], shared: bool = False) -> SubgraphCost:
        """``ops`` as one subgraph: an interpreter of its own, or (``shared``) a delegate
        partition of a model's one interpreter, which copies nothing in from a previous
        interpreter and is not dispatched by a scheduler."""
        ops = frozenset(ops)
        indices = np.fromiter(sorted(ops), dtype=np.int64)
        compute, nbytes = self.compute_ns[indices], self.nbytes[indices]
        if np.isnan(compute).any():
            bad = int(indices[np.isnan(compute)][0])
            op_cost(self.spec, self.graph, self.graph.ops[bad])  # raises with the op named
        spec, mech = self.spec, self.mechanisms
        fixed = self._fixed_ns(len(indices))
        if mech.scheduler_cost and self.device is not None and not shared:
            fixed += self.device.scheduler_fixed_us * NS_PER_US
        floor = spec.invoke_floor_us * NS_PER_US if mech.invoke_floor else 0.0
        cost = SubgraphCost(compute, nbytes, fixed, floor, self._copies_ns(ops, shared))
        measured = spec.measured_ns.get((self.graph.name, ops))
        if measured is None:
            return cost
        base = self._fixed_ns(len(indices))
        io_ns = self._copies_ns(ops, shared=True)  # the delegate's I/O: in the measurement
        return measured_cost(cost, measured, self._alone_bandwidth_gbps(), base, io_ns)

    def _fixed_ns(self, n_ops: int) -> float:
        spec = self.spec
        return (spec.invoke_overhead_us + spec.dispatch_overhead_us * n_ops) * NS_PER_US

    def _alone_bandwidth_gbps(self) -> float:
        total = 1.0 if self.device is None else self.device.memory_bandwidth_gbps
        return self.spec.bandwidth_share * total

    def _copies_ns(self, ops: frozenset[int], shared: bool) -> float:
        device, mech, graph = self.device, self.mechanisms, self.graph
        if device is None:
            return 0.0
        inputs = graph.pure_inputs(ops)
        in_bytes = sum(graph.tensors[t].nbytes for t in inputs)
        ns = 0.0
        if mech.boundary_copy and not shared:
            ns += in_bytes / device.memcpy_gbps + len(inputs) * device.copy_fixed_us * NS_PER_US
        if mech.io_copy and self.spec.io_copy_gbps > 0:
            out_bytes = sum(graph.tensors[t].nbytes for t in exported(graph, ops))
            ns += (in_bytes + out_bytes) / self.spec.io_copy_gbps
        return ns

    def held_bytes(self, ops: Iterable[int]) -> int:
        """What a loaded subgraph holds from the start: its interpreter and, where the
        delegate keeps its own copy, its weights."""
        graph, device = self.graph, self.device
        weights = (sum(graph.ops[i].weight_bytes for i in ops) if self.spec.weight_copy
                   else 0)
        fixed = 0.0 if device is None else device.interpreter_overhead_kb * 1024
        return int(fixed + weights)

    def arena_bytes(self, ops: Iterable[int]) -> int:
        """Its tensor arena, at least its largest op's inputs and outputs (TFLite's arena
        reuses memory, so this is a lower bound): reserved at load, resident once the
        subgraph first runs and touches it (demand paging)."""
        graph = self.graph
        return max((graph.ops[i].in_bytes + graph.ops[i].out_bytes for i in ops), default=0)


def measured_cost(roofline: SubgraphCost, measured_ns: float, alone_gbps: float,
                  base_fixed_ns: float, io_ns: float) -> SubgraphCost:
    """``roofline`` pinned to a measurement: alone at the top frequency with ``alone_gbps``,
    as one interpreter, it takes ``measured_ns``, which includes its invoke and dispatch
    overheads (``base_fixed_ns``) and its delegate's I/O copies (``io_ns``). What the
    single-model benchmark did not pay (the scheduler's dispatch, boundary copies: the rest
    of ``roofline``'s fixed and copy figures) comes on top. The per-op figures keep the
    roofline's shape, scaled; when the overheads alone exceed the measurement they shrink to
    it. No invoke floor: the measurement already holds it."""
    extra_fixed = roofline.fixed_ns - base_fixed_ns
    extra_copy = roofline.copy_ns - io_ns
    budget = measured_ns - io_ns
    run = float(np.maximum(roofline.compute_ns, roofline.nbytes / alone_gbps).sum())
    if budget <= base_fixed_ns or run <= 0:
        zero = np.zeros_like(roofline.compute_ns)
        fixed = max(budget, 0.0)
        return SubgraphCost(zero, zero, fixed + extra_fixed, 0.0, measured_ns - fixed
                            + extra_copy)
    k = (budget - base_fixed_ns) / run
    return SubgraphCost(roofline.compute_ns * k, roofline.nbytes * k,
                        base_fixed_ns + extra_fixed, 0.0, io_ns + extra_copy)


def exported(graph: ModelGraph, ops: frozenset[int]) -> frozenset[int]:
    """Tensors the ops write that something outside them reads (or the model returns)."""
    return graph.exported(ops)


def transfer_ns(nbytes: int, fixed_us: float, bandwidth_gbps: float) -> float:
    """Moving ``nbytes`` of tensors to another processor (0 when nothing moves)."""
    return fixed_us * NS_PER_US + nbytes / bandwidth_gbps if nbytes > 0 else 0.0


def effective_bandwidth(total_gbps: float, share: float, busy: int) -> float:
    """Bandwidth one processor gets while ``busy`` processors (itself included) run: its own
    cap ``share`` x total, or an equal split of the total, whichever is smaller."""
    return min(share * total_gbps, total_gbps / max(busy, 1))


def whole_ns(x: float, what: str) -> int:
    """Whole ns, bounded where they become ns (not overflowing the clock and journals)."""
    if not x <= MAX_TIME_S * NS_PER_S:
        raise UserError(f"the twin's constants make {what} take {x / NS_PER_S:.3g} s alone, "
                        f"beyond the {MAX_TIME_S:g} s any time may be: check the device's "
                        "throughputs (peak_gflops, bandwidths), which must be far above 0")
    return max(1, round_int(x))
