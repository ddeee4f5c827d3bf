"""The compiled shortest-latency search is Band's search: equal to the plain-Python reference
(:meth:`ChainFinder.shortest_reference`) on random plans, costs, waiting times and starts,
ties included."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from baselines.band.analyzer import analyze
from baselines.band.planner import ChainFinder
from tests.baselines.band.test_analyzer import PROCS, cases


@settings(max_examples=300, deadline=None)
@given(cases(), st.integers(1, 3), st.data())
def test_compiled_search_equals_the_reference(case: tuple, size: int, data: st.DataObject
                                              ) -> None:
    graph, unsupported = case
    plan = analyze(graph, PROCS, unsupported, size)
    # few distinct values, so that ties between chains and between subgraphs are common
    costs = data.draw(st.lists(st.integers(1, 4), min_size=len(plan.subgraphs),
                               max_size=len(plan.subgraphs)))
    waiting = {p.name: data.draw(st.integers(0, 6)) for p in PROCS}
    finder = ChainFinder()
    for start in range(plan.num_units + 1):
        assert finder.shortest(plan, start, waiting, costs) == finder.shortest_reference(
            plan, start, waiting, costs), start
