"""Where each running job's tensors are, on the twin (:mod:`devices.twin.device`): a subgraph
reading an input another processor produced pays to move it (fixed cost plus bytes / transfer
bandwidth, :func:`devices.twin.latency.transfer_ns`). Only the tensors some subgraph of the
loaded plan can read as an input made elsewhere are recorded."""

from __future__ import annotations

from collections.abc import Callable

from devices.twin.facts import Facts
from harness.seams.graph import ModelGraph
from harness.seams.plan import ModelPlan, Subgraph


class TensorLocations:
    """(job id, request id) -> tensor -> the processor that produced it."""

    def __init__(self, graph: Callable[[str], ModelGraph]) -> None:
        #: model -> its graph (an unknown model is the caller's error)
        self._graph = graph
        self._where: dict[tuple[int, int], dict[int, str]] = {}
        self._inputs: dict[tuple[str, frozenset[int]], tuple[tuple[int, int], ...]] = {}
        #: model -> :meth:`read_by_some` of its loaded plan
        self._read: dict[str, frozenset[int]] = {}

    def moved_bytes(self, job: tuple[int, int], facts: Facts) -> int:
        """Bytes of the subgraph's inputs that were made on another processor than its own."""
        where = self._where.get(job)
        if not where:
            return 0
        here = facts.subgraph.processor
        moved = 0
        for t, nbytes in facts.inputs:
            if where.get(t, here) != here:
                moved += nbytes
        return moved

    def record(self, job: tuple[int, int], facts: Facts) -> None:
        """A run of the subgraph of ``facts`` ended well: its outputs are where it ran (a
        job whose plan it ends is complete, and forgotten)."""
        if facts.last:
            self._where.pop(job, None)
            return
        where = self._where.get(job)
        if where is None:
            where = self._where[job] = {}
        where.update(facts.made)

    def forget(self, job: tuple[int, int]) -> None:
        """The job failed: its tensors are gone."""
        self._where.pop(job, None)

    def pure_inputs(self, subgraph: Subgraph) -> tuple[tuple[int, int], ...]:
        """(tensor, bytes) of the subgraph's pure inputs (cached per op set)."""
        key = (subgraph.model, subgraph.ops)
        if key not in self._inputs:
            graph = self._graph(subgraph.model)
            self._inputs[key] = tuple((t, graph.tensors[t].nbytes)
                                      for t in sorted(graph.pure_inputs(subgraph.ops)))
        return self._inputs[key]

    def read_by_some(self, plan: ModelPlan) -> frozenset[int]:
        """The tensors some subgraph of ``plan`` can read as an input made elsewhere: the
        pure inputs of its units (a subgraph's pure inputs are among its units', as it is a
        run of whole units), so only where these were made is worth recording."""
        got = self._read.get(plan.model)
        if got is None:
            graph = self._graph(plan.model)
            got = self._read[plan.model] = frozenset().union(
                *(graph.pure_inputs(ops) for ops in plan.units))
        return got

    def loaded(self) -> None:
        """New plans were loaded: what was read of the old ones goes."""
        self._read.clear()

    def clear(self) -> None:
        self._where.clear()
