"""Band's shortest-latency search: the fastest chain of subgraphs to the end of a model.

A job whose next unit is ``u`` can finish its model along many chains of subgraphs: each
chain covers the units ``u..n-1`` with contiguous subgraphs, each on some processor. Band
(``Engine::GetShortestLatencyWithUnitSubgraph`` in ``band/engine.cc``) finds the chain that
ends soonest with a dynamic programme over unit indices:

* ``finish[j]`` = the earliest time the units ``u..j`` can be done;
* a subgraph covering units ``i..j`` on processor ``p`` can start once its predecessor
  chain is done *and* ``p`` has drained the work already waiting on it, so it finishes at
  ``max(waiting[p], finish[i-1]) + expected(subgraph)`` (``finish[u-1] = 0``);
* ``finish[j]`` is the minimum over all subgraphs ending at ``j``.

Times are ns relative to *now*: ``waiting[p]`` is how long processor ``p`` stays busy with
work it already has (0 when idle). Schedulers use the answer two ways: its *first* subgraph
is what to run now, and its finish is the job's expected remaining latency.

Tie-breaking follows Band: among subgraphs covering the same units the later one in the plan
wins (``GetShortestSubgraphKey`` keeps the last minimum), and among different unit ranges
ending at ``j`` the one with the latest start unit wins (the search runs ``i = j`` down to
``u`` and keeps the first strict minimum).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from baselines.band.chains import NONE, FlatPlan, programme
from harness.seams.plan import ModelPlan, Subgraph

#: expected latency of each subgraph of a plan, ns, in the order of ``plan.subgraphs``
Costs = Sequence[int] | np.ndarray


def plan_costs(plan: ModelPlan, cost: Callable[[Subgraph], int]) -> list[int]:
    """The cost vector of ``plan`` (one :func:`ChainFinder.shortest` argument)."""
    return [cost(sg) for sg in plan.subgraphs]


@dataclass(frozen=True, slots=True)
class Chain:
    """The fastest way to finish a job: subgraphs in execution order and when the last ends."""

    subgraphs: tuple[Subgraph, ...]
    #: ns from now until the last subgraph ends
    finish_ns: int

    @property
    def first(self) -> Subgraph:
        return self.subgraphs[0]

    @property
    def second(self) -> Subgraph | None:
        return self.subgraphs[1] if len(self.subgraphs) > 1 else None


#: subgraphs covering the same units: (position in ``plan.subgraphs``, processor, subgraph)
_Range = tuple[tuple[int, str, Subgraph], ...]
#: for one end unit j: (start unit i, the subgraphs covering exactly i..j), i descending
_Ending = tuple[tuple[int, _Range], ...]


def _index(plan: ModelPlan) -> tuple[_Ending, ...]:
    ranges: dict[tuple[int, int], list[tuple[int, str, Subgraph]]] = {}
    for k, sg in enumerate(plan.subgraphs):
        ranges.setdefault((sg.first_unit, sg.last_unit), []).append((k, sg.processor, sg))
    ending: list[list[tuple[int, _Range]]] = [[] for _ in range(plan.num_units)]
    for (i, j), sgs in ranges.items():
        ending[j].append((i, tuple(sgs)))
    return tuple(tuple(sorted(e, key=lambda r: -r[0])) for e in ending)


# Mirrors band/engine.cc Engine::GetShortestSubgraphKey: `>=` keeps the last minimum.
def _fastest(
    sgs: _Range, begin_ns: int, waiting: Mapping[str, int], costs: Costs
) -> tuple[Subgraph, int]:
    best, best_ns = sgs[0][2], -1
    for k, proc, sg in sgs:
        wait = waiting[proc]
        total = costs[k] + (wait if wait > begin_ns else begin_ns)
        if best_ns < 0 or total <= best_ns:
            best, best_ns = sg, total
    return best, best_ns


class ChainFinder:
    """Band's shortest-latency DP over a plan's units, with per-plan caches of its index.

    :meth:`shortest` runs the compiled programme (:mod:`baselines.band.chains`);
    :meth:`shortest_reference` is the same programme in plain Python, kept as the readable
    definition the compiled one is tested against."""

    def __init__(self) -> None:
        self._indices: dict[ModelPlan, tuple[_Ending, ...]] = {}
        self._flat: dict[tuple[ModelPlan, tuple[str, ...]], FlatPlan] = {}
        self._steps: dict[ModelPlan, np.ndarray] = {}

    def _ending(self, plan: ModelPlan) -> tuple[_Ending, ...]:
        index = self._indices.get(plan)
        if index is None:
            index = self._indices[plan] = _index(plan)
        return index

    def steps(self, plan: ModelPlan, next_unit: int) -> int:
        """The subgraphs a search from ``next_unit`` weighs (those starting there or later)."""
        counts = self._steps.get(plan)
        if counts is None:
            firsts = np.bincount([sg.first_unit for sg in plan.subgraphs],
                                 minlength=plan.num_units + 1)
            counts = self._steps[plan] = np.cumsum(firsts[::-1])[::-1]
        return int(counts[next_unit]) if next_unit < len(counts) else 0

    def _flat_plan(self, plan: ModelPlan, processors: tuple[str, ...]) -> FlatPlan:
        key = (plan, processors)
        flat = self._flat.get(key)
        if flat is None:
            flat = self._flat[key] = FlatPlan.of(plan, processors)
        return flat

    def shortest(
        self, plan: ModelPlan, next_unit: int, waiting: Mapping[str, int], costs: Costs
    ) -> Chain | None:
        """The chain from ``next_unit`` to the model's end that finishes first, or None;
        ``costs`` by subgraph index (:func:`plan_costs`, or the estimator's vector)."""
        flat = self._flat_plan(plan, tuple(waiting))
        wait = np.fromiter(waiting.values(), dtype=np.int64, count=len(waiting))
        finish, last, first = programme(flat, next_unit, np.asarray(costs, dtype=np.int64),
                                        wait)
        end = plan.num_units - 1
        if next_unit > end or finish[end] == NONE:
            return None
        chain, j = [], end
        while j >= next_unit:
            chain.append(plan.subgraphs[int(last[j])])
            j = int(first[j]) - 1
        return Chain(tuple(reversed(chain)), int(finish[end]))

    # Mirrors band/engine.cc Engine::GetShortestLatencyWithUnitSubgraph (memo over end units,
    # kept here as back-pointers instead of copied key lists).
    def shortest_reference(
        self, plan: ModelPlan, next_unit: int, waiting: Mapping[str, int], costs: Costs
    ) -> Chain | None:
        """:meth:`shortest` in plain Python, as Band writes it."""
        ending = self._ending(plan)
        memo: dict[int, tuple[int, Subgraph, int]] = {}  # j -> (finish, last sg, its start i)
        for j in range(next_unit, plan.num_units):
            best: tuple[int, Subgraph, int] | None = None
            for i, sgs in ending[j]:
                if i < next_unit or (i > next_unit and i - 1 not in memo):
                    continue
                begin = memo[i - 1][0] if i > next_unit else 0
                sg, finish = _fastest(sgs, begin, waiting, costs)
                if best is None or finish < best[0]:
                    best = (finish, sg, i)
            if best is not None:
                memo[j] = best
        return _backtrack(memo, next_unit, plan.num_units - 1)


def _backtrack(memo: Mapping[int, tuple[int, Subgraph, int]], start: int, end: int) -> Chain | None:
    if end not in memo:
        return None
    finish, chain, j = memo[end][0], [], end
    while j >= start:
        _, sg, i = memo[j]
        chain.append(sg)
        j = i - 1
    return Chain(tuple(reversed(chain)), finish)
