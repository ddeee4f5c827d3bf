""":func:`harness.models.bound.handoff_bytes` on small hand-built graphs: the bytes a
subgraph's predecessor must hand over are those of its pure inputs that the previous unit
made, and nothing older; checked by hand and against the literal definition."""

from __future__ import annotations

from collections.abc import Sequence

from harness.models.bound import handoff_bytes
from harness.seams.plan import ModelPlan, Subgraph
from tests.fixtures.graphs import dag

TENSOR_BYTES = 1 * 8 * 8 * 4 * 4  # tests.fixtures.graphs.SHAPE in float32


def unit_plan(model: str, units: Sequence[Sequence[int]]) -> ModelPlan:
    """A plan whose units hold the given ops, with every range on the cpu."""
    ops = tuple(frozenset(u) for u in units)
    subgraphs = [(a, b) for a in range(len(ops)) for b in range(a, len(ops))]
    return ModelPlan(model, ops, tuple(frozenset({"cpu"}) for _ in ops), tuple(
        Subgraph(k, model, "cpu", frozenset().union(*ops[a:b + 1]), tuple(range(a, b + 1)))
        for k, (a, b) in enumerate(subgraphs)))


def subgraph(mp: ModelPlan, first: int, last: int) -> Subgraph:
    return next(sg for sg in mp.subgraphs if (sg.first_unit, sg.last_unit) == (first, last))


def test_handoff_bytes_counts_only_what_the_previous_unit_made() -> None:
    # op 2 reads op 0's output (unit 0) and op 1's (unit 1): only the latter is counted
    graph = dag([(0, 1), (1, 2), (0, 2)], ["ADD"] * 3)
    mp = unit_plan("dag", [[0], [1], [2]])
    assert graph.pure_inputs([2]) == {1, 2}
    assert handoff_bytes(graph, mp, subgraph(mp, 2, 2)) == TENSOR_BYTES
    # units 1..2 read only op 0's output, which unit 0 made
    assert handoff_bytes(graph, mp, subgraph(mp, 1, 2)) == TENSOR_BYTES
    assert handoff_bytes(graph, mp, subgraph(mp, 0, 2)) == 0


def test_handoff_bytes_is_zero_when_the_input_is_older() -> None:
    graph = dag([(0, 1), (0, 2)], ["ADD"] * 3)  # op 2 reads op 0 only
    mp = unit_plan("dag", [[0], [1], [2]])
    assert handoff_bytes(graph, mp, subgraph(mp, 2, 2)) == 0


def test_handoff_bytes_sums_a_units_tensors() -> None:
    graph = dag([(0, 2), (1, 2)], ["ADD"] * 3)  # unit 0 = ops 0 and 1, both read by op 2
    mp = unit_plan("dag", [[0, 1], [2]])
    assert handoff_bytes(graph, mp, subgraph(mp, 1, 1)) == 2 * TENSOR_BYTES


def test_handoff_bytes_is_the_literal_definition() -> None:
    edges = [(0, 1), (1, 2), (0, 3), (2, 3), (1, 4), (3, 5), (4, 5), (2, 5)]
    graph = dag(edges, ["ADD"] * 6)
    mp = unit_plan("dag", [[0], [1, 2], [3], [4], [5]])
    for sg in mp.subgraphs:
        made = graph.outputs_of(mp.units[sg.first_unit - 1]) if sg.first_unit else frozenset()
        literal = sum(graph.tensors[t].nbytes for t in graph.pure_inputs(sg.ops) & made)
        assert handoff_bytes(graph, mp, sg) == literal, sg.units
