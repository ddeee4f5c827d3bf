"""Vanilla TFLite's plan of one model on one processor: the delegate's partitions.

The model runs on ``processor`` through its delegate; the ops the delegate rejects, and its
partitions beyond the delegate's cap (``max_delegated_partitions``: the GPU delegate keeps
only the largest) or below its minimum size, run on the CPU. The fallback runs are Band's
(:func:`baselines.band.analyzer.fallback_subgraphs`), the same walk TFLite's partitioner
makes. Units alternate processor and CPU, one subgraph each: there is nothing to choose.
"""

from __future__ import annotations

from collections.abc import Sequence

from baselines.band.analyzer import fallback_subgraphs
from harness.seams.graph import ModelGraph
from harness.seams.plan import ModelPlan, Processor, ProcessorKind, Subgraph


def tflite_plan(
    graph: ModelGraph,
    processor: Processor,
    unsupported: frozenset[int],
    cpu_name: str,
    max_partitions: int | None,
    min_partition_ops: int = 1,
    concurrent: bool = False,
) -> ModelPlan:
    """Vanilla TFLite: the model on ``processor``; its unsupported ops, and its delegate
    partitions beyond the ``max_partitions`` largest (or smaller than ``min_partition_ops``),
    on the CPU ``cpu_name``. Units alternate processor / CPU, one subgraph each.
    ``concurrent``: the model is an interpreter of its own on an app thread, run beside the
    others (``ModelPlan.concurrent``)."""
    if processor.kind is ProcessorKind.CPU or processor.name == cpu_name:
        placed = [(processor.name, frozenset(range(graph.num_ops)))]
    else:
        placed = _coalesce(_place(fallback_subgraphs(graph, processor, unsupported), unsupported,
                                  processor.name, cpu_name, max_partitions, min_partition_ops))
    units = tuple(ops for _, ops in placed)
    subgraphs = tuple(Subgraph(u, graph.name, name, ops, (u,)) for u, (name, ops)
                      in enumerate(placed))
    meta = {"analyzer": "tflite", "processor": processor.name, "max_partitions": max_partitions}
    return ModelPlan(graph.name, units, tuple(frozenset({n}) for n, _ in placed), subgraphs, 1,
                     meta, shared_interpreter=True, concurrent=concurrent)


def _place(
    runs: Sequence[frozenset[int]],
    unsupported: frozenset[int],
    name: str,
    cpu_name: str,
    max_partitions: int | None,
    min_ops: int,
) -> list[tuple[str, frozenset[int]]]:
    """Each run with the processor that runs it: the delegate keeps its largest partitions."""
    delegated = [k for k, run in enumerate(runs) if not run & unsupported and len(run) >= min_ops]
    delegated.sort(key=lambda k: (-len(runs[k]), k))
    kept = set(delegated if max_partitions is None else delegated[:max_partitions])
    return [(name if k in kept else cpu_name, run) for k, run in enumerate(runs)]


def _coalesce(placed: Sequence[tuple[str, frozenset[int]]]) -> list[tuple[str, frozenset[int]]]:
    """Join neighbouring runs placed on the same processor (runs are in execution order)."""
    out: list[tuple[str, frozenset[int]]] = []
    for name, ops in placed:
        if out and out[-1][0] == name:
            out[-1] = (name, out[-1][1] | ops)
        else:
            out.append((name, ops))
    return out
